// libFuzzer: untrusted bytes as a review body, through every route's handler and the answer
// encoder. The answer must always be well-formed: JSON (UTF-8) for a review, a patch only on an
// allowed mutating answer, and that patch a JSON array; for a ConversionReview route (/convert) an
// empty HTTP 400 or a result that agrees with its convertedObjects.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "admission/route.hpp"
#include "admission/service.hpp"
#include "json/json.hpp"
#include "util/base64.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_review: %s: %s\n", what, detail.c_str());
  std::abort();
}

// A ConversionReview's answer (/convert): HTTP 400 with nothing, or a result, Success with the
// converted objects or Failure with a message.
void check_conversion_answer(const kpw::HttpAnswer& answer) {
  if (answer.status == 400) {
    if (!answer.body.empty()) fail("an HTTP 400 conversion answer with a body", answer.body);
    return;
  }
  if (answer.status != 200) fail("unexpected HTTP status", std::to_string(answer.status));
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(answer.body.c_str(), answer.body.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("response") ||
      !doc["response"].IsObject()) {
    fail("conversion answer is not a ConversionReview", answer.body);
  }
  const auto& response = doc["response"];
  if (!response.HasMember("result") || !response["result"].IsObject() ||
      !response["result"].HasMember("status") || !response["result"]["status"].IsString() ||
      !response.HasMember("convertedObjects")) {
    fail("conversion answer without result or convertedObjects", answer.body);
  }
  const std::string_view status = response["result"]["status"].GetString();
  const auto& objects = response["convertedObjects"];
  if (status == "Success" ? !(objects.IsArray() || objects.IsNull())
                          : status != "Failure" || !objects.IsNull()) {
    fail("conversion result and objects disagree", answer.body);
  }
}

void check_answer(const kpw::Route& hook, const kpw::HttpAnswer& answer) {
  if (hook.takes == kpw::Takes::kConversionReview) return check_conversion_answer(answer);
  if (answer.status != 200 && answer.status != 400) {
    fail("unexpected HTTP status", std::to_string(answer.status));
  }
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(answer.body.c_str(), answer.body.size());
  if (doc.HasParseError()) {
    fail("answer is not valid JSON", rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject() || !doc.HasMember("response") || !doc["response"].IsObject()) {
    fail("answer has no response object", answer.body);
  }
  const auto& response = doc["response"];
  if (!response.HasMember("allowed") || !response["allowed"].IsBool()) {
    fail("response.allowed missing", answer.body);
  }
  const bool has_patch = response.HasMember("patch");
  if (has_patch != response.HasMember("patchType")) fail("patch without patchType", answer.body);
  if (!has_patch) return;
  if (!hook.mutating || !response["allowed"].GetBool())
    fail("patch where none belongs", answer.body);
  std::string ops;
  if (!response["patch"].IsString() ||
      !kpw::decode_base64(
          std::string_view(response["patch"].GetString(), response["patch"].GetStringLength()),
          ops)) {
    fail("patch is not base64", answer.body);
  }
  rapidjson::Document patch;
  patch.Parse<rapidjson::kParseValidateEncodingFlag>(ops.c_str(), ops.size());
  if (patch.HasParseError() || !patch.IsArray() || patch.Empty())
    fail("patch is not a non-empty array", ops);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::string body;
  static kpw::HttpAnswer answer;
  for (const kpw::Route& hook : kpw::routes()) {
    body.assign(reinterpret_cast<const char*>(data), size);
    kpw::handle_http(&hook, "POST", "application/json", body, kpw::kDefaultSettings, answer);
    check_answer(hook, answer);
  }
  return 0;
}
