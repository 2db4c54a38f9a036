// The ConversionReview envelope (conversion.hpp): decoding the review as Go's encoding/json
// decodes it into apiextensions' ConversionReview, the converter for every object, the answer as
// controller-runtime's conversion handler encodes it.
#include "admission/conversion.hpp"

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "json/json.hpp"

namespace kpw {
namespace {

// controller-runtime's answer to a panic while converting.
constexpr std::string_view kInternalError = "internal error occurred during conversion";

// The member Go decodes into the field `name`: the last one whose key matches (each one matching
// overwrites the one before), or nullptr.
const JsonValue* go_field(const JsonValue& obj, std::string_view name) {
  const JsonValue* found = nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (go_key_matches(view(it->name), name)) found = &it->value;
  }
  return found;
}

// A field of type string (or types.UID) decodes from a string or null.
bool string_field(const JsonValue& obj, std::string_view name, std::string_view& out) {
  const JsonValue* v = go_field(obj, name);
  if (v == nullptr || v->IsNull()) return true;
  if (!v->IsString()) return false;
  out = view(*v);
  return true;
}

// A pointer, struct, slice or map field decodes from null or the JSON type it takes.
bool typed_field(const JsonValue& obj, std::string_view name, rapidjson::Type type,
                 const JsonValue*& out) {
  const JsonValue* v = go_field(obj, name);
  if (v == nullptr || v->IsNull()) return true;
  if (v->GetType() != type) return false;
  out = v;
  return true;
}

// A field of type int32 decodes from null or a whole number within int32.
bool int32_field(const JsonValue& obj, std::string_view name) {
  const JsonValue* v = go_field(obj, name);
  return v == nullptr || v->IsNull() ||
         (v->IsInt64() && v->GetInt64() >= INT32_MIN && v->GetInt64() <= INT32_MAX);
}

// A metav1.Status (a request's response.result): its fields' JSON types, its ListMeta's and its
// StatusDetails' (with their causes). Go decodes them all before anything is converted.
bool status_decodes(const JsonValue& status) {
  std::string_view ignored;
  const JsonValue* metadata = nullptr;
  const JsonValue* details = nullptr;
  if (!string_field(status, "kind", ignored) || !string_field(status, "apiVersion", ignored) ||
      !typed_field(status, "metadata", rapidjson::kObjectType, metadata) ||
      !string_field(status, "status", ignored) || !string_field(status, "message", ignored) ||
      !string_field(status, "reason", ignored) ||
      !typed_field(status, "details", rapidjson::kObjectType, details) ||
      !int32_field(status, "code")) {
    return false;
  }
  if (metadata != nullptr) {
    const JsonValue* count = go_field(*metadata, "remainingItemCount");
    if (!string_field(*metadata, "selfLink", ignored) ||
        !string_field(*metadata, "resourceVersion", ignored) ||
        !string_field(*metadata, "continue", ignored) ||
        (count != nullptr && !count->IsNull() && !count->IsInt64())) {
      return false;
    }
  }
  if (details == nullptr) return true;
  const JsonValue* causes = nullptr;
  if (!string_field(*details, "name", ignored) || !string_field(*details, "group", ignored) ||
      !string_field(*details, "kind", ignored) || !string_field(*details, "uid", ignored) ||
      !typed_field(*details, "causes", rapidjson::kArrayType, causes) ||
      !int32_field(*details, "retryAfterSeconds")) {
    return false;
  }
  if (causes == nullptr) return true;
  for (const JsonValue& cause : causes->GetArray()) {
    if (cause.IsNull()) continue;
    if (!cause.IsObject() || !string_field(cause, "reason", ignored) ||
        !string_field(cause, "message", ignored) || !string_field(cause, "field", ignored)) {
      return false;
    }
  }
  return true;
}

struct Review {
  std::string_view kind;
  std::string_view api_version;
  std::string_view uid;
  std::string_view desired_api_version;
  const JsonValue* objects = nullptr;  // an array, or nullptr (none)
};

// The review as json.NewDecoder(body).Decode(&apix.ConversionReview{}) reads it, plus the request
// controller-runtime requires: false when either fails (HTTP 400). Fields are filled as they are
// read, so that an answer after a throw still echoes what was read. A `response` sent with the
// request is decoded too (and then replaced), its convertedObjects as any JSON.
bool decode(const JsonValue& root, Review& r) {
  if (!root.IsObject()) return false;  // null decodes to no request; any other value fails
  const JsonValue* request = nullptr;
  const JsonValue* response = nullptr;
  if (!string_field(root, "kind", r.kind) || !string_field(root, "apiVersion", r.api_version) ||
      !typed_field(root, "request", rapidjson::kObjectType, request) ||
      !typed_field(root, "response", rapidjson::kObjectType, response)) {
    return false;
  }
  if (response != nullptr) {
    std::string_view uid;
    const JsonValue* converted = nullptr;
    const JsonValue* result = nullptr;
    if (!string_field(*response, "uid", uid) ||
        !typed_field(*response, "convertedObjects", rapidjson::kArrayType, converted) ||
        !typed_field(*response, "result", rapidjson::kObjectType, result) ||
        (result != nullptr && !status_decodes(*result))) {
      return false;
    }
  }
  if (request == nullptr) return false;  // controller-runtime: "conversion request is nil"
  return string_field(*request, "uid", r.uid) &&
         string_field(*request, "desiredAPIVersion", r.desired_api_version) &&
         typed_field(*request, "objects", rapidjson::kArrayType, r.objects);
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
  answer.body.clear();
  open_answer(r, answer.body);
  answer.body += "null,\"result\":{\"metadata\":{},\"status\":\"Failure\"";
  if (!message.empty()) {
    answer.body += ",\"message\":";
    append_go_json_string(answer.body, message);
  }
  answer.body += "}}}\n";
}

// Decodes, converts and answers; `r` is filled as the review is read.
void convert(const Route& route, std::string& body, Review& r, HttpAnswer& answer) {
  JsonArena& arena = thread_json_arena();
  // A body our reader refuses (malformed, or what Go would read: duplicate keys, nesting deeper
  // than kMaxJsonDepth, invalid UTF-8, bytes after the review) is not a ConversionReview here.
  if (body.empty() || !arena.parse_in_place(body).ok || !decode(arena.document(), r)) {
    answer.status = 400;
    answer.content_type = "text/plain; charset=utf-8";
    return;
  }
  answer.outcome.uid = r.uid;
  std::string& out = answer.body;
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
    answer.outcome.denial.assign("internal error: ");
    answer.outcome.denial += e.what();
    answer.outcome.internal_error = true;
    answer.status = 200;
    answer.content_type = "application/json";
    answer_failure(r, kInternalError, answer);
  } catch (...) {
    answer.outcome.denial.assign("internal error: an exception that is not a std::exception");
    answer.outcome.internal_error = true;
    answer.status = 200;
    answer.content_type = "application/json";
    answer_failure(r, kInternalError, answer);
  }
}

}  // namespace kpw
