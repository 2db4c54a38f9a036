#include "cli/command_line.hpp"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <thread>

#include "admission/service.hpp"
#include "api/karmada.hpp"
#include "util/go_time.hpp"
#include "util/pflag.hpp"
#include "util/quantity.hpp"

namespace kpw::cli {
namespace {

constexpr long long kInt32Max = 2147483647;
constexpr const char* kNoEffect =
    "Upstream's flags, accepted as its karmada-webhook takes them, "
    "with no effect here";

// The limits of flag values are CLI11 validators, so that --help shows them and a bad value is
// refused while parsing (one line, exit status 2). CLI11 has Range and IsMember; these add what it
// lacks.

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
      if (!value) return "must be a duration like 500ms, 5s or 1m30s, not \"" + input + "\"";
      if (positive && value->count() <= 0) return "must be greater than 0";
      return {};
    };
  }
};

// Decimal digits only, below 2^bits (Go's strconv.ParseUint(s, 10, bits)).
class DecimalUint : public CLI::Validator {
 public:
  explicit DecimalUint(int bits) : CLI::Validator("UINT") {
    func_ = [bits](std::string& input) -> std::string {
      unsigned long long value = 0;
      const unsigned long long limit = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
      if (input.empty()) return "must be a decimal number, not \"\"";
      for (const char c : input) {
        if (c < '0' || c > '9') return "must be a decimal number, not \"" + input + "\"";
        if (value > (limit - static_cast<unsigned>(c - '0')) / 10) {
          return "is out of range: \"" + input + "\"";
        }
        value = value * 10 + static_cast<unsigned>(c - '0');
      }
      return {};
    };
  }
};

// A --feature-gates value upstream's karmada-webhook accepts (feature_gates.hpp), with its message.
class FeatureGates : public CLI::Validator {
 public:
  FeatureGates() : CLI::Validator("Key=true,Other=false") {
    func_ = [](std::string& input) -> std::string {
      FeatureGateSet gates;
      return gates.set(input).value_or("");
    };
  }
};

// A Go duration (time.ParseDuration, no bare number), greater than 0: --log-flush-frequency.
class GoDuration : public CLI::Validator {
 public:
  GoDuration() : CLI::Validator("DURATION > 0") {
    func_ = [](std::string& input) -> std::string {
      std::int64_t nanos = 0;
      std::string error;
      if (!parse_go_duration(input, nanos, error)) return error;
      if (nanos <= 0) return "must be greater than 0";
      return {};
    };
  }
};

// Go's strconv.ParseInt(s, 10, 32) accepts it.
bool is_go_int32(const std::string& s) {
  const std::size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (sign == s.size()) return false;
  long long value = 0;
  for (std::size_t i = sign; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    value = value * 10 + (s[i] - '0');
    if (value > kInt32Max + 1) return false;
  }
  return value <= kInt32Max || s[0] == '-';
}

// klog's severity: a name (INFO, WARNING, ERROR, FATAL, any case) or a 32-bit integer.
class Severity : public CLI::Validator {
 public:
  Severity() : CLI::Validator("SEVERITY") {
    func_ = [](std::string& input) -> std::string {
      std::string upper = input;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper == "INFO" || upper == "WARNING" || upper == "ERROR" || upper == "FATAL") return {};
      return is_go_int32(input) ? std::string() : "is not a severity: \"" + input + "\"";
    };
  }
};

// klog's traceLocation: empty, or `file.go:N` with N > 0.
class TraceLocation : public CLI::Validator {
 public:
  TraceLocation() : CLI::Validator("FILE:N") {
    func_ = [](std::string& input) -> std::string {
      if (input.empty()) return {};
      const std::size_t colon = input.find(':');
      const bool one_colon =
          colon != std::string::npos && input.find(':', colon + 1) == std::string::npos;
      if (!one_colon || input.substr(0, colon).find('.') == std::string::npos) {
        return "syntax error: expect file.go:234";
      }
      // strconv.Atoi: an integer, sign allowed (within 32 bits here).
      const std::string line = input.substr(colon + 1);
      if (!is_go_int32(line)) return "syntax error: expect file.go:234";
      return std::stoll(line) > 0 ? std::string() : "negative or zero value for level";
    };
  }
};

