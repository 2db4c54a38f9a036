// karmada-policy-webhook: `serve` (the default) runs the HTTPS webhook; `review` answers one
// AdmissionReview offline, byte for byte as the server would; `manifests` writes the manifests
// generated from the route table.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "admission/cluster_state.hpp"
#include "admission/feature_gates.hpp"
#include "admission/review.hpp"
#include "admission/route.hpp"
#include "admission/service.hpp"
#include "admission/settings.hpp"
#include "api/karmada.hpp"
#include "check/check.hpp"
#include "kube/ric_cache.hpp"
#include "server/metrics.hpp"
#include "server/server.hpp"
#include "table/manifests.hpp"
#include "table/table.hpp"
#include "util/file.hpp"
#include "util/log.hpp"

namespace {

constexpr int kUsageError = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "karmada-policy-webhook: %s\n", message.c_str());
  return kUsageError;
}

struct ServeFlags {
  std::string bind_address = "0.0.0.0";
  int secure_port = 8443;
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  std::string cert_name = "tls.crt";
  std::string key_name = "tls.key";
  std::string tls_min_version = "1.3";
  long long max_request_bytes = static_cast<long long>(kpw::kDefaultMaxRequestBytes);
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string health_probe_address = ":8000";
  std::string metrics_address = ":8080";
  std::string logging_format = "text";
  int verbosity = 0;
  std::string shutdown_delay = "5s";
  std::string shutdown_grace = "30s";
  long long max_connections = 4096;
  std::string handshake_timeout = "10s";
  std::string header_timeout = "10s";
  std::string read_timeout = "30s";
  std::string idle_timeout = "120s";
  long long max_header_bytes = 16384;
  long long large_review_bytes = 65536;
  int review_threads = 1;
  long long max_large_reviews = 8;
  std::string default_purge_mode = "Gracefully";
  long long default_toleration_seconds = 300;
  std::string strict_rules = "deny";
  bool allow_no_execute_taint_policy = false;
  std::optional<long long> default_rebalancer_ttl_seconds;
  std::vector<std::string> feature_gates;
  // The cluster state (RIC-1's watch cache): docs/operations.md, "Cluster state".
  std::string cluster_state = "auto";
  std::string kubeconfig;
  double kube_api_qps = 40;
  int kube_api_burst = 60;
  std::string cluster_state_stale_after = "5m";
};

// "500ms", "5s", "2m", "1h", or a bare number of seconds.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return std::nullopt;
  const long long n = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit.empty() || unit == "s") return std::chrono::seconds(n);
  if (unit == "m") return std::chrono::minutes(n);
  if (unit == "h") return std::chrono::hours(n);
  return std::nullopt;
}

// The limits of flag values are CLI11 validators, so that --help shows them and a bad value is
// refused while parsing (one line, exit status 2). CLI11 has Range and IsMember; these two add
// what it lacks.

// An integer of at least `min` (`INT >= 1024` in --help).
class AtLeast : public CLI::Validator {
 public:
  explicit AtLeast(long long min) : CLI::Validator("INT >= " + std::to_string(min)) {
    func_ = [min](std::string& input) -> std::string {
      long long value = 0;
      if (!CLI::detail::lexical_cast(input, value) || value < min) {
        return "Value " + input + " is not an integer of at least " + std::to_string(min);
      }
      return {};
    };
  }
};

// A duration parse_duration reads, greater than 0 when `positive`.
class Duration : public CLI::Validator {
 public:
  explicit Duration(bool positive) : CLI::Validator(positive ? "DURATION > 0" : "DURATION") {
    func_ = [positive](std::string& input) -> std::string {
      const std::optional<std::chrono::milliseconds> value = parse_duration(input);
      if (!value) return "must be a duration like 500ms, 5s or 2m, not \"" + input + "\"";
      if (positive && value->count() <= 0) return "must be greater than 0";
      return {};
    };
  }
};

