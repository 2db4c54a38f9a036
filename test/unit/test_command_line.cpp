// The command line of `serve` as Karmada's installers write it (docs/operations.md, "Switching by
// image"): upstream's flags read with pflag's conventions, Go durations, what has no effect here.
// test/e2e/test_upstream_flags.py holds the same reading against upstream's own binary.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "util/go_time.hpp"
#include "util/pflag.hpp"

namespace {

using kpw::cli::ServeFlags;

// `args` read as the binary reads them with no command: the error, or "" and `flags` set.
struct Parsed {
  ServeFlags flags;
  std::string error;
  std::vector<std::string> no_effect;
};

Parsed parse(std::vector<std::string> args) {
  Parsed out;
  CLI::App app{"test", "karmada-policy-webhook"};
  CLI::App* serve = kpw::cli::add_serve_command(app, out.flags);
  out.error = kpw::cli::parse_serve(app, args).value_or("");
  if (out.error.empty()) out.error = kpw::cli::check_serve_flags(out.flags).value_or("");
  if (out.error.empty()) out.no_effect = kpw::cli::flags_without_effect(*serve, out.flags);
  return out;
}

// An installer's command (docs/operations.md, "Switching by image"), $(POD_IP) filled.
std::vector<std::string> installer(const std::string& pod_ip, const std::string& cert_dir,
                                   const std::string& kubeconfig) {
  return {"--kubeconfig=" + kubeconfig,
          "--bind-address=" + pod_ip,
          "--metrics-bind-address=" + pod_ip + ":8080",
          "--health-probe-bind-address=" + pod_ip + ":8000",
          "--secure-port=8443",
          "--cert-dir=" + cert_dir,
          "--v=2"};
}

}  // namespace

TEST_CASE("switch by image: the Helm chart's, karmadactl init's and the operator's command") {
  for (const std::string ip : {"10.244.1.7", "fd00:10:244::7"}) {
    const Parsed p = parse(installer(ip, "/var/serving-cert", "/etc/kubeconfig"));
    REQUIRE(p.error.empty());
    CHECK(p.flags.kubeconfig == "/etc/kubeconfig");
    CHECK(p.flags.bind_address == ip);
    // An IPv6 pod address without brackets, as upstream's template writes it: host and port
    // are split at the last colon by the listener.
    CHECK(p.flags.metrics_address == ip + ":8080");
    CHECK(p.flags.health_probe_address == ip + ":8000");
    CHECK(p.flags.secure_port == 8443);
    CHECK(p.flags.cert_dir == "/var/serving-cert");
    CHECK(p.flags.verbosity == 2);
    CHECK(p.no_effect.empty());
  }
}

TEST_CASE("switch by image: the dev artefacts' command, AllAlpha and RB-2's gate included") {
  std::vector<std::string> args =
      installer("10.244.1.7", "/etc/karmada/pki/server", "/etc/karmada/config/karmada.config");
  args.pop_back();
  for (const char* a : {"--feature-gates=AllAlpha=true,AllBeta=true",
                        "--allow-no-execute-taint-policy=true", "--logging-format=json", "--v=4"}) {
    args.push_back(a);
  }
  const Parsed p = parse(args);
  REQUIRE(p.error.empty());
  CHECK(p.flags.allow_no_execute_taint_policy);
  CHECK(p.flags.logging_format == "json");
  CHECK(p.flags.verbosity == 4);
  kpw::Settings settings = kpw::cli::settings_of(p.flags);
  kpw::cli::apply_feature_gates(p.flags, settings);
  CHECK(settings.multiple_pod_templates_scheduling);  // RB-3, an alpha gate
  CHECK(settings.allow_no_execute_taint_policy);
  // RB-2, an alpha gate: `serve` enforces quotas (with the API server the command names).
  CHECK(kpw::cli::quota_enforcement(p.flags));
  args[6] = "--feature-gates=AllAlpha=true,AllBeta=true,FederatedQuotaEnforcement=false";
  const Parsed q = parse(args);
  REQUIRE(q.error.empty());
  CHECK_FALSE(kpw::cli::quota_enforcement(q.flags));
}

TEST_CASE("switch by image: the operator's extraArgs, sorted --key=value, an empty value") {
  // The operator rebuilds the command: every argument `--key=value`, keys sorted; an empty map
  // value becomes `--key=`.
  const Parsed p =
      parse({"--bind-address=10.0.0.1", "--cert-dir=/var/serving-cert", "--enable-pprof=true",
             "--feature-gates=PropagateDeps=false", "--health-probe-bind-address=10.0.0.1:8000",
             "--kubeconfig=/etc/karmada/config/karmada.config", "--log-flush-frequency=10s",
             "--metrics-bind-address=10.0.0.1:8080",
             "--profiling-bind-address=", "--secure-port=8443", "--v=2"});
  REQUIRE(p.error.empty());
  CHECK(p.flags.verbosity == 2);
  // In --help's order.
  CHECK(p.no_effect == std::vector<std::string>{"--enable-pprof", "--profiling-bind-address",
                                                "--log-flush-frequency"});
  // An empty bool is refused as upstream's bool parser refuses it.
  CHECK(parse({"--enable-pprof="}).error ==
        "invalid argument \"\" for \"--enable-pprof\" flag: strconv.ParseBool: parsing \"\": "
        "invalid syntax");
  CHECK_FALSE(parse({"--secure-port="}).error.empty());
  CHECK(parse({"--kubeconfig=", "--secure-port=9443"}).flags.secure_port == 9443);
}

