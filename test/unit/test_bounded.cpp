// Bounded cost and bounded answers (docs/operations.md "Worst case per request"): capped error
// lists, cut values, counted warnings, linear duplicate detection, the recovery boundary.
#include <malloc.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "admission/field_error.hpp"
#include "admission/service.hpp"
#include "admission/strict_policy.hpp"
#include "admission/warnings.hpp"
#include "json/json.hpp"
#include "util/seen_set.hpp"
#include "validators/propagation_policy_rules.hpp"

using kpw::ErrorList;
using kpw::FieldPath;
using kpw::SeenSet;
using kpw::Warnings;

namespace {

// A PropagationPolicy review whose spec.placement holds `terms` affinity terms, all named "dc".
std::string review_with_alike_terms(std::size_t terms) {
  std::string list;
  for (std::size_t i = 0; i < terms; ++i) {
    if (i > 0) list += ',';
    list += R"({"affinityName":"dc","clusterNames":["m1"]})";
  }
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
         R"("kind":{"group":"policy.karmada.io","version":"v1alpha1","kind":"PropagationPolicy"},)"
         R"("namespace":"ns1","operation":"CREATE","object":{"apiVersion":"policy.karmada.io/v1alpha1",)"
         R"("kind":"PropagationPolicy","metadata":{"name":"p","namespace":"ns1","labels":{)"
         R"("propagationpolicy.karmada.io/permanent-id":"id-1"}},"spec":{"resourceSelectors":[)"
         R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"}],)"
         R"("placement":{"clusterAffinities":[)" +
         list + "]}}}}}";
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

std::size_t count(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("bounded: the first 100 distinct errors are shown and the rest counted") {
  const FieldPath list = FieldPath::root("items");
  ErrorList errs;
  for (std::size_t i = 0; i < 250; ++i) {
    const FieldPath item = list.index(i);
    errs.required(kpw::rules::kSC1, item, "");
  }
  CHECK(errs.errors().size() == ErrorList::kMaxShown);
  CHECK(errs.omitted() == 150);
  CHECK(errs.size() == 250);
  CHECK(errs.errors().back().field == "items[99]");
  const std::string message = errs.message();
  CHECK(message.rfind("[items[0]: Required value, items[1]: Required value, ", 0) == 0);
  const std::string_view tail = "items[99]: Required value, and 150 more errors]";
  CHECK(message.substr(message.size() - tail.size()) == tail);
  CHECK(errs.omitted_text() == "and 150 more errors");
}

TEST_CASE("bounded: one omitted error is `and 1 more error`, a lone shown error has no brackets") {
  const FieldPath spec = FieldPath::root("spec");
  ErrorList one;
  one.required(kpw::rules::kSC1, spec, "x");
  CHECK(one.message() == "spec: Required value: x");
  CHECK(one.omitted_text().empty());
  ErrorList errs;
  const FieldPath list = FieldPath::root("items");
  for (std::size_t i = 0; i <= ErrorList::kMaxShown; ++i) {
    const FieldPath item = list.index(i);
    errs.required(kpw::rules::kSC1, item, "");
  }
  CHECK(errs.omitted_text() == "and 1 more error");
}

TEST_CASE("bounded: errors stop being shown past 16 KiB of text, in order") {
  const FieldPath list = FieldPath::root("items");
  const std::string detail(1000, 'd');
  ErrorList errs;
  for (std::size_t i = 0; i < 40; ++i) {
    const FieldPath item = list.index(i);
    errs.forbidden(kpw::rules::kSC1, item, detail);
  }
  std::size_t shown_bytes = 0;
  for (const kpw::FieldError& e : errs.errors()) shown_bytes += e.text().size();
  CHECK(shown_bytes <= ErrorList::kMaxShownBytes);
  CHECK(errs.errors().size() == 16);
  CHECK(errs.omitted() == 24);
  // A short error after the budget ran out is counted, not shown: the shown ones stay a prefix.
  const FieldPath spec = FieldPath::root("spec");
  errs.required(kpw::rules::kSC1, spec, "");
  CHECK(errs.errors().size() == 16);
  CHECK(errs.omitted() == 25);
}

TEST_CASE("bounded: identical errors are reported once, shown or counted") {
  const FieldPath list = FieldPath::root("items");
  ErrorList errs;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < 150; ++i) {
      const FieldPath item = list.index(i);
      errs.duplicate(kpw::rules::kSC1, item, "x");
    }
  }
  CHECK(errs.errors().size() == 100);
  CHECK(errs.omitted() == 50);
}

TEST_CASE("bounded: clear() forgets the errors, the count and the fingerprints") {
  const FieldPath list = FieldPath::root("items");
  ErrorList errs;
  for (std::size_t i = 0; i < 100000; ++i) {
    const FieldPath item = list.index(i);
    errs.required(kpw::rules::kSC1, item, "");
  }
  CHECK(errs.size() == 100000);
  errs.clear();
  CHECK(errs.empty());
  CHECK(errs.size() == 0);
  const FieldPath item = list.index(7);
  errs.required(kpw::rules::kSC1, item, "");  // seen before the clear: reported again
  CHECK(errs.message() == "items[7]: Required value");
}

TEST_CASE("bounded: a value longer than 256 bytes is cut, with a marker saying how long it was") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath name = spec.child("schedulerName");
  ErrorList errs;
  errs.invalid(kpw::rules::kSC1, name, std::string(10000, 'a'), "must be short");
  REQUIRE(errs.errors().size() == 1);
  const std::string cut = quote(std::string(256, 'a')) + "... (10000 bytes)";
  CHECK(errs.errors()[0].value == cut);
  CHECK(errs.message() == "spec.schedulerName: Invalid value: " + cut + ": must be short");
  // Exactly 256 bytes: whole, no marker.
  errs.clear();
  errs.invalid(kpw::rules::kSC1, name, std::string(256, 'b'), "x");
  CHECK(errs.errors()[0].value == quote(std::string(256, 'b')));
}

