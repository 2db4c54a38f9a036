#include "admission/strict_policy.hpp"

#include <string>

#include "api/object.hpp"

namespace kpw {
namespace {

// Ratcheting looks each strict violation's value up in both objects; past this many lookups in a
// review (an object whose spec changed and that breaks strict rules thousands of times) the rest
// count as changed, so the cost stays linear in the object.
constexpr std::size_t kMaxRatchetLookups = 256;

// The value at `segments` (from the object's root), or nullptr when absent.
const JsonValue* value_at(const JsonValue* root, std::span<const FieldPath::Segment> segments) {
  const JsonValue* v = root;
  for (const FieldPath::Segment& s : segments) {
    if (v == nullptr) return nullptr;
    if (s.kind == FieldPath::Kind::kIndex) {
      if (!v->IsArray() || s.index >= v->Size()) return nullptr;
      v = &(*v)[static_cast<rapidjson::SizeType>(s.index)];
    } else {
      v = member(v, s.name);
    }
  }
  return v;
}

// `<field>: <body>` of a warning, every echoed piece (the value, the keys and names of the path)
// cut to `limit` bytes with its length (`"kkkk"... (300 bytes)`).
void append_warning_head(std::string& out, const FieldPath& path, ErrorType type,
                         std::string_view value, EchoKind echo, std::string_view raw,
                         std::string_view detail, std::size_t limit) {
  path.append_to(out, limit);
  out += ": ";
  out += error_type_text(type);
  if (error_type_has_value(type)) {
    out += ": ";
    switch (echo) {
      case EchoKind::kString:
        append_echoed_string(out, raw, limit);
        break;
      case EchoKind::kText:
        append_echoed_text(out, raw, limit);
        break;
      case EchoKind::kRendered:
        out += value;
        break;
    }
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
}

// A warning's echoed pieces are cut no shorter than this: the names of the schema stay whole, and
// a value keeps enough to be recognised.
constexpr std::size_t kMinWarningEchoBytes = 32;

// `<field>: <body> [<ID>]; <why>` appended to `out` (the warning being built, so its capacity is
// reused), at most Warnings::kMaxEachBytes: the ending is what the user must read (which rule, and
// why it did not deny), so the head gives way. First its echoed pieces are cut, as short as needed
// and no shorter than kMinWarningEchoBytes: a binary search over the limit (a few renders of a
// warning already past 256 bytes; the size grows with the limit except where a cut adds its
// marker, so the limit found may be a little short of the longest, never too long). Where that is
// not enough (a long detail, a deep path), the head is cut at a UTF-8 boundary and ends with `...`.
void append_allowed_warning(std::string& out, const FieldPath& path, ErrorType type,
                            std::string_view value, EchoKind echo, std::string_view raw,
                            std::string_view detail, std::string_view id, std::string_view why) {
  constexpr std::string_view kCut = "...";
  const std::size_t start = out.size();
  const std::size_t tail = 2 + id.size() + 3 + why.size();  // ` [<ID>]; <why>`
  const std::size_t room = Warnings::kMaxEachBytes > tail ? Warnings::kMaxEachBytes - tail : 0;
  const auto fits = [&](std::size_t limit) {
    out.resize(start);
    append_warning_head(out, path, type, value, echo, raw, detail, limit);
    return out.size() - start <= room;
  };
  if (!fits(kMaxEchoedBytes)) {
    if (fits(kMinWarningEchoBytes)) {
      std::size_t lo = kMinWarningEchoBytes;  // fits
      std::size_t hi = kMaxEchoedBytes - 1;
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid)) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      fits(lo);
    } else {
      const std::size_t keep =
          room > kCut.size()
              ? cut_utf8(std::string_view(out).substr(start), room - kCut.size()).size()
              : 0;
      out.resize(start + keep);
      if (room >= kCut.size()) out += kCut;
    }
  }
  out += " [";
  out += id;
  out += "]; ";
  out += why;
}

// The value at a dotted path such as `spec.preemption`.
const JsonValue* value_at_dotted(const JsonValue* root, std::string_view dotted) {
  const JsonValue* v = root;
  while (v != nullptr && !dotted.empty()) {
    const std::size_t dot = dotted.find('.');
    v = member(v, dotted.substr(0, dot));
    dotted = dot == std::string_view::npos ? std::string_view() : dotted.substr(dot + 1);
  }
  return v;
}
}  // namespace

