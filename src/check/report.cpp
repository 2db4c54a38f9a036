#include "check/report.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <yaml-cpp/yaml.h>

#include <ostream>
#include <string_view>

#include "admission/rules.hpp"
#include "check/yaml_scalar.hpp"

namespace kpw::check {
namespace {

std::string where(const std::string& file, Position p) {
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

std::string display_name(const Judged& j) {
  return (j.kind.empty() ? std::string("?") : j.kind) + "/" +
         (j.name.empty() ? std::string("?") : j.name);
}

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
      write_string(w, rule_class_name((*p.rule)->rule_class));
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

void write_report(const std::vector<Judged>& judged, const std::vector<FileSyntaxError>& syntax,
                  const Summary& summary, const Options& options, std::ostream& out) {
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
        out << ", " << summary.skipped << " skipped, " << summary.warnings << " warning"
            << (summary.warnings == 1 ? "" : "s") << "\n";
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
}

}  // namespace kpw::check
