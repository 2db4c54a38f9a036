// MultiClusterIngress rules (docs/rules.md "MultiClusterIngress"), in upstream's order:
//   CREATE: the ObjectMeta rules (a DNS-1123 subdomain name), then the spec;
//   UPDATE: the ObjectMeta update rules, the ObjectMeta rules, the spec, then MCI-9 on the status.
// The spec: the CRD's schema (MCI-S1), MCI-1, the default backend (MCI-2…MCI-4), each rule (MCI-5,
// then its http paths: MCI-6, MCI-7 and the path's backend), the TLS entries, the class (MCI-8).
// A value of the wrong JSON type is the schema's only (upstream cannot decode the object: 400).
//
// | rule  | what denies                                                        | path |
// |-------|--------------------------------------------------------------------|----------------------|
// | MCI-1 | no rules and no defaultBackend (the value: rules, `null` or `[]`)  | spec | | MCI-2 | a
// backend with both resource and service, or neither               | …backend             | | MCI-3
// | resource: apiGroup not a subdomain; kind or name empty or not a path segment |
// …backend.resource.* | | MCI-4 | service: name empty or not a DNS-1035 label; port name and number
// both, neither, a bad name, a number outside 1…65535 | …backend.service.* | | MCI-5 | a host that
// is an IP; not a (wildcard) DNS-1123 subdomain          | spec.rules[i].host   | | MCI-6 | `http`
// without paths                                               | spec.rules[i].http.paths | | MCI-7
// | pathType absent or unsupported; Exact/Prefix: not absolute, `//` `/./` `/../` `%2f` `%2F`,
// ending `/..` `/.`; ImplementationSpecific: set and not absolute | ….paths[j].path(Type) | | MCI-8
// | TLS hosts, a set secretName, ingressClassName not DNS names        | spec.tls[k].*,
// spec.ingressClassName | | MCI-9 | UPDATE: a status ingress IP not an IP; a hostname not a
// subdomain or an IP | status.loadBalancer.ingress[i].* |
#include "validators/multi_cluster_ingress.hpp"

#include <array>
#include <string_view>

#include "api/object.hpp"
#include "util/ip.hpp"
#include "util/names.hpp"
#include "validators/common.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// --- The spec's schema (MCI-S1). What upstream reports as Required itself (a backend's kind,
// name, service name; pathType; paths; a path's backend) is left to upstream's rule. ---

constexpr schema::Rules kS1 = schema::Rules::all(rules::kMCIS1);

constexpr std::array kResourceFields = {Node{.name = "apiGroup"}, Node{.name = "kind"},
                                        Node{.name = "name"}};
constexpr std::array kPortFields = {Node{.name = "name"},
                                    Node{.name = "number", .type = Type::kInt32}};
constexpr std::array kServiceFields = {
    Node{.name = "name"}, Node{.name = "port", .type = Type::kObject, .fields = kPortFields}};
constexpr std::array kBackendFields = {
    Node{.name = "resource", .type = Type::kObject, .fields = kResourceFields},
    Node{.name = "service", .type = Type::kObject, .fields = kServiceFields}};
constexpr std::array kPathFields = {
    Node{.name = "backend", .type = Type::kObject, .fields = kBackendFields}, Node{.name = "path"},
    Node{.name = "pathType"}};
constexpr std::array kHttpFields = {
    Node{.name = "paths", .type = Type::kArray, .fields = kPathFields}};
constexpr std::array kRuleFields = {
    Node{.name = "host"}, Node{.name = "http", .type = Type::kObject, .fields = kHttpFields}};
constexpr std::array kTlsFields = {
    Node{.name = "hosts", .type = Type::kArray, .item = Type::kString}, Node{.name = "secretName"}};
constexpr std::array kSpecFields = {
    Node{.name = "defaultBackend", .type = Type::kObject, .fields = kBackendFields},
    Node{.name = "ingressClassName"},
    Node{.name = "rules", .type = Type::kArray, .fields = kRuleFields},
    Node{.name = "tls", .type = Type::kArray, .fields = kTlsFields},
};
constexpr Node kSpec{.name = "spec", .type = Type::kObject, .fields = kSpecFields, .rules = &kS1};
static_assert(schema::fits_a_mask(kSpecFields));

