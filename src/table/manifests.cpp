// The manifests generated from the route table (manifests.hpp). Plain text, written the way the
// hand-written manifests beside them are, so a diff of a regeneration reads as the change made.
#include "table/manifests.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <ostream>
#include <set>
#include <string>
#include <system_error>

#include "table/table.hpp"
#include "util/file.hpp"
#include "util/json_text.hpp"

namespace kpw {
namespace {

constexpr std::string_view kName = "karmada-policy-webhook";   // configurations, Service
constexpr std::string_view kPlaceholderNamespace = "default";  // the base's, replaced by overlays
constexpr std::string_view kNamespace = "karmada-system";      // every overlay's
constexpr std::string_view kServicePort = "443";
constexpr std::string_view kUrlHost = "karmada-policy-webhook.karmada-system.svc.cluster.local:443";
constexpr std::string_view kCaPlaceholder = "\"{{caBundle}}\"";
constexpr std::string_view kInjectCaFrom = "karmada-system/karmada-policy-webhook";
constexpr std::string_view kApplyTo = "karmada-policy-webhook.karmada.io/apply-to";

// The rest of the first comment of every generated file (kGeneratedMarker is its first line).
constexpr std::string_view kGeneratedNote =
    "# table (src/table/routes.cpp): do not edit; change the table and regenerate.\n";

enum class Overlay { kCertManager, kSelfSigned, kUrl };
constexpr Overlay kOverlays[] = {Overlay::kCertManager, Overlay::kSelfSigned, Overlay::kUrl};

std::string_view overlay_name(Overlay o) {
  switch (o) {
    case Overlay::kCertManager:
      return "cert-manager";
    case Overlay::kSelfSigned:
      return "self-signed";
    case Overlay::kUrl:
      return "url";
  }
  return "";
}

// One of the two configurations: the routes it holds, in the table's order.
struct Configuration {
  bool mutating;
  std::vector<const Route*> entries;

  std::string_view kind() const {
    return mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  }
  std::string_view type() const { return mutating ? "mutating" : "validating"; }
};

Configuration configuration(std::span<const Route> routes, bool mutating) {
  Configuration c{mutating, {}};
  for (const Route& r : routes) {
    if (r.takes == Takes::kAdmissionReview && r.mutating == mutating) c.entries.push_back(&r);
  }
  return c;
}

// The generated files' first comment: the marker, then each paragraph word-wrapped to 100
// columns after "# ", a blank comment line before each; a paragraph starting with two spaces (a
// command) is one line as it is.
void header(std::string& out, std::initializer_list<std::string_view> paragraphs) {
  constexpr std::size_t kWidth = 100 - 2;
  out += kGeneratedMarker;
  out += '\n';
  out += kGeneratedNote;
  bool command = false;
  for (std::string_view p : paragraphs) {
    const bool is_command = p.starts_with("  ");
    if (!(is_command && command)) out += "#\n";
    command = is_command;
    if (is_command) {
      out += "# ";
      out += p;
      out += '\n';
      continue;
    }
    std::size_t column = 0;
    while (!p.empty()) {
      const std::size_t space = p.find(' ');
      const std::string_view word = p.substr(0, space);
      if (column > 0 && column + 1 + word.size() > kWidth) {
        out += '\n';
        column = 0;
      }
      out += column == 0 ? "# " : " ";
      out += word;
      column += (column == 0 ? 0 : 1) + word.size();
      p.remove_prefix(space == std::string_view::npos ? p.size() : space + 1);
    }
    out += '\n';
  }
}

bool plain_safe(std::string_view s) {
  if (s.empty()) return false;
  const char first = s.front();
  const bool alnum_first = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') ||
                           (first >= '0' && first <= '9');
  if (!alnum_first && first != '/') return false;
  bool digits_only = true;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == '/' || c == ':';
    if (!ok) return false;
    if (c < '0' || c > '9') digits_only = false;
  }
  if (digits_only || s.back() == ':') return false;  // a number; a mapping key
  std::string lower(s);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (std::string_view word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}) {
    if (lower == word) return false;
  }
  return true;
}

// A YAML scalar: plain where YAML reads it back as the same string, else a JSON string literal
// (which YAML reads as a double-quoted scalar): "*" would be an alias.
void scalar(std::string& out, std::string_view s) {
  if (plain_safe(s)) {
    out += s;
  } else {
    append_json_string(out, s);
  }
}

