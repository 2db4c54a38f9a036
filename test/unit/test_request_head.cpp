// The quick reader of a request's head (server/request_head.hpp) against Beast's parser, which
// reads every head the quick reader does not take: on every head it takes, the quick reader must
// find what Beast finds (method, target, Content-Type, Content-Length, keep-alive, the head's
// length), and it must take the heads real clients send, or the sessions lose its speed unseen.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "server/request_head.hpp"

namespace {

namespace http = boost::beast::http;

constexpr kpw::HeadLimits kLimits{8192, 3 * 1024 * 1024};

// What Beast's request parser (the sessions' limits, the header alone) makes of `text`, read as
// the sessions read it (head_of): nullopt when it refuses the head or finds it incomplete.
std::optional<std::pair<std::size_t, kpw::RequestHead>> beast_head(std::string_view text,
                                                                   const kpw::HeadLimits& limits) {
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser.body_limit(limits.max_body_bytes);
  parser.eager(false);
  boost::beast::error_code ec;
  const std::size_t used = parser.put(boost::asio::buffer(text.data(), text.size()), ec);
  if (ec || !parser.is_header_done()) return std::nullopt;
  kpw::RequestHead head;
  kpw::head_of(parser, head);
  return std::pair{used, head};
}

// Fails when the quick reader takes `text` and finds anything Beast's parser does not; returns
// whether it took it.
bool agrees_with_beast(std::string_view text, const kpw::HeadLimits& limits = kLimits) {
  kpw::RequestHead quick;
  const std::size_t used = kpw::read_common_head(text, limits, quick);
  if (used == 0) return false;
  const auto beast = beast_head(text, limits);
  INFO("head: " << std::string(text.substr(0, 400)));
  REQUIRE(beast.has_value());
  CHECK(used == beast->first);
  CHECK(quick.method == beast->second.method);
  CHECK(quick.method_text == beast->second.method_text);
  CHECK(quick.target == beast->second.target);
  CHECK(quick.content_type == beast->second.content_type);
  CHECK(quick.content_length == beast->second.content_length);
  CHECK(quick.keep_alive == beast->second.keep_alive);
  CHECK(quick.expect_continue == beast->second.expect_continue);
  return true;
}

// The head kube-apiserver's admission client (Go's net/http) sends, as captured.
const std::string kApiServerHead =
    "POST /validate-propagationpolicy?timeout=10s HTTP/1.1\r\n"
    "Host: karmada-webhook.karmada-system.svc:443\r\n"
    "User-Agent: kube-apiserver-admission\r\n"
    "Content-Length: 2387\r\n"
    "Accept: application/json, */*\r\n"
    "Content-Type: application/json\r\n"
    "Accept-Encoding: gzip\r\n"
    "\r\n";

const std::vector<std::string> kCommonHeads = {
    kApiServerHead,
    // wrk with test/bench/post.lua
    "POST /validate-propagationpolicy HTTP/1.1\r\nHost: 127.0.0.1:8443\r\n"
    "Content-Type: application/json\r\nContent-Length: 2387\r\n\r\n",
    // curl
    "POST /mutate-propagationpolicy HTTP/1.1\r\nHost: localhost:8443\r\nUser-Agent: curl/7.88.1\r\n"
    "Accept: */*\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n",
    // Python's http.client, a probe, a keep-alive HTTP/1.0 client, a close
    "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n",
    "GET /healthz HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
    "GET /metrics HTTP/1.0\r\n\r\n",
    "POST /validate-overridepolicy HTTP/1.1\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    "HEAD /healthz HTTP/1.1\r\nConnection:keep-alive\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Type:\t application/json; charset=utf-8 \t\r\nContent-Length:  7 "
    "\r\n\r\n",
    "PUT /validate-work HTTP/1.1\r\nX-Empty:\r\nContent-Length: 00012\r\n\r\n",
};

// Heads only Beast's parser reads: the quick reader must leave them to it.
const std::vector<std::string> kBeastHeads = {
    "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
    "POST /x HTTP/1.1\r\nContent-Length: 3145728\r\n\r\n",  // the body limit
    "POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n",
    "GET /x HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    "GET /x HTTP/1.1\r\nConnection: close, keep-alive\r\n\r\n",
    "GET /x HTTP/1.1\r\nConnection: close\r\nConnection: close\r\n\r\n",
    "GET /x HTTP/1.1\r\nProxy-Connection: close\r\n\r\n",
    "GET /x HTTP/1.1\r\nContent-Type: a\r\nContent-Type: b\r\n\r\n",
    "GET /x HTTP/1.1\r\nX-Folded: a\r\n b\r\n\r\n",
    "GET /x HTTP/1.1\nHost: a\n\n",
    "GET /x HTTP/1.1\r\nHost: a\n\r\n\r\n",
    "GET /x HTTP/1.1\r\nHost : a\r\n\r\n",
    "GET /x HTTP/1.1\r\n: a\r\n\r\n",
    "GET /x HTTP/1.1\r\nHost: caf\xc3\xa9\r\n\r\n",
    "GET /x HTTP/2.0\r\n\r\n",
    "GET /x HTTP/1.1 \r\n\r\n",
    "GET  /x HTTP/1.1\r\n\r\n",
    "BREW /x HTTP/1.1\r\n\r\n",
    "\r\nGET /x HTTP/1.1\r\n\r\n",
    "GET /x\x7f HTTP/1.1\r\n\r\n",
    "GET /x HTTP/1.1\r\nHost: a",
    "GET /x HTTP/1.1\r\nHost: a\r\n",
};

}  // namespace

