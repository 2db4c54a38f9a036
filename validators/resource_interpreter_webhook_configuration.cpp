// ResourceInterpreterWebhookConfiguration rules (docs/rules.md
// "ResourceInterpreterWebhookConfiguration"), in upstream's order: the CRD's schema (RIWC-S1),
// then for each webhook RIWC-1, each rule's RIWC-3…RIWC-6, RIWC-7, RIWC-8 with RIWC-9 or RIWC-10,
// RIWC-11, and last the repeat of an earlier name (RIWC-2). A value of the wrong JSON type is the
// schema's only (upstream cannot decode the object: 400). No ObjectMeta rules, as upstream.
//
// | rule    | what denies                                                             | path |
// |---------|-------------------------------------------------------------------------|------|
// | RIWC-1  | a name empty, not a DNS-1123 subdomain (one trailing '.' allowed), of one segment, or
// with a label that is not a DNS-1123 label | webhooks[i].name | | RIWC-2  | a name repeating an
// earlier webhook's                                   | webhooks[i].name | | RIWC-3  | operations
// empty; '*' with others; one not supported (Prune included)   | ….rules[j].operations[k] | |
// RIWC-4…6| apiGroups / apiVersions / kinds empty; '*' with others; an empty version or kind |
// ….rules[j].<list>[k] | | RIWC-7  | timeoutSeconds outside 1…30 | webhooks[i].timeoutSeconds | |
// RIWC-8  | clientConfig with both url and service, or neither                      |
// webhooks[i].clientConfig | | RIWC-9  | url: not parsed by Go's net/url; scheme not https; no
// host; userinfo; fragment; query | ….clientConfig.url | | RIWC-10 | service: no name, no
// namespace, a port outside 1…65535, a path not `/…` of DNS-1123 subdomain segments |
// ….clientConfig.service.* | | RIWC-11 | interpreterContextVersions empty, repeated, not DNS-1035
// labels, or without v1alpha1 | ….interpreterContextVersions |
#include "validators/resource_interpreter_webhook_configuration.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "util/go_url.hpp"
#include "util/names.hpp"
#include "util/seen_set.hpp"
#include "validators/common.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// --- The schema (RIWC-S1). What upstream reports as Required itself (a webhook's name,
// clientConfig, versions, a rule's lists, a service's name and namespace) is left to its rule. ---

constexpr schema::Rules kS1 = schema::Rules::all(rules::kRIWCS1);

constexpr std::array kServiceFields = {Node{.name = "name"}, Node{.name = "namespace"},
                                       Node{.name = "path"},
                                       Node{.name = "port", .type = Type::kInt32}};
constexpr std::array kClientConfigFields = {
    Node{.name = "caBundle"},
    Node{.name = "service", .type = Type::kObject, .fields = kServiceFields}, Node{.name = "url"}};
constexpr std::array kRuleFields = {
    Node{.name = "apiGroups", .type = Type::kArray, .item = Type::kString},
    Node{.name = "apiVersions", .type = Type::kArray, .item = Type::kString},
    Node{.name = "kinds", .type = Type::kArray, .item = Type::kString},
    Node{.name = "operations", .type = Type::kArray, .item = Type::kString}};
constexpr std::array kWebhookFields = {
    Node{.name = "clientConfig", .type = Type::kObject, .fields = kClientConfigFields},
    Node{.name = "interpreterContextVersions", .type = Type::kArray, .item = Type::kString},
    Node{.name = "name"}, Node{.name = "rules", .type = Type::kArray, .fields = kRuleFields},
    Node{.name = "timeoutSeconds", .type = Type::kInt32}};
constexpr Node kWebhooks{.name = "webhooks",
                         .type = Type::kArray,
                         .required = true,
                         .fields = kWebhookFields,
                         .rules = &kS1};
constexpr std::array kRootFields = {kWebhooks};
static_assert(schema::fits_a_mask(kRootFields));