// `["a", "b"]`
template <typename Range>
void flow(std::string& out, const Range& items) {
  out += '[';
  bool first = true;
  for (std::string_view item : items) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, item);
  }
  out += ']';
}

void line(std::string& out, std::string_view indent, std::string_view key, std::string_view value) {
  out += indent;
  out += key;
  out += ": ";
  scalar(out, value);
  out += '\n';
}

// The members of a clientConfig's `service:` (our Service, port 443, at `path`), at `indent`.
void service_reference(std::string& out, std::string_view indent, std::string_view ns,
                       std::string_view path) {
  line(out, indent, "name", kName);
  line(out, indent, "namespace", ns);
  line(out, indent, "path", path);
  out += indent;
  out += "port: ";
  out += kServicePort;
  out += '\n';
}

void entry_comment(std::string& out, std::string_view indent, std::size_t index,
                   const Route& route) {
  out += indent;
  out += "# [";
  out += std::to_string(index);
  out += "] ";
  out += route.path;
  out += '\n';
}

std::vector<std::string_view> operation_names(Operations ops) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < kOperationCount; ++i) {
    const auto op = static_cast<Operation>(i);
    if (ops.has(op)) out.push_back(operation_name(op));
  }
  return out;
}

void rules(std::string& out, const Route& route) {
  out += "    rules:\n";
  const std::vector<std::string_view> ops = operation_names(route.operations);
  auto rule = [&](std::string_view group, std::span<const std::string_view> versions,
                  std::string_view resource, std::string_view scope) {
    out += "      - operations: ";
    flow(out, ops);
    out += "\n        apiGroups: ";
    flow(out, std::initializer_list<std::string_view>{group});
    out += "\n        apiVersions: ";
    flow(out, versions);
    out += "\n        resources: ";
    flow(out, std::initializer_list<std::string_view>{resource});
    out += '\n';
    line(out, "        ", "scope", scope);
  };
  if (route.kinds.empty()) {  // any kind
    static constexpr std::string_view kAny[] = {"*"};
    rule("*", kAny, "*", "*");
    return;
  }
  for (const Kind* k : route.kinds) {
    rule(k->group, k->versions, k->resource, k->namespaced ? "Namespaced" : "Cluster");
  }
}

void entry(std::string& out, std::size_t index, const Route& route) {
  const Entry& e = route.entry;
  entry_comment(out, "  ", index, route);
  out += "  - name: ";
  scalar(out, e.name);
  out += '\n';
  rules(out, route);
  out += "    clientConfig:\n      service:\n";
  service_reference(out, "        ", kPlaceholderNamespace, route.path);
  if (!e.object_selector.key.empty()) {
    out += "    objectSelector:\n      matchExpressions:\n";
    line(out, "        - ", "key", e.object_selector.key);
    line(out, "          ", "operator", selector_operator_name(e.object_selector.op));
  }
  line(out, "    ", "failurePolicy", failure_policy_name(e.failure_policy));
  line(out, "    ", "sideEffects", side_effects_name(e.side_effects));
  out += "    admissionReviewVersions: ";
  flow(out, e.admission_review_versions);
  out += "\n    timeoutSeconds: ";
  out += std::to_string(e.timeout_seconds);
  out += '\n';
  line(out, "    ", "matchPolicy", match_policy_name(e.match_policy));
}

GeneratedFile base_configuration(const Configuration& c) {
  GeneratedFile f{
      "base/" + std::string(c.mutating ? "mutating" : "validating") + "webhookconfiguration.yaml",
      {}};
  std::string& out = f.text;
  const std::string what = "The " + std::string(c.kind()) + ": one entry per " +
                           std::string(c.type()) +
                           " route, in the table's order. Rules, operations, objectSelector, "
                           "timeout: the route's row. The overlays patch the entries by index ([N] "
                           "below); their patches are generated with this file.";
  header(out, {what,
               "clientConfig.caBundle is left out on purpose: cert-manager's cainjector fills it "
               "(overlay cert-manager), or fill-ca-bundle.sh writes it into a patch (overlays "
               "self-signed and url). clientConfig.service.namespace is a placeholder that each "
               "overlay replaces.",
               "To take a path over from upstream's karmada-webhook, move upstream's entry for it "
               "to ours, one entry at a time (docs/operations.md, \"Next to upstream Karmada's "
               "webhook\"): two mutating webhooks must never both run."});
  out += "apiVersion: admissionregistration.k8s.io/v1\nkind: ";
  out += c.kind();
  out += "\nmetadata:\n";
  line(out, "  ", "name", kName);
  out += "  labels:\n";
  line(out, "    ", "app.kubernetes.io/name", kName);
  line(out, "    ", kApplyTo, "karmada-apiserver");
  if (c.entries.empty()) {
    out += "webhooks: []\n";
    return f;
  }
  out += "webhooks:\n";
  for (std::size_t i = 0; i < c.entries.size(); ++i) entry(out, i, *c.entries[i]);
  return f;
}

