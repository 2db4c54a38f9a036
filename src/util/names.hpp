// Kubernetes name grammars: DNS-1123 labels and subdomains, DNS-1035 labels, qualified names
// (label keys).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace kpw {

// At most five problems are ever reported for one name; each message is a static string.
struct NameProblems {
  std::array<std::string_view, 5> messages{};
  std::size_t count = 0;

  bool ok() const { return count == 0; }
  void add(std::string_view m) {
    if (count < messages.size()) messages[count++] = m;
  }
  const std::string_view* begin() const { return messages.data(); }
  const std::string_view* end() const { return messages.data() + count; }
};

// Lowercase RFC 1123 label: at most 63 bytes of [a-z0-9-], alphanumeric at both ends.
NameProblems check_dns1123_label(std::string_view value);
// DNS-1035 label (k8s.io/apimachinery IsDNS1035Label): at most 63 bytes of [a-z0-9-], a letter
// first, alphanumeric last (MultiClusterService names, a service backend's).
NameProblems check_dns1035_label(std::string_view value);
// Lowercase RFC 1123 subdomain: at most 253 bytes, dot-separated labels.
NameProblems check_dns1123_subdomain(std::string_view value);
// Qualified name (label key): optional DNS-1123 subdomain prefix and '/', then a name part of
// 1..63 bytes of [A-Za-z0-9-_.], alphanumeric at both ends. Messages as
// k8s.io/apimachinery IsQualifiedName gives them in upstream's binary ("" yields two; more than
// one '/' is `a valid label key must consist of …`, its one wording for every qualified name).
NameProblems check_qualified_name(std::string_view value);
// Label value: empty, or at most 63 bytes of [A-Za-z0-9-_.], alphanumeric at both ends
// (k8s.io/apimachinery IsValidLabelValue).
NameProblems check_label_value(std::string_view value);

// `*.` then a DNS-1123 subdomain, at most 253 bytes (IsWildcardDNS1123Subdomain).
NameProblems check_wildcard_dns1123_subdomain(std::string_view value);
// A port's name (IsValidPortName): at most 15 bytes of [a-z0-9-], a letter among them, no `--`,
// no hyphen at either end; every problem reported, in apimachinery's order.
NameProblems check_port_name(std::string_view value);
// A name that is one path segment (IsValidPathSegmentName): not `.` or `..`, no `/` or `%`.
NameProblems check_path_segment_name(std::string_view value);

inline bool is_dns1123_label(std::string_view v) { return check_dns1123_label(v).ok(); }
inline bool is_dns1123_subdomain(std::string_view v) { return check_dns1123_subdomain(v).ok(); }

}  // namespace kpw