TEST_CASE("request head: the heads real clients send are read quickly, as Beast reads them") {
  for (const std::string& head : kCommonHeads) {
    INFO(head);
    CHECK(agrees_with_beast(head));
    CHECK(agrees_with_beast(head + "{\"request\":{}}"));  // the body after it is not the head's
  }
}

TEST_CASE("request head: what only Beast's parser handles is left to it") {
  for (const std::string& head : kBeastHeads) {
    INFO(head);
    kpw::RequestHead quick;
    CHECK(kpw::read_common_head(head, kLimits, quick) == 0);
  }
}

TEST_CASE("request head: a head at or past the header limit is left to Beast's parser") {
  std::string head = "GET /x HTTP/1.1\r\nX-Pad: ";
  head.append(200, 'a');
  head += "\r\n\r\n";
  kpw::RequestHead quick;
  CHECK(kpw::read_common_head(head, kpw::HeadLimits{head.size() + 1, 1024}, quick) == head.size());
  CHECK(kpw::read_common_head(head, kpw::HeadLimits{head.size(), 1024}, quick) == 0);
  CHECK(kpw::read_common_head(head, kpw::HeadLimits{head.size() - 1, 1024}, quick) == 0);
}

TEST_CASE("request head: every byte in every place, and random edits, read as Beast reads them") {
  const std::vector<std::string> bases = {kCommonHeads[0], kCommonHeads[4], kCommonHeads[8]};
  std::size_t taken = 0;
  std::size_t tried = 0;
  // Each base with one byte replaced by each of the 256 values, at every position.
  for (const std::string& base : bases) {
    for (std::size_t at = 0; at < base.size(); ++at) {
      for (int b = 0; b < 256; ++b) {
        std::string text = base;
        text[at] = static_cast<char>(b);
        taken += agrees_with_beast(text) ? 1 : 0;
        ++tried;
      }
    }
  }
  // Random edits: 1 to 4 bytes replaced, inserted or removed, from a fixed seed.
  std::mt19937 random(20261127);
  const std::string_view interesting = "\r\n\t :,;-0123456789aAcCkK/\x7f\x80\xff\0";
  for (int i = 0; i < 60000; ++i) {
    std::string text = bases[random() % bases.size()];
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      const char c = (random() % 2) != 0 ? interesting[random() % interesting.size()]
                                         : static_cast<char>(random() % 256);
      switch (random() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          text.erase(at, 1);
          break;
      }
    }
    taken += agrees_with_beast(text) ? 1 : 0;
    ++tried;
  }
  // Most edits still leave a head of the common shape (a letter of a field's value changed):
  // the comparison above is not vacuous.
  CHECK(taken > tried / 4);
}
