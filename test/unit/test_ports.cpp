// What each port serves (server/port.hpp) and the one answer writer (server/answer_writer.hpp),
// without sockets: the probes are one answer on both ports, a 405 names each port's method, and
// the writer's head is what Beast writes for the same answer.
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "admission/answer.hpp"
#include "admission/route.hpp"
#include "server/answer_writer.hpp"
#include "server/port.hpp"
#include "server/review_pool.hpp"
#include "server/server_state.hpp"

namespace {

namespace http = boost::beast::http;

struct Ports {
  kpw::ServerOptions options;
  kpw::ServerState state{options,
                         [](const kpw::Route*, std::string_view, std::string_view, std::string&,
                            kpw::HttpAnswer& answer) { answer.plain(200, "reviewed\n"); }};
  kpw::Port review = kpw::review_port(options);
  kpw::Port probes = kpw::probe_port(options);
  kpw::Port metrics = kpw::metrics_port(options);
  std::string body;

  // The bytes `port` answers `method target` with.
  std::string ask(const kpw::Port& port, http::verb method, std::string_view target,
                  bool keep_alive = true) {
    const kpw::Target found = kpw::find_target(port, target);
    const kpw::Request request{method, http::to_string(method), "", body, found};
    kpw::HttpAnswer answer;
    port.answer(request, state, answer);
    if (method == http::verb::head) answer.body.clear();
    std::string out;
    kpw::write_answer(answer, port.allow, keep_alive, out);
    return out;
  }
};

// What Beast's serializer writes for the same answer.
std::string beast_bytes(unsigned status, std::string_view type, std::string_view allow,
                        bool retry_after, bool keep_alive, std::string_view body) {
  http::response<http::string_body> res;
  res.version(11);
  res.result(status);
  res.set(http::field::content_type, type);
  if (!allow.empty()) res.set(http::field::allow, allow);
  if (retry_after) res.set(http::field::retry_after, "1");
  res.keep_alive(keep_alive);
  res.body() = std::string(body);
  res.prepare_payload();
  std::string out;
  http::serializer<false, http::string_body> sr(res);
  boost::beast::error_code ec;
  while (!sr.is_done()) {
    sr.next(ec, [&](boost::beast::error_code&, const auto& buffers) {
      out += boost::beast::buffers_to_string(buffers);
      sr.consume(boost::asio::buffer_size(buffers));
    });
  }
  return out;
}

}  // namespace

TEST_CASE("ports: the probes answer the same bytes on the review port and the probe port") {
  Ports p;
  p.state.ready = true;
  for (std::string_view target :
       {"/healthz", "/readyz", "/readyz?verbose", "https://h:1/healthz"}) {
    INFO(std::string(target));
    CHECK(p.ask(p.review, http::verb::get, target) == p.ask(p.probes, http::verb::get, target));
    CHECK(p.ask(p.probes, http::verb::get, target) ==
          "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
          "3\r\n\r\nok\n");
  }
  p.state.stopping = true;  // draining: not ready, still healthy
  CHECK(p.ask(p.review, http::verb::get, "/readyz") == p.ask(p.probes, http::verb::get, "/readyz"));
  CHECK(p.ask(p.probes, http::verb::get, "/readyz").starts_with("HTTP/1.1 503 "));
  CHECK(p.ask(p.probes, http::verb::get, "/healthz").starts_with("HTTP/1.1 200 "));
}

TEST_CASE("ports: each port answers its own paths; a 405 names the port's method") {
  Ports p;
  CHECK(p.ask(p.review, http::verb::post, "/healthz").starts_with("HTTP/1.1 200 OK"));  // handler
  CHECK(p.ask(p.probes, http::verb::get, "/metrics").starts_with("HTTP/1.1 404 "));
  CHECK(p.ask(p.metrics, http::verb::get, "/healthz").starts_with("HTTP/1.1 404 "));
  CHECK(
      p.ask(p.probes, http::verb::get, "/validate-propagationpolicy").starts_with("HTTP/1.1 404"));
  const std::string metrics = p.ask(p.metrics, http::verb::get, "/metrics?x");
  CHECK(
      metrics.starts_with("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; "
                          "charset=utf-8\r\n"));
  CHECK(metrics.find("karmada_policy_webhook_open_connections") != std::string::npos);
  CHECK(p.ask(p.metrics, http::verb::head, "/metrics").ends_with("Content-Length: 0\r\n\r\n"));
  CHECK(p.ask(p.probes, http::verb::post, "/healthz") ==
        "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\nAllow: "
        "GET\r\nContent-Length: 23\r\n\r\n405 method not allowed\n");
  CHECK(p.ask(p.metrics, http::verb::put, "/metrics").find("\r\nAllow: GET\r\n") !=
        std::string::npos);
}

TEST_CASE("ports: the target is read once, at the header; only the review port looks up routes") {
  Ports p;
  const kpw::Route* route = kpw::find_route("/validate-propagationpolicy");
  REQUIRE(route != nullptr);
  CHECK(kpw::find_target(p.review, "/validate-propagationpolicy?timeout=3s").route == route);
  CHECK(kpw::find_target(p.review, "https://a:8443/validate-propagationpolicy").route == route);
  CHECK(kpw::find_target(p.probes, "/validate-propagationpolicy").route == nullptr);
  CHECK(kpw::find_target(p.probes, "/readyz?x").known == kpw::KnownPath::kReadyz);
  CHECK(kpw::find_target(p.metrics, "http://h/metrics").known == kpw::KnownPath::kMetrics);
  CHECK(kpw::find_target(p.review, "/healthzz").known == kpw::KnownPath::kOther);
}

TEST_CASE("answer writer: the head is what Beast writes for the same answer") {
  kpw::HttpAnswer answer;
  std::string out;
  answer.probe(true);
  for (bool keep_alive : {true, false}) {
    kpw::write_answer(answer, "GET", keep_alive, out);
    CHECK(out == beast_bytes(200, answer.content_type, "", false, keep_alive, "ok\n"));
  }
  answer.method_not_post();
  kpw::write_answer(answer, "POST", true, out);
  CHECK(out == beast_bytes(405, answer.content_type, "POST", false, true, answer.body));
  answer.busy(8, 65536);
  kpw::write_answer(answer, "POST", true, out);
  CHECK(out == beast_bytes(429, "application/json", "", true, true, answer.body));
  answer.too_large(1024);
  kpw::write_answer(answer, "POST", false, out);
  CHECK(out == beast_bytes(413, "application/json", "", false, false, answer.body));
}
