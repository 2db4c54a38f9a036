// karmada-policy-webhook: `serve` (the default) runs the HTTPS webhook; `review` answers one
// AdmissionReview offline, byte for byte as the server would; `check` judges policy files;
// `manifests` writes the manifests generated from the route table. Run as upstream's
// `/bin/karmada-webhook` with upstream's flags, it serves (src/cli/command_line.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "admission/cluster_state.hpp"
#include "admission/quota.hpp"
#include "admission/review.hpp"
#include "admission/route.hpp"
#include "admission/service.hpp"

#include "admission/settings.hpp"
#include "cli/build_info.hpp"
#include "check/check.hpp"
#include "cli/command_line.hpp"
#include "kube/quota_ledger.hpp"
#include "kube/watch_cache.hpp"
#include "server/metrics.hpp"
#include "server/server.hpp"
#include "table/manifests.hpp"
#include "table/table.hpp"
#include "util/file.hpp"
#include "util/log.hpp"

namespace {

using kpw::cli::parse_duration;
using kpw::cli::ServeFlags;

constexpr int kUsageError = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "karmada-policy-webhook: %s\n", message.c_str());
  return kUsageError;
}

// The commands that are not `serve`: their command lines are CLI11's own.
bool is_other_command(const std::string& arg) {
  for (const char* name : {"review", "check", "kinds", "routes", "manifests", "version",
                           "--version"}) {
    if (arg == name) return true;
  }
  return false;
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

// Runs the server; the flags' values were checked while parsing (what only the server can check,
// an address, a certificate, a port in use, is its usage error).
int serve(const CLI::App& serve_cmd, const ServeFlags& f, const kpw::Settings& settings) {
  kpw::ServerOptions options;
  // Upstream's 1.0 and 1.1 are served as 1.2 (named in the start-up log).
  options.tls_min_version =
      f.tls_min_version == "1.3" ? kpw::TlsMinVersion::kTls13 : kpw::TlsMinVersion::kTls12;
  options.shutdown_delay = *parse_duration(f.shutdown_delay);
  options.shutdown_grace = *parse_duration(f.shutdown_grace);
  options.handshake_timeout = *parse_duration(f.handshake_timeout);
  options.header_timeout = *parse_duration(f.header_timeout);
  options.read_timeout = *parse_duration(f.read_timeout);
  options.idle_timeout = *parse_duration(f.idle_timeout);
  kpw::log::configure(
      f.logging_format == "json" ? kpw::log::Format::kJson : kpw::log::Format::kText, f.verbosity);
  const std::vector<std::string> ignored = kpw::cli::flags_without_effect(serve_cmd, f);
  if (!ignored.empty()) {
    std::string names;
    for (const std::string& name : ignored) names += (names.empty() ? "" : " ") + name;
    kpw::log::info("flags of upstream's karmada-webhook accepted with no effect here",
                   {{"flags", names}});
  }
  // On the "serving" line: a bad flag or certificate stays the one line on stderr.
  options.version = kpw::build::version();
  options.commit = kpw::build::commit();
  options.karmada = std::string(kpw::build::karmada_version()) + " (commit " +
                    std::string(kpw::build::karmada_commit()) + ")";
  kpw::metrics::set_build_info(
      "version=\"" + std::string(kpw::build::version()) + "\",commit=\"" +
      std::string(kpw::build::commit()) + "\",karmada_version=\"" +
      std::string(kpw::build::karmada_version()) + "\",karmada_commit=\"" +
      std::string(kpw::build::karmada_commit()) + "\"");
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
  options.max_body_bytes_in_flight = static_cast<std::size_t>(f.max_body_bytes_in_flight);
  std::vector<kpw::metrics::WebhookSeriesSpec> series;
  for (const kpw::Route& r : kpw::routes()) series.push_back({r.path, r.rules});
  kpw::metrics::set_webhooks(series, options.threads);
  // RIC-1's cache, on a thread of its own; reviews read `cluster` and never wait on it, and
  // readiness never depends on it (docs/operations.md, "Readiness").
  kpw::Settings judged = settings;
  kpw::kube::KubeConfig kube_config;
  bool have_cluster = false;
  if (auto error = cluster_config(f, kube_config, have_cluster)) {
    return usage_error("--cluster-state: " + *error);
  }
  const std::chrono::milliseconds stale_after = *parse_duration(f.cluster_state_stale_after);
  kpw::ClusterState cluster(kube_config.server, stale_after);
  kpw::QuotaState quotas(kube_config.server, stale_after);
  std::unique_ptr<kpw::kube::RicCache> cache;
  std::unique_ptr<kpw::kube::QuotaCache> quota_cache;
  std::unique_ptr<kpw::kube::QuotaLedger> ledger;
  const bool enforce_quotas = kpw::cli::quota_enforcement(f);
  if (enforce_quotas && !have_cluster) {
    return usage_error(
        "--feature-gates: FederatedQuotaEnforcement (RB-2) is on, which needs the API server "
        "(to read the FederatedResourceQuotas and record their usage, as upstream's webhook "
        "does): give --kubeconfig, set $KUBECONFIG or run in a pod, and leave --cluster-state "
        "on; or turn the gate off (FederatedQuotaEnforcement=false)");
  }
  if (have_cluster) {
    kpw::kube::ClientLimits limits;
    limits.qps = f.kube_api_qps;
    limits.burst = f.kube_api_burst;
    const auto client = [&](std::unique_ptr<kpw::kube::ApiClient>& out) {
      return kpw::kube::ApiClient::make(kube_config, limits, out);
    };
    std::unique_ptr<kpw::kube::ApiClient> ric_client;
    if (auto error = client(ric_client)) return usage_error("--cluster-state: " + *error);
    cache = std::make_unique<kpw::kube::RicCache>(
        std::move(ric_client), cluster, kpw::kube::ric_watch(cluster), kpw::kube::CacheOptions{});
    judged.cluster = &cluster;
    if (enforce_quotas) {
      std::unique_ptr<kpw::kube::ApiClient> quota_client;
      if (auto error = client(quota_client)) return usage_error("--cluster-state: " + *error);
      quota_cache = std::make_unique<kpw::kube::QuotaCache>(std::move(quota_client), quotas,
                                                            kpw::kube::quota_watch(quotas),
                                                            kpw::kube::CacheOptions{});
      ledger = std::make_unique<kpw::kube::QuotaLedger>(kube_config, limits, quotas,
                                                        kpw::kube::QuotaLedger::Options{});
      judged.quota = ledger.get();
      options.judge_off_loop = {"/validate-resourcebinding"};
    }
    kpw::metrics::set_more(
        [c = cache.get(), q = quota_cache.get(), l = ledger.get()](std::string& out) {
          c->render_metrics(out);
          if (q != nullptr) q->render_metrics(out);
          if (l != nullptr) l->render_metrics(out);
        });
    options.on_serving = [c = cache.get(), q = quota_cache.get()] {
      c->start();
      if (q != nullptr) q->start();
    };
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
  if (ledger != nullptr) ledger->stop();
  if (quota_cache != nullptr) quota_cache->stop();
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
  CLI::App* serve_cmd = kpw::cli::add_serve_command(app, flags);

  std::string review_path;
  std::string review_file;
  CLI::App* review_cmd =
      app.add_subcommand("review",
                         "answer one AdmissionReview, or a ConversionReview for /convert "
                         "(FILE or - for stdin) offline");
  review_cmd->add_option("--path", review_path, "webhook path, e.g. /validate-propagationpolicy")
      ->required();
  review_cmd->add_option("file", review_file, "review JSON file, or - for stdin");
  kpw::cli::add_default_flags(*review_cmd, flags);
  CLI::App* version_cmd = app.add_subcommand(
      "version", "print the version, its git commit and the Karmada version it matches");
  app.set_version_flag("--version", kpw::build::version_text(),
                       "print the version, its git commit and the Karmada version it matches");
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
                   "namespace of a namespaced object without metadata.namespace (none by "
                   "default: judged as in a kustomize base)");
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
  kpw::cli::add_default_flags(*check_cmd, flags);

  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && is_other_command(args.front())) {
      app.parse(argc, argv);
    } else {
      if (!args.empty() && args.front() == "serve") args.erase(args.begin());
      if (auto error = kpw::cli::parse_serve(app, args)) {
        return usage_error(*error + " (see --help)");
      }
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion&) {
    return print(kpw::build::version_text());
  } catch (const CLI::ParseError& e) {
    return usage_error(std::string(e.what()) + " (see --help)");
  }
  if (version_cmd->parsed()) return print(kpw::build::version_text());
  if (kinds_cmd->parsed()) return print(kpw::kinds_json());
  if (routes_cmd->parsed()) return print(kpw::routes_json());
  kpw::Settings settings = kpw::cli::settings_of(flags);
  kpw::cli::apply_feature_gates(flags, settings);
  if ((review_cmd->parsed() || check_cmd->parsed()) && kpw::cli::quota_enforcement(flags)) {
    std::cerr << "note: FederatedQuotaEnforcement is on: RB-2 is not judged offline (it needs the "
                 "cluster's FederatedResourceQuotas); every other rule is\n";
  }
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
  if (auto error = kpw::cli::check_serve_flags(flags)) return usage_error(*error);
  return serve(*serve_cmd, flags, settings);
}
