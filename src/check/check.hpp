// `karmada-policy-webhook check`: judges policy files as the API server plus this webhook would
// judge a CREATE of each object: CRD defaults, then our mutator, then our validator (the very
// handlers the server runs).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "admission/settings.hpp"
#include "check/metadata.hpp"

namespace kpw::check {

enum class OutputFormat { kText, kJson, kYaml };

struct Options {
  // --namespace: the namespace of a namespaced object without metadata.namespace; "" (the
  // default) judges it in none, where a kustomize overlay would set one (judge.cpp).
  std::string default_namespace;
  bool strict = false;  // an object of a kind we do not serve is an error
  bool quiet = false;   // text: problems only, no summary
  bool warnings_as_errors = false;
  bool show_defaults = false;  // json/yaml: the object as it would be stored
  UnknownFields unknown_fields = UnknownFields::kError;  // --unknown-fields
  OutputFormat output = OutputFormat::kText;
  Settings settings;  // --strict-rules, --allow-no-execute-taint-policy, the --default-* flags
};

// Exit status: 0 all valid, 1 something invalid (or a warning with warnings_as_errors), 2 a usage
// error, an unreadable file or a syntax error.
int run(const std::vector<std::string>& paths, const Options& options, std::ostream& out,
        std::ostream& err);

}  // namespace kpw::check
