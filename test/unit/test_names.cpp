// Name grammars: DNS-1123 labels and subdomains, qualified names (V-P4, V-P8, V-W1, V-F5 use them).
#include <catch2/catch.hpp>
#include <string>

#include "util/names.hpp"

using kpw::check_dns1123_label;
using kpw::check_dns1123_subdomain;
using kpw::check_qualified_name;

TEST_CASE("names: DNS-1123 label") {
  CHECK(check_dns1123_label("ns1").ok());
  CHECK(check_dns1123_label("a-b-0").ok());
  CHECK(check_dns1123_label(std::string(63, 'a')).ok());
  CHECK(check_dns1123_label(std::string(64, 'a')).count == 1);
  CHECK_FALSE(check_dns1123_label("").ok());
  CHECK_FALSE(check_dns1123_label("-a").ok());
  CHECK_FALSE(check_dns1123_label("a-").ok());
  CHECK_FALSE(check_dns1123_label("Ns1").ok());
  CHECK_FALSE(check_dns1123_label("a.b").ok());
}

TEST_CASE("names: DNS-1123 subdomain") {
  CHECK(check_dns1123_subdomain("example.com").ok());
  CHECK(check_dns1123_subdomain("a").ok());
  CHECK_FALSE(check_dns1123_subdomain("example..com").ok());
  CHECK_FALSE(check_dns1123_subdomain(".a").ok());
  CHECK_FALSE(check_dns1123_subdomain("a.").ok());
  CHECK_FALSE(check_dns1123_subdomain("Example.com").ok());
  CHECK(check_dns1123_subdomain(std::string(254, 'a')).count ==
        1);  // too long only: labels in a subdomain have no own limit
}

TEST_CASE("names: qualified name accepts label keys") {
  for (const char* ok : {"GroupA", "my.name", "123-abc", "a", "example.com/MyName",
                         "propagationpolicy.karmada.io/permanent-id", "a_b"}) {
    INFO(ok);
    CHECK(check_qualified_name(ok).ok());
  }
}

TEST_CASE("names: qualified name problems as apimachinery words them") {
  SECTION("empty gives two problems (C15)") {
    auto p = check_qualified_name("");
    REQUIRE(p.count == 2);
    CHECK(p.messages[0] == "name part must be non-empty");
    CHECK(p.messages[1].substr(0, 32) == "name part must consist of alphan");
  }
  SECTION("space in the name part (C13)") { CHECK(check_qualified_name("group 1").count == 1); }
  SECTION("uppercase prefix (C16)") {
    auto p = check_qualified_name("Example.com/g");
    REQUIRE(p.count == 1);
    CHECK(p.messages[0].substr(0, 11) == "prefix part");
  }
  SECTION("two slashes (C17): upstream's binary says `a valid label key` for any qualified name") {
    auto p = check_qualified_name("a/b/c");
    REQUIRE(p.count == 1);
    CHECK(p.messages[0].substr(0, 32) == "a valid label key must consist o");
  }
  SECTION("name part longer than 63 (C18)") {
    CHECK(check_qualified_name(std::string(63, 'a')).ok());
    auto p = check_qualified_name(std::string(64, 'a'));
    REQUIRE(p.count == 1);
    CHECK(p.messages[0] == "name part must be no more than 63 bytes");
  }
  SECTION("empty prefix") {
    auto p = check_qualified_name("/a");
    REQUIRE(p.count == 1);
    CHECK(p.messages[0] == "prefix part must be non-empty");
  }
  SECTION("leading dash (V-F5 starts with dash)") {
    CHECK(check_qualified_name("-bad").count == 1);
  }
  SECTION("at most four problems") {
    auto p = check_qualified_name(std::string(254, 'A') + "/" + std::string(64, '-'));
    CHECK(p.count == 4);
  }
}

// As upstream's binary words them (docs/rules.md, "ObjectMeta"): IsDNS1123Label,
// IsDNS1123Subdomain and IsDNS1035Label in characters (`metadata.namespace`, `metadata.name`),
// label values and name parts in bytes.
TEST_CASE("names: length messages say characters for DNS names, bytes for label values") {
  CHECK(check_dns1123_label(std::string(64, 'a')).messages[0] ==
        "must be no more than 63 characters");
  CHECK(check_dns1123_subdomain(std::string(254, 'a')).messages[0] ==
        "must be no more than 253 characters");
  CHECK(kpw::check_dns1035_label(std::string(64, 'a')).messages[0] ==
        "must be no more than 63 characters");
  CHECK(kpw::check_label_value(std::string(64, 'a')).messages[0] ==
        "must be no more than 63 bytes");
}

TEST_CASE("names: wildcard subdomains, port names, path segments") {
  CHECK(kpw::check_wildcard_dns1123_subdomain("*.example.com").ok());
  CHECK_FALSE(kpw::check_wildcard_dns1123_subdomain("a*.example.com").ok());
  CHECK_FALSE(kpw::check_wildcard_dns1123_subdomain("*.").ok());
  CHECK(kpw::check_port_name("http").ok());
  // Every rule of IsValidPortName at once: five messages, none dropped.
  const kpw::NameProblems all = kpw::check_port_name("-HTTP--PORT-NAME-XX");
  CHECK(all.count == 5);
  CHECK(all.messages[0] == "must be no more than 15 characters");
  CHECK(all.messages[4] == "must not begin or end with a hyphen");
  CHECK(kpw::check_path_segment_name("..").messages[0] == "may not be '..'");
  CHECK(kpw::check_path_segment_name("a/b%c").count == 2);
}

// MultiClusterService names (MCS-1, K-M1 with NameFormat::kDns1035Label): the text as upstream's
// binary reports `1mcs` and `a.b` (the double space after 'my-name', is apimachinery's).
TEST_CASE("names: DNS-1035 labels") {
  using kpw::check_dns1035_label;
  const std::string_view format =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
      "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  CHECK(check_dns1035_label("a").ok());
  CHECK(check_dns1035_label("my-name").ok());
  CHECK(check_dns1035_label("abc-123").ok());
  CHECK(check_dns1035_label(std::string(63, 'a')).ok());
  for (std::string_view bad : {"", "1mcs", "a.b", "-a", "a-", "My-name", "a_b", "a b"}) {
    INFO(bad);
    const auto p = check_dns1035_label(bad);
    REQUIRE(p.count == 1);
    CHECK(p.messages[0] == format);
  }
  const auto long_bad = check_dns1035_label("1" + std::string(63, 'a'));
  REQUIRE(long_bad.count == 2);
  CHECK(long_bad.messages[0] == "must be no more than 63 characters");
  CHECK(long_bad.messages[1] == format);
}