// logsv1's vmodule: `pattern=N` items split at ',' (empty items skipped), N below 2^31.
class VModule : public CLI::Validator {
 public:
  VModule() : CLI::Validator("pattern=N,...") {
    func_ = [](std::string& input) -> std::string {
      std::size_t start = 0;
      while (start <= input.size()) {
        const std::size_t comma = std::min(input.find(',', start), input.size());
        const std::string item = input.substr(start, comma - start);
        start = comma + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == 0 || eq == std::string::npos || eq + 1 == item.size() ||
            item.find('=', eq + 1) != std::string::npos) {
          return "\"" + item + "\" does not have the pattern=N format";
        }
        std::string level = item.substr(eq + 1);
        if (!DecimalUint(31)(level).empty()) {
          return "parsing verbosity in \"" + item + "\": invalid syntax";
        }
      }
      return {};
    };
  }
};

// A Kubernetes quantity (resource.ParseQuantity): --log-*-info-buffer-size.
class QuantityText : public CLI::Validator {
 public:
  QuantityText() : CLI::Validator("QUANTITY") {
    func_ = [](std::string& input) -> std::string {
      const ParsedQuantity q = parse_quantity(input);
      return q.ok() ? std::string() : std::string(quantity_error_message(q.error));
    };
  }
};

// Every option of serve takes its last value, as pflag does (the operator re-sorts and repeats
// args); a list (--feature-gates, --vmodule) keeps every value.
CLI::Option* last_wins(CLI::Option* option) {
  return option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

// Upstream's flags that change nothing here: accepted, their values checked as upstream checks
// them, and named once in the start-up log (flags_without_effect).
void add_upstream_flags(CLI::App& app, ServeFlags& f) {
  ServeFlags::Upstream& u = f.upstream;
  for (const char* name : {"--add-dir-header", "--alsologtostderr",
                           "--legacy-stderr-threshold-behavior", "--logtostderr", "--one-output",
                           "--skip-headers", "--skip-log-headers", "--enable-pprof"}) {
    app.add_flag(name, u.flag, "upstream's (klog's, profiling's) flag")->group(kNoEffect);
  }
  app.add_flag("--log-text-split-stream", u.text_split_stream,
               "upstream's; needs the LoggingAlphaOptions gate, as there")
      ->group(kNoEffect);
  app.add_flag("--log-json-split-stream", u.json_split_stream,
               "upstream's; needs the LoggingAlphaOptions gate, as there")
      ->group(kNoEffect);
  last_wins(app.add_option("--log-text-info-buffer-size", u.text_info_buffer_size,
                           "upstream's; a non-zero size needs the LoggingAlphaOptions gate"))
      ->check(QuantityText())
      ->group(kNoEffect);
  last_wins(app.add_option("--log-json-info-buffer-size", u.json_info_buffer_size,
                           "upstream's; a non-zero size needs the LoggingAlphaOptions gate"))
      ->check(QuantityText())
      ->group(kNoEffect);
  for (const char* name : {"--log-dir", "--log-file", "--profiling-bind-address"}) {
    last_wins(app.add_option(name, u.text, "upstream's flag"))->group(kNoEffect);
  }
  last_wins(app.add_option("--log-file-max-size", u.text, "upstream's flag (megabytes)"))
      ->check(DecimalUint(64))
      ->group(kNoEffect);
  last_wins(app.add_option("--log-backtrace-at", u.text, "upstream's flag (klog's)"))
      ->check(TraceLocation())
      ->group(kNoEffect);
  for (const char* name : {"--alsologtostderrthreshold", "--stderrthreshold"}) {
    last_wins(app.add_option(name, u.text, "upstream's flag (klog's)"))
        ->check(Severity())
        ->group(kNoEffect);
  }
  last_wins(app.add_option("--log-flush-frequency", u.text, "upstream's flag"))
      ->check(GoDuration())
      ->group(kNoEffect);
  app.add_option("--vmodule", u.vmodule,
                 "upstream's flag; only with --logging-format=text, as there (repeatable)")
      ->check(VModule())
      ->allow_extra_args(false)
      ->group(kNoEffect);
}

bool nonzero_quantity(const std::string& text) {
  if (text.empty()) return false;
  const ParsedQuantity q = parse_quantity(text);
  return q.ok() && !(q.value == Quantity());
}

}  // namespace