// A JSON patch file of an overlay: `ops` writes the ops of entry i.
template <typename Ops>
GeneratedFile patch_file(std::string path, const Configuration& c, std::string_view comment,
                         Ops ops) {
  GeneratedFile f{std::move(path), {}};
  header(f.text, {comment});
  if (c.entries.empty()) f.text += "[]\n";
  for (std::size_t i = 0; i < c.entries.size(); ++i) {
    entry_comment(f.text, "", i, *c.entries[i]);
    ops(f.text, "/webhooks/" + std::to_string(i) + "/clientConfig/", *c.entries[i]);
  }
  return f;
}

void op(std::string& out, std::string_view name, const std::string& path,
        std::string_view value_line) {
  out += "- op: ";
  out += name;
  out += "\n  path: ";
  out += path;
  out += '\n';
  if (!value_line.empty()) {
    out += "  value: ";
    out += value_line;
    out += '\n';
  }
}

void overlay_patches(std::vector<GeneratedFile>& files, const Configuration& c) {
  const std::string suffix = std::string("-").append(c.type()).append(".yaml");
  const std::string entries = "every entry of the base's " + std::string(c.kind()) + ", by index";
  for (Overlay o : {Overlay::kCertManager, Overlay::kSelfSigned}) {
    files.push_back(patch_file(
        "overlays/" + std::string(overlay_name(o)) + "/service-namespace" + suffix, c,
        "clientConfig.service.namespace = karmada-system (the overlay's namespace) for " + entries +
            ": kubectl 1.20's built-in kustomize (v2.0.3) does not rewrite it with `namespace:` "
            "(v5 does; the patch then changes nothing).",
        [](std::string& out, const std::string& client, const Route&) {
          op(out, "replace", client + "service/namespace", kNamespace);
        }));
  }
  files.push_back(patch_file(
      "overlays/self-signed/ca-bundle" + suffix, c,
      "clientConfig.caBundle of " + entries +
          ". \"{{caBundle}}\" is the placeholder that fill-ca-bundle.sh CERT_DIR replaces with "
          "base64(ca.crt) (and --reset puts back): the API server refuses it, so nothing "
          "half-configured gets applied.",
      [](std::string& out, const std::string& client, const Route&) {
        op(out, "add", client + "caBundle", kCaPlaceholder);
      }));
  files.push_back(patch_file("overlays/url/url" + suffix, c,
                             "clientConfig.url instead of clientConfig.service for " + entries +
                                 ". set-url-host.sh HOST[:PORT] rewrites the host.",
                             [](std::string& out, const std::string& client, const Route& r) {
                               op(out, "remove", client + "service", "");
                               op(out, "add", client + "url",
                                  "https://" + std::string(kUrlHost) + std::string(r.path));
                             }));
}

