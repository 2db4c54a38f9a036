// The schema walker (validators/schema.hpp) on tables of its own: every check kind, the rules each
// error carries, the deep walk's document order, the one-field checks and unknown fields (K-U1).
#include <array>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "doc_support.hpp"
#include "json/json.hpp"
#include "validators/propagation_policy_rules.hpp"
#include "validators/propagation_policy_schema.hpp"
#include "validators/schedule_trigger.hpp"
#include "validators/schema.hpp"
#include "validators/workload_rebalancer.hpp"

using kpw::ErrorList;
using kpw::ErrorType;
using kpw::FieldError;
using kpw::FieldPath;
using kpw::JsonArena;
using kpw::JsonValue;
using kpw::Rule;
namespace rules = kpw::rules;
using kpw::rule_id;
using kpw::schema::Format;
using kpw::schema::Node;
using kpw::schema::Rules;
using kpw::schema::Type;

using kpw::test::Doc;
using kpw::test::lines;

namespace {

// Test rules: a distinct rule per check kind, so a test sees which kind reported.
constexpr Rules kRules = {.type = rules::kSC1,
                          .required = rules::kSC3,
                          .min_items = rules::kSC2,
                          .enumeration = rules::kSC4,
                          .length = rules::kSC5,
                          .range = rules::kSC6,
                          .format = rules::kKM2,
                          .quantity = rules::kKM3};
constexpr Rules kW2Rules = Rules::all(rules::kW2);
constexpr Rules kW4Rules = Rules::all(rules::kW4);

constexpr std::array<std::string_view, 2> kColours = {"red", "blue"};
constexpr std::array kItem = {
    Node{.name = "id", .required = true, .format = Format::kDns1123Label},
    Node{.name = "count", .type = Type::kInt32, .minimum = 1, .maximum = 10},
};
constexpr std::array kFields = {
    Node{.name = "name", .required = true, .min_length = 2, .max_length = 5},
    Node{.name = "colour", .allowed = kColours},
    Node{.name = "big", .type = Type::kInt64},
    Node{.name = "loose", .type = Type::kInteger, .minimum = 0},
    Node{.name = "flag", .type = Type::kBool},
    Node{.name = "labels", .type = Type::kStringMap},
    Node{.name = "hard", .type = Type::kQuantityMap},
    Node{.name = "items", .type = Type::kArray, .fields = kItem, .min_items = 1},
    Node{
        .name = "tags", .type = Type::kArray, .item = Type::kString, .format = Format::kLabelValue},
    Node{.name = "owned", .type = Type::kArray, .fields = kItem, .item_rules = &kW2Rules},
    Node{.name = "ttl", .type = Type::kInteger, .minimum = 0, .rules = &kW4Rules},
    Node{.name = "key", .format = Format::kQualifiedName},
    Node{.name = "host", .format = Format::kDns1123Subdomain},
};
static_assert(kpw::schema::fits_a_mask(kFields));

std::vector<std::string> walk(std::string_view json) {
  Doc doc(json);
  ErrorList errors;
  const FieldPath spec = FieldPath::root("spec");
  kpw::schema::check_object(kRules, kFields, doc.root(), spec, errors);
  return lines(errors);
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("schema: a valid object has no error") {
  CHECK(walk(R"({"name":"abc","colour":"red","big":5,"loose":0,"flag":true,"labels":{"a":"b"},
                 "hard":{"cpu":"500m","memory":1024,"x":1.5},"items":[{"id":"a-1","count":10}],
                 "tags":["x",""],"ttl":3,"key":"example.com/Key","host":"a.b"})")
            .empty());
}

TEST_CASE("SC-1 schema: types, and integers beyond their type's range") {
  CHECK(walk(R"({"name":1,"flag":"yes","labels":[],"items":{},"big":"1"})") ==
        Lines{R"(SC-1 spec.name: Invalid value: 1: must be of type string)",
              R"(SC-1 spec.flag: Invalid value: "yes": must be of type boolean)",
              R"(SC-1 spec.labels: Invalid value: [...]: must be of type object)",
              R"(SC-1 spec.items: Invalid value: {...}: must be of type array)",
              R"(SC-1 spec.big: Invalid value: "1": must be of type integer)"});
  CHECK(walk(R"({"name":"abc","big":9223372036854775808,"loose":9223372036854775808})") ==
        Lines{R"(SC-1 spec.big: Invalid value: 9223372036854775808: must fit in a 64-bit integer)",
              R"(SC-1 spec.loose: Invalid value: 9223372036854775808: must be of type integer)"});
  CHECK(
      walk(R"({"name":"abc","items":[{"id":"a","count":2147483648}]})") ==
      Lines{
          R"(SC-1 spec.items[0].count: Invalid value: 2147483648: must fit in a 32-bit integer)"});
  CHECK(walk(R"({"name":"abc","labels":{"a":1,"b":"ok"}})") ==
        Lines{R"(SC-1 spec.labels[a]: Invalid value: 1: must be of type string)"});
}

TEST_CASE("SC-3 schema: required fields come after the present ones, in table order") {
  CHECK(walk(R"({"items":[{"count":1}],"colour":"green"})") ==
        Lines{R"(SC-3 spec.items[0].id: Required value)",
              R"(SC-4 spec.colour: Unsupported value: "green": supported values: "red", "blue")",
              R"(SC-3 spec.name: Required value)"});
  CHECK(walk(R"({"name":null})") == Lines{R"(SC-3 spec.name: Required value)"});
}

TEST_CASE("SC-4 SC-5 SC-2 schema: enums, lengths, minItems") {
  CHECK(walk(R"({"name":"a","colour":"Red","items":[]})") ==
        Lines{R"(SC-5 spec.name: Invalid value: "a": must be at least 2 characters long)",
              R"(SC-4 spec.colour: Unsupported value: "Red": supported values: "red", "blue")",
              R"(SC-2 spec.items: Required value: must have at least 1 item)"});
  CHECK(
      walk(R"({"name":"abcdef"})") ==
      Lines{R"(SC-5 spec.name: Invalid value: "abcdef": must be no more than 5 characters long)"});
}

TEST_CASE("SC-6 schema: integer ranges, minimum and maximum") {
  CHECK(walk(R"({"name":"abc","items":[{"id":"a","count":0},{"id":"b","count":11}],"loose":-1})") ==
        Lines{R"(SC-6 spec.items[0].count: Invalid value: 0: must be greater than or equal to 1)",
              R"(SC-6 spec.items[1].count: Invalid value: 11: must be less than or equal to 10)",
              R"(SC-6 spec.loose: Invalid value: -1: must be greater than or equal to 0)"});
}

TEST_CASE("schema: string formats") {
  const Lines got =
      walk(R"({"name":"abc","items":[{"id":"A"}],"tags":["-x"],"key":"a/b/c","host":"a..b"})");
  REQUIRE(got.size() == 4);
  CHECK(got[0].rfind("K-M2 spec.items[0].id: Invalid value: \"A\": a lowercase RFC 1123 label",
                     0) == 0);
  CHECK(got[1].rfind("K-M2 spec.tags[0]: Invalid value: \"-x\": a valid label must be", 0) == 0);
  CHECK(got[2].rfind("K-M2 spec.key: Invalid value: \"a/b/c\": a valid label key must", 0) == 0);
  CHECK(got[3].rfind("K-M2 spec.host: Invalid value: \"a..b\": a lowercase RFC 1123 subdomain",
                     0) == 0);
}

TEST_CASE("schema: maps of quantities") {
  CHECK(walk(R"({"name":"abc","hard":{"cpu":"1Q","mem":true,"x":"1K","ok":"1.5Gi","n":-3}})") ==
        Lines{"K-M3 spec.hard[cpu]: Invalid value: \"1Q\": quantities must match the regular "
              "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
              R"(SC-1 spec.hard[mem]: Invalid value: true: must be of type string or number)",
              R"(K-M3 spec.hard[x]: Invalid value: "1K": unable to parse quantity's suffix)"});
  Doc doc(R"([1.5, 2, "3k", 18446744073709551615, true])");
  const JsonValue& a = doc.root();
  CHECK(kpw::schema::quantity_of(a[0]).value.str() == "1.5");
  CHECK(kpw::schema::quantity_of(a[1]).value.str() == "2");
  CHECK(kpw::schema::quantity_of(a[2]).value.str() == "3000");
  CHECK(kpw::schema::quantity_of(a[3]).value.str() == "18446744073709551615");
  CHECK_FALSE(kpw::schema::quantity_of(a[4]).ok());
}

TEST_CASE("schema: a quantity one at a time, and a quantity map's type only") {
  Doc doc(R"({"hard":{"cpu":"1Q"},"list":[]})");
  const JsonValue& root = doc.root();
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errors;
  // One field at a time, a quantity map's values are the caller's (in the order it needs).
  const Node map{.name = "hard", .type = Type::kQuantityMap};
  CHECK(kpw::schema::check_field(kRules, map, &root, spec, errors));
  const Node list{.name = "list", .type = Type::kQuantityMap};
  CHECK_FALSE(kpw::schema::check_field(kRules, list, &root, spec, errors));
  const Node one{.name = "", .type = Type::kQuantity};
  const FieldPath hard = spec.child("hard");
  const FieldPath cpu = hard.key("cpu");
  CHECK_FALSE(kpw::schema::check_value(kRules, one, root["hard"]["cpu"], cpu, errors));
  CHECK_FALSE(kpw::schema::check_value(kRules, one, root["list"], cpu, errors));
  CHECK(lines(errors) ==
        Lines{R"(SC-1 spec.list: Invalid value: [...]: must be of type object)",
              "K-M3 spec.hard[cpu]: Invalid value: \"1Q\": quantities must match the regular "
              "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
              R"(SC-1 spec.hard[cpu]: Invalid value: [...]: must be of type string or number)"});
}

TEST_CASE("W-2 W-4 schema: a row's rules, and an array's element rules, override the table's") {
  CHECK(walk(R"({"name":"abc","ttl":-1,"owned":[1,{"count":0}]})") ==
        Lines{R"(W-4 spec.ttl: Invalid value: -1: must be greater than or equal to 0)",
              R"(W-2 spec.owned[0]: Invalid value: 1: must be of type object)",
              R"(W-2 spec.owned[1].count: Invalid value: 0: must be greater than or equal to 1)",
              R"(W-2 spec.owned[1].id: Required value)"});
}

TEST_CASE("schema: one field at a time does not descend") {
  Doc doc(R"({"items":[{"id":"A"}],"ttl":"x","name":"a"})");
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath items = spec.child("items");
  const FieldPath first = items.index(0);
  ErrorList errors;
  // An array of one object, whose invalid `id` is not looked at; nor is its element's.
  CHECK(kpw::schema::check_field(kRules, kFields[7], &doc.root(), spec, errors));
  CHECK(kpw::schema::check_element(kRules, kFields[7], doc.root()["items"][0], first, errors));
  CHECK(errors.empty());
  // Optional and absent (or no object at all): nothing; required and absent: Required.
  CHECK(kpw::schema::check_field(kRules, kFields[1], nullptr, spec, errors));
  CHECK_FALSE(kpw::schema::check_field(kRules, kFields[0], nullptr, spec, errors));
  CHECK(lines(errors) == Lines{"SC-3 spec.name: Required value"});
  // Every row in table order (name before ttl), whatever the document order.
  ErrorList all;
  CHECK_FALSE(kpw::schema::check_fields(kRules, kFields, doc.root(), spec, all));
  CHECK(lines(all) ==
        Lines{R"(SC-5 spec.name: Invalid value: "a": must be at least 2 characters long)",
              R"(W-4 spec.ttl: Invalid value: "x": must be of type integer)"});
}

TEST_CASE("schema: a required field's own detail") {
  static constexpr Rules kW1Rules = Rules::all(rules::kW1);
  static constexpr Node kWorkloads{.name = "workloads",
                                   .type = Type::kArray,
                                   .required = true,
                                   .min_items = 1,
                                   .required_detail = "at least one workload",
                                   .rules = &kW1Rules};
  Doc doc(R"({"workloads":[]})");
  Doc empty("{}");
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errors;
  CHECK_FALSE(kpw::schema::check_field(kRules, kWorkloads, &doc.root(), spec, errors));
  CHECK_FALSE(kpw::schema::check_field(kRules, kWorkloads, &empty.root(), spec, errors));
  CHECK(lines(errors) == Lines{"W-1 spec.workloads: Required value: at least one workload"});
}

TEST_CASE("K-U1 schema: unknown fields at every depth") {
  Doc doc(R"({"name":"a","nope":1,"items":[{"id":"a","extra":{}},"x"],"labels":{"free":"x"}})");
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errors;
  kpw::schema::check_unknown_fields(kFields, doc.root(), spec, rules::kKU1, errors);
  CHECK(
      lines(errors) ==
      Lines{"K-U1 spec.nope: Forbidden: unknown field: the schema does not declare it",
            "K-U1 spec.items[0].extra: Forbidden: unknown field: the schema does not declare it"});
}

TEST_CASE("schema: SC-1…SC-6 are the policy table's rules") {
  const kpw::schema::Schema& policy = kpw::propagation_policy_schema();
  CHECK(policy.rules.type == rules::kSC1);
  CHECK(policy.rules.min_items == rules::kSC2);
  CHECK(policy.rules.required == rules::kSC3);
  CHECK(policy.rules.enumeration == rules::kSC4);
  CHECK(policy.rules.length == rules::kSC5);
  CHECK(policy.rules.range == rules::kSC6);
  CHECK(kpw::schema::fits_a_mask(policy.fields));
}

TEST_CASE("schema: linear in the object", "[linear]") {
  // 200 000 elements each breaking three rules: a walk per element, no rescans.
  std::string json = R"({"name":"abc","items":[)";
  for (int i = 0; i < 200000; ++i)
    json += i == 0 ? R"({"count":0,"id":"A"})" : R"(,{"count":0,"id":"A"})";
  json += "]}";
  Doc doc(json);
  ErrorList errors;
  const FieldPath spec = FieldPath::root("spec");
  CHECK_FALSE(kpw::schema::check_object(kRules, kFields, doc.root(), spec, errors));
  CHECK(errors.size() == 400000);
}
