#include "util/names.hpp"

namespace kpw {
namespace {

// Messages as k8s.io/apimachinery/pkg/util/validation words them (v0.36, which upstream Karmada
// vendors: a qualified name's parts' lengths in bytes, a DNS label's or subdomain's in characters,
// as upstream's binary answers), so users can search them.
constexpr std::string_view kLabelFormat =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
// IsDNS1123Label, IsDNS1123Subdomain and IsDNS1035Label word their length limits in characters
// (upstream's binary: `metadata.namespace`, `metadata.name` of FederatedHPA and
// MultiClusterService, a MultiClusterService's port names), label values and name parts in bytes.
constexpr std::string_view kLabelTooLong = "must be no more than 63 characters";
constexpr std::string_view kLabelValueTooLong = "must be no more than 63 bytes";
constexpr std::string_view kSubdomainFormat =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kSubdomainTooLong = "must be no more than 253 characters";
constexpr std::string_view kDns1035Format =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kPrefixEmpty = "prefix part must be non-empty";
constexpr std::string_view kPrefixTooLong = "prefix part must be no more than 253 bytes";
constexpr std::string_view kPrefixFormat =
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kLabelValueFormat =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
constexpr std::string_view kNameEmpty = "name part must be non-empty";
constexpr std::string_view kNameTooLong = "name part must be no more than 63 bytes";
constexpr std::string_view kNameFormat =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
// More than one '/': the wording upstream's binary gives wherever it checks a qualified name
// (label keys, annotation keys, finalizers, resource names): its apimachinery's IsQualifiedName.
constexpr std::string_view kQualifiedFormat =
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matches_label(std::string_view v) {
  if (v.empty() || !is_lower_alnum(v.front()) || !is_lower_alnum(v.back())) return false;
  for (char c : v) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return true;
}

// label(\.label)*
bool matches_subdomain(std::string_view v) {
  while (true) {
    std::size_t dot = v.find('.');
    if (!matches_label(v.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    v.remove_prefix(dot + 1);
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool matches_qualified_name_part(std::string_view v) {
  if (v.empty() || !is_alnum(v.front()) || !is_alnum(v.back())) return false;
  for (char c : v) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

NameProblems check_dns1123_label(std::string_view value) {
  NameProblems p;
  if (value.size() > 63) p.add(kLabelTooLong);
  if (!matches_label(value)) p.add(kLabelFormat);
  return p;
}

NameProblems check_dns1035_label(std::string_view value) {
  NameProblems p;
  if (value.size() > 63) p.add(kLabelTooLong);
  // [a-z]([-a-z0-9]*[a-z0-9])?: a DNS-1123 label that starts with a letter.
  if (!matches_label(value) || !(value.front() >= 'a' && value.front() <= 'z')) {
    p.add(kDns1035Format);
  }
  return p;
}

NameProblems check_dns1123_subdomain(std::string_view value) {
  NameProblems p;
  if (value.size() > 253) p.add(kSubdomainTooLong);
  if (!matches_subdomain(value)) p.add(kSubdomainFormat);
  return p;
}

namespace {

NameProblems check_qualified(std::string_view value) {
  NameProblems p;
  std::string_view name = value;
  std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      p.add(kQualifiedFormat);
      return p;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      p.add(kPrefixEmpty);
    } else {
      if (prefix.size() > 253) p.add(kPrefixTooLong);
      if (!matches_subdomain(prefix)) p.add(kPrefixFormat);
    }
  }
  if (name.empty()) {
    p.add(kNameEmpty);
  } else if (name.size() > 63) {
    p.add(kNameTooLong);
  }
  if (!matches_qualified_name_part(name)) p.add(kNameFormat);
  return p;
}

}  // namespace

NameProblems check_qualified_name(std::string_view value) {
  return check_qualified(value);
}


NameProblems check_label_value(std::string_view value) {
  NameProblems p;
  if (value.empty()) return p;
  if (value.size() > 63) p.add(kLabelValueTooLong);
  if (!matches_qualified_name_part(value)) p.add(kLabelValueFormat);
  return p;
}

namespace {

constexpr std::string_view kWildcardFormat =
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
    "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
    "character (e.g. '*.example.com', regex used for validation is "
    "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

}  // namespace

NameProblems check_wildcard_dns1123_subdomain(std::string_view value) {
  NameProblems p;
  if (value.size() > 253) p.add(kSubdomainTooLong);
  if (value.size() < 3 || value.substr(0, 2) != "*." || !matches_subdomain(value.substr(2))) {
    p.add(kWildcardFormat);
  }
  return p;
}

NameProblems check_port_name(std::string_view value) {
  NameProblems p;
  if (value.size() > 15) p.add("must be no more than 15 characters");
  bool charset = !value.empty();
  bool letter = false;
  for (const char c : value) {
    charset = charset && (is_lower_alnum(c) || c == '-');
    letter = letter || (c >= 'a' && c <= 'z');
  }
  if (!charset) p.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) p.add("must contain at least one letter (a-z)");
  if (value.find("--") != std::string_view::npos) p.add("must not contain consecutive hyphens");
  if (!value.empty() && (value.front() == '-' || value.back() == '-')) {
    p.add("must not begin or end with a hyphen");
  }
  return p;
}

NameProblems check_path_segment_name(std::string_view value) {
  NameProblems p;
  if (value == ".") {
    p.add("may not be '.'");
    return p;
  }
  if (value == "..") {
    p.add("may not be '..'");
    return p;
  }
  if (value.find('/') != std::string_view::npos) p.add("may not contain '/'");
  if (value.find('%') != std::string_view::npos) p.add("may not contain '%'");
  return p;
}

}  // namespace kpw