TEST_CASE("switch by image: pflag's spellings of a flag and its value") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-v=4"}, {"-v4"}, {"-v", "4"}, {"--v", "4"}, {"--v=4"}, {"--v=2", "--v=4"}}) {
    const Parsed p = parse(args);
    REQUIRE(p.error.empty());
    CHECK(p.flags.verbosity == 4);
  }
  // '_' and '-' are the same in a name; a value may start with a dash after `=` or a space.
  const Parsed u = parse({"--bind_address=127.0.0.1", "--log_dir", "/var/log", "--kubeconfig",
                          "-odd-name", "--tls-min-version=1.2", "--tls-min-version=1.3"});
  REQUIRE(u.error.empty());
  CHECK(u.flags.bind_address == "127.0.0.1");
  CHECK(u.flags.kubeconfig == "-odd-name");
  CHECK(u.flags.tls_min_version == "1.3");  // the last one wins
  CHECK(u.no_effect == std::vector<std::string>{"--log-dir"});
  // Bools: alone, or with Go's ParseBool spellings after `=`.
  CHECK(parse({"--allow-no-execute-taint-policy"}).flags.allow_no_execute_taint_policy);
  CHECK(parse({"--allow-no-execute-taint-policy=T"}).flags.allow_no_execute_taint_policy);
  CHECK_FALSE(parse({"--allow-no-execute-taint-policy", "--allow-no-execute-taint-policy=0"})
                  .flags.allow_no_execute_taint_policy);
  // Repeated --feature-gates merge, a later value winning for the same gate.
  const Parsed g = parse({"--feature-gates=MultiplePodTemplatesScheduling=true,Failover=true",
                          "--feature-gates=MultiplePodTemplatesScheduling=false"});
  REQUIRE(g.error.empty());
  kpw::Settings settings = kpw::cli::settings_of(g.flags);
  kpw::cli::apply_feature_gates(g.flags, settings);
  CHECK_FALSE(settings.multiple_pod_templates_scheduling);
  // Our own flags keep their form, Go durations and a bare number of seconds alike.
  const Parsed ours = parse({"--shutdown-delay", "1m30s", "--read-timeout=45", "--threads=3"});
  REQUIRE(ours.error.empty());
  CHECK(*kpw::cli::parse_duration(ours.flags.shutdown_delay) == std::chrono::seconds(90));
  CHECK(*kpw::cli::parse_duration(ours.flags.read_timeout) == std::chrono::seconds(45));
  CHECK(ours.flags.threads == 3);
}

TEST_CASE("switch by image: what upstream refuses stops the server with one line") {
  CHECK(parse({"--nope"}).error == "unknown flag: --nope");
  CHECK(parse({"-kubeconfig=/x"}).error == "unknown shorthand flag: 'k' in -kubeconfig=/x");
  CHECK(parse({"--kubeconfig"}).error == "flag needs an argument: --kubeconfig");
  CHECK(parse({"-v"}).error == "flag needs an argument: 'v' in -v");
  CHECK(parse({"---v=2"}).error == "bad flag syntax: ---v=2");
  CHECK(parse({"--feature-gates=Nope=true"}).error.find("unrecognized feature gate: Nope") !=
        std::string::npos);
  CHECK(parse({"--enable-pprof", "false"}).error.find("unexpected argument \"false\"") == 0);
  CHECK(parse({"--v=-1"}).error.find("--v") != std::string::npos);
  CHECK(parse({"--log-flush-frequency=0s"}).error.find("greater than 0") != std::string::npos);
  CHECK(parse({"--stderrthreshold=loud"}).error.find("severity") != std::string::npos);
  CHECK(parse({"--vmodule=webhook"}).error.find("pattern=N") != std::string::npos);
  // The checks upstream's logging makes once every flag is read.
  CHECK(parse({"--logging-format=json", "--vmodule=a=1"}).error.find("--vmodule") == 0);
  CHECK(parse({"--logging-format=json", "--feature-gates=LoggingBetaOptions=false"})
            .error.find("LoggingBetaOptions") != std::string::npos);
  CHECK(parse({"--log-text-split-stream"}).error.find("LoggingAlphaOptions") != std::string::npos);
  CHECK(parse({"--log-json-info-buffer-size=1Ki"}).error.find("LoggingAlphaOptions") !=
        std::string::npos);
  CHECK(parse({"--log-json-info-buffer-size=0", "--log-text-split-stream=false"}).error.empty());
  CHECK(parse({"--log-text-split-stream",
               "--feature-gates=AllAlpha=true,"
               "FederatedQuotaEnforcement=false"})
            .error.empty());
  // An empty argument is nothing, as upstream's root command takes it; `--` ends the flags.
  CHECK(parse({"", "--v=1"}).error.empty());
  CHECK(parse({"--", "--v=1"}).error.find("unexpected argument \"--v=1\"") == 0);
}

