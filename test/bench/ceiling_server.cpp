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
//
// With --permanent-ids as well, a CREATE to the mutating paths of the policies, bindings and
// Works is answered with the one patch the controllers cannot work without, which every mutator
// of those paths sends: a fresh UUID as the object's permanent-id label
// (propagationpolicy.karmada.io/…, clusterpropagationpolicy.karmada.io/…, M-6;
// resourcebinding.karmada.io/…, RB-M1; work.karmada.io/…, W-1, and the same on a Work's first
// manifest, W-11, which is how the controllers find its member object again). Only those paths
// parse the review, and only to know whether a labels map is there to add to. Nothing else of any
// mutator (no defaults, no pruning, no managed keys): the floor of a propagation, and of a policy
// sent as a mutator leaves it. It assumes what the controllers write (one manifest per Work); it
// is a bench tool, not a webhook.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "admission/route.hpp"
#include "admission/service.hpp"
#include "server/server.hpp"
#include "util/base64.hpp"
#include "util/uuid.hpp"

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

// The first `"uid":"…"` of the body (an API server's uids are UUIDs: no escapes to keep).
std::string_view first_uid(std::string_view text) {
  constexpr std::string_view kKey = R"("uid":")";
  if (const std::size_t at = text.find(kKey); at != std::string_view::npos) {
    const std::size_t start = at + kKey.size();
    const std::size_t end = text.find('"', start);
    if (end != std::string_view::npos && end - start <= 64) return text.substr(start, end - start);
  }
  return {};
}

void answer_allowed_with(std::string_view uid, std::string_view patch, kpw::HttpAnswer& answer) {
  answer.status = 200;
  answer.content_type = "application/json";
  answer.body.assign(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                     R"("response":{"uid":")");
  answer.body += uid;
  answer.body += R"(","allowed":true,)";
  if (!patch.empty()) {
    answer.body += R"("patchType":"JSONPatch","patch":")";
    kpw::append_base64(answer.body, patch);
    answer.body += R"(",)";
  }
  answer.body += R"("status":{"metadata":{},"code":200}}})";
}

// The same answer with the request's uid.
void answer_allowed_echoing_uid(const kpw::Route* /*route*/, std::string_view /*method*/,
                                std::string_view /*content_type*/, std::string& body,
                                kpw::HttpAnswer& answer) {
  answer_allowed_with(first_uid(body), {}, answer);
}

// Whether the object at `pointer` (an RFC 6901 pointer into the review) is a JSON object with a
// member "labels" that is an object.
bool has_labels(const rapidjson::Document& review, const char* pointer) {
  const rapidjson::Value* metadata = rapidjson::Pointer(pointer).Get(review);
  if (metadata == nullptr || !metadata->IsObject()) return false;
  const auto labels = metadata->FindMember("labels");
  return labels != metadata->MemberEnd() && labels->value.IsObject();
}

// The same, with the permanent-id label of a created policy, binding or Work (--permanent-ids).
// The review is parsed (RapidJSON, in place of nothing) only on those paths, and only to know
// whether a labels map is there to add to: microseconds, where the API server's cost per call
// is milliseconds.
void answer_allowed_with_permanent_ids(const kpw::Route* route, std::string_view /*method*/,
                                       std::string_view /*content_type*/, std::string& body,
                                       kpw::HttpAnswer& answer) {
  const std::string_view text = body;
  std::string patch;
  const std::string_view path = route != nullptr ? route->path : std::string_view();
  const bool work = path == "/mutate-work";
  const std::string_view name =
      work                                         ? "work.karmada.io/permanent-id"
      : path == "/mutate-resourcebinding"          ? "resourcebinding.karmada.io/permanent-id"
      : path == "/mutate-propagationpolicy"        ? "propagationpolicy.karmada.io/permanent-id"
      : path == "/mutate-clusterpropagationpolicy" ? "clusterpropagationpolicy.karmada.io/permanent-id"
                                                   : std::string_view();
  if (!name.empty() && text.find(R"("operation":"CREATE")") != std::string_view::npos) {
    rapidjson::Document review;
    review.Parse(body.data(), body.size());
    const kpw::UuidText id = kpw::random_uuid_v4();
    const std::string_view value(id.data(), id.size());
    std::string key(name);                          // as a JSON pointer token: '/' is "~1"
    key.replace(key.find('/'), 1, "~1");
    // `metadata` the object's metadata path; its labels map added whole when it has none.
    auto add = [&](std::string_view metadata, bool labelled) {
      patch += patch.empty() ? "[" : ",";
      patch += R"({"op":"add","path":")";
      patch += metadata;
      patch += "/labels";
      if (labelled) {
        patch += "/";
        patch += key;
        patch += R"(","value":")";
        patch += value;
        patch += R"("})";
      } else {
        patch += R"(","value":{")";
        patch += name;
        patch += R"(":")";
        patch += value;
        patch += R"("}})";
      }
    };
    if (!review.HasParseError()) {
      add("/metadata", has_labels(review, "/request/object/metadata"));
      const rapidjson::Value* first =
          rapidjson::Pointer("/request/object/spec/workload/manifests/0/metadata").Get(review);
      if (work && first != nullptr && first->IsObject()) {
        add("/spec/workload/manifests/0/metadata",
            has_labels(review, "/request/object/spec/workload/manifests/0/metadata"));
      }
      patch += "]";
    }
  }
  answer_allowed_with(first_uid(text), patch, answer);
}

int usage(const char* message) {
  std::fprintf(stderr,
               "ceiling_server: %s\n"
               "usage: ceiling_server [--bind-address IP] [--secure-port P] [--cert-dir DIR] "
               "[--threads N] [--echo-uid [--permanent-ids]]\n",
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
          "[--threads N] [--echo-uid [--permanent-ids]]\n");
      return 0;
    } else if (flag == "--echo-uid") {
      if (handler == &answer_allowed) handler = &answer_allowed_echoing_uid;
      continue;
    } else if (flag == "--permanent-ids") {
      handler = &answer_allowed_with_permanent_ids;
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