// A --feature-gates value upstream's karmada-webhook accepts (feature_gates.hpp), with its message.
class FeatureGates : public CLI::Validator {
 public:
  FeatureGates() : CLI::Validator("Key=true,Other=false") {
    func_ = [](std::string& input) -> std::string {
      kpw::FeatureGateSet gates;
      return gates.set(input).value_or("");
    };
  }
};

constexpr long long kInt32Max = 2147483647;

void add_serve_flags(CLI::App& app, ServeFlags& f) {
  app.add_option("--bind-address", f.bind_address, "IP address to listen on")
      ->capture_default_str();
  app.add_option("--secure-port", f.secure_port, "HTTPS port")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  app.add_option("--cert-dir", f.cert_dir, "directory holding the serving certificate and key")
      ->capture_default_str();
  app.add_option("--tls-cert-file-name", f.cert_name, "certificate file in --cert-dir")
      ->capture_default_str();
  app.add_option("--tls-private-key-file-name", f.key_name,
                 "private key file in --cert-dir (RSA or ECDSA, PEM)")
      ->capture_default_str();
  app.add_option("--tls-min-version", f.tls_min_version, "minimum TLS version: 1.2 or 1.3")
      ->check(CLI::IsMember({"1.2", "1.3"}))
      ->capture_default_str();
  app.add_option("--max-request-bytes", f.max_request_bytes,
                 "largest request body; larger ones get HTTP 413 without being read")
      ->check(AtLeast(1024))
      ->capture_default_str();
  app.add_option("--threads", f.threads, "I/O threads (default: number of cores)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--health-probe-bind-address", f.health_probe_address,
                 "plain-HTTP address of /healthz and /readyz; 0 disables")
      ->capture_default_str();
  app.add_option("--metrics-bind-address", f.metrics_address,
                 "plain-HTTP address of /metrics (Prometheus); 0 disables")
      ->capture_default_str();
  app.add_option("--logging-format", f.logging_format, "text or json (one JSON object a line)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("-v,--v", f.verbosity, "log verbosity; 2 logs every review")
      ->capture_default_str();
  app.add_option("--shutdown-delay", f.shutdown_delay,
                 "after SIGTERM: not ready at once, but keep accepting this long")
      ->check(Duration(false))
      ->capture_default_str();
  app.add_option("--shutdown-grace", f.shutdown_grace,
                 "then: the longest wait for requests in flight before exiting")
      ->check(Duration(false))
      ->capture_default_str();
  app.add_option("--max-connections", f.max_connections,
                 "open connections beyond this are closed at once")
      ->check(AtLeast(1))
      ->capture_default_str();
  app.add_option("--tls-handshake-timeout", f.handshake_timeout, "TLS handshake bound")
      ->check(Duration(true))
      ->capture_default_str();
  app.add_option("--header-read-timeout", f.header_timeout,
                 "first byte of a request to its last header")
      ->check(Duration(true))
      ->capture_default_str();
  app.add_option("--read-timeout", f.read_timeout, "first byte of a request to its last byte")
      ->check(Duration(true))
      ->capture_default_str();
  app.add_option("--idle-timeout", f.idle_timeout,
                 "idle keep-alive connections close after this (keep it above the API server's "
                 "90s)")
      ->check(Duration(true))
      ->capture_default_str();
  app.add_option("--max-header-bytes", f.max_header_bytes, "largest request header block")
      ->check(CLI::Range(1024LL, 1024LL * 1024))
      ->capture_default_str();
  app.add_option("--large-review-bytes", f.large_review_bytes,
                 "bodies larger than this (an eighth of it for the PropagationPolicy, "
                 "ClusterPropagationPolicy and OverridePolicy mutators, half for the Work "
                 "mutator) are judged on "
                 "the review threads, off the I/O threads")
      ->check(AtLeast(1024))
      ->capture_default_str();
  app.add_option("--review-threads", f.review_threads,
                 "threads judging large bodies, at a lower CPU priority than the I/O threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--max-large-reviews", f.max_large_reviews,
                 "large bodies read, queued or judged at once; more get HTTP 429 (retried)")
      ->check(CLI::Range(1LL, 65536LL))
      ->capture_default_str();
  app.add_option("--cluster-state", f.cluster_state,
                 "RIC-1's read-only watch of resourceinterpretercustomizations: auto (the API "
                 "server of --kubeconfig, else $KUBECONFIG, else the pod's service account; none: "
                 "off) or off (every ResourceInterpreterCustomization review warns that RIC-1 "
                 "was not checked)")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  app.add_option("--kubeconfig", f.kubeconfig,
                 "kubeconfig of the API server holding the ResourceInterpreterCustomizations "
                 "(karmada-apiserver); its current context");
  app.add_option("--kube-api-qps", f.kube_api_qps, "requests per second to that API server")
      ->check(CLI::Range(0.1, 100000.0))
      ->capture_default_str();
  app.add_option("--kube-api-burst", f.kube_api_burst, "burst of requests to that API server")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--cluster-state-stale-after", f.cluster_state_stale_after,
                 "/readyz fails when the watch has heard nothing from the API server for this "
                 "long (0: only until the first list)")
      ->check(Duration(false))
      ->capture_default_str();
}

