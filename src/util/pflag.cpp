#include "util/pflag.hpp"

#include "util/go_text.hpp"

namespace kpw {
namespace {

// component-base's WordSepNormalizeFunc: '_' is '-' in a flag's name.
std::string normalised(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '_') c = '-';
  }
  return out;
}

std::string quoted(std::string_view text) {
  std::string out;
  append_go_quoted(out, text);
  return out;
}

// Go's %q of a byte read as a rune: 'k'.
std::string quoted_char(char c) {
  if (c == '\'' || c == '\\') return std::string("'\\") + c + "'";
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    std::string out = "'\\x";
    append_hex(out, static_cast<unsigned char>(c), 2, false);
    return out + "'";
  }
  return std::string("'") + c + "'";
}

// Appends the canonical form of one flag's value, or says why the value is not one.
std::optional<std::string> take(std::string_view shown, const std::string& name, FlagArity arity,
                                std::string_view value, PflagArgs& out) {
  if (arity == FlagArity::kBool) {
    const std::optional<bool> on = parse_go_bool(value);
    if (!on) {
      return "invalid argument " + quoted(value) + " for " + quoted(shown) +
             " flag: strconv.ParseBool: parsing " + quoted(value) + ": invalid syntax";
    }
    out.flags.push_back(*on ? "--" + name : "--" + name + "=false");
    return std::nullopt;
  }
  out.flags.push_back("--" + name + "=" + std::string(value));
  return std::nullopt;
}

// `--name[=value]` with its value, maybe from the next argument (pflag's parseLongArg).
std::optional<std::string> read_long(const std::string& arg, const std::vector<std::string>& args,
                                     std::size_t& next, const PflagShape& shape, PflagArgs& out) {
  const std::string_view text = std::string_view(arg).substr(2);
  if (text.empty() || text[0] == '-' || text[0] == '=') return "bad flag syntax: " + arg;
  const std::size_t eq = text.find('=');
  const std::string_view given = text.substr(0, eq);
  const std::string name = normalised(given);
  const FlagArity arity = shape.arity(name);
  if (arity == FlagArity::kUnknown) return "unknown flag: --" + std::string(given);
  const std::string shown = "--" + name;
  if (eq != std::string_view::npos) return take(shown, name, arity, text.substr(eq + 1), out);
  if (arity == FlagArity::kBool) return take(shown, name, arity, "true", out);
  if (next >= args.size()) return "flag needs an argument: " + arg;
  return take(shown, name, arity, args[next++], out);
}

// `-abc`, `-v=4`, `-v4`, `-v 4` (pflag's parseShortArg, one shorthand after another).
std::optional<std::string> read_short(const std::string& arg, const std::vector<std::string>& args,
                                      std::size_t& next, const PflagShape& shape, PflagArgs& out) {
  std::string_view shorthands = std::string_view(arg).substr(1);
  while (!shorthands.empty()) {
    const char c = shorthands[0];
    const std::string name = shape.shorthand(c);
    if (name.empty()) return "unknown shorthand flag: " + quoted_char(c) + " in " + arg;
    const FlagArity arity = shape.arity(name);
    const std::string shown = std::string("-") + c + ", --" + name;
    if (shorthands.size() > 2 && shorthands[1] == '=') {
      return take(shown, name, arity, shorthands.substr(2), out);
    }
    if (arity == FlagArity::kBool) {
      if (auto error = take(shown, name, arity, "true", out)) return error;
      shorthands.remove_prefix(1);
      continue;
    }
    if (shorthands.size() > 1) return take(shown, name, arity, shorthands.substr(1), out);
    if (next >= args.size()) {
      return "flag needs an argument: " + quoted_char(c) + " in " + arg;
    }
    return take(shown, name, arity, args[next++], out);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> read_pflag_args(const std::vector<std::string>& args,
                                           const PflagShape& shape, PflagArgs& out) {
  out = {};
  std::size_t next = 0;
  while (next < args.size()) {
    const std::string& arg = args[next++];
    if (arg.size() < 2 || arg[0] != '-') {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      out.positional.insert(out.positional.end(), args.begin() + static_cast<long>(next),
                            args.end());
      break;
    }
    auto error = arg[1] == '-' ? read_long(arg, args, next, shape, out)
                               : read_short(arg, args, next, shape, out);
    if (error) return error;
  }
  return std::nullopt;
}

}  // namespace kpw
