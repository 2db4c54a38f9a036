// libFuzzer, differential: untrusted bytes as the start of a request through the quick head
// reader (server/request_head.hpp) and through Beast's request parser read as the sessions read
// it (head_of), under the sessions' limits. Whenever the quick reader takes a head, Beast's parser
// must take it too and find the same method, target, Content-Type, Content-Length, keep-alive and
// head length; whatever the quick reader leaves is Beast's alone (nothing to compare). The first
// byte picks the limits: header limits from 16 bytes, so that a head at and past the limit is
// tried.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/request_head.hpp"

namespace {

namespace http = boost::beast::http;

[[noreturn]] void fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz_request_head: %s\ninput (%zu bytes): %.*s\n", what, input.size(),
               static_cast<int>(input.size()), input.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const kpw::HeadLimits limits{16 + static_cast<std::size_t>(data[0]) * 32,
                               static_cast<std::uint64_t>(data[0]) * 97 + 1};
  // The text in a buffer of its own size, so that AddressSanitizer sees any read past it.
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  kpw::RequestHead quick;
  const std::size_t used = kpw::read_common_head(text, limits, quick);
  if (used == 0) return 0;
  if (used > text.size()) fail("the head is longer than the text", text);

  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser.body_limit(limits.max_body_bytes);
  parser.eager(false);
  boost::beast::error_code ec;
  const std::size_t beast_used = parser.put(boost::asio::buffer(text.data(), text.size()), ec);
  if (ec || !parser.is_header_done()) fail("the quick reader took a head Beast refuses", text);
  kpw::RequestHead beast;
  kpw::head_of(parser, beast);
  if (beast_used != used) fail("the head's length differs", text);
  if (beast.method != quick.method || beast.method_text != quick.method_text) {
    fail("the method differs", text);
  }
  if (beast.target != quick.target) fail("the target differs", text);
  if (beast.content_type != quick.content_type) fail("the Content-Type differs", text);
  if (beast.content_length != quick.content_length) fail("the Content-Length differs", text);
  if (beast.keep_alive != quick.keep_alive) fail("keep-alive differs", text);
  if (quick.expect_continue) fail("the quick reader took an Expect", text);
  return 0;
}