// The API server RIC-1's cache reads: --kubeconfig, else $KUBECONFIG, else the pod's service
// account; none (`found` false) outside a pod with neither. An error stops the server.
std::optional<std::string> cluster_config(const ServeFlags& f, kpw::kube::KubeConfig& config,
                                          bool& found) {
  found = false;
  if (f.cluster_state == "off") return std::nullopt;
  std::string path = f.kubeconfig;
  if (path.empty()) {
    const char* env = std::getenv("KUBECONFIG");
    path = env == nullptr ? "" : std::string(env).substr(0, std::string(env).find(':'));
  }
  if (!path.empty()) {
    found = true;
    return kpw::kube::load_kubeconfig(path, "", config);
  }
  return kpw::kube::load_in_cluster(config, &found);
}

// How reviews are judged: --strict-rules, --allow-no-execute-taint-policy and the mutators'
// defaults, flags of `serve`, `review` and `check` alike.
void add_default_flags(CLI::App& app, ServeFlags& f) {
  app.add_option(
         "--strict-rules", f.strict_rules,
         "what a violation of a rule beyond upstream's (class strict, docs/compatibility.md) "
         "does: deny, warn (allowed with a warning) or off (upstream's verdicts exactly)")
      ->check(CLI::IsMember({"deny", "warn", "off"}))
      ->capture_default_str();
  app.add_flag("--allow-no-execute-taint-policy", f.allow_no_execute_taint_policy,
               "allow ClusterTaintPolicy taints with effect NoExecute (upstream's flag; off: T-1 "
               "denies them, docs/rules.md)");
  using namespace kpw::karmada;
  app.add_option("--default-purge-mode", f.default_purge_mode,
                 "application failover purgeMode filled when absent")
      ->check(CLI::IsMember({std::string(kPurgeDirectly), std::string(kPurgeGracefully),
                             std::string(kPurgeNever), std::string(kPurgeImmediately),
                             std::string(kPurgeGraciously)}))
      ->capture_default_str();
  app.add_option("--default-toleration-seconds", f.default_toleration_seconds,
                 "decisionConditions.tolerationSeconds filled when absent")
      ->check(CLI::Range(0LL, kInt32Max))
      ->capture_default_str();
  app.add_option("--default-rebalancer-ttl-seconds", f.default_rebalancer_ttl_seconds,
                 "WorkloadRebalancer ttlSecondsAfterFinished filled when absent (unset: never)")
      ->check(CLI::Range(0LL, kInt32Max));
  app.add_option("--feature-gates", f.feature_gates,
                 "upstream's feature gates, as its karmada-webhook takes them (repeatable; an "
                 "unknown gate stops the server):\n" +
                     kpw::feature_gates_help())
      ->allow_extra_args(false)  // one value per --feature-gates: a file after it is no gate
      ->check(FeatureGates());
}

