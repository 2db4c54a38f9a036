// net/url.Parse, step by step as Go 1.26 takes it (parse, getScheme, parseAuthority, parseHost,
// unescape, validUserinfo, validOptionalPort, shouldEscape), keeping only what ValidateWebhookURL
// reads. An IP literal in brackets is checked as an IPv6 address (util/ip); its error names Go's
// netip message `unable to parse IP`, which netip words otherwise for some malformed IPv6 forms
// (docs/compatibility.md, "ResourceInterpreterWebhookConfiguration").
#include "util/go_url.hpp"

#include <cstddef>

#include "util/go_text.hpp"
#include "util/ip.hpp"

namespace kpw {
namespace {

enum class Mode { kPath, kFragment, kUserPassword, kHost };

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// shouldEscape, for the modes used here.
bool should_escape(char c, Mode mode) {
  if (is_alnum(c)) return false;
  if (mode == Mode::kHost) {
    switch (c) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '[':
      case ']':
      case '<':
      case '>':
      case '"':
        return false;
      default:
        break;
    }
  }
  switch (c) {
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      if (mode == Mode::kPath) return c == '?';
      if (mode == Mode::kUserPassword) return c == '@' || c == '/' || c == '?' || c == ':';
      if (mode == Mode::kFragment) return false;
      return true;
    default:
      break;
  }
  if (mode == Mode::kFragment) {
    switch (c) {
      case '!':
      case '(':
      case ')':
      case '*':
        return false;
      default:
        break;
    }
  }
  return true;
}

// unescape: the decoded text, or Go's error (EscapeError, InvalidHostError) in `error`.
bool unescape(std::string_view s, Mode mode, std::string& out, std::string& error) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) {
        error = "invalid URL escape ";
        append_go_quoted(error, s.substr(i, 3));
        return false;
      }
      if (mode == Mode::kHost && unhex(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
        error = "invalid URL escape ";
        append_go_quoted(error, s.substr(i, 3));
        return false;
      }
      out += static_cast<char>(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
      i += 3;
      continue;
    }
    if (mode == Mode::kHost && static_cast<unsigned char>(c) < 0x80 && should_escape(c, mode)) {
      error = "invalid character ";
      append_go_quoted(error, s.substr(i, 1));
      error += " in host name";
      return false;
    }
    out += c;
    ++i;
  }
  return true;
}

void escape(std::string_view s, Mode mode, std::string& out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : s) {
    if (!should_escape(c, mode)) {
      out += c;
      continue;
    }
    const auto b = static_cast<unsigned char>(c);
    out += '%';
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
}

bool valid_optional_port(std::string_view port) {
  if (port.empty()) return true;
  if (port.front() != ':') return false;
  for (const char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool valid_userinfo(std::string_view s) {
  for (const char c : s) {
    if (is_alnum(c)) continue;
    switch (c) {
      case '-':
      case '.':
      case '_':
      case ':':
      case '~':
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case '%':
      case '@':
        continue;
      default:
        // Go ranges over runes: a byte >= 0x80 is part of a rune that is none of the above.
        return false;
    }
  }
  return true;
}

void invalid_port(std::string_view colon_port, std::string& error) {
  error = "invalid port ";
  append_go_quoted(error, colon_port);
  error += " after host";
}

bool parse_host(std::string_view host, GoUrl& url, std::string& error) {
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      error = "missing ']' in host";
      return false;
    }
    const std::string_view colon_port = host.substr(close + 1);
    if (!valid_optional_port(colon_port)) {
      invalid_port(colon_port, error);
      return false;
    }
    const std::string_view literal = host.substr(1, close - 1);
    if (literal.find("%25") == std::string_view::npos &&
        (literal.find(':') == std::string_view::npos || !is_ip_sloppy(literal))) {
      error = "invalid host: ParseAddr(";
      append_go_quoted(error, literal);
      error += "): unable to parse IP";
      return false;
    }
  } else if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    if (!valid_optional_port(host.substr(colon))) {
      invalid_port(host.substr(colon), error);
      return false;
    }
  }
  return unescape(host, Mode::kHost, url.host, error);
}

bool parse_authority(std::string_view authority, GoUrl& url, std::string& error) {
  const std::size_t at = authority.rfind('@');
  if (!parse_host(at == std::string_view::npos ? authority : authority.substr(at + 1), url,
                  error)) {
    return false;
  }
  if (at == std::string_view::npos) return true;
  const std::string_view userinfo = authority.substr(0, at);
  if (!valid_userinfo(userinfo)) {
    error = "net/url: invalid userinfo";
    return false;
  }
  const std::size_t colon = userinfo.find(':');
  std::string name;
  std::string password;
  if (!unescape(userinfo.substr(0, colon), Mode::kUserPassword, name, error)) return false;
  url.has_user = true;
  escape(name, Mode::kUserPassword, url.user);
  if (colon == std::string_view::npos) return true;
  if (!unescape(userinfo.substr(colon + 1), Mode::kUserPassword, password, error)) return false;
  url.user += ':';
  escape(password, Mode::kUserPassword, url.user);
  return true;
}

// getScheme: the scheme before the first ':' when everything before it is a scheme's characters.
bool get_scheme(std::string_view raw, std::string_view& scheme, std::string_view& rest,
                std::string& error) {
  scheme = {};
  rest = raw;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) return true;
      continue;
    }
    if (c == ':') {
      if (i == 0) {
        error = "missing protocol scheme";
        return false;
      }
      scheme = raw.substr(0, i);
      rest = raw.substr(i + 1);
    }
    return true;
  }
  return true;
}

bool parse(std::string_view raw, GoUrl& url, std::string& error) {
  for (const char c : raw) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      error = "net/url: invalid control character in URL";
      return false;
    }
  }
  if (raw == "*") return true;
  std::string_view scheme;
  std::string_view rest;
  if (!get_scheme(raw, scheme, rest, error)) return false;
  for (const char c : scheme)
    url.scheme += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  const std::size_t question = rest.find('?');
  if (question != std::string_view::npos && question == rest.size() - 1) {
    rest.remove_suffix(1);  // ForceQuery: a lone trailing '?'
  } else if (question != std::string_view::npos) {
    url.raw_query.assign(rest.substr(question + 1));
    rest = rest.substr(0, question);
  }
  if (rest.empty() || rest.front() != '/') {
    if (!url.scheme.empty()) return true;  // opaque
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos) {
      error = "first path segment in URL cannot contain colon";
      return false;
    }
  }
  if ((!url.scheme.empty() || rest.substr(0, 3) != "///") && rest.substr(0, 2) == "//") {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const std::size_t slash = authority.find('/'); slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    if (!parse_authority(authority, url, error)) return false;
  }
  std::string path;
  return unescape(rest, Mode::kPath, path, error);
}

void wrap(std::string_view url_text, std::string& error) {
  std::string wrapped = "parse ";
  append_go_quoted(wrapped, url_text);
  wrapped += ": ";
  wrapped += error;
  error = std::move(wrapped);
}

}  // namespace

bool parse_go_url(std::string_view raw, GoUrl& out) {
  out = GoUrl{};
  const std::size_t hash = raw.find('#');
  const std::string_view before = raw.substr(0, hash);
  if (!parse(before, out, out.error)) {
    wrap(before, out.error);
    return false;
  }
  if (hash == std::string_view::npos || hash + 1 == raw.size()) return true;
  if (!unescape(raw.substr(hash + 1), Mode::kFragment, out.fragment, out.error)) {
    wrap(raw, out.error);
    return false;
  }
  return true;
}

}  // namespace kpw