// Each problem joined with `sep`, as upstream's strings.Join.
std::string joined(const NameProblems& problems, std::string_view sep) {
  std::string out;
  for (std::string_view p : problems) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// --- RIWC-1: IsFullyQualifiedName ---

void check_name(std::string_view name, const FieldPath& path, ErrorList& errors) {
  if (name.empty()) {
    errors.required(rules::kRIWC1, path, "");
    return;
  }
  if (name.back() == '.') name.remove_suffix(1);
  if (const NameProblems p = check_dns1123_subdomain(name); !p.ok()) {
    errors.invalid(rules::kRIWC1, path, name, joined(p, ","));
    return;
  }
  if (name.find('.') == std::string_view::npos) {
    errors.invalid(rules::kRIWC1, path, name,
                   "should be a domain with at least two segments separated by dots");
    return;
  }
  for (std::size_t start = 0;;) {
    const std::size_t dot = name.find('.', start);
    const std::string_view label = name.substr(start, dot - start);
    if (const NameProblems p = dns1123_label_problems(label); !p.ok()) {
      errors.invalid(rules::kRIWC1, path, label, joined(p, ","));
      return;
    }
    if (dot == std::string_view::npos) return;
    start = dot + 1;
  }
}

// --- RIWC-3…RIWC-6: a rule ---

constexpr std::array<std::string_view, 9> kOperations = {"*",
                                                         "AggregateStatus",
                                                         "InterpretComponent",
                                                         "InterpretDependency",
                                                         "InterpretHealth",
                                                         "InterpretReplica",
                                                         "InterpretStatus",
                                                         "Retain",
                                                         "ReviseReplica"};

// The list `key` of `rule`: Required when absent or empty; '*' beside others; then per item.
// Returns the list when it holds items, for the caller's per-item rule.
const JsonValue* check_list(Rule rule, const JsonValue& rule_obj, std::string_view key,
                            std::string_view what, const FieldPath& rule_path, ErrorList& errors) {
  const FieldPath path = rule_path.child(key);
  const JsonValue* list = array_member(&rule_obj, key);
  if (list == nullptr || list->Empty()) {
    errors.required(rule, path, "");
    return nullptr;
  }
  if (list->Size() > 1) {
    for (const JsonValue& item : list->GetArray()) {
      if (!item.IsString() || view(item) != "*") continue;
      std::string detail = "if '*' is present, must not specify other ";
      detail += what;
      errors.invalid_json(rule, path, go_json_list(list), detail);
      break;
    }
  }
  return list;
}

void check_rule(const JsonValue& rule, const FieldPath& path, ErrorList& errors) {
  if (const JsonValue* ops =
          check_list(rules::kRIWC3, rule, "operations", "operations", path, errors)) {
    const FieldPath ops_path = path.child("operations");
    for (rapidjson::SizeType k = 0; k < ops->Size(); ++k) {
      const JsonValue& op = (*ops)[k];
      if (!op.IsString()) continue;
      if (std::find(kOperations.begin(), kOperations.end(), view(op)) != kOperations.end())
        continue;
      const FieldPath item = ops_path.index(k);
      errors.not_supported(rules::kRIWC3, item, view(op), std::span(kOperations));
    }
  }
  check_list(rules::kRIWC4, rule, "apiGroups", "API groups", path, errors);
  // RIWC-5, RIWC-6 (Rule handles: a RuleInfo copied into a tuple would be another rule).
  struct ItemList {
    std::string_view key;
    std::string_view what;
    Rule id;
  };
  for (const ItemList& l : {ItemList{"apiVersions", "API versions", rules::kRIWC5},
                            ItemList{"kinds", "kinds", rules::kRIWC6}}) {
    const auto& [key, what, id] = l;
    const JsonValue* list = check_list(id, rule, key, what, path, errors);
    if (list == nullptr) continue;
    const FieldPath list_path = path.child(key);
    for (rapidjson::SizeType k = 0; k < list->Size(); ++k) {
      const JsonValue& item = (*list)[k];
      if (!item.IsString() || item.GetStringLength() > 0) continue;
      const FieldPath item_path = list_path.index(k);
      errors.required(id, item_path, "");
    }
  }
}

// --- RIWC-9: ValidateWebhookURL (https forced) ---

void check_url(std::string_view url, const FieldPath& path, ErrorList& errors) {
  constexpr std::string_view kForm = "; desired format: https://host[/path]";
  GoUrl u;
  if (!parse_go_url(url, u)) {
    std::string detail = "url must be a valid URL: ";
    detail += u.error;
    detail += kForm;
    errors.required(rules::kRIWC9, path, detail);
    return;
  }
  if (u.scheme != "https") {
    std::string detail = "'https' is the only allowed URL scheme";
    detail += kForm;
    errors.invalid(rules::kRIWC9, path, u.scheme, detail);
  }
  if (u.host.empty()) {
    std::string detail = "host must be specified";
    detail += kForm;
    errors.invalid(rules::kRIWC9, path, u.host, detail);
  }
  if (u.has_user) {
    errors.invalid(rules::kRIWC9, path, u.user, "user information is not permitted in the URL");
  }
  if (!u.fragment.empty()) {
    errors.invalid(rules::kRIWC9, path, u.fragment, "fragments are not permitted in the URL");
  }
  if (!u.raw_query.empty()) {
    errors.invalid(rules::kRIWC9, path, u.raw_query,
                   "query parameters are not permitted in the URL");
  }
}

// --- RIWC-10: ValidateWebhookService (an absent port is 443) ---

void check_service(const JsonValue& service, const FieldPath& path, ErrorList& errors) {
  for (std::string_view field : {"name", "namespace"}) {
    if (!string_or_empty(&service, field).empty()) continue;
    const FieldPath field_path = path.child(field);
    errors.required(rules::kRIWC10, field_path, "");
  }
  const JsonValue* port = member(&service, "port");
  if (port != nullptr && port->IsInt64() && (port->GetInt64() < 1 || port->GetInt64() > 65535)) {
    const FieldPath port_path = path.child("port");
    errors.invalid(rules::kRIWC10, port_path, static_cast<long long>(port->GetInt64()),
                   "port is not valid: must be between 1 and 65535, inclusive");
  }
  const JsonValue* path_value = member(&service, "path");
  if (path_value == nullptr || !path_value->IsString()) return;
  const std::string_view url_path = view(*path_value);
  if (url_path.empty() || url_path == "/") return;
  const FieldPath path_path = path.child("path");
  if (url_path == "//") {
    errors.invalid(rules::kRIWC10, path_path, url_path, "segment[0] may not be empty");
    return;
  }
  if (url_path.front() != '/') {
    errors.invalid(rules::kRIWC10, path_path, url_path, "must start with a '/'");
  }
  std::string_view steps = url_path.substr(1);
  if (!steps.empty() && steps.back() == '/') steps.remove_suffix(1);
  std::string detail;
  for (std::size_t i = 0, start = 0;; ++i) {
    const std::size_t slash = steps.find('/', start);
    const std::string_view step = steps.substr(start, slash - start);
    if (step.empty()) {
      detail = "segment[" + std::to_string(i) + "] may not be empty";
      errors.invalid(rules::kRIWC10, path_path, url_path, detail);
    } else {
      for (std::string_view p : check_dns1123_subdomain(step)) {
        detail = "segment[" + std::to_string(i) + "]: ";
        detail += p;
        errors.invalid(rules::kRIWC10, path_path, url_path, detail);
      }
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
}

// --- RIWC-11: interpreterContextVersions ---

void check_versions(const JsonValue& hook, const FieldPath& hook_path, ErrorList& errors) {
  const FieldPath path = hook_path.child("interpreterContextVersions");
  const JsonValue* versions = array_member(&hook, "interpreterContextVersions");
  if (versions == nullptr || versions->Empty()) {
    errors.required(rules::kRIWC11, path, "must specify one of v1alpha1");
    return;
  }
  SeenSet seen;
  bool accepted = false;
  for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
    const JsonValue& v = (*versions)[i];
    if (!v.IsString()) continue;
    const FieldPath item = path.index(i);
    if (seen.record(view(v), i).repeated()) {
      errors.invalid(rules::kRIWC11, item, view(v), "duplicate version");
      continue;
    }
    for (std::string_view p : check_dns1035_label(view(v))) {
      errors.invalid(rules::kRIWC11, item, view(v), p);
    }
    accepted = accepted || view(v) == "v1alpha1";
  }
  if (!accepted) {
    errors.invalid_json(rules::kRIWC11, path, go_json_list(versions),
                        "must include at least one of v1alpha1");
  }
}

void check_webhook(const JsonValue& hook, const FieldPath& path, ErrorList& errors) {
  const FieldPath name_path = path.child("name");
  check_name(string_or_empty(&hook, "name"), name_path, errors);
  if (const JsonValue* list = array_member(&hook, "rules")) {
    const FieldPath rules_path = path.child("rules");
    for (rapidjson::SizeType j = 0; j < list->Size(); ++j) {
      if (!(*list)[j].IsObject()) continue;
      const FieldPath rule_path = rules_path.index(j);
      check_rule((*list)[j], rule_path, errors);
    }
  }
  if (const JsonValue* timeout = member(&hook, "timeoutSeconds");
      timeout != nullptr && timeout->IsInt64() &&
      (timeout->GetInt64() < 1 || timeout->GetInt64() > 30)) {
    const FieldPath timeout_path = path.child("timeoutSeconds");
    errors.invalid(rules::kRIWC7, timeout_path, static_cast<long long>(timeout->GetInt64()),
                   "the timeout value must be between 1 and 30 seconds");
  }
  const JsonValue* config = object_member(&hook, "clientConfig");
  const JsonValue* url = member(config, "url");
  const JsonValue* service = object_member(config, "service");
  const bool has_url = url != nullptr && !url->IsNull();
  const FieldPath config_path = path.child("clientConfig");
  if (has_url == (service != nullptr)) {
    errors.required(rules::kRIWC8, config_path, "exactly one of url or service is required");
  } else if (has_url) {
    if (url->IsString()) {
      const FieldPath url_path = config_path.child("url");
      check_url(view(*url), url_path, errors);
    }
  } else {
    const FieldPath service_path = config_path.child("service");
    check_service(*service, service_path, errors);
  }
  check_versions(hook, path, errors);
}

}  // namespace

void validate_resource_interpreter_webhook_configuration(const AdmissionRequest& request,
                                                         AdmissionResult& result) {
  ErrorList& errors = result.errors;
  const JsonValue& object = *request.object;
  if (!schema::check_root_field(kS1, kWebhooks, &object, errors)) return;
  const JsonValue* hooks = array_member(&object, "webhooks");
  if (hooks == nullptr) return;
  const FieldPath path = FieldPath::root("webhooks");
  schema::check_value(kS1, kWebhooks, *hooks, path, errors);
  for (rapidjson::SizeType i = 0; i < hooks->Size(); ++i) {
    const JsonValue& hook = (*hooks)[i];
    const FieldPath item = path.index(i);
    if (!schema::check_element(kS1, kWebhooks, hook, item, errors)) continue;
    schema::check_object(kS1, kWebhookFields, hook, item, errors);
  }
  Duplicates names(rules::kRIWC2);
  for (rapidjson::SizeType i = 0; i < hooks->Size(); ++i) {
    const JsonValue& hook = (*hooks)[i];
    if (!hook.IsObject()) continue;
    const FieldPath item = path.index(i);
    check_webhook(hook, item, errors);
    const FieldPath name_path = item.child("name");
    names.check(string_or_empty(&hook, "name"), i, name_path, errors);
  }
}

}  // namespace kpw