// How reviews are judged, from the flags (their values were checked while parsing).
kpw::Settings settings_of(const ServeFlags& f) {
  kpw::Settings settings;
  settings.strict_rules = kpw::parse_strict_rules(f.strict_rules).value_or(kpw::StrictRules::kDeny);
  settings.allow_no_execute_taint_policy = f.allow_no_execute_taint_policy;
  settings.purge_mode = f.default_purge_mode;
  settings.toleration_seconds = f.default_toleration_seconds;
  if (f.default_rebalancer_ttl_seconds) {
    settings.rebalancer_ttl_seconds = *f.default_rebalancer_ttl_seconds;
  }
  return settings;
}

// --feature-gates into `settings`; the usage error when a gate this server does not offer is on.
std::optional<std::string> apply_feature_gates(const ServeFlags& f, kpw::Settings& settings) {
  kpw::FeatureGateSet gates;
  for (const std::string& value : f.feature_gates) {
    if (auto error = gates.set(value)) return "--feature-gates: " + *error;  // checked already
  }
  using kpw::kFederatedQuotaEnforcementGate;
  if (gates.enabled(kFederatedQuotaEnforcementGate)) {
    const bool by_all_alpha = !gates.given(kFederatedQuotaEnforcementGate);
    return "--feature-gates: " + std::string(kFederatedQuotaEnforcementGate) +
           (by_all_alpha ? " (turned on by AllAlpha=true)" : "") +
           " is not offered: upstream's quota enforcement (RB-2) lists FederatedResourceQuotas "
           "and writes their status from the webhook, which this server does not do, and a "
           "partial quota check would be worse than none; leave it off" +
           (by_all_alpha ? " (add " + std::string(kFederatedQuotaEnforcementGate) + "=false)"
                         : "") +
           " (docs/compatibility.md, \"ResourceBinding\")";
  }
  settings.multiple_pod_templates_scheduling =
      gates.enabled(kpw::kMultiplePodTemplatesSchedulingGate);
  return std::nullopt;
}

