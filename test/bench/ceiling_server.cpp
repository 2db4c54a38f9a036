// The benchmark ceiling: the same server library (kpw::run_server: TLS, HTTP/1.1 keep-alive, the
// same threads and timeouts) with a handler that ignores the request and answers one fixed
// allowed AdmissionReview. What the real webhook does per request on top of this (decode, rules,
// encode) is the difference between the two servers' figures.
//
//   ceiling_server [--bind-address IP] [--secure-port P] [--cert-dir DIR] [--threads N]
//
// The flags mean what they mean for `karmada-policy-webhook serve` (certificate tls.crt, key
// tls.key, TLS 1.3 minimum); the startup and shutdown lines are run_server's own.
//
// With --echo-uid the answer carries the request's uid (the first `"uid":"…"` of the body, found
// without parsing), so that a real API server accepts it: the null webhook of the federation
// load test (test/e2e/test_federation_load.py), the floor its figures are read against.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "admission/service.hpp"
#include "server/server.hpp"

namespace {

constexpr std::string_view kAllowed =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
    R"("response":{"uid":"bench","allowed":true,"status":{"metadata":{},"code":200}}})";

void answer_allowed(const kpw::Route* /*route*/, std::string_view /*method*/,
                    std::string_view /*content_type*/, std::string& /*body*/,
                    kpw::HttpAnswer& answer) {
  answer.status = 200;
  answer.content_type = "application/json";
  answer.body.assign(kAllowed);
}

// The same answer with the request's uid (an API server's uids are UUIDs: no escapes to keep).
void answer_allowed_echoing_uid(const kpw::Route* /*route*/, std::string_view /*method*/,
                                std::string_view /*content_type*/, std::string& body,
                                kpw::HttpAnswer& answer) {
  constexpr std::string_view kKey = R"("uid":")";
  std::string_view uid;
  const std::string_view text = body;
  if (const std::size_t at = text.find(kKey); at != std::string_view::npos) {
    const std::size_t start = at + kKey.size();
    const std::size_t end = text.find('"', start);
    if (end != std::string_view::npos && end - start <= 64) uid = text.substr(start, end - start);
  }
  answer.status = 200;
  answer.content_type = "application/json";
  answer.body.assign(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                     R"("response":{"uid":")");
  answer.body += uid;
  answer.body += R"(","allowed":true,"status":{"metadata":{},"code":200}}})";
}

int usage(const char* message) {
  std::fprintf(stderr,
               "ceiling_server: %s\n"
               "usage: ceiling_server [--bind-address IP] [--secure-port P] [--cert-dir DIR] "
               "[--threads N] [--echo-uid]\n",
               message);
  return 2;
}

// A whole decimal number in [lo, hi], or -1.
long parse_number(const char* text, long lo, long hi) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < lo || value > hi) return -1;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  kpw::ServerOptions options;
  options.bind_address = "0.0.0.0";
  options.port = 8443;
  options.health_probe_address = "0";  // only the TLS port: the bench runs next to other servers
  options.metrics_address = "0";
  options.shutdown_delay = std::chrono::milliseconds(0);
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  auto handler = &answer_allowed;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    std::string value;
    // Both `--flag value` and `--flag=value`.
    if (const std::size_t eq = flag.find('='); eq != std::string_view::npos) {
      value = std::string(flag.substr(eq + 1));
      flag = flag.substr(0, eq);
    } else if (flag == "-h" || flag == "--help") {
      std::printf(
          "ceiling_server: the benchmark ceiling, answers every request with a fixed allowed "
          "review\nusage: ceiling_server [--bind-address IP] [--secure-port P] [--cert-dir DIR] "
          "[--threads N] [--echo-uid]\n");
      return 0;
    } else if (flag == "--echo-uid") {
      handler = &answer_allowed_echoing_uid;
      continue;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return usage((std::string(flag) + " needs a value").c_str());
    }
    if (flag == "--bind-address") {
      options.bind_address = value;
    } else if (flag == "--secure-port") {
      const long port = parse_number(value.c_str(), 1, 65535);
      if (port < 0) return usage("--secure-port must be between 1 and 65535");
      options.port = static_cast<unsigned short>(port);
    } else if (flag == "--cert-dir") {
      cert_dir = value;
    } else if (flag == "--threads") {
      const long threads = parse_number(value.c_str(), 1, 1024);
      if (threads < 0) return usage("--threads must be between 1 and 1024");
      options.threads = static_cast<unsigned>(threads);
    } else {
      return usage(("unknown flag " + std::string(flag)).c_str());
    }
  }
  if (!cert_dir.empty() && cert_dir.back() != '/') cert_dir += '/';
  options.cert_file = cert_dir + "tls.crt";
  options.key_file = cert_dir + "tls.key";
  if (auto error = kpw::run_server(options, handler)) {
    std::fprintf(stderr, "ceiling_server: %s\n", error->c_str());
    return 2;
  }
  return 0;
}
