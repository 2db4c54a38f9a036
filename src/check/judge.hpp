// One object of a policy file judged as the API server plus this webhook would judge a CREATE of
// it: what the API server checks first, the CRD defaults, our mutator (its patch applied as the
// API server applies it), then our validator: the very handlers the server runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "admission/rules.hpp"
#include "check/check.hpp"
#include "check/source.hpp"

namespace kpw::check {

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

// Judges `src`, whose JSON becomes the object as it would be stored, inside the recovery boundary
// of an object: one whose judging throws (std::bad_alloc from a huge document included) gets one
// error, and the other objects are still judged.
Judged judge_safely(const std::string& file, SourceObject& src, const Options& options);

}  // namespace kpw::check