// Runs the server; the flags' values were checked while parsing (what only the server can check,
// an address, a certificate, a port in use, is its usage error).
int serve(const ServeFlags& f, const kpw::Settings& settings) {
  kpw::ServerOptions options;
  options.tls_min_version =
      f.tls_min_version == "1.2" ? kpw::TlsMinVersion::kTls12 : kpw::TlsMinVersion::kTls13;
  options.shutdown_delay = *parse_duration(f.shutdown_delay);
  options.shutdown_grace = *parse_duration(f.shutdown_grace);
  options.handshake_timeout = *parse_duration(f.handshake_timeout);
  options.header_timeout = *parse_duration(f.header_timeout);
  options.read_timeout = *parse_duration(f.read_timeout);
  options.idle_timeout = *parse_duration(f.idle_timeout);
  kpw::log::configure(
      f.logging_format == "json" ? kpw::log::Format::kJson : kpw::log::Format::kText, f.verbosity);
  options.max_connections = static_cast<std::size_t>(f.max_connections);
  options.max_header_bytes = static_cast<std::size_t>(f.max_header_bytes);
  options.health_probe_address = f.health_probe_address;
  options.metrics_address = f.metrics_address;
  const std::string dir =
      f.cert_dir.empty() || f.cert_dir.back() == '/' ? f.cert_dir : f.cert_dir + "/";
  options.bind_address = f.bind_address;
  options.port = static_cast<unsigned short>(f.secure_port);
  options.cert_file = dir + f.cert_name;
  options.key_file = dir + f.key_name;
  options.max_request_bytes = static_cast<std::size_t>(f.max_request_bytes);
  options.threads = static_cast<unsigned>(f.threads);
  options.large_review_bytes = static_cast<std::size_t>(f.large_review_bytes);
  options.review_threads = static_cast<unsigned>(f.review_threads);
  options.max_large_reviews = static_cast<std::size_t>(f.max_large_reviews);
  std::vector<kpw::metrics::WebhookSeriesSpec> series;
  for (const kpw::Route& r : kpw::routes()) series.push_back({r.path, r.rules});
  kpw::metrics::set_webhooks(series, options.threads);
  // RIC-1's cache, on a thread of its own; reviews read `cluster` and never wait on it.
  kpw::Settings judged = settings;
  kpw::ClusterState cluster;
  std::unique_ptr<kpw::kube::RicCache> cache;
  kpw::kube::KubeConfig kube_config;
  bool have_cluster = false;
  if (auto error = cluster_config(f, kube_config, have_cluster)) {
    return usage_error("--cluster-state: " + *error);
  }
  if (have_cluster) {
    kpw::kube::ClientLimits limits;
    limits.qps = f.kube_api_qps;
    limits.burst = f.kube_api_burst;
    std::unique_ptr<kpw::kube::ApiClient> client;
    if (auto error = kpw::kube::ApiClient::make(kube_config, limits, client)) {
      return usage_error("--cluster-state: " + *error);
    }
    kpw::kube::CacheOptions cache_options;
    cache_options.stale_after = *parse_duration(f.cluster_state_stale_after);
    cache = std::make_unique<kpw::kube::RicCache>(std::move(client), cluster, cache_options);
    judged.cluster = &cluster;
    options.ready_gate = [c = cache.get()] { return c->ready(); };
    kpw::metrics::set_more([c = cache.get()](std::string& out) { c->render_metrics(out); });
    options.on_serving = [c = cache.get()] { c->start(); };
  } else {
    options.on_serving = [] {
      kpw::log::info(
          "cluster state: off (no --kubeconfig, no $KUBECONFIG, not in a pod, or "
          "--cluster-state=off): RIC-1 is not judged and every ResourceInterpreterCustomization "
          "review warns so");
    };
  }
  const auto handler = [&judged](const kpw::Route* route, std::string_view method,
                                 std::string_view content_type, std::string& body,
                                 kpw::HttpAnswer& answer) {
    kpw::handle_http(route, method, content_type, body, judged, answer);
  };
  auto error = kpw::run_server(options, handler);
  if (cache != nullptr) cache->stop();
  if (error) return usage_error(*error);
  return 0;
}

// Reads one review (an AdmissionReview, a ConversionReview for /convert) and prints the body the
// server would answer; exit 0 iff HTTP 200.
int review(const kpw::Settings& settings, const std::string& path, const std::string& file) {
  std::string body;
  if (!kpw::read_file(file.empty() ? "-" : file, body)) return usage_error("cannot read " + file);
  kpw::HttpAnswer answer;
  if (body.size() > kpw::kDefaultMaxRequestBytes) {
    answer.too_large(kpw::kDefaultMaxRequestBytes);
  } else {
    const std::string_view route_path = std::string_view(path).substr(0, path.find('?'));
    kpw::handle_http(kpw::find_route(route_path), "POST", "application/json", body, settings,
                     answer);
  }
  std::fwrite(answer.body.data(), 1, answer.body.size(), stdout);
  std::fflush(stdout);
  return answer.status == 200 ? 0 : 1;
}