void StrictPolicy::start(StrictRules mode, const JsonValue* object, const JsonValue* old_object,
                         Warnings& warnings, std::vector<RuleViolation>& counts) {
  mode_ = mode;
  object_ = object;
  old_object_ = old_object;
  deleting_ = member(object_member(object, "metadata"), "deletionTimestamp") != nullptr;
  warnings_ = &warnings;
  counts_ = &counts;
  lookups_ = 0;
  root_unchanged_ = -1;
  root_name_ = {};
}

void StrictPolicy::count(Rule rule, RuleAction action) {
  for (auto it = counts_->rbegin(); it != counts_->rend(); ++it) {
    if (it->rule == rule && it->action == action) {
      ++it->count;
      return;
    }
  }
  counts_->push_back(RuleViolation{rule, action, 1});
}

bool StrictPolicy::unchanged(Rule rule, const FieldPath& path) {
  const RuleInfo& info = rule.info();
  path.segments(segments_);
  std::size_t n = segments_.size();
  // A map entry is judged with its map (its key may be the very thing that is wrong); a list
  // rule with its whole list.
  for (std::size_t i = 0; i < n; ++i) {
    if (segments_[i].kind == FieldPath::Kind::kKey) {
      n = i;
      break;
    }
  }
  if (info.scope == RatchetScope::kList) {
    for (std::size_t i = n; i-- > 0;) {
      if (segments_[i].kind == FieldPath::Kind::kIndex) {
        n = i;
        break;
      }
    }
  }
  const JsonValue* object = object_;
  const JsonValue* old_object = old_object_;
  // A field the object lacks (Required) is judged with the object that should hold it, as
  // Kubernetes ratchets `required` (KEP-4008): absent from both is unchanged only when its parent
  // is, so a new list element missing a required field is denied.
  if (n == segments_.size() && n > 1) {
    const JsonValue* v = value_at(object, std::span<const FieldPath::Segment>(segments_.data(), n));
    if (v == nullptr || v->IsNull()) --n;
  }
  const std::span<const FieldPath::Segment> subject(segments_.data(), n);
  if (!info.also_unchanged.empty() &&
      !same_json(value_at_dotted(object, info.also_unchanged),
                 value_at_dotted(old_object, info.also_unchanged))) {
    return false;
  }
  // The whole root part (spec, metadata) unchanged: every value in it is. One comparison a review.
  if (!subject.empty()) {
    const std::span<const FieldPath::Segment> root = subject.first(1);
    if (root_unchanged_ < 0 || root_name_ != root[0].name) {
      root_name_ = root[0].name;
      root_unchanged_ = same_json(value_at(object, root), value_at(old_object, root)) ? 1 : 0;
    }
    if (root_unchanged_ == 1) return true;
  }
  if (++lookups_ > kMaxRatchetLookups) return false;
  return same_json(value_at(object, subject), value_at(old_object, subject));
}

RuleAction StrictPolicy::judge_strict(Rule rule, const FieldPath& path, std::string_view& why) {
  if (deleting_) {
    why = "allowed because the object is being deleted";
    return RuleAction::kRatchet;
  }
  if (old_object_ != nullptr && object_ != nullptr && unchanged(rule, path)) {
    why = "allowed because it is unchanged: fix it at its next change";
    return RuleAction::kRatchet;
  }
  if (mode_ == StrictRules::kWarn) {
    why = "allowed by --strict-rules=warn";
    return RuleAction::kWarn;
  }
  return RuleAction::kDeny;
}

bool StrictPolicy::denies(const ErrorReport& e) {
  RuleAction action = RuleAction::kDeny;
  std::string_view why;
  if (is_strict(e.rule)) {
    if (mode_ == StrictRules::kOff) return false;  // upstream's verdicts exactly
    action = judge_strict(e.rule, e.path, why);
  }
  count(e.rule, action);
  if (action == RuleAction::kDeny) return true;
  warnings_->add_built([&](std::string& w) {
    append_allowed_warning(w, e.path, e.type, e.value, e.echo, e.raw, e.detail, rule_id(e.rule),
                           why);
  });
  return false;
}

}  // namespace kpw
