// A request's head as a session uses it, and the quick reader of the common head: the whole head
// already read, in the shape every API server and HTTP client sends (docs/performance.md, "The
// request head without Beast's parser"). Anything else goes to Beast's parser, which is then the
// whole of that request's reading, exactly as before; the quick reader only ever answers the same
// as Beast's does (test_request_head compares the two on every head it takes).
#pragma once

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/verb.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpw {

struct RequestHead {
  boost::beast::http::verb method = boost::beast::http::verb::unknown;
  std::string method_text;
  std::string target;
  std::string content_type;  // the first Content-Type field's value, trimmed; empty: none
  std::optional<std::uint64_t> content_length;
  bool keep_alive = false;
  bool expect_continue = false;  // Expect: 100-continue
};

// The bounds a head is read under (the port's Limits).
struct HeadLimits {
  std::size_t max_header_bytes;
  std::uint64_t max_body_bytes;
};

// Reads the head at the start of `text` into `head` when it is whole there and needs nothing of
// what only Beast's parser handles: a known method, an origin target of visible ASCII, HTTP/1.1
// or HTTP/1.0, field lines `name: value` of token names and visible-ASCII values, at most one
// Content-Length (within max_body_bytes) and one Content-Type, a Connection of `close` or
// `keep-alive`, no Transfer-Encoding, Expect, Upgrade or Proxy-Connection, every line ended by
// CRLF, the whole head within max_header_bytes. Returns the head's length with its blank line,
// or 0 (then `head` is unspecified): the caller reads the request with Beast's parser.
std::size_t read_common_head(std::string_view text, const HeadLimits& limits, RequestHead& head);

// The head Beast's parser read (any other head's reading).
template <class Body>
void head_of(const boost::beast::http::request_parser<Body>& parser, RequestHead& head) {
  namespace http = boost::beast::http;
  const http::request<Body>& req = parser.get();
  head.method = req.method();
  head.method_text.assign(req.method_string().data(), req.method_string().size());
  head.target.assign(req.target().data(), req.target().size());
  const auto content_type = req.find(http::field::content_type);
  if (content_type == req.end()) {
    head.content_type.clear();
  } else {
    head.content_type.assign(content_type->value().data(), content_type->value().size());
  }
  head.content_length.reset();
  if (const auto length = parser.content_length()) head.content_length = *length;
  head.keep_alive = req.keep_alive();
  head.expect_continue = boost::beast::iequals(req[http::field::expect], "100-continue");
}

}  // namespace kpw
