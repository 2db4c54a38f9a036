// Field paths and the Kubernetes field-error format (docs/rules.md principle 2).
#include <catch2/catch.hpp>

#include "admission/field_error.hpp"
#include "validators/propagation_policy_rules.hpp"

using kpw::ErrorList;
using kpw::ErrorType;
using kpw::FieldPath;

TEST_CASE("field path renders names / indexes and keys") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath placement = spec.child("placement");
  const FieldPath terms = placement.child("clusterAffinities");
  const FieldPath term = terms.index(1);
  CHECK(term.child("affinityName").str() == "spec.placement.clusterAffinities[1].affinityName");
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  CHECK(labels.key("a.io/b").str() == "metadata.labels[a.io/b]");
}

TEST_CASE("field error texts follow k8s field.Error") {
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errs;
  errs.invalid(kpw::rules::kSC1, spec.child("priority"), 5LL, "must be less than 3");
  errs.invalid(kpw::rules::kSC1, spec.child("schedulerName"), std::string_view("x\"y"),
               "may not change");
  errs.required(kpw::rules::kSC1, spec.child("resourceSelectors"), "");
  errs.not_supported(kpw::rules::kSC1, spec.child("preemption"), std::string_view("always"),
                     {"Always", "Never"});
  errs.duplicate(kpw::rules::kSC1, spec.child("name"), "g1");
  errs.forbidden(kpw::rules::kSC1, spec.child("placement"), "may not be set");
  errs.invalid_bool(kpw::rules::kSC1, spec.child("propagateDeps"), false, "must be true");
  errs.invalid(kpw::rules::kSC1, spec.child("gracePeriodSeconds"), kpw::JsonValue(), "must be set");
  const auto& e = errs.errors();
  CHECK(e[0].text() == "spec.priority: Invalid value: 5: must be less than 3");
  CHECK(e[1].text() == "spec.schedulerName: Invalid value: \"x\\\"y\": may not change");
  CHECK(e[2].text() == "spec.resourceSelectors: Required value");
  CHECK(e[3].text() ==
        "spec.preemption: Unsupported value: \"always\": supported values: \"Always\", \"Never\"");
  CHECK(e[4].text() == "spec.name: Duplicate value: \"g1\"");
  CHECK(e[5].text() == "spec.placement: Forbidden: may not be set");
  CHECK(e[6].text() == "spec.propagateDeps: Invalid value: false: must be true");
  CHECK(e[7].text() == "spec.gracePeriodSeconds: Invalid value: null: must be set");
  CHECK(e[5].body() == "Forbidden: may not be set");
}

TEST_CASE("one error is its text; several are a bracketed list; identical texts once") {
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errs;
  errs.required(kpw::rules::kSC1, spec.child("a"), "x");
  CHECK(errs.message() == "spec.a: Required value: x");
  errs.required(kpw::rules::kSC1, spec.child("a"), "x");
  CHECK(errs.message() == "spec.a: Required value: x");
  CHECK(errs.errors().size() == 1);
  errs.required(kpw::rules::kSC1, spec.child("b"), "y");
  CHECK(errs.message() == "[spec.a: Required value: x, spec.b: Required value: y]");
  CHECK(errs.size() == 2);
}

// A detail holding a tenant's text (a time zone's name, a URL in Go's parse error) used to be
// kept whole: one error of more than kMaxShownBytes was counted as omitted, not shown, and the
// list read as empty, so the review was *allowed* (a CronFederatedHPA with a 16 KiB time zone, a
// ResourceInterpreterWebhookConfiguration with a 40 KB bracketed URL).
TEST_CASE("bounded: an error with a huge detail still denies, its detail cut") {
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errs;
  const std::string zone(40000, 'A');
  errs.invalid(kpw::rules::kSC1, spec.child("timeZone"), std::string_view("x"),
               "unknown time zone " + zone);
  CHECK_FALSE(errs.empty());
  REQUIRE(errs.errors().size() == 1);
  const std::string text = errs.message();
  CHECK(text.size() <= ErrorList::kMaxDetailBytes + 100);
  CHECK(text.starts_with("spec.timeZone: Invalid value: \"x\": unknown time zone AAAA"));
  CHECK(text.ends_with("... (40018 bytes)"));
}

TEST_CASE("bounded: a list that omitted errors is not empty") {
  const FieldPath spec = FieldPath::root("spec");
  ErrorList errs;
  for (int i = 0; i < 200; ++i) {
    const FieldPath item = spec.index(static_cast<std::size_t>(i));
    errs.required(kpw::rules::kSC1, item, "");
  }
  CHECK(errs.errors().size() == ErrorList::kMaxShown);
  CHECK(errs.omitted() == 100);
  CHECK_FALSE(errs.empty());
}
