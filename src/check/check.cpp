#include "check/check.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>

#include "admission/registry.hpp"
#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "api/karmada.hpp"
#include "api/object.hpp"
#include "check/source.hpp"
#include "json/json_patch_apply.hpp"
#include "util/file.hpp"

namespace kpw::check {
namespace {

namespace fs = std::filesystem;

struct Problem {
  Position at;
  std::string field;  // "" for warnings
  std::string text;   // `<field>: <Type>: …` for errors, the warning for warnings
  std::optional<Rule> rule = std::nullopt;  // the rule an error breaks (rules.hpp)
};

enum class Verdict { kValid, kInvalid, kSkipped };

struct Judged {
  std::string file;
  const SourceObject* source = nullptr;
  std::string api_version, kind, name, ns;
  Verdict verdict = Verdict::kValid;
  std::string skipped_reason;
  std::vector<Problem> errors;
  std::vector<Problem> warnings;
  // Whether some error is one upstream's webhook (or the API server) denies too; false when only
  // our strict rules deny the object.
  bool upstream_denies() const {
    for (const Problem& p : errors) {
      if (!p.rule || !is_strict(*p.rule)) return true;
    }
    return false;
  }
};

struct FileSyntaxError {
  std::string file;
  SyntaxError error;
};

std::string_view text_of(const JsonValue* obj, std::string_view key) {
  return string_or_empty(obj, key);
}

// The webhook row serving (group, kind), validating or mutating.
const Webhook* row_for(std::string_view group, std::string_view kind, bool mutating) {
  for (const Webhook& w : webhooks()) {
    if (w.group == group && w.kind == kind && w.mutating == mutating) return &w;
  }
  return nullptr;
}

// Sets obj[key] = value when the key is absent or null (structural defaulting).
template <typename T>
void default_member(JsonValue& obj, std::string_view key, T value, JsonAllocator& alloc) {
  if (!obj.IsObject()) return;
  JsonValue* existing = find_member(obj, key);
  JsonValue v;
  if constexpr (std::is_same_v<T, std::string_view>) {
    v.SetString(value.data(), static_cast<rapidjson::SizeType>(value.size()), alloc);
  } else {
    v = JsonValue(value);
  }
  if (existing == nullptr) {
    obj.AddMember(JsonValue(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc), v,
                  alloc);
  } else if (existing->IsNull()) {
    *existing = v;
  }
}

// The defaults of the policy CRDs (docs/check.md, "What is judged"), applied inside objects that exist, as the API
// server's structural defaulting does before any webhook runs.
void apply_policy_crd_defaults(JsonValue& object, JsonAllocator& alloc) {
  JsonValue* spec = object_member(&object, "spec");
  if (spec == nullptr) return;
  default_member(*spec, "priority", std::int64_t{0}, alloc);
  default_member(*spec, "preemption", std::string_view("Never"), alloc);
  default_member(*spec, "schedulerName", std::string_view("default-scheduler"), alloc);
  default_member(*spec, "conflictResolution", std::string_view("Abort"), alloc);
  if (JsonValue* placement = object_member(spec, "placement")) {
    if (JsonValue* rs = object_member(placement, "replicaScheduling")) {
      default_member(*rs, "replicaSchedulingType", std::string_view("Divided"), alloc);
    }
  }
  if (JsonValue* failover = object_member(spec, "failover")) {
    if (JsonValue* app = object_member(failover, "application")) {
      default_member(*app, "purgeMode", std::string_view("Gracefully"), alloc);
      if (JsonValue* dc = object_member(app, "decisionConditions")) {
        default_member(*dc, "tolerationSeconds", std::int64_t{300}, alloc);
      }
    }
    if (JsonValue* cluster = object_member(failover, "cluster")) {
      default_member(*cluster, "purgeMode", std::string_view("Gracefully"), alloc);
    }
  }
}

// What the API server checks before any webhook (metadata.hpp): nulls pruned, ObjectMeta, unknown
// fields (errors, warnings or nothing, as --unknown-fields says).
void judge_as_api_server(const SourceObject& src, JsonValue& obj, const Options& options,
                         Judged& j) {
  prune_nulls(obj);
  ErrorList errors;
  check_object_meta(obj, errors);
  ErrorList unknown;
  if (options.unknown_fields != UnknownFields::kIgnore) {
    const bool policy = j.kind == karmada::kPropagationPolicy ||
                        j.kind == karmada::kClusterPropagationPolicy;
    check_unknown_fields(obj, policy, unknown);
  }
  for (const ErrorList* list : {&errors, &unknown}) {
    const bool as_warning = list == &unknown && options.unknown_fields == UnknownFields::kWarn;
    for (const FieldError& e : list->errors()) {
      Problem p{src.locate(e.field), e.field, e.text(), e.rule};
      if (as_warning) {
        p.field.clear();
        p.text += " [" + std::string(rule_id(e.rule)) + "]";
        p.rule.reset();
      }
      (as_warning ? j.warnings : j.errors).push_back(std::move(p));
    }
    if (list->omitted() > 0) {
      (as_warning ? j.warnings : j.errors).push_back(Problem{src.start, "", list->omitted_text()});
    }
  }
}

// A warning that starts with a field path is placed at that field.
Position warning_position(const SourceObject& src, const std::string& warning) {
  const std::size_t end = warning.find_first_of(": ");
  if (end == std::string::npos || end == 0) return src.start;
  return src.locate(warning.substr(0, end));
}

Judged judge(const std::string& file, SourceObject& src, const Options& options) {
  Judged j;
  j.file = file;
  j.source = &src;
  JsonDocument& obj = *src.json;
  auto& alloc = obj.GetAllocator();
  if (!obj.IsObject()) {
    j.verdict = Verdict::kSkipped;
    j.skipped_reason = "not an object";
    return j;
  }
  const JsonValue* metadata = object_member(&obj, "metadata");
  j.api_version = text_of(&obj, "apiVersion");
  j.kind = text_of(&obj, "kind");
  j.name = text_of(metadata, "name");
  if (j.name.empty()) j.name = text_of(metadata, "generateName");
  const std::size_t slash = j.api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : j.api_version.substr(0, slash);
  const Webhook* validating = row_for(group, j.kind, false);
  const Webhook* mutating = row_for(group, j.kind, true);
  if (validating == nullptr) {
    j.verdict = Verdict::kSkipped;
    j.skipped_reason = "kind " + (j.api_version.empty() ? std::string("?") : j.api_version) + " " +
                       (j.kind.empty() ? std::string("?") : j.kind) +
                       " is not served by this webhook";
    return j;
  }
  // The request namespace: a PropagationPolicy's own, else --namespace; cluster-scoped kinds none.
  if (j.kind == karmada::kPropagationPolicy) {
    j.ns = text_of(metadata, "namespace");
    if (j.ns.empty()) {
      j.ns = options.default_namespace;
      if (JsonValue* md = object_member(&obj, "metadata")) {
        default_member(*md, "namespace", std::string_view(j.ns), alloc);
      }
    }
  }
  judge_as_api_server(src, obj, options, j);
  if (j.kind == karmada::kPropagationPolicy || j.kind == karmada::kClusterPropagationPolicy) {
    apply_policy_crd_defaults(obj, alloc);
  }

  AdmissionRequest request;
  request.operation = Operation::kCreate;
  request.name = j.name;
  request.ns = j.ns;
  request.object = &obj;
  if (mutating != nullptr) {
    AdmissionResult mutation;
    mutation.patch.reset(&obj);
    mutating->handler(request, mutation);
    if (mutation.patch.too_large()) {  // refused by the webhook too (service.cpp)
      j.errors.push_back(Problem{src.start, "",
                                 "the defaults this object needs make a JSON Patch of more than " +
                                     std::to_string(JsonPatch::kMaxBytes) +
                                     " bytes, more than the webhook answers with: split it "
                                     "into smaller objects"});
      j.verdict = Verdict::kInvalid;
      return j;
    }
    // Stored as the API server stores it: the patch as the webhook answers it, applied strictly.
    std::string ops;
    mutation.patch.render(ops);
    if (const auto problem = apply_json_patch(obj, ops, alloc)) {
      j.errors.push_back(Problem{src.start, "",
                                 "internal error: the webhook's JSON Patch does not apply: " +
                                     *problem});
      j.verdict = Verdict::kInvalid;
      return j;
    }
    // The API server defaults again after every mutating webhook.
    if (j.kind == karmada::kPropagationPolicy || j.kind == karmada::kClusterPropagationPolicy) {
      apply_policy_crd_defaults(obj, alloc);
    }
    for (const std::string& w : mutation.warnings.all()) {
      j.warnings.push_back(Problem{warning_position(src, w), "", w});
    }
  }
  AdmissionResult validation;
  validation.patch.reset(&obj);
  StrictContext strict;
  strict.mode = strict_rules();
  strict.object = &obj;
  // An object being deleted (an audited dump holds them) is never denied by a strict rule.
  strict.deleting = member(object_member(&obj, "metadata"), "deletionTimestamp") != nullptr;
  strict.warnings = &validation.warnings;
  validation.errors.set_context(&strict);
  validating->handler(request, validation);
  validation.errors.set_context(nullptr);
  for (const FieldError& e : validation.errors.errors()) {
    j.errors.push_back(Problem{src.locate(e.field), e.field, e.text(), e.rule});
  }
  if (validation.errors.omitted() > 0) {
    j.errors.push_back(Problem{src.start, "", validation.errors.omitted_text()});
  }
  for (const std::string& w : validation.warnings.all()) {
    j.warnings.push_back(Problem{warning_position(src, w), "", w});
  }
  j.verdict = j.errors.empty() ? Verdict::kValid : Verdict::kInvalid;
  return j;
}

// The recovery boundary of `check`: an object whose judging throws (std::bad_alloc from a huge
// document included) gets one error, and the other objects are judged.
Judged judge_safely(const std::string& file, SourceObject& src, const Options& options) {
  std::string what;
  try {
    return judge(file, src, options);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  Judged j;
  j.file = file;
  j.source = &src;
  j.verdict = Verdict::kInvalid;
  j.errors.push_back(Problem{src.start, "", "internal error while judging this object: " + what});
  return j;
}

std::string where(const std::string& file, Position p) {
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

std::string display_name(const Judged& j) {
  return (j.kind.empty() ? std::string("?") : j.kind) + "/" +
         (j.name.empty() ? std::string("?") : j.name);
}

// Files to read, in a stable order: directories recursively (*.yaml, *.yml, *.json).
bool expand(const std::vector<std::string>& paths, std::vector<std::string>& files,
            std::ostream& err) {
  bool ok = true;
  for (const std::string& p : paths) {
    if (p == "-") {
      files.push_back(p);
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string ext = it->path().extension().string();
        if (ext == ".yaml" || ext == ".yml" || ext == ".json") found.push_back(it->path().string());
      }
      if (ec) {
        err << p << ": cannot read: " << ec.message() << "\n";
        ok = false;
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      err << p << ": cannot read: no such file or directory\n";
      ok = false;
    }
  }
  return ok;
}

// Reads and loads `file` into `loaded` inside the recovery boundary of a file, as judge_safely is
// that of an object: anything thrown while reading or loading it (std::bad_alloc for a file too
// large for the memory left) is one error for this file, and the other files are still judged.
bool read_and_load(const std::string& file, LoadedFile& loaded, std::ostream& err) {
  std::string what;
  try {
    std::string text;
    if (!read_file(file, text)) {
      err << (file == "-" ? "<stdin>" : file) << ": cannot read\n";
      return false;
    }
    loaded = load(text);
    return true;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  loaded = LoadedFile{};
  err << (file == "-" ? "<stdin>" : file)
      << ": cannot read: internal error while loading this file: " << what << "\n";
  return false;
}

// ---- reports ----

struct Summary {
  std::size_t objects = 0, valid = 0, invalid = 0, skipped = 0, warnings = 0;
  std::size_t invalid_upstream = 0;     // invalid, and upstream (or the API server) denies it too
  std::size_t invalid_strict_only = 0;  // invalid only by our strict rules
};

template <typename Writer>
void write_string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// `key: [{field?, line, column, message}]` (warnings name no field).
template <typename Writer>
void write_problems(Writer& w, const char* key, const std::vector<Problem>& problems,
                    bool with_field) {
  w.Key(key);
  w.StartArray();
  for (const Problem& p : problems) {
    w.StartObject();
    if (with_field) {
      w.Key("field");
      write_string(w, p.field);
    }
    if (p.rule) {
      w.Key("rule");
      write_string(w, rule_id(*p.rule));
      w.Key("class");
      write_string(w, rule_class_name(rule_info(*p.rule).rule_class));
    }
    w.Key("line");
    w.Int(p.at.line);
    w.Key("column");
    w.Int(p.at.column);
    w.Key("message");
    write_string(w, p.text);
    w.EndObject();
  }
  w.EndArray();
}

std::string json_report(const std::vector<Judged>& judged,
                        const std::vector<FileSyntaxError>& syntax, const Summary& summary,
                        const Options& options) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("objects");
  w.StartArray();
  for (const Judged& j : judged) {
    w.StartObject();
    w.Key("file");
    write_string(w, j.file == "-" ? "<stdin>" : j.file);
    w.Key("document");
    w.Uint64(j.source->document);
    w.Key("line");
    w.Int(j.source->start.line);
    w.Key("apiVersion");
    write_string(w, j.api_version);
    w.Key("kind");
    write_string(w, j.kind);
    w.Key("name");
    write_string(w, j.name);
    if (!j.ns.empty()) {
      w.Key("namespace");
      write_string(w, j.ns);
    }
    w.Key("verdict");
    write_string(w, j.verdict == Verdict::kValid     ? "valid"
                    : j.verdict == Verdict::kInvalid ? "invalid"
                                                     : "skipped");
    if (j.verdict == Verdict::kSkipped) {
      w.Key("reason");
      write_string(w, j.skipped_reason);
    }
    write_problems(w, "errors", j.errors, true);
    write_problems(w, "warnings", j.warnings, false);
    if (options.show_defaults && j.verdict != Verdict::kSkipped) {
      w.Key("object");
      j.source->json->Accept(w);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("syntaxErrors");
  w.StartArray();
  for (const FileSyntaxError& s : syntax) {
    w.StartObject();
    w.Key("file");
    write_string(w, s.file == "-" ? "<stdin>" : s.file);
    w.Key("line");
    w.Int(s.error.position.line);
    w.Key("column");
    w.Int(s.error.position.column);
    w.Key("message");
    write_string(w, s.error.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("summary");
  w.StartObject();
  w.Key("objects");
  w.Uint64(summary.objects);
  w.Key("valid");
  w.Uint64(summary.valid);
  w.Key("invalid");
  w.Uint64(summary.invalid);
  w.Key("invalidUpstream");
  w.Uint64(summary.invalid_upstream);
  w.Key("invalidStrictOnly");
  w.Uint64(summary.invalid_strict_only);
  w.Key("skipped");
  w.Uint64(summary.skipped);
  w.Key("warnings");
  w.Uint64(summary.warnings);
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

void emit_yaml(YAML::Emitter& out, const JsonValue& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      out << YAML::Null;
      break;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      out << YAML::TrueFalseBool << v.GetBool();
      break;
    case rapidjson::kNumberType:
      if (v.IsInt64()) {
        out << v.GetInt64();
      } else if (v.IsUint64()) {
        out << v.GetUint64();
      } else {
        out << v.GetDouble();
      }
      break;
    case rapidjson::kStringType: {
      const std::string s(v.GetString(), v.GetStringLength());
      if (!plain_scalar_is_string(s)) out << YAML::DoubleQuoted;
      out << s;
      break;
    }
    case rapidjson::kArrayType:
      out << YAML::BeginSeq;
      for (const JsonValue& item : v.GetArray()) emit_yaml(out, item);
      out << YAML::EndSeq;
      break;
    case rapidjson::kObjectType:
      out << YAML::BeginMap;
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        out << YAML::Key;
        emit_yaml(out, it->name);
        out << YAML::Value;
        emit_yaml(out, it->value);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

int run(const std::vector<std::string>& paths, const Options& options, std::ostream& out,
        std::ostream& err) {
  std::vector<std::string> files;
  bool usage_problem = !expand(paths, files, err);
  std::vector<LoadedFile> loaded;  // kept alive: judged objects point into them
  loaded.reserve(files.size());
  std::vector<Judged> judged;
  std::vector<FileSyntaxError> syntax;
  for (const std::string& file : files) {
    LoadedFile one;
    if (!read_and_load(file, one, err)) {
      usage_problem = true;
      continue;
    }
    loaded.push_back(std::move(one));
    LoadedFile& lf = loaded.back();
    if (lf.syntax_error) {
      syntax.push_back(FileSyntaxError{file, *lf.syntax_error});
      continue;
    }
    for (SourceObject& obj : lf.objects) judged.push_back(judge_safely(file, obj, options));
  }

  Summary summary;
  for (Judged& j : judged) {
    if (j.verdict == Verdict::kSkipped && options.strict) {
      j.verdict = Verdict::kInvalid;
      j.errors.push_back(Problem{j.source->start, "", j.skipped_reason});
    }
    ++summary.objects;
    summary.warnings += j.warnings.size();
    if (j.verdict == Verdict::kValid) ++summary.valid;
    if (j.verdict == Verdict::kInvalid) {
      ++summary.invalid;
      ++(j.upstream_denies() ? summary.invalid_upstream : summary.invalid_strict_only);
    }
    if (j.verdict == Verdict::kSkipped) ++summary.skipped;
  }

  switch (options.output) {
    case OutputFormat::kText: {
      for (const FileSyntaxError& s : syntax) {
        out << where(s.file == "-" ? "<stdin>" : s.file, s.error.position)
            << ": syntax error: " << s.error.message << "\n";
      }
      for (const Judged& j : judged) {
        const std::string file = j.file == "-" ? "<stdin>" : j.file;
        for (const Problem& p : j.errors) {
          out << where(file, p.at) << ": " << display_name(j) << ": " << p.text;
          if (p.rule) out << " [" << rule_id(*p.rule) << "]";
          out << "\n";
        }
        for (const Problem& p : j.warnings) {
          out << where(file, p.at) << ": warning: " << display_name(j) << ": " << p.text << "\n";
        }
      }
      if (!options.quiet) {
        out << summary.objects << " object" << (summary.objects == 1 ? "" : "s") << ": "
            << summary.valid << " valid, " << summary.invalid << " invalid";
        if (summary.invalid > 0) {
          out << " (" << summary.invalid_upstream << " denied by upstream too, "
              << summary.invalid_strict_only << " only by our strict rules)";
        }
        out << ", " << summary.skipped
            << " skipped, " << summary.warnings << " warning" << (summary.warnings == 1 ? "" : "s")
            << "\n";
      }
      break;
    }
    case OutputFormat::kJson:
      out << json_report(judged, syntax, summary, options);
      break;
    case OutputFormat::kYaml: {
      YAML::Emitter emitter;
      if (options.show_defaults) {
        // The objects as they would be stored, one document each.
        for (const Judged& j : judged) {
          if (j.verdict == Verdict::kSkipped) continue;
          emitter << YAML::BeginDoc;
          emit_yaml(emitter, *j.source->json);
        }
      } else {
        JsonDocument report;
        std::string text = json_report(judged, syntax, summary, options);
        report.Parse(text.c_str());
        emit_yaml(emitter, report);
      }
      out << emitter.c_str() << "\n";
      break;
    }
  }

  if (usage_problem || !syntax.empty()) return 2;
  if (summary.invalid > 0) return 1;
  if (options.warnings_as_errors && summary.warnings > 0) return 1;
  return 0;
}

}  // namespace kpw::check