ServeFlags::ServeFlags()
    : max_request_bytes(static_cast<long long>(kDefaultMaxRequestBytes)),
      threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {}

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  if (!text.empty() && text.size() <= 9 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::chrono::seconds(std::stoll(text));
  }
  std::int64_t nanos = 0;
  std::string error;
  if (!parse_go_duration(text, nanos, error)) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(nanos));
}

CLI::App* add_serve_command(CLI::App& app, ServeFlags& f) {
  CLI::App* serve = app.add_subcommand(
      "serve",
      "serve the webhook over HTTPS (the default: with no command, and as /bin/karmada-webhook). "
      "Flags are read as upstream's karmada-webhook reads them: --flag=v or --flag v, -v=4, "
      "--bool or --bool=false, '_' or '-' in names, the last of a repeated flag wins. Other "
      "commands: review, check, kinds, routes, manifests, version (COMMAND --help).");
  add_serve_flags(*serve, f);
  add_default_flags(*serve, f);
  return serve;
}

void add_serve_flags(CLI::App& app, ServeFlags& f) {
  last_wins(app.add_option("--bind-address", f.bind_address, "IP address to listen on"))
      ->capture_default_str();
  last_wins(app.add_option("--secure-port", f.secure_port, "HTTPS port"))
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  last_wins(
      app.add_option("--cert-dir", f.cert_dir, "directory holding the serving certificate and key"))
      ->capture_default_str();
  last_wins(app.add_option("--tls-cert-file-name", f.cert_name, "certificate file in --cert-dir"))
      ->capture_default_str();
  last_wins(app.add_option("--tls-private-key-file-name", f.key_name,
                           "private key file in --cert-dir (RSA or ECDSA, PEM)"))
      ->capture_default_str();
  last_wins(app.add_option("--tls-min-version", f.tls_min_version,
                           "minimum TLS version: 1.2 or 1.3 (upstream's 1.0 and 1.1 are served "
                           "as 1.2: OpenSSL refuses the older ones at its default security "
                           "level)"))
      ->check(CLI::IsMember({"1.0", "1.1", "1.2", "1.3"}))
      ->capture_default_str();
  last_wins(app.add_option("--max-request-bytes", f.max_request_bytes,
                           "largest request body; larger ones get HTTP 413 without being read"))
      ->check(AtLeast(1024))
      ->capture_default_str();
  last_wins(app.add_option("--threads", f.threads, "I/O threads (default: number of cores)"))
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  last_wins(app.add_option("--health-probe-bind-address", f.health_probe_address,
                           "plain-HTTP address of /healthz and /readyz (host:port, :port; an "
                           "IPv6 host with or without brackets); 0 disables"))
      ->capture_default_str();
  last_wins(app.add_option("--metrics-bind-address", f.metrics_address,
                           "plain-HTTP address of /metrics (Prometheus), as "
                           "--health-probe-bind-address; 0 disables"))
      ->capture_default_str();
  last_wins(
      app.add_option("--logging-format", f.logging_format, "text or json (one JSON object a line)"))
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  last_wins(app.add_option("-v,--v", f.verbosity, "log verbosity; 2 logs every review"))
      ->check(DecimalUint(31))
      ->capture_default_str();
  last_wins(app.add_option("--shutdown-delay", f.shutdown_delay,
                           "after SIGTERM: not ready at once, but keep accepting this long"))
      ->check(Duration(false))
      ->capture_default_str();
  last_wins(app.add_option("--shutdown-grace", f.shutdown_grace,
                           "then: the longest wait for requests in flight before exiting"))
      ->check(Duration(false))
      ->capture_default_str();
  last_wins(app.add_option("--max-connections", f.max_connections,
                           "open connections beyond this are closed at once"))
      ->check(AtLeast(1))
      ->capture_default_str();
  last_wins(app.add_option("--tls-handshake-timeout", f.handshake_timeout, "TLS handshake bound"))
      ->check(Duration(true))
      ->capture_default_str();
  last_wins(app.add_option("--header-read-timeout", f.header_timeout,
                           "first byte of a request to its last header"))
      ->check(Duration(true))
      ->capture_default_str();
  last_wins(
      app.add_option("--read-timeout", f.read_timeout, "first byte of a request to its last byte"))
      ->check(Duration(true))
      ->capture_default_str();
  last_wins(app.add_option("--idle-timeout", f.idle_timeout,
                           "idle keep-alive connections close after this (keep it above the API "
                           "server's 90s)"))
      ->check(Duration(true))
      ->capture_default_str();
  last_wins(
      app.add_option("--max-header-bytes", f.max_header_bytes, "largest request header block"))
      ->check(CLI::Range(1024LL, 1024LL * 1024))
      ->capture_default_str();
  last_wins(app.add_option("--large-review-bytes", f.large_review_bytes,
                           "bodies larger than this (an eighth of it for the PropagationPolicy, "
                           "ClusterPropagationPolicy and OverridePolicy mutators, half for the "
                           "Work mutator) are judged on the review threads, off the I/O threads"))
      ->check(AtLeast(1024))
      ->capture_default_str();
  last_wins(app.add_option("--review-threads", f.review_threads,
                           "threads judging large bodies, at a lower CPU priority than the I/O "
                           "threads"))
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  last_wins(app.add_option("--max-large-reviews", f.max_large_reviews,
                           "large bodies queued or judged at once (taken when a body has "
                           "arrived); more get HTTP 429 (retried)"))
      ->check(CLI::Range(1LL, 65536LL))
      ->capture_default_str();
  last_wins(app.add_option("--max-body-bytes-in-flight", f.max_body_bytes_in_flight,
                           "request bodies held at once, counted as their bytes arrive (a "
                           "client that announces a body holds only what it sent); a body "
                           "that would pass it gets HTTP 429 (retried); at least "
                           "--max-request-bytes"))
      ->check(AtLeast(1024))
      ->capture_default_str();
  last_wins(app.add_option("--cluster-state", f.cluster_state,
                           "the watches of the API server RIC-1 reads (and, with "
                           "FederatedQuotaEnforcement, RB-2: federatedresourcequotas): auto "
                           "(the API server of --kubeconfig, else $KUBECONFIG, else the pod's "
                           "service account; none: off) or off (every "
                           "ResourceInterpreterCustomization review warns that RIC-1 was not "
                           "checked; RB-2's gate then stops the server)"))
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  last_wins(app.add_option("--kubeconfig", f.kubeconfig,
                           "kubeconfig of karmada-apiserver, whose "
                           "ResourceInterpreterCustomizations RIC-1 reads (and whose "
                           "FederatedResourceQuotas RB-2 reads and charges); its current "
                           "context"));
  last_wins(
      app.add_option("--kube-api-qps", f.kube_api_qps, "requests per second to that API server"))
      ->check(CLI::Range(0.1, 100000.0))
      ->capture_default_str();
  last_wins(
      app.add_option("--kube-api-burst", f.kube_api_burst, "burst of requests to that API server"))
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  last_wins(app.add_option("--cluster-state-stale-after", f.cluster_state_stale_after,
                           "a review judged from a cache that has heard nothing from the API "
                           "server for this long (RIC-1, RB-2) says so in a warning (0: never); "
                           "readiness never depends on it"))
      ->check(Duration(false))
      ->capture_default_str();
  add_upstream_flags(app, f);
}