// A string member, or nullptr when absent, null or of another type (the schema's).
const JsonValue* string_field(const JsonValue& obj, std::string_view key) {
  const JsonValue* v = member(&obj, key);
  return v != nullptr && v->IsString() ? v : nullptr;
}

// Each problem of `problems` as an Invalid of `value` at `path`.
void report(Rule rule, const FieldPath& path, std::string_view value, const NameProblems& problems,
            ErrorList& errors) {
  for (std::string_view p : problems) errors.invalid(rule, path, value, p);
}

// --- MCI-3: a resource backend (TypedLocalObjectReference) ---

void check_resource(const JsonValue& resource, const FieldPath& path, ErrorList& errors) {
  if (const JsonValue* group = string_field(resource, "apiGroup")) {
    const FieldPath group_path = path.child("apiGroup");
    report(rules::kMCI3, group_path, view(*group), check_dns1123_subdomain(view(*group)), errors);
  }
  for (std::string_view field : {"kind", "name"}) {
    const std::string_view value = string_or_empty(&resource, field);
    const FieldPath field_path = path.child(field);
    if (value.empty()) {
      errors.required(rules::kMCI3, field_path,
                      field == "kind" ? "kind is required" : "name is required");
      continue;
    }
    report(rules::kMCI3, field_path, value, check_path_segment_name(value), errors);
  }
}

// --- MCI-4: a service backend ---

void check_service(const JsonValue& service, const FieldPath& backend_path, ErrorList& errors) {
  const FieldPath path = backend_path.child("service");
  const FieldPath name_path = path.child("name");
  const std::string_view name = string_or_empty(&service, "name");
  if (name.empty()) {
    errors.required(rules::kMCI4, name_path, "");
  } else {
    report(rules::kMCI4, name_path, name, check_dns1035_label(name), errors);
  }
  const JsonValue* port = object_member(&service, "port");
  const std::string_view port_name = string_or_empty(port, "name");
  const JsonValue* number = member(port, "number");
  const long long port_number = number != nullptr && number->IsInt64() ? number->GetInt64() : 0;
  const FieldPath port_path = path.child("port");
  if (!port_name.empty() && port_number != 0) {
    errors.invalid(rules::kMCI4, backend_path, std::string_view{},
                   "cannot set both port name & port number");
  } else if (!port_name.empty()) {
    const FieldPath port_name_path = port_path.child("name");
    report(rules::kMCI4, port_name_path, port_name, check_port_name(port_name), errors);
  } else if (port_number != 0) {
    if (port_number < 1 || port_number > 65535) {
      const FieldPath number_path = port_path.child("number");
      errors.invalid(rules::kMCI4, number_path, port_number,
                     "must be between 1 and 65535, inclusive");
    }
  } else {
    errors.required(rules::kMCI4, backend_path, "port name or number is required");
  }
}

// --- MCI-2: a backend (an absent one reads as Go's zero struct: neither) ---

void check_backend(const JsonValue* backend, const FieldPath& path, ErrorList& errors) {
  const JsonValue* resource = object_member(backend, "resource");
  const JsonValue* service = object_member(backend, "service");
  if (resource != nullptr && service != nullptr) {
    errors.invalid(rules::kMCI2, path, std::string_view{},
                   "cannot set both resource and service backends");
  } else if (resource != nullptr) {
    const FieldPath resource_path = path.child("resource");
    check_resource(*resource, resource_path, errors);
  } else if (service != nullptr) {
    check_service(*service, path, errors);
  } else {
    errors.invalid(rules::kMCI2, path, std::string_view{},
                   "resource or service backend is required");
  }
}

// --- MCI-7: one HTTP path ---

constexpr std::array<std::string_view, 5> kInvalidSequences = {"//", "/./", "/../", "%2f", "%2F"};
constexpr std::array<std::string_view, 2> kInvalidSuffixes = {"/..", "/."};

