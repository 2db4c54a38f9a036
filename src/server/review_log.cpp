#include "server/review_log.hpp"

#include <cstddef>
#include <string>

#include "json/json.hpp"
#include "server/metrics.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

// A denial's log line carries this much of its message (a tenant must not be able to make every
// denial a 16 KiB line).
constexpr std::size_t kMaxLoggedReasonBytes = 2048;

}  // namespace

void report_review(const Route* route, const ReviewOutcome& o) {
  if (route == nullptr) return;
  const int index = static_cast<int>(route_index(*route));
  const std::string_view path = route->path;
  if (o.internal_error) {
    metrics::review_failed(index);
    log::error("review failed: answered with code 500",
               {{"webhook", path}, {"uid", o.uid}, {"error", o.denial}});
    return;
  }
  if (!o.reviewed) return;
  for (const RuleViolation& v : o.violations) {
    metrics::rule_violations(index, v.rule, v.action, v.count);
  }
  if (o.allowed) {
    if (log::verbosity() >= 2) {
      log::info("admission allowed", {{"webhook", path},
                                      {"kind", o.kind},
                                      {"namespace", o.ns},
                                      {"name", o.name},
                                      {"uid", o.uid}});
    }
    return;
  }
  // The answer holds the whole message (up to 100 errors); a line of the log, its start.
  std::string reason;
  append_echoed_text(reason, o.denial, kMaxLoggedReasonBytes);
  std::string rules;  // the IDs of the rules that denied, `V-P1,SC-3`
  for (const RuleViolation& v : o.violations) {
    if (v.action != RuleAction::kDeny) continue;
    if (!rules.empty()) rules += ',';
    rules += rule_id(v.rule);
  }
  log::info("admission denied", {{"webhook", path},
                                 {"kind", o.kind},
                                 {"namespace", o.ns},
                                 {"name", o.name},
                                 {"uid", o.uid},
                                 {"rules", rules},
                                 {"reason", reason}});
}

}  // namespace kpw
