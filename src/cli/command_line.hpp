// The command line: `serve`'s flags (ours and every flag of upstream's karmada-webhook, read with
// pflag's conventions so that Karmada's installers run this binary unchanged: docs/operations.md,
// "Flags"), the flags that decide how reviews are judged (serve, review and check alike), and what
// main makes of them (Settings, the durations, the flags that have no effect here).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "admission/feature_gates.hpp"
#include "admission/settings.hpp"

namespace kpw::cli {

struct ServeFlags {
  std::string bind_address = "0.0.0.0";
  int secure_port = 8443;
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  std::string cert_name = "tls.crt";
  std::string key_name = "tls.key";
  std::string tls_min_version = "1.3";
  long long max_request_bytes = 0;  // set from kDefaultMaxRequestBytes by the constructor
  int threads = 1;                  // set to the number of cores by the constructor
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
  long long max_body_bytes_in_flight = 64LL * 1024 * 1024;
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
  // Upstream's flags that change nothing here, kept only to be checked as upstream checks them.
  struct Upstream {
    bool flag = false;  // every bool flag among them but the split streams
    std::string text;   // every flag with a value among them but those below
    std::vector<std::string> vmodule;
    bool text_split_stream = false;
    bool json_split_stream = false;
    std::string text_info_buffer_size;
    std::string json_info_buffer_size;
  } upstream;

  ServeFlags();
};

// The subcommand `serve` of `app` with every flag it takes (add_serve_flags, add_default_flags).
CLI::App* add_serve_command(CLI::App& app, ServeFlags& f);
// `serve`'s flags on `app` (the serve subcommand): ours, upstream's that we honour, and upstream's
// that change nothing here (their own group in --help).
void add_serve_flags(CLI::App& app, ServeFlags& f);
// How reviews are judged: --strict-rules, --allow-no-execute-taint-policy, --feature-gates and the
// mutators' defaults, flags of `serve`, `review` and `check` alike.
void add_default_flags(CLI::App& app, ServeFlags& f);

// `args` (after the program's name and an optional `serve`) read with pflag's conventions as
// upstream's karmada-webhook reads them (util/pflag.hpp), then parsed by `app`, whose
// subcommand `serve` must hold add_serve_flags: the error is one line for the usage message;
// a CLI::CallForHelp escapes for main to print.
std::optional<std::string> parse_serve(CLI::App& app, const std::vector<std::string>& args);

// What upstream checks once every flag is read: --bind-address is an IP address, the logging
// flags against the format and the logging gates (component-base's logsv1).
std::optional<std::string> check_serve_flags(const ServeFlags& f);

// The flags given that change nothing here, `--name` each, in --help's order (for the start-up
// log); with the values this server reads differently (`--tls-min-version=1.0`: served as 1.2).
std::vector<std::string> flags_without_effect(const CLI::App& serve, const ServeFlags& f);

// How reviews are judged, from the flags (their values were checked while parsing).
Settings settings_of(const ServeFlags& f);
// --feature-gates into `settings` (RB-3's gate; RB-2's is quota_enforcement(), which only
// `serve` can act on: it needs the API server).
void apply_feature_gates(const ServeFlags& f, Settings& settings);
// FederatedQuotaEnforcement is on (given, or by AllAlpha=true).
bool quota_enforcement(const ServeFlags& f);
// The gates as given.
FeatureGateSet feature_gates_of(const ServeFlags& f);

// A duration flag's value: Go's time.ParseDuration syntax (`500ms`, `1m30s`), or a bare number
// of seconds (this server's own flags always took one).
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace kpw::cli
