// A URL as Go's net/url.Parse reads it (the Go of upstream's binary, 1.26), for the rules that
// judge webhook URLs as Kubernetes' ValidateWebhookURL does (RIWC-9): the parts those rules read,
// or Go's error text (`parse "https://[::1": missing ']' in host`). Not a general URL library:
// only what Parse decides and reports for an absolute or relative reference.
#pragma once

#include <string>
#include <string_view>

namespace kpw {

struct GoUrl {
  std::string error;      // Go's error text when Parse fails, else ""
  std::string scheme;     // lower-cased
  std::string host;       // unescaped; "" when none
  bool has_user = false;  // userinfo present (even empty)
  std::string user;       // Userinfo.String(): escaped `name[:password]`
  std::string fragment;   // unescaped
  std::string raw_query;
};

// Parses `raw` as url.Parse does; false (with `out.error`) when Go would return an error.
bool parse_go_url(std::string_view raw, GoUrl& out);

}  // namespace kpw