void add_default_flags(CLI::App& app, ServeFlags& f) {
  last_wins(
      app.add_option("--strict-rules", f.strict_rules,
                     "what a violation of a rule beyond upstream's (class strict, "
                     "docs/compatibility.md) does: deny, warn (allowed with a warning) or off "
                     "(upstream's verdicts exactly)"))
      ->check(CLI::IsMember({"deny", "warn", "off"}))
      ->capture_default_str();
  app.add_flag("--allow-no-execute-taint-policy", f.allow_no_execute_taint_policy,
               "allow ClusterTaintPolicy taints with effect NoExecute (upstream's flag; off: T-1 "
               "denies them, docs/rules.md)");
  using namespace karmada;
  last_wins(app.add_option("--default-purge-mode", f.default_purge_mode,
                           "application failover purgeMode filled when absent"))
      ->check(CLI::IsMember({std::string(kPurgeDirectly), std::string(kPurgeGracefully),
                             std::string(kPurgeNever), std::string(kPurgeImmediately),
                             std::string(kPurgeGraciously)}))
      ->capture_default_str();
  last_wins(app.add_option("--default-toleration-seconds", f.default_toleration_seconds,
                           "decisionConditions.tolerationSeconds filled when absent"))
      ->check(CLI::Range(0LL, kInt32Max))
      ->capture_default_str();
  last_wins(app.add_option("--default-rebalancer-ttl-seconds", f.default_rebalancer_ttl_seconds,
                           "WorkloadRebalancer ttlSecondsAfterFinished filled when absent "
                           "(unset: never)"))
      ->check(CLI::Range(0LL, kInt32Max));
  app.add_option("--feature-gates", f.feature_gates,
                 "upstream's feature gates, as its karmada-webhook takes them (repeatable, each "
                 "on top of the ones before; an unknown gate stops the server):\n" +
                     feature_gates_help())
      ->allow_extra_args(false)  // one value per --feature-gates: a file after it is no gate
      ->check(FeatureGates());
}