// `kinds`, `routes`: the tables, as the tests and the manifests read them.
int print(const std::string& out) {
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Admission webhook for Karmada's policy APIs (" + kpw::kind_names() + ")",
               "karmada-policy-webhook"};
  app.require_subcommand(0, 1);
  ServeFlags flags;
  add_serve_flags(app, flags);
  add_default_flags(app, flags);
  CLI::App* serve_cmd = app.add_subcommand("serve", "serve the webhook over HTTPS (default)");
  add_serve_flags(*serve_cmd, flags);
  add_default_flags(*serve_cmd, flags);

  std::string review_path;
  std::string review_file;
  CLI::App* review_cmd =
      app.add_subcommand("review",
                         "answer one AdmissionReview, or a ConversionReview for /convert "
                         "(FILE or - for stdin) offline");
  review_cmd->add_option("--path", review_path, "webhook path, e.g. /validate-propagationpolicy")
      ->required();
  review_cmd->add_option("file", review_file, "review JSON file, or - for stdin");
  add_default_flags(*review_cmd, flags);

  CLI::App* kinds_cmd = app.add_subcommand(
      "kinds", "print the kinds this server serves: group, versions, kind, resource, scope (JSON)");
  CLI::App* routes_cmd = app.add_subcommand(
      "routes", "print the paths this server serves, what each takes and its rule IDs (JSON)");
  std::string manifests_dir;
  CLI::App* manifests_cmd = app.add_subcommand(
      "manifests",
      "write the manifests generated from the route table into DIR (the repository's "
      "manifests/: `make manifests`)");
  manifests_cmd->add_option("dir", manifests_dir, "the manifests folder")->required();

  kpw::check::Options check_options;
  std::vector<std::string> check_paths;
  std::string check_output = "text";
  CLI::App* check_cmd = app.add_subcommand(
      "check", "judge policy files (YAML or JSON) as the API server plus this webhook would");
  check_cmd->add_option("paths", check_paths, "files, directories (recursive) or - for stdin")
      ->required();
  check_cmd
      ->add_option("--namespace", check_options.default_namespace,
                   "namespace of a PropagationPolicy without metadata.namespace")
      ->capture_default_str();
  check_cmd->add_option("-o,--output", check_output, "text, json or yaml")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  check_cmd->add_flag("--show-defaults", check_options.show_defaults,
                      "json/yaml: include each object as it would be stored, defaults filled");
  check_cmd->add_flag("--strict", check_options.strict, "an object of another kind is an error");
  std::string unknown_fields = "error";
  check_cmd
      ->add_option("--unknown-fields", unknown_fields,
                   "a field the kind's schema does not declare: error (as kubectl's default "
                   "--validate=strict), warn, or ignore (the API server drops it)")
      ->check(CLI::IsMember({"error", "warn", "ignore"}))
      ->capture_default_str();
  check_cmd->add_flag("--quiet", check_options.quiet, "text: print problems only");
  check_cmd->add_flag("--warnings-as-errors", check_options.warnings_as_errors,
                      "exit 1 on warnings too");
  add_default_flags(*check_cmd, flags);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(std::string(e.what()) + " (see --help)");
  }
  if (kinds_cmd->parsed()) return print(kpw::kinds_json());
  if (routes_cmd->parsed()) return print(kpw::routes_json());
  kpw::Settings settings = settings_of(flags);
  if (auto error = apply_feature_gates(flags, settings)) return usage_error(*error);
  if (manifests_cmd->parsed()) return kpw::write_manifests(manifests_dir, std::cout, std::cerr);
  if (review_cmd->parsed()) return review(settings, review_path, review_file);
  if (check_cmd->parsed()) {
    check_options.output = check_output == "json"   ? kpw::check::OutputFormat::kJson
                           : check_output == "yaml" ? kpw::check::OutputFormat::kYaml
                                                    : kpw::check::OutputFormat::kText;
    check_options.unknown_fields = unknown_fields == "warn"     ? kpw::check::UnknownFields::kWarn
                                   : unknown_fields == "ignore" ? kpw::check::UnknownFields::kIgnore
                                                                : kpw::check::UnknownFields::kError;
    check_options.settings = settings;
    return kpw::check::run(check_paths, check_options, std::cout, std::cerr);
  }
  return serve(flags, settings);
}