TEST_CASE("switch by image: the start-up log names every flag given that has no effect") {
  const Parsed p =
      parse({"--add_dir_header", "--alsologtostderr=false", "--alsologtostderrthreshold=WARNING",
             "--enable-pprof", "--legacy-stderr-threshold-behavior=true",
             "--log-backtrace-at=a.go:10", "--log-dir=/l", "--log-file=/l/f",
             "--log-file-max-size=10", "--log-flush-frequency=5s", "--logtostderr", "--one-output",
             "--profiling-bind-address=:6060", "--skip-headers", "--skip-log-headers",
             "--stderrthreshold=2", "--vmodule=a=1,b=2", "--vmodule=c=3", "--tls-min-version=1.0"});
  REQUIRE(p.error.empty());
  CHECK(p.no_effect.size() == 18);
  CHECK(p.no_effect.back() == "--tls-min-version=1.0 (served as 1.2)");
  CHECK(p.flags.upstream.vmodule.size() == 2);
}

TEST_CASE("pflag reading: shorthands, positionals, `--`") {
  kpw::PflagShape shape;
  shape.arity = [](std::string_view name) {
    if (name == "x" || name == "help") return kpw::FlagArity::kBool;
    if (name == "v" || name == "name") return kpw::FlagArity::kValue;
    return kpw::FlagArity::kUnknown;
  };
  shape.shorthand = [](char c) -> std::string {
    if (c == 'v') return "v";
    if (c == 'x') return "x";
    if (c == 'h') return "help";
    return {};
  };
  kpw::PflagArgs out;
  REQUIRE_FALSE(kpw::read_pflag_args({"a", "-xv3", "-", "--name", "--", "--", "-v"}, shape, out));
  CHECK(out.flags == std::vector<std::string>{"--x", "--v=3", "--name=--"});
  CHECK(out.positional == std::vector<std::string>{"a", "-", "-v"});
  REQUIRE_FALSE(kpw::read_pflag_args({"-x=false", "-v=", "--x=FALSE"}, shape, out));
  CHECK(out.flags == std::vector<std::string>{"--x=false", "--v==", "--x=false"});
  CHECK(*kpw::read_pflag_args({"--=x"}, shape, out) == "bad flag syntax: --=x");
  CHECK(*kpw::read_pflag_args({"-x=1", "-q"}, shape, out) == "unknown shorthand flag: 'q' in -q");
  CHECK(*kpw::read_pflag_args({"-x=yes"}, shape, out) ==
        "invalid argument \"yes\" for \"-x, --x\" flag: strconv.ParseBool: parsing \"yes\": "
        "invalid syntax");
}

TEST_CASE("Go durations: time.ParseDuration's syntax, values and messages") {
  struct Case {
    const char* text;
    std::int64_t nanos;
  };
  for (const Case c :
       {Case{"0", 0}, Case{"-0", 0}, Case{"5s", 5'000'000'000}, Case{"1m30s", 90'000'000'000},
        Case{"1.5h", 5'400'000'000'000}, Case{"-2m", -120'000'000'000}, Case{"+3ms", 3'000'000},
        Case{"300us", 300'000}, Case{"300\xC2\xB5s", 300'000}, Case{"1\xCE\xBCs", 1000},
        Case{"7ns", 7}, Case{".5s", 500'000'000}, Case{"1.s", 1'000'000'000},
        Case{"1h1m1s1ms1us1ns", 3'661'001'001'001}, Case{"2562047h47m16.854775807s", INT64_MAX},
        Case{"-2562047h47m16.854775808s", INT64_MIN},
        Case{"0.3333333333333333333h", 1'200'000'000'000}}) {
    std::int64_t nanos = 0;
    std::string error;
    INFO(c.text);
    REQUIRE(kpw::parse_go_duration(c.text, nanos, error));
    CHECK(nanos == c.nanos);
  }
  struct Bad {
    const char* text;
    const char* error;
  };
  for (const Bad b :
       {Bad{"", "time: invalid duration \"\""}, Bad{"1", "time: missing unit in duration \"1\""},
        Bad{"1d", "time: unknown unit \"d\" in duration \"1d\""},
        Bad{"s", "time: invalid duration \"s\""}, Bad{".s", "time: invalid duration \".s\""},
        Bad{"-", "time: invalid duration \"-\""},
        Bad{"1s ", "time: unknown unit \"s \" in duration \"1s \""},
        Bad{"2562047h47m16.854775808s", "time: invalid duration \"2562047h47m16.854775808s\""},
        Bad{"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""}}) {
    std::int64_t nanos = 0;
    std::string error;
    INFO(b.text);
    CHECK_FALSE(kpw::parse_go_duration(b.text, nanos, error));
    CHECK(error == b.error);
  }
}