TEST_CASE("bounded: a cut never splits a UTF-8 sequence") {
  // 1 byte, then 200 two-byte characters: byte 256 is the first half of one.
  std::string text = "x";
  for (int i = 0; i < 200; ++i) text += "\xc3\xa9";
  CHECK(kpw::cut_utf8(text, 256).size() == 255);
  std::string out;
  kpw::append_echoed_string(out, text);
  CHECK(out == quote(text.substr(0, 255)) + "... (401 bytes)");
}

TEST_CASE("bounded: a long map key or name in a field path is cut the same way") {
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  const std::string key(300, 'k');
  std::string want = "metadata.labels[";
  want += std::string(256, 'k');
  want += "... (300 bytes)]";
  CHECK(labels.key(key).str() == want);
}

TEST_CASE("bounded: warnings stay within 4096 bytes and the last one says how many were dropped") {
  Warnings w;
  const std::string text(100, 'w');
  int built = 0;
  for (int i = 0; i < 100; ++i) {
    w.add_built([&](std::string& out) {
      ++built;
      out += text;
    });
  }
  std::size_t total = 0;
  for (const std::string& s : w.all()) total += s.size();
  CHECK(total <= Warnings::kMaxTotalBytes);
  CHECK(w.shown().size() + w.dropped() == 100);
  CHECK(w.all().back() == "and " + std::to_string(w.dropped()) + " more warnings");
  CHECK(w.shown().size() >= 39);
  // Once a warning does not fit, later ones are not even built.
  CHECK(built == static_cast<int>(w.shown().size()) + 1);
}

TEST_CASE("bounded: a warning is cut to 256 bytes and loses its newlines and tabs") {
  Warnings w;
  w.add("a\nb\tc");
  w.add(std::string(300, 'z'));
  REQUIRE(w.shown().size() == 2);
  CHECK(w.shown()[0] == "a b c");
  CHECK(w.shown()[1].size() == 256);
  CHECK(w.dropped() == 0);
  CHECK(w.all().size() == 2);
}

namespace {

// A strict violation judged outside an UPDATE: allowed with a warning (--strict-rules=warn, or the
// object being deleted), the warning collected.
struct AllowedStrict {
  Warnings warnings;
  std::vector<kpw::RuleViolation> counts;
  kpw::StrictPolicy policy;
  ErrorList errors;
  // An object being deleted, for the deleting case.
  kpw::JsonDocument deleted;

