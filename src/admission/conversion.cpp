// The ConversionReview envelope (conversion.hpp): decoding the review as Go's encoding/json
// decodes it into apiextensions' ConversionReview, the converter for every object, the answer as
// controller-runtime's conversion handler encodes it.
#include "admission/conversion.hpp"

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>

#include "json/json.hpp"

namespace kpw {
namespace {

// controller-runtime's answer to a panic while converting.
constexpr std::string_view kInternalError = "internal error occurred during conversion";

// Walks `obj` as Go's encoding/json decodes it into a struct with fields `names`: each member whose
// key matches one (exactly or case-insensitively) is decoded in turn, into the same field as any
// earlier match, by `decode(field index, value)`; false when one does not decode.
template <typename Decode>
bool each_field(const JsonValue& obj, std::initializer_list<std::string_view> names,
                Decode&& decode) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    std::size_t field = 0;
    for (const std::string_view name : names) {
      if (go_key_matches(view(it->name), name)) break;
      ++field;
    }
    if (field < names.size() && !decode(field, it->value)) return false;
  }
  return true;
}

// What decodes into a string (null leaves it as it is), an int32, an int64.
bool string_ok(const JsonValue& v) { return v.IsNull() || v.IsString(); }
bool int32_ok(const JsonValue& v) {
  return v.IsNull() || (v.IsInt64() && v.GetInt64() >= INT32_MIN && v.GetInt64() <= INT32_MAX);
}
bool int64_ok(const JsonValue& v) { return v.IsNull() || v.IsInt64(); }

// metav1.ListMeta, metav1.StatusDetails (and its causes), metav1.Status: a response sent with the
// request is decoded before anything is converted, a type error there failing the review.
bool list_meta_decodes(const JsonValue& v) {
  return v.IsNull() ||
         (v.IsObject() &&
          each_field(v, {"selfLink", "resourceVersion", "continue", "remainingItemCount"},
                     [](std::size_t field, const JsonValue& m) {
                       return field == 3 ? int64_ok(m) : string_ok(m);
                     }));
}

bool cause_decodes(const JsonValue& v) {
  return v.IsNull() ||
         (v.IsObject() && each_field(v, {"reason", "message", "field"},
                                     [](std::size_t, const JsonValue& m) { return string_ok(m); }));
}

bool details_decodes(const JsonValue& v) {
  return v.IsNull() ||
         (v.IsObject() &&
          each_field(v, {"name", "group", "kind", "uid", "causes", "retryAfterSeconds"},
                     [](std::size_t field, const JsonValue& m) {
                       if (field == 5) return int32_ok(m);
                       if (field != 4) return string_ok(m);
                       if (m.IsNull()) return true;
                       if (!m.IsArray()) return false;
                       for (const JsonValue& cause : m.GetArray()) {
                         if (!cause_decodes(cause)) return false;
                       }
                       return true;
                     }));
}

bool status_decodes(const JsonValue& v) {
  return v.IsNull() || (v.IsObject() && each_field(v,
                                                   {"kind", "apiVersion", "metadata", "status",
                                                    "message", "reason", "details", "code"},
                                                   [](std::size_t field, const JsonValue& m) {
                                                     if (field == 2) return list_meta_decodes(m);
                                                     if (field == 6) return details_decodes(m);
                                                     if (field == 7) return int32_ok(m);
                                                     return string_ok(m);
                                                   }));
}

bool response_decodes(const JsonValue& v) {
  return v.IsNull() || (v.IsObject() && each_field(v, {"uid", "convertedObjects", "result"},
                                                   [](std::size_t field, const JsonValue& m) {
                                                     if (field == 0) return string_ok(m);
                                                     if (field == 1)
                                                       return m.IsNull() || m.IsArray();
                                                     return status_decodes(m);
                                                   }));
}

struct Review {
  std::string_view kind;
  std::string_view api_version;
  bool has_request = false;  // request is not nil
  std::string_view uid;
  std::string_view desired_api_version;
  const JsonValue* objects = nullptr;  // an array, or nullptr (none)
};

