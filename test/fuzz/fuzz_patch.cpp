// libFuzzer: untrusted bytes as the object a mutator receives. For every mutator, CREATE and
// UPDATE: the JSON Patch it builds must apply strictly (RFC 6902, as the API server applies it,
// and as `check` stores objects) to the object as sent, and the patched object sent again as an
// UPDATE must need no patch (idempotency).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "admission/review.hpp"
#include "admission/route.hpp"
#include "json/json.hpp"
#include "json/json_patch_apply.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_patch: %s: %s\n", what, detail.c_str());
  std::abort();
}

template <typename V>
std::string text_of(const V& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void run(const kpw::Route& hook, kpw::Operation op, const std::string& input) {
  kpw::JsonArena arena;
  std::string text = input;
  if (!arena.parse_in_place(text).ok || !arena.document().IsObject()) return;
  kpw::JsonDocument& object = arena.document();

  kpw::AdmissionRequest request;
  request.operation = op;
  request.ns = "ns1";
  request.object = &object;
  kpw::AdmissionResult result;
  result.patch.reset(&object);
  hook.handler(request, result);
  if (!result.errors.empty()) fail("a mutator denied", result.errors.message());
  if (result.patch.empty()) return;

  std::string ops;
  result.patch.render(ops);
  // 1. The strict applier, on an independent copy of the object as read (a second parse by
  // RapidJSON would round some doubles differently: "2.9e63" is 2.9000000000000004e63 there).
  kpw::JsonDocument strict;
  strict.CopyFrom(object, strict.GetAllocator());
  if (const auto problem = kpw::apply_json_patch(strict, ops, strict.GetAllocator())) {
    fail("the patch does not apply", *problem + " in " + ops + " to " + input);
  }
  const std::string a = text_of(strict);
  // 2. Idempotency: the stored object needs nothing more.
  kpw::JsonArena again_arena;
  std::string again = a;
  if (!again_arena.parse_in_place(again).ok) fail("patched object does not parse", a);
  kpw::AdmissionRequest update = request;
  update.operation = kpw::Operation::kUpdate;
  update.object = &again_arena.document();
  update.old_object = &again_arena.document();
  kpw::AdmissionResult second;
  second.patch.reset(update.object);
  hook.handler(update, second);
  if (!second.patch.empty()) {
    std::string more;
    second.patch.render(more);
    fail("not idempotent", more + " after " + ops + " on " + input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const kpw::Route& hook : kpw::routes()) {
    if (!hook.mutating) continue;
    run(hook, kpw::Operation::kCreate, input);
    run(hook, kpw::Operation::kUpdate, input);
  }
  return 0;
}