  explicit AllowedStrict(bool deleting) {
    deleted.Parse(R"({"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z"}})");
    policy.start(deleting ? kpw::StrictRules::kDeny : kpw::StrictRules::kWarn,
                 deleting ? &deleted : nullptr, nullptr, warnings, counts);
    errors.set_policy(&policy);
  }
  const std::string& only_warning() const {
    REQUIRE(warnings.shown().size() == 1);
    REQUIRE(warnings.dropped() == 0);
    return warnings.shown()[0];
  }
};

bool ends_with(std::string_view text, std::string_view end) {
  return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

// Whether `text` is well-formed UTF-8 (no sequence cut in two).
bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80           ? 1
                          : (c >> 5) == 0x6  ? 2
                          : (c >> 4) == 0xE  ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 0;
    if (n == 0 || i + n > text.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

constexpr std::string_view kWarnEnding = " [SC-1]; allowed by --strict-rules=warn";
constexpr std::string_view kDeletingEnding = " [SC-1]; allowed because the object is being deleted";

}  // namespace

TEST_CASE("bounded: a strict warning that fits is the error, its rule ID and why, whole") {
  AllowedStrict s(false);
  const FieldPath spec = FieldPath::root("spec");
  s.errors.invalid(kpw::rules::kSC1, spec.child("schedulerName"), std::string_view("x"), "short");
  CHECK(s.errors.empty());
  CHECK(s.only_warning() ==
        "spec.schedulerName: Invalid value: \"x\": short [SC-1]; allowed by --strict-rules=warn");
}

TEST_CASE("bounded: a strict warning past 256 bytes cuts its echoed value, never `[ID]; why`") {
  for (const bool deleting : {false, true}) {
    AllowedStrict s(deleting);
    const FieldPath spec = FieldPath::root("spec");
    s.errors.invalid(kpw::rules::kSC1, spec.child("schedulerName"), std::string(300, 'a'),
                     "must be short");
    CHECK(s.errors.empty());
    const std::string& w = s.only_warning();
    const std::string_view ending = deleting ? kDeletingEnding : kWarnEnding;
    CHECK(ends_with(w, ending));
    // The longest value that fits: 256 bytes exactly, the value cut and its length told.
    CHECK(w.size() == Warnings::kMaxEachBytes);
    CHECK(w.find("spec.schedulerName: Invalid value: \"aaaa") == 0);
    CHECK(ends_with(w, std::string("a\"... (300 bytes): must be short") + std::string(ending)));
  }
}

TEST_CASE("bounded: a value under 256 bytes that makes its strict warning too long is cut too") {
  AllowedStrict s(true);
  const FieldPath spec = FieldPath::root("spec");
  s.errors.not_supported(kpw::rules::kSC1, spec.child("preemption"), std::string(250, 'p'),
                         {"Always", "Never"});
  const std::string& w = s.only_warning();
  CHECK(w.size() <= Warnings::kMaxEachBytes);
  CHECK(ends_with(w, std::string("p\"... (250 bytes): supported values: \"Always\", \"Never\"") +
                         std::string(kDeletingEnding)));
}

TEST_CASE("bounded: a strict warning's value is cut at a UTF-8 boundary") {
  AllowedStrict s(false);
  const FieldPath spec = FieldPath::root("spec");
  std::string text = "x";
  for (int i = 0; i < 200; ++i) text += "\xc3\xa9";
  s.errors.invalid(kpw::rules::kSC1, spec.child("schedulerName"), text, "must be short");
  const std::string& w = s.only_warning();
  CHECK(w.size() <= Warnings::kMaxEachBytes);
  CHECK(valid_utf8(w));
  CHECK(ends_with(
      w, std::string("\xc3\xa9\"... (401 bytes): must be short") + std::string(kWarnEnding)));
}

TEST_CASE("bounded: a long key in a strict warning's path is cut as its value is") {
  AllowedStrict s(false);
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  const std::string key(300, 'k');
  s.errors.invalid(kpw::rules::kSC1, labels.key(key), key,
                   "name part must be no more than 63 bytes");
  const std::string& w = s.only_warning();
  CHECK(w.size() <= Warnings::kMaxEachBytes);
  CHECK(w.find("metadata.labels[kkk") == 0);
  CHECK(w.find("k... (300 bytes)]: Invalid value: \"kkk") != std::string::npos);
  CHECK(ends_with(w, std::string("k\"... (300 bytes): name part must be no more than 63 bytes") +
                         std::string(kWarnEnding)));
}

TEST_CASE("bounded: a strict warning too long without its values keeps its ending, `...` before") {
  AllowedStrict s(true);
  const FieldPath spec = FieldPath::root("spec");
  s.errors.forbidden(kpw::rules::kSC1, spec.child("placement"), std::string(400, 'd'));
  const std::string& w = s.only_warning();
  CHECK(w.size() <= Warnings::kMaxEachBytes);
  CHECK(w.find("spec.placement: Forbidden: ddd") == 0);
  CHECK(ends_with(w, std::string("d...") + std::string(kDeletingEnding)));
  // Echoed pieces keep 32 bytes at least (a name of the schema stays whole): then the head is cut.
  AllowedStrict t(false);
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  const std::string key(300, 'k');
  t.errors.invalid(kpw::rules::kSC1, labels.key(key), key, std::string(150, 'd'));
  const std::string& u = t.only_warning();
  CHECK(u.size() <= Warnings::kMaxEachBytes);
  CHECK(u.find("metadata.labels[" + std::string(32, 'k') + "... (300 bytes)]: Invalid value: \"" +
               std::string(32, 'k') + "\"... (300 bytes): ddd") == 0);
  CHECK(ends_with(u, std::string("d...") + std::string(kWarnEnding)));
}

TEST_CASE("bounded: SeenSet finds each repeat and the first occurrence, for a million texts") {
  std::vector<std::string> texts;
  for (int i = 0; i < 1000000; ++i) texts.push_back(std::to_string(i % 500000));
  SeenSet seen;
  std::size_t repeats = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const SeenSet::Seen s = seen.record(texts[i], i);
    if (s.repeated()) {
      ++repeats;
      CHECK(s.first == i - 500000);
      CHECK(s.before == 1);
    } else {
      CHECK(s.first == i);
    }
  }
  CHECK(repeats == 500000);
  CHECK(seen.size() == 500000);
}

TEST_CASE("bounded: SeenSet counts occurrences and takes keys of the caller's") {
  SeenSet names;
  CHECK(names.record("a", 0).before == 0);
  CHECK(names.record("a", 1).before == 1);
  CHECK(names.record("a", 2).before == 2);
  CHECK(names.record("b", 3).before == 0);
  // Composite keys: every element hashes alike; `same` decides.
  const std::vector<int> values = {4, 7, 4, 9, 7};
  SeenSet composite;
  std::vector<std::size_t> firsts;
  for (std::size_t i = 0; i < values.size(); ++i) {
    firsts.push_back(
        composite.record(42, i, [&](std::size_t j) { return values[j] == values[i]; }).first);
  }
  CHECK(firsts == std::vector<std::size_t>{0, 1, 0, 3, 1});
}

TEST_CASE("bounded: a review with 1 000 repeated names answers 100 causes and one summary") {
  std::string body = review_with_alike_terms(1000);
  kpw::HttpAnswer answer;
  kpw::handle_http(kpw::find_route("/validate-propagationpolicy"), "POST", "application/json", body,
                   kpw::kDefaultSettings, answer);
  REQUIRE(answer.status == 200);
  CHECK(answer.body.size() < 32 * 1024);
  CHECK(count(answer.body, "\"field\":") == 100);
  CHECK(count(answer.body, "\"type\":") == 100);
  CHECK(answer.body.find(R"(,{"message":"and 899 more errors"}]},"code":403})") !=
        std::string::npos);
  CHECK(answer.outcome.denial.find(", and 899 more errors]") != std::string::npos);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__has_feature)
#define KPW_TEST_ADDRESS_LIMIT 1
#elif defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define KPW_TEST_ADDRESS_LIMIT 1
#endif
#endif

#ifdef KPW_TEST_ADDRESS_LIMIT
// A huge but legal body whose document does not fit the memory left: the real std::bad_alloc of
// a real review (an address-space limit just above what the process uses), answered with code 500,
// and the next review is judged as usual. (Not under AddressSanitizer, whose shadow memory needs
// the address space.)
TEST_CASE(
    "bounded: std::bad_alloc while judging is answered with code 500 and the thread goes on") {
  std::string body = review_with_alike_terms(400000);  // ~40 MB of document
  std::string small = review_with_alike_terms(2);
  kpw::HttpAnswer answer;
  rlimit old{};
  REQUIRE(getrlimit(RLIMIT_AS, &old) == 0);
  malloc_trim(0);  // what earlier tests freed must not be room for this document
  std::size_t used = 0;
  {
    FILE* f = std::fopen("/proc/self/statm", "r");
    REQUIRE(f != nullptr);
    unsigned long pages = 0;
    REQUIRE(std::fscanf(f, "%lu", &pages) == 1);
    std::fclose(f);
    used = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  }
  rlimit tight = old;
  tight.rlim_cur = used + 4 * 1024 * 1024;
  REQUIRE(setrlimit(RLIMIT_AS, &tight) == 0);
  kpw::handle_http(kpw::find_route("/validate-propagationpolicy"), "POST", "application/json", body,
                   kpw::kDefaultSettings, answer);
  REQUIRE(setrlimit(RLIMIT_AS, &old) == 0);
  CHECK(answer.status == 200);
  CHECK(answer.outcome.internal_error);
  CHECK(answer.body.find(R"("allowed":false)") != std::string::npos);
  CHECK(answer.body.find(R"("code":500)") != std::string::npos);
  CHECK(answer.body.find("std::bad_alloc") != std::string::npos);
  kpw::handle_http(kpw::find_route("/validate-propagationpolicy"), "POST", "application/json",
                   small, kpw::kDefaultSettings, answer);
  CHECK_FALSE(answer.outcome.internal_error);
  CHECK(answer.body.find(R"("code":403)") != std::string::npos);
}
#endif

TEST_CASE("bounded: a mutation needing more than 4 MiB of patch is refused, not built") {
  // 200 000 empty spread constraints: two defaults each, some 18 MB of patch.
  std::string list;
  for (int i = 0; i < 200000; ++i) list += i == 0 ? "{}" : ",{}";
  std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
      R"("kind":{"group":"policy.karmada.io","version":"v1alpha1","kind":"PropagationPolicy"},)"
      R"("namespace":"ns1","operation":"CREATE","object":{"metadata":{"name":"p"},"spec":{)"
      R"("resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns1"}],)"
      R"("placement":{"spreadConstraints":[)" +
      list + "]}}}}}";
  // The same mutator on a small object still patches (handle_http parses in place: copy first).
  std::string small = body.substr(0, body.find("{},")) + "{}]}}}}}";
  kpw::HttpAnswer answer;
  kpw::handle_http(kpw::find_route("/mutate-propagationpolicy"), "POST", "application/json", body,
                   kpw::kDefaultSettings, answer);
  CHECK(answer.status == 200);
  CHECK(answer.body.size() < 1024);
  CHECK(answer.body.find(R"("allowed":false)") != std::string::npos);
  CHECK(answer.body.find(R"("code":413)") != std::string::npos);
  CHECK(answer.body.find("JSON Patch of more than 4194304 bytes") != std::string::npos);
  kpw::handle_http(kpw::find_route("/mutate-propagationpolicy"), "POST", "application/json", small,
                   kpw::kDefaultSettings, answer);
  CHECK(answer.body.find(R"("patchType":"JSONPatch")") != std::string::npos);
}

TEST_CASE("bounded: a large review that finds no slot gets HTTP 429 with Retry-After") {
  kpw::HttpAnswer answer;
  answer.busy(16, 65536);
  CHECK(answer.status == 429);
  CHECK(answer.retry_after);
  CHECK(answer.body ==
        R"({"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"too many )"
        R"(large reviews: 16 bodies over 65536 bytes are being judged already; retry in a )"
        R"(second","code":429}}})");
}