std::optional<std::string> parse_serve(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* serve = app.get_subcommand("serve");
  PflagShape shape;
  shape.arity = [serve](std::string_view name) {
    const CLI::Option* option = serve->get_option_no_throw("--" + std::string(name));
    if (option == nullptr) return FlagArity::kUnknown;
    return option->get_expected_max() == 0 ? FlagArity::kBool : FlagArity::kValue;
  };
  shape.shorthand = [serve](char c) -> std::string {
    for (const CLI::Option* option : serve->get_options()) {
      const std::vector<std::string>& snames = option->get_snames();
      if (std::find(snames.begin(), snames.end(), std::string(1, c)) != snames.end()) {
        return option->get_lnames().empty() ? std::string() : option->get_lnames().front();
      }
    }
    return {};
  };
  PflagArgs read;
  if (auto error = read_pflag_args(args, shape, read)) return *error;
  for (const std::string& arg : read.positional) {
    // As upstream's root command: an empty argument is nothing, any other one an error.
    if (!arg.empty()) {
      return "unexpected argument \"" + arg +
             "\": serving takes flags only (commands: serve, review, check, kinds, routes, "
             "manifests, version; see --help)";
    }
  }
  std::vector<std::string> argv = {app.get_name(), "serve"};
  for (const std::string& flag : read.flags) {
    if (flag == "--help=false") continue;  // pflag: no help asked; CLI11 would print it
    if (flag.back() == '=') {
      // An empty value (the operator writes `--key=` for one): CLI11 reads `--key=` as a flag
      // without a value and would take the next argument; a separate empty argument is the value.
      argv.push_back(flag.substr(0, flag.size() - 1));
      argv.emplace_back();
      continue;
    }
    argv.push_back(flag);
  }
  std::vector<const char*> pointers;
  for (const std::string& a : argv) pointers.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::CallForHelp&) {
    throw;
  } catch (const CLI::ParseError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::optional<std::string> check_serve_flags(const ServeFlags& f) {
  boost::system::error_code ec;
  boost::asio::ip::make_address(f.bind_address, ec);
  if (ec) return "--bind-address: \"" + f.bind_address + "\" is not an IP address";
  if (f.max_body_bytes_in_flight < f.max_request_bytes) {
    return "--max-body-bytes-in-flight (" + std::to_string(f.max_body_bytes_in_flight) +
           ") must be at least --max-request-bytes (" + std::to_string(f.max_request_bytes) +
           "): a body of the largest size must fit";
  }
  const FeatureGateSet gates = feature_gates_of(f);
  if (f.logging_format == "json" && !gates.enabled("LoggingBetaOptions")) {
    return "--logging-format=json needs the LoggingBetaOptions feature gate, as upstream's "
           "(it is on unless --feature-gates turns it off)";
  }
  if (f.logging_format != "text" && !f.upstream.vmodule.empty()) {
    return "--vmodule works only with --logging-format=text, as upstream's";
  }
  if (!gates.enabled("LoggingAlphaOptions")) {
    const ServeFlags::Upstream& u = f.upstream;
    const char* needs = nullptr;
    if (u.text_split_stream) needs = "--log-text-split-stream";
    if (u.json_split_stream) needs = "--log-json-split-stream";
    if (nonzero_quantity(u.text_info_buffer_size)) needs = "--log-text-info-buffer-size";
    if (nonzero_quantity(u.json_info_buffer_size)) needs = "--log-json-info-buffer-size";
    if (needs != nullptr) {
      return std::string(needs) +
             " needs the LoggingAlphaOptions feature gate, as upstream's (it has no effect "
             "here)";
    }
  }
  return std::nullopt;
}

std::vector<std::string> flags_without_effect(const CLI::App& serve, const ServeFlags& f) {
  std::vector<std::string> out;
  for (const CLI::Option* option : serve.get_options()) {
    if (option->get_group() == kNoEffect && option->count() > 0) {
      out.push_back("--" + option->get_lnames().front());
    }
  }
  if (f.tls_min_version == "1.0" || f.tls_min_version == "1.1") {
    out.push_back("--tls-min-version=" + f.tls_min_version + " (served as 1.2)");
  }
  return out;
}

FeatureGateSet feature_gates_of(const ServeFlags& f) {
  FeatureGateSet gates;
  for (const std::string& value : f.feature_gates) gates.set(value);  // checked while parsing
  return gates;
}

Settings settings_of(const ServeFlags& f) {
  Settings settings;
  settings.strict_rules = parse_strict_rules(f.strict_rules).value_or(StrictRules::kDeny);
  settings.allow_no_execute_taint_policy = f.allow_no_execute_taint_policy;
  settings.purge_mode = f.default_purge_mode;
  settings.toleration_seconds = f.default_toleration_seconds;
  if (f.default_rebalancer_ttl_seconds) {
    settings.rebalancer_ttl_seconds = *f.default_rebalancer_ttl_seconds;
  }
  return settings;
}

void apply_feature_gates(const ServeFlags& f, Settings& settings) {
  const FeatureGateSet gates = feature_gates_of(f);
  settings.multiple_pod_templates_scheduling = gates.enabled(kMultiplePodTemplatesSchedulingGate);
}

bool quota_enforcement(const ServeFlags& f) {
  return feature_gates_of(f).enabled(kFederatedQuotaEnforcementGate);
}

}  // namespace kpw::cli
