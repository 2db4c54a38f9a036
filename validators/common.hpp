// The shared rule library: checks that several kinds make (cluster affinities, label keys, label
// and annotation maps, JSON pointers, duplicates), each reporting the rule its caller names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "admission/field_error.hpp"
#include "json/json.hpp"
#include "util/names.hpp"
#include "util/seen_set.hpp"

namespace kpw {

// A ClusterAffinity's field selector (`affinity.fieldSelector.matchExpressions`): keys `provider`,
// `region` or `zone`, operators `In` or `NotIn` (docs/compatibility.md V-P3, V-P6, V-P10). Only
// the first offending expression is reported, its key before its operator, as upstream does.
// Expressions without a string key or operator are the schema's concern.
void check_cluster_field_selector(Rule rule, const JsonValue& affinity,
                                  const FieldPath& affinity_path, ErrorList& errors);
// The same, reporting every offending expression (each its key, as `key_rule`, before its
// operator, as `operator_rule`) instead of the first only (OverridePolicy O-1/O-2, O-19/O-20:
// docs/rules.md, precise paths).
void check_cluster_field_selector_all(Rule key_rule, Rule operator_rule, const JsonValue& affinity,
                                      const FieldPath& affinity_path, ErrorList& errors);

// The string member `key` of `obj` is a label key (a qualified name): one Invalid per problem,
// at `obj_path.key` (V-P4, V-P8, V-W1, V-W2, V-F5, V-F6). Absent, or not a string: nothing (the
// schema reports those).
void check_label_key(Rule rule, const JsonValue& obj, std::string_view key,
                     const FieldPath& obj_path, ErrorList& errors);

// A map of labels (`path` names the map): each key a qualified name, each value a label value;
// an error names its entry (`metadata.labels[Bad_Key]`). A value that is not a string is Invalid
// (`must be of type string`), a null one is skipped (the API server drops it). False when it
// reported anything.
// How a map's entries are visited: as the document holds them, or sorted by key (a stable order
// where upstream's is Go-map random: OverridePolicy O-5…O-8).
enum class MapOrder : std::uint8_t { kDocument, kSortedKeys };
bool check_label_map(Rule rule, const JsonValue& labels, const FieldPath& path, ErrorList& errors,
                     MapOrder order = MapOrder::kDocument);
// The same, a key's problems reported as `key_rule`, a value's as `value_rule` (O-7, O-8).
bool check_label_map(Rule key_rule, Rule value_rule, const JsonValue& labels, const FieldPath& path,
                     ErrorList& errors, MapOrder order);

// A map of annotations: each key a qualified name once lower-cased (as Kubernetes checks
// annotation keys: the prefix is case-insensitive), each value a string, keys and values at most
// 256 KiB in all (Invalid at the map, its value the total). Errors name the entry, as above.
bool check_annotation_map(Rule rule, const JsonValue& annotations, const FieldPath& path,
                          ErrorList& errors, MapOrder order = MapOrder::kDocument);
// The same, the total size reported as `size_rule` (O-5, O-6).
bool check_annotation_map(Rule key_rule, Rule size_rule, const JsonValue& annotations,
                          const FieldPath& path, ErrorList& errors, MapOrder order);
inline constexpr std::size_t kMaxAnnotationBytes = 256 * 1024;

// IsDNS1123Label as apimachinery gives its messages: `must be no more than 63 characters` beyond
// 63 bytes, then `must not contain dots` for a value that is a
// valid subdomain (it can only be the dots), else the label's format text.
NameProblems dns1123_label_problems(std::string_view value);

// A cluster name (Karmada's ValidateClusterName): `must be not empty`, `must be no more than 48
// characters`, else dns1123_label_problems; one Invalid of `rule` at `path` (upstream joins the
// messages with ",", MCS-6).
void check_cluster_name(Rule rule, std::string_view name, const FieldPath& path, ErrorList& errors);

// A list as upstream's field.Invalid shows a Go slice: JSON as encoding/json writes it (strings
// with Go's escaping), `null` for an absent or null one (a nil slice).
std::string go_json_list(const JsonValue* list);

// A JSON pointer (RFC 6901): empty, or starting with "/". False, with an Invalid error, otherwise.
bool check_json_pointer(Rule rule, std::string_view pointer, const FieldPath& path,
                        ErrorList& errors);

// Values of one list that repeat an earlier one, found through a SeenSet (expected O(1) each,
// util/seen_set.hpp), reported as Duplicate errors of `rule` at the repeating element.
class Duplicates {
 public:
  enum class Report : std::uint8_t {
    kEveryRepeat,   // each repeat (V-P5, V-P9)
    kOncePerValue,  // the second occurrence of a value only (V-S6)
  };

  explicit Duplicates(Rule rule, Report report = Report::kEveryRepeat)
      : rule_(rule), report_(report) {}

  // Takes `value` as already seen, without an element or an error (V-P9: a term's own
  // affinityName, which its overflow affinities may not repeat).
  void seed(std::string_view value) { seen_.record(value, kSeed); }

  // Records element `index` with `value`; a repeat is reported at `path`. True when `value`
  // repeats an earlier one (reported or not).
  bool check(std::string_view value, std::size_t index, const FieldPath& path, ErrorList& errors);

 private:
  static constexpr std::size_t kSeed = static_cast<std::size_t>(-1);
  SeenSet seen_;
  Rule rule_;
  Report report_;
};

// Each element of `list` whose string member `key` repeats an earlier element's, as a Duplicate
// at `list_path[i].key`; elements without that string member are skipped.
void check_unique_member(Rule rule, const JsonValue& list, std::string_view key,
                         const FieldPath& list_path, ErrorList& errors);

}  // namespace kpw
