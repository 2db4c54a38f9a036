#include "admission/feature_gates.hpp"

#include "util/go_text.hpp"

namespace kpw {
namespace {

constexpr std::string_view kSpaces = " \t\n\v\f\r";

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(kSpaces);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpaces) - first + 1);
}

std::optional<std::size_t> gate_index(std::string_view name) {
  for (std::size_t i = 0; i < kFeatureGates.size(); ++i) {
    if (kFeatureGates[i].name == name) return i;
  }
  return std::nullopt;
}

// Go's %q of a string of printable ASCII, as strconv's errors quote the value.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

// Every pair is read before any name is looked up, as upstream parses the whole value into a map
// first: `Nope=true,X` is X's missing value, not Nope's name.
std::optional<std::string> FeatureGateSet::set(std::string_view text) {
  // Calls `take(key, value)` for each pair, stopping at the first error it or the syntax gives.
  const auto each_pair = [text](auto take) -> std::optional<std::string> {
    std::string_view rest = text;
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view pair = rest.substr(0, comma);
      if (!pair.empty()) {
        const std::size_t eq = pair.find('=');
        const std::string_view key = trim(pair.substr(0, eq));
        if (eq == std::string_view::npos) return "missing bool value for " + std::string(key);
        const std::string_view value = trim(pair.substr(eq + 1));
        const std::optional<bool> on = parse_go_bool(value);
        if (!on) {
          return "invalid value of " + std::string(key) + "=" + std::string(value) +
                 ", err: strconv.ParseBool: parsing " + quoted(value) + ": invalid syntax";
        }
        if (auto error = take(key, *on)) return error;
      }
      if (comma == std::string_view::npos) return std::nullopt;
      rest.remove_prefix(comma + 1);
    }
  };
  const auto syntax_only = [](std::string_view, bool) { return std::optional<std::string>(); };
  if (auto error = each_pair(syntax_only)) return error;
  auto values = values_;
  const auto known = [&values](std::string_view key, bool on) -> std::optional<std::string> {
    const std::optional<std::size_t> index = gate_index(key);
    if (!index) return "unrecognized feature gate: " + std::string(key);
    values[*index] = on;
    return std::nullopt;
  };
  if (auto error = each_pair(known)) return error;
  values_ = values;
  return std::nullopt;
}

bool FeatureGateSet::given(std::string_view name) const {
  const std::optional<std::size_t> index = gate_index(name);
  return index && values_[*index].has_value();
}

bool FeatureGateSet::enabled(std::string_view name) const {
  const std::optional<std::size_t> index = gate_index(name);
  if (!index) return false;
  if (values_[*index]) return *values_[*index];
  const FeatureGate& gate = kFeatureGates[*index];
  if (gate.name != kAllAlphaGate && gate.name != kAllBetaGate) {
    const std::string_view all = gate.stage == GateStage::kAlpha ? kAllAlphaGate : kAllBetaGate;
    if (const std::optional<bool> v = values_[*gate_index(all)]) return *v;
  }
  return gate.default_on;
}

std::string feature_gates_help() {
  std::string out;
  for (const FeatureGate& g : kFeatureGates) {
    out += "  ";
    out += g.name;
    out += "=true|false (";
    out += g.stage == GateStage::kAlpha ? "ALPHA" : "BETA";
    out += " - default=";
    out += g.default_on ? "true" : "false";
    out += ")";
    if (!g.here.empty()) {
      out += ": ";
      out += g.here;
    }
    out += "\n";
  }
  return out;
}

}  // namespace kpw
