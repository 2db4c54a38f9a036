#include "server/answer_writer.hpp"

#include <boost/beast/http/status.hpp>
#include <charconv>
#include <cstddef>

namespace kpw {
namespace {

void append_decimal(std::string& out, std::size_t n) {
  char digits[20];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, end);
}

}  // namespace

void write_answer(const HttpAnswer& answer, std::string_view allow, bool keep_alive,
                  std::string& out) {
  namespace http = boost::beast::http;
  out.clear();
  out += "HTTP/1.1 ";
  append_decimal(out, answer.status);
  out += ' ';
  out += http::obsolete_reason(static_cast<http::status>(answer.status));
  out += "\r\nContent-Type: ";
  out += answer.content_type;
  // The review port's 405 is HttpAnswer::method_not_post; the others' a plain 405: each port
  // names its own method.
  if (answer.status == 405) {
    out += "\r\nAllow: ";
    out += allow;
  }
  if (answer.retry_after) out += "\r\nRetry-After: 1";
  if (!keep_alive) out += "\r\nConnection: close";
  out += "\r\nContent-Length: ";
  append_decimal(out, answer.body.size());
  out += "\r\n\r\n";
  out += answer.body;
}

}  // namespace kpw
