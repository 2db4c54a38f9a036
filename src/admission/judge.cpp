#include "admission/judge.hpp"

#include "admission/strict_policy.hpp"
#include "api/object.hpp"

namespace kpw {
namespace {

thread_local StrictPolicy t_policy;

}  // namespace

void judge(Handler handler, const AdmissionRequest& request, AdmissionResult& result) {
  result.reset(request.object);
  t_policy.start(request.settings->strict_rules, request.object, request.old_object,
                 result.warnings, result.violations);
  result.errors.set_policy(&t_policy);
  handler(request, result);
  result.errors.set_policy(nullptr);
}

}  // namespace kpw