// The review as json.NewDecoder(body).Decode(&apix.ConversionReview{}) reads it, plus the request
// controller-runtime requires: false when either fails (HTTP 400). Fields are filled as they are
// read, so that an answer after a throw still echoes what was read. A `request` matched twice is
// decoded into the one struct (its fields kept unless given again), `null` makes it nil.
bool decode(const JsonValue& root, Review& r) {
  if (!root.IsObject()) return false;  // null decodes to no request; any other value fails
  const bool decoded = each_field(
      root, {"kind", "apiVersion", "request", "response"},
      [&r](std::size_t field, const JsonValue& v) {
        if (field == 3) return response_decodes(v);
        if (field < 2) {
          if (v.IsString()) (field == 0 ? r.kind : r.api_version) = view(v);
          return string_ok(v);
        }
        if (v.IsNull() || !r.has_request) {
          r.uid = r.desired_api_version = {};
          r.objects = nullptr;
        }
        r.has_request = !v.IsNull();
        if (v.IsNull()) return true;
        return v.IsObject() && each_field(v, {"uid", "desiredAPIVersion", "objects"},
                                          [&r](std::size_t request_field, const JsonValue& m) {
                                            if (request_field == 2) {
                                              if (!m.IsNull() && !m.IsArray()) return false;
                                              r.objects = m.IsArray() ? &m : nullptr;
                                              return true;
                                            }
                                            if (m.IsString()) {
                                              (request_field == 0 ? r.uid : r.desired_api_version) =
                                                  view(m);
                                            }
                                            return string_ok(m);
                                          });
      });
  return decoded && r.has_request;  // controller-runtime: "conversion request is nil"
}

// `{"kind":…,"apiVersion":…,"response":{"uid":…,"convertedObjects":` (kind and apiVersion echoed
// when not empty, as TypeMeta's omitempty writes them).
void open_answer(const Review& r, std::string& out) {
  out += '{';
  if (!r.kind.empty()) {
    out += "\"kind\":";
    append_go_json_string(out, r.kind);
    out += ',';
  }
  if (!r.api_version.empty()) {
    out += "\"apiVersion\":";
    append_go_json_string(out, r.api_version);
    out += ',';
  }
  out += "\"response\":{\"uid\":";
  append_go_json_string(out, r.uid);
  out += ",\"convertedObjects\":";
}

// No objects: `null`, then the failure (json.Encoder ends its output with a newline).
void answer_failure(const Review& r, std::string_view message, HttpAnswer& answer) {
  std::string& out = answer.conversion();
  answer.outcome.uid = r.uid;
  open_answer(r, out);
  out += "null,\"result\":{\"metadata\":{},\"status\":\"Failure\"";
  if (!message.empty()) {
    out += ",\"message\":";
    append_go_json_string(out, message);
  }
  out += "}}}\n";
}

// Decodes, converts and answers; `r` is filled as the review is read.
void convert(const Route& route, std::string& body, Review& r, HttpAnswer& answer) {
  JsonArena& arena = thread_json_arena();
  // A body our reader refuses (malformed, or what Go would read: duplicate keys, nesting deeper
  // than kMaxJsonDepth, invalid UTF-8, bytes after the review) is not a ConversionReview here.
  if (body.empty() || !arena.parse_in_place(body).ok || !decode(arena.document(), r)) {
    answer.conversion_undecodable();
    return;
  }
  std::string& out = answer.conversion();
  answer.outcome.uid = r.uid;
  open_answer(r, out);
  if (r.objects == nullptr || r.objects->Empty()) {
    out += "null";
  } else {
    std::string error;
    out += '[';
    for (rapidjson::SizeType i = 0; i < r.objects->Size(); ++i) {
      if (i > 0) out += ',';
      if (!route.converter((*r.objects)[i], r.desired_api_version, out, error)) {
        answer_failure(r, error, answer);
        return;
      }
    }
    out += ']';
  }
  out += ",\"result\":{\"metadata\":{},\"status\":\"Success\"}}}\n";
}

}  // namespace

void handle_conversion(const Route& route, std::string& body, HttpAnswer& answer) {
  // The recovery boundary: controller-runtime recovers a panic of a conversion and answers it as a
  // failed conversion of the whole review; whatever we throw (std::bad_alloc) is answered so.
  Review r;
  try {
    convert(route, body, r, answer);
  } catch (const std::exception& e) {
    answer_failure(r, kInternalError, answer);
    answer.outcome.denial.assign("internal error: ");
    answer.outcome.denial += e.what();
    answer.outcome.internal_error = true;
  } catch (...) {
    answer_failure(r, kInternalError, answer);
    answer.outcome.denial.assign("internal error: an exception that is not a std::exception");
    answer.outcome.internal_error = true;
  }
}

}  // namespace kpw