// A conversion route's patch of one CRD for one overlay: a JSON merge patch (it names the CRD
// too, so it reads as what it changes), for `kubectl patch crd NAME --type merge --patch-file`.
GeneratedFile conversion_patch(Overlay o, const Route& route, const Kind& kind) {
  const std::string crd = std::string(kind.resource) + "." + std::string(kind.group);
  const std::string dir = "overlays/" + std::string(overlay_name(o)) + "/crd-conversion/";
  GeneratedFile f{dir + crd + ".yaml", {}};
  std::string& out = f.text;
  const std::string points = "Points the conversion of Karmada's CRD " + crd + " at " +
                             std::string(route.path) + " (a JSON merge patch). ";
  const std::string how =
      o == Overlay::kCertManager ? "Through the Service; cert-manager's cainjector fills the "
                                   "caBundle (inject-ca-from)."
      : o == Overlay::kSelfSigned
          ? "Through the Service; fill-ca-bundle.sh fills the caBundle."
          : "By URL: set-url-host.sh rewrites the host, fill-ca-bundle.sh fills the caBundle.";
  header(out, {points + how,
               "Karmada's CRDs are not ours to ship: patch the installed one (docs/operations.md, "
               "\"CRD conversion patches\"):",
               "  kubectl patch crd " + crd + " --type merge --patch-file \\",
               "    manifests/" + f.path});
  out += "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n";
  line(out, "  ", "name", crd);
  if (o == Overlay::kCertManager) {
    out += "  annotations:\n";
    line(out, "    ", "cert-manager.io/inject-ca-from", kInjectCaFrom);
  }
  out += "spec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n";
  if (o == Overlay::kUrl) {
    line(out, "        ", "url", "https://" + std::string(kUrlHost) + std::string(route.path));
    out += "        service: null\n";
  } else {
    out += "        service:\n";
    service_reference(out, "          ", kNamespace, route.path);
    out += "        url: null\n";
  }
  if (o != Overlay::kCertManager) {
    out += "        caBundle: ";
    out += kCaPlaceholder;
    out += '\n';
  }
  out += "      conversionReviewVersions: [\"v1\"]\n";
  return f;
}

bool starts_with_marker(const std::string& text) {
  return text.compare(0, kGeneratedMarker.size(), kGeneratedMarker) == 0;
}

}  // namespace

std::string_view failure_policy_name(FailurePolicy p) {
  return p == FailurePolicy::kFail ? "Fail" : "Ignore";
}

std::string_view side_effects_name(SideEffects s) {
  return s == SideEffects::kNone ? "None" : "NoneOnDryRun";
}

std::string_view match_policy_name(MatchPolicy m) {
  return m == MatchPolicy::kEquivalent ? "Equivalent" : "Exact";
}

std::string_view selector_operator_name(SelectorOperator o) {
  return o == SelectorOperator::kExists ? "Exists" : "DoesNotExist";
}

std::string_view takes_name(Takes t) {
  return t == Takes::kAdmissionReview ? "AdmissionReview" : "ConversionReview";
}

std::vector<GeneratedFile> generate_manifests(std::span<const Route> routes) {
  std::vector<GeneratedFile> files;
  for (const bool mutating : {true, false}) {
    const Configuration c = configuration(routes, mutating);
    files.push_back(base_configuration(c));
    overlay_patches(files, c);
  }
  for (const Route& r : routes) {
    if (r.takes != Takes::kConversionReview) continue;
    for (const Kind* k : r.kinds) {
      for (Overlay o : kOverlays) files.push_back(conversion_patch(o, r, *k));
    }
  }
  return files;
}

int write_manifests(const std::string& dir, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    err << "karmada-policy-webhook manifests: " << dir << " is not a folder\n";
    return 1;
  }
  std::set<fs::path> made;
  for (const GeneratedFile& f : generate_manifests(routes())) {
    const fs::path path = root / f.path;
    made.insert(path.lexically_normal());
    std::string old;
    if (read_file(path.string(), old) && old == f.text) {
      out << "unchanged " << path.string() << '\n';
      continue;
    }
    fs::create_directories(path.parent_path(), ec);
    const fs::path tmp = path.string() + ".tmp";
    {
      std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
      o << f.text;
      o.close();
      if (!o) {
        err << "karmada-policy-webhook manifests: cannot write " << tmp.string() << '\n';
        return 1;
      }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
      err << "karmada-policy-webhook manifests: cannot rename " << tmp.string() << ": "
          << ec.message() << '\n';
      return 1;
    }
    out << "wrote     " << path.string() << '\n';
  }
  // Generated files of routes that are gone (a conversion route's CRD patches).
  std::vector<fs::path> stale;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".yaml") continue;
    if (made.count(it->path().lexically_normal()) != 0) continue;
    std::string text;
    if (read_file(it->path().string(), text) && starts_with_marker(text)) {
      stale.push_back(it->path());
    }
  }
  if (ec) {
    err << "karmada-policy-webhook manifests: cannot list " << dir << ": " << ec.message() << '\n';
    return 1;
  }
  for (const fs::path& p : stale) {
    if (!fs::remove(p, ec) || ec) {
      err << "karmada-policy-webhook manifests: cannot remove " << p.string() << '\n';
      return 1;
    }
    out << "removed   " << p.string() << '\n';
    if (fs::is_empty(p.parent_path(), ec) && !ec) fs::remove(p.parent_path(), ec);
  }
  return 0;
}

}  // namespace kpw