void check_http_path(const JsonValue& item, const FieldPath& path, ErrorList& errors) {
  const JsonValue* type = member(&item, "pathType");
  if (type == nullptr || type->IsNull()) {
    const FieldPath type_path = path.child("pathType");
    errors.required(rules::kMCI7, type_path, "pathType must be specified");
    return;
  }
  if (!type->IsString()) return;  // the schema's
  const std::string_view path_type = view(*type);
  const std::string_view value = string_or_empty(&item, "path");
  const FieldPath path_path = path.child("path");
  if (path_type == "Exact" || path_type == "Prefix") {
    if (!value.starts_with('/')) {
      errors.invalid(rules::kMCI7, path_path, value, "must be an absolute path");
    }
    if (!value.empty()) {
      for (std::string_view seq : kInvalidSequences) {
        if (value.find(seq) == std::string_view::npos) continue;
        std::string detail = "must not contain '";
        detail += seq;
        detail += '\'';
        errors.invalid(rules::kMCI7, path_path, value, detail);
      }
      for (std::string_view suffix : kInvalidSuffixes) {
        if (!value.ends_with(suffix)) continue;
        std::string detail = "cannot end with '";
        detail += suffix;
        detail += '\'';
        errors.invalid(rules::kMCI7, path_path, value, detail);
      }
    }
  } else if (path_type == "ImplementationSpecific") {
    if (!value.empty() && !value.starts_with('/')) {
      errors.invalid(rules::kMCI7, path_path, value, "must be an absolute path");
    }
  } else {
    const FieldPath type_path = path.child("pathType");
    errors.not_supported(rules::kMCI7, type_path, path_type,
                         {"Exact", "ImplementationSpecific", "Prefix"});
  }
  const FieldPath backend_path = path.child("backend");
  check_backend(object_member(&item, "backend"), backend_path, errors);
}

// --- MCI-5, MCI-6: the rules ---

// A host: `*` makes it a wildcard subdomain, else a subdomain (an IP is reported first).
void check_host(Rule rule, std::string_view host, const FieldPath& path, ErrorList& errors) {
  if (host.find('*') != std::string_view::npos) {
    report(rule, path, host, check_wildcard_dns1123_subdomain(host), errors);
  } else {
    report(rule, path, host, check_dns1123_subdomain(host), errors);
  }
}

void check_rules(const JsonValue& list, const FieldPath& path, ErrorList& errors) {
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const JsonValue& rule = list[i];
    if (!rule.IsObject()) continue;
    const FieldPath item = path.index(i);
    const std::string_view host = string_or_empty(&rule, "host");
    if (!host.empty()) {
      const FieldPath host_path = item.child("host");
      if (is_ip_sloppy(host)) {
        errors.invalid(rules::kMCI5, host_path, host, "must be a DNS name, not an IP address");
      }
      check_host(rules::kMCI5, host, host_path, errors);
    }
    const JsonValue* http = object_member(&rule, "http");
    if (http == nullptr) continue;
    const FieldPath http_path = item.child("http");
    const FieldPath paths_path = http_path.child("paths");
    const JsonValue* paths = array_member(http, "paths");
    if (paths == nullptr || paths->Empty()) {
      errors.required(rules::kMCI6, paths_path, "");
      continue;
    }
    for (rapidjson::SizeType j = 0; j < paths->Size(); ++j) {
      if (!(*paths)[j].IsObject()) continue;
      const FieldPath path_item = paths_path.index(j);
      check_http_path((*paths)[j], path_item, errors);
    }
  }
}

// --- MCI-8: TLS and the class ---

void check_tls(const JsonValue& list, const FieldPath& path, ErrorList& errors) {
  for (rapidjson::SizeType k = 0; k < list.Size(); ++k) {
    const JsonValue& tls = list[k];
    if (!tls.IsObject()) continue;
    const FieldPath item = path.index(k);
    if (const JsonValue* hosts = array_member(&tls, "hosts")) {
      const FieldPath hosts_path = item.child("hosts");
      for (rapidjson::SizeType l = 0; l < hosts->Size(); ++l) {
        if (!(*hosts)[l].IsString()) continue;
        const FieldPath host_path = hosts_path.index(l);
        check_host(rules::kMCI8, view((*hosts)[l]), host_path, errors);
      }
    }
    const std::string_view secret = string_or_empty(&tls, "secretName");
    if (!secret.empty()) {
      const FieldPath secret_path = item.child("secretName");
      report(rules::kMCI8, secret_path, secret, check_dns1123_subdomain(secret), errors);
    }
  }
}

