// Command lines as Go's pflag reads them (upstream's karmada-webhook: cobra over pflag, flag names
// normalised by component-base's WordSepNormalizeFunc), rewritten into one canonical form another
// parser reads without guessing: `--name=value` per flag, in the order given.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpw {

enum class FlagArity : std::uint8_t {
  kUnknown,  // no such flag
  kBool,     // `--f` alone means true; a value only as `--f=v`
  kValue,    // `--f=v` or `--f v`
};

// What the reader needs to know of the flags.
struct PflagShape {
  // The arity of a long name, given with '_' already turned into '-'.
  std::function<FlagArity(std::string_view)> arity;
  // The long name of a one-letter shorthand, "" when there is none.
  std::function<std::string(char)> shorthand;
};

struct PflagArgs {
  // One per flag given, in order: `--name=value`, or for a bool `--name` (true) or
  // `--name=false`. The name is the long one with '-' between words.
  std::vector<std::string> flags;
  // The arguments that are no flag (pflag interleaves them), and every argument after `--`.
  std::vector<std::string> positional;
};

// Reads `args` (the command line without the program's name) as pflag does:
// - `--name=value`, `--name value`; `_` and `-` are the same in a name (`--log_dir`);
// - a bool flag alone is true; `--bool=v` takes Go's ParseBool spellings (`1 t T TRUE true True`,
//   `0 f F FALSE false False`), anything else (the empty value too) is an error;
// - a shorthand: `-v=4`, `-v4`, `-v 4`; a long name after one dash is read as shorthands;
// - `--` ends the flags; `-` alone is an argument.
// The error is pflag's message: `unknown flag: --x`, `flag needs an argument: --kubeconfig`,
// `invalid argument "x" for "--enable-pprof" flag: strconv.ParseBool: parsing "x": invalid
// syntax`, `unknown shorthand flag: 'k' in -kubeconfig=x`, `bad flag syntax: ---x`.
std::optional<std::string> read_pflag_args(const std::vector<std::string>& args,
                                           const PflagShape& shape, PflagArgs& out);

}  // namespace kpw