void check_spec(const JsonValue& object, ErrorList& errors) {
  const JsonValue* spec_value = member(&object, "spec");
  const FieldPath spec_path = FieldPath::root("spec");
  if (spec_value != nullptr && !spec_value->IsNull()) {
    if (!schema::check_root_field(kS1, kSpec, &object, errors)) return;
    schema::check_object(kS1, kSpecFields, *spec_value, spec_path, errors);
  }
  const JsonValue* spec = object_member(&object, "spec");
  const JsonValue* list = member(spec, "rules");
  const bool has_rules = list != nullptr && list->IsArray() && !list->Empty();
  const JsonValue* backend = object_member(spec, "defaultBackend");
  if (!has_rules && backend == nullptr) {  // MCI-1
    errors.invalid_json(rules::kMCI1, spec_path, list != nullptr && list->IsArray() ? "[]" : "null",
                        "either `defaultBackend` or `rules` must be specified");
  }
  if (backend != nullptr) {
    const FieldPath backend_path = spec_path.child("defaultBackend");
    check_backend(backend, backend_path, errors);
  }
  if (has_rules) {
    const FieldPath rules_path = spec_path.child("rules");
    check_rules(*list, rules_path, errors);
  }
  if (const JsonValue* tls = array_member(spec, "tls")) {
    const FieldPath tls_path = spec_path.child("tls");
    check_tls(*tls, tls_path, errors);
  }
  if (const JsonValue* name = member(spec, "ingressClassName");
      name != nullptr && name->IsString()) {
    const FieldPath class_path = spec_path.child("ingressClassName");
    report(rules::kMCI8, class_path, view(*name), check_dns1123_subdomain(view(*name)), errors);
  }
}

constexpr ObjectMetaOptions kMeta{.name_format = NameFormat::kDns1123Subdomain,
                                  .name_rule = rules::kKM1,
                                  .namespace_rule = NamespaceRule::kRequired};

}  // namespace

void check_load_balancer_status(Rule rule, const JsonValue& object, ErrorList& errors) {
  const JsonValue* load_balancer = object_member(object_member(&object, "status"), "loadBalancer");
  const JsonValue* ingress = array_member(load_balancer, "ingress");
  if (ingress == nullptr) return;
  const FieldPath status = FieldPath::root("status");
  const FieldPath lb_path = status.child("loadBalancer");
  const FieldPath list = lb_path.child("ingress");
  for (rapidjson::SizeType i = 0; i < ingress->Size(); ++i) {
    const JsonValue& entry = (*ingress)[i];
    if (!entry.IsObject()) continue;
    const FieldPath item = list.index(i);
    const std::string_view ip = string_or_empty(&entry, "ip");
    if (!ip.empty() && !is_ip_sloppy(ip)) {
      const FieldPath ip_path = item.child("ip");
      errors.invalid(rule, ip_path, ip, "must be a valid IP address");
    }
    const std::string_view hostname = string_or_empty(&entry, "hostname");
    if (hostname.empty()) continue;
    const FieldPath hostname_path = item.child("hostname");
    report(rule, hostname_path, hostname, check_dns1123_subdomain(hostname), errors);
    if (is_ip_sloppy(hostname)) {
      errors.invalid(rule, hostname_path, hostname, "must be a DNS name, not an IP address");
    }
  }
}

void validate_multi_cluster_ingress(const AdmissionRequest& request, AdmissionResult& result) {
  ErrorList& errors = result.errors;
  const bool update = request.operation == Operation::kUpdate && request.old_object != nullptr;
  if (update) validate_object_meta_update(*request.object, *request.old_object, errors);
  validate_object_meta(*request.object, kMeta, errors);
  check_spec(*request.object, errors);
  if (update) check_load_balancer_status(rules::kMCI9, *request.object, errors);
}

}  // namespace kpw
