#include "kube/kube_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <exception>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "util/base64.hpp"
#include "util/file.hpp"
#include "util/ip.hpp"

namespace kpw::kube {
namespace fs = std::filesystem;
namespace {

std::string in_quotes(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const std::size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

std::string too_big(const std::string& path, std::uintmax_t size) {
  return path + " is " + std::to_string(size) + " bytes, over the limit of " +
         std::to_string(kMaxConfigFileBytes) + " bytes";
}

// All of `path` into `out`. Only regular files: a FIFO or a device would be read without end, and
// the size bound could not be checked before reading.
std::optional<std::string> read_bounded(const std::string& path, std::string& out) {
  out.clear();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) return "cannot read " + path + ": " + ec.message();
  if (!fs::is_regular_file(status)) return "cannot read " + path + ": not a regular file";
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return "cannot read " + path + ": " + ec.message();
  if (size > kMaxConfigFileBytes) return too_big(path, size);
  errno = 0;
  if (!read_file(path, out)) {
    const int e = errno;
    out.clear();
    return "cannot read " + path + (e != 0 ? ": " + std::generic_category().message(e) : "");
  }
  if (out.size() > kMaxConfigFileBytes) {  // it grew between the size check and the read
    const std::size_t read = out.size();
    out.clear();
    return too_big(path, read);
  }
  return std::nullopt;
}

// A token goes into an HTTP header: a control character (a newline in a file's middle) would
// split the request.
std::optional<std::string> check_token(std::string_view token) {
  for (const char c : token) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return std::string("contains a control character");
  }
  return std::nullopt;
}

bool is_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// RFC 3986 path characters: unreserved, sub-delims, ':', '@', '/' and %-escapes.
bool is_path_text(std::string_view path) {
  constexpr std::string_view kOther = "-._~!$&'()*+,;=:@/";
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '%') {
      if (i + 2 >= path.size() || !is_hex(path[i + 1]) || !is_hex(path[i + 2])) return false;
      i += 2;
    } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 kOther.find(c) != std::string_view::npos)) {
      return false;
    }
  }
  return true;
}

// Fills host, port and base_path from `url`; the error completes a sentence that begins with the
// quoted URL.
std::optional<std::string> parse_server(std::string_view url, KubeConfig& c) {
  const std::size_t sep = url.find("://");
  if (sep == std::string_view::npos) return "is not an https:// URL";
  std::string scheme(url.substr(0, sep));
  for (char& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (scheme == "http") {
    return "is http: credentials are never sent in clear text, use https";
  }
  if (scheme != "https") return "has scheme " + in_quotes(scheme) + ": only https is supported";

  const std::string_view rest = url.substr(sep + 3);
  const std::size_t end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, end);
  const std::string_view path = end == std::string_view::npos ? "" : rest.substr(end);
  if (authority.find('@') != std::string_view::npos) return "has user information: not allowed";
  if (path.find_first_of("?#") != std::string_view::npos) {
    return "has a query or a fragment: not allowed";
  }

  std::string_view host;
  std::string_view port;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return "has '[' without ']'";
    host = authority.substr(1, close - 1);
    if (host.find(':') == std::string_view::npos || !is_ip_sloppy(host)) {
      return "has an invalid IPv6 address in brackets";
    }
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return "has text after ']' that is not a port";
      port = after.substr(1);
      has_port = true;
    }
  } else {
    const std::size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      has_port = true;
      if (port.find(':') != std::string_view::npos) {
        return "has more than one ':' in its host (an IPv6 address goes in brackets)";
      }
    }
    if (host.empty()) return "has no host";
    for (const char ch : host) {
      if (!is_host_char(ch)) return "has an invalid host " + in_quotes(host);
    }
  }

  unsigned long port_value = 443;
  if (has_port) {
    bool digits = !port.empty() && port.size() <= 5;
    for (const char ch : port) digits = digits && ch >= '0' && ch <= '9';
    port_value = digits ? std::stoul(std::string(port)) : 0;
    if (port_value < 1 || port_value > 65535) {
      return "has an invalid port " + in_quotes(port) + " (1-65535)";
    }
  }
  if (!is_path_text(path)) return "has an invalid character in its path";

  std::string_view base = path;
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  c.host = std::string(host);
  c.port = std::to_string(port_value);
  c.base_path = std::string(base);
  return std::nullopt;
}

bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

// A string member of `map` (a map node): "" when absent or null, as Go's decoding leaves it.
std::optional<std::string> get_string(const YAML::Node& map, const char* key,
                                      const std::string& where, std::string& out) {
  out.clear();
  const YAML::Node node = map[key];
  if (!present(node)) return std::nullopt;
  if (!node.IsScalar()) return where + "." + key + ": must be a string";
  out = node.Scalar();
  return std::nullopt;
}

std::optional<std::string> get_bool(const YAML::Node& map, const char* key,
                                    const std::string& where, bool& out) {
  out = false;
  const YAML::Node node = map[key];
  if (!present(node)) return std::nullopt;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, out)) {
    return where + "." + key + ": must be true or false";
  }
  return std::nullopt;
}

// The `member` map (cluster, context or user) of the entry of list `list` named `name`, or
// nullopt in `found` when there is none. A repeated name anywhere in the list is an error, as in
// client-go's conversion of the file.
std::optional<std::string> find_named(const YAML::Node& root, const char* list, const char* member,
                                      const std::string& name, std::optional<YAML::Node>& found) {
  found.reset();
  const YAML::Node entries = root[list];
  if (!present(entries)) return std::nullopt;
  if (!entries.IsSequence()) return std::string(list) + ": must be a list";
  std::set<std::string> names;
  std::size_t index = 0;
  for (const YAML::Node& entry : entries) {
    const std::string where = std::string(list) + "[" + std::to_string(index++) + "]";
    if (!entry.IsMap()) return where + ": must be a map";
    std::string entry_name;
    if (auto error = get_string(entry, "name", where, entry_name)) return error;
    if (!names.insert(entry_name).second) {
      return std::string(list) + ": the name " + in_quotes(entry_name) + " appears twice";
    }
    if (entry_name != name) continue;
    const YAML::Node value = entry[member];
    if (!present(value)) {
      found.emplace(YAML::NodeType::Map);
    } else if (!value.IsMap()) {
      return std::string(list) + "[" + name + "]." + member + ": must be a map";
    } else {
      found.emplace(value);
    }
  }
  return std::nullopt;
}

// A PEM (or any bytes) given either inline as base64 (`data_key`) or as a file (`file_key`).
std::optional<std::string> read_bytes(const YAML::Node& map, const std::string& where,
                                      const char* data_key, const char* file_key,
                                      const fs::path& dir, std::string& out) {
  out.clear();
  std::string data;
  std::string file;
  if (auto error = get_string(map, data_key, where, data)) return error;
  if (auto error = get_string(map, file_key, where, file)) return error;
  if (!data.empty() && !file.empty()) {
    // client-go refuses it too: which one the file's author meant is unknown.
    return where + ": both " + data_key + " and " + file_key + " are set; keep one";
  }
  if (!data.empty()) {
    if (!decode_base64(data, out)) return where + "." + data_key + ": not valid base64";
    return std::nullopt;
  }
  if (file.empty()) return std::nullopt;
  const std::string resolved =
      fs::path(file).is_absolute() ? file : (dir / file).lexically_normal().string();
  if (auto error = read_bounded(resolved, out)) return where + "." + file_key + ": " + *error;
  return std::nullopt;
}

std::optional<std::string> read_cluster(const YAML::Node& cluster, const std::string& where,
                                        const fs::path& dir, KubeConfig& c) {
  if (auto error = get_string(cluster, "server", where, c.server)) return error;
  if (c.server.empty()) return where + ".server: not set";
  if (auto error = parse_server(c.server, c)) {
    return where + ".server: " + in_quotes(c.server) + " " + *error;
  }
  std::string proxy;
  if (auto error = get_string(cluster, "proxy-url", where, proxy)) return error;
  if (!proxy.empty()) return where + ".proxy-url: a proxy is not supported";
  if (auto error = get_string(cluster, "tls-server-name", where, c.tls_server_name)) return error;
  if (c.tls_server_name.empty()) c.tls_server_name = c.host;
  if (auto error =
          get_bool(cluster, "insecure-skip-tls-verify", where, c.insecure_skip_tls_verify)) {
    return error;
  }
  if (auto error = read_bytes(cluster, where, "certificate-authority-data", "certificate-authority",
                              dir, c.ca_pem)) {
    return error;
  }
  if (c.insecure_skip_tls_verify && !c.ca_pem.empty()) {
    // client-go's TLS config refuses the pair: a CA that is never checked is a mistake.
    return where + ": insecure-skip-tls-verify is set together with a certificate authority";
  }
  return std::nullopt;
}

std::optional<std::string> read_user(const YAML::Node& user, const std::string& where,
                                     const fs::path& dir, KubeConfig& c) {
  // Each of these would make client-go authenticate (or act) as someone this reader cannot be.
  for (const char* key : {"exec", "auth-provider"}) {
    if (present(user[key])) {
      return where + "." + key +
             ": not supported (use a token, a tokenFile or a client certificate)";
    }
  }
  for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (present(user[key])) return where + "." + key + ": impersonation is not supported";
  }
  if (auto error = get_string(user, "token", where, c.token)) return error;
  if (auto error = get_string(user, "tokenFile", where, c.token_file)) return error;
  if (auto error = get_string(user, "username", where, c.username)) return error;
  if (auto error = get_string(user, "password", where, c.password)) return error;
  if ((!c.token.empty() || !c.token_file.empty()) && (!c.username.empty() || !c.password.empty())) {
    return where + ": both a token and a username/password are set (client-go allows one method)";
  }
  c.token = std::string(trim(c.token));
  if (auto error = check_token(c.token)) return where + ".token: " + *error;
  if (!c.token_file.empty()) {
    if (!fs::path(c.token_file).is_absolute()) {
      c.token_file = (dir / c.token_file).lexically_normal().string();
    }
    // As client-go: an inline token is used until the file is read; without one, read it now.
    if (c.token.empty()) {
      std::string text;
      if (auto error = read_bounded(c.token_file, text)) return where + ".tokenFile: " + *error;
      c.token = std::string(trim(text));
      if (c.token.empty()) return where + ".tokenFile: " + c.token_file + " is empty";
      if (auto error = check_token(c.token)) {
        return where + ".tokenFile: " + c.token_file + " " + *error;
      }
    }
  }
  if (auto error = read_bytes(user, where, "client-certificate-data", "client-certificate", dir,
                              c.client_cert_pem)) {
    return error;
  }
  if (auto error =
          read_bytes(user, where, "client-key-data", "client-key", dir, c.client_key_pem)) {
    return error;
  }
  if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
    return where + ": a client certificate needs both client-certificate and client-key";
  }
  return std::nullopt;
}

std::optional<std::string> read_kubeconfig(const YAML::Node& root, const std::string& path,
                                           const std::string& context, KubeConfig& c) {
  if (!root.IsMap()) return std::string("not a kubeconfig (the document is not a map)");
  std::string name = context;
  if (name.empty()) {
    if (auto error = get_string(root, "current-context", "", name)) return error->substr(1);
    if (name.empty()) return std::string("current-context is not set and no context was named");
  }
  std::optional<YAML::Node> ctx;
  if (auto error = find_named(root, "contexts", "context", name, ctx)) return error;
  if (!ctx) {
    return "context " + in_quotes(name) + " not found" +
           (context.empty() ? " (it is the current-context)" : "");
  }
  const std::string ctx_where = "contexts[" + name + "].context";
  std::string cluster_name;
  std::string user_name;
  if (auto error = get_string(*ctx, "cluster", ctx_where, cluster_name)) return error;
  if (auto error = get_string(*ctx, "user", ctx_where, user_name)) return error;
  if (cluster_name.empty()) return ctx_where + ".cluster: not set";
  if (user_name.empty()) return ctx_where + ".user: not set";

  std::optional<YAML::Node> cluster;
  if (auto error = find_named(root, "clusters", "cluster", cluster_name, cluster)) return error;
  if (!cluster) return ctx_where + ".cluster: cluster " + in_quotes(cluster_name) + " not found";
  std::optional<YAML::Node> user;
  if (auto error = find_named(root, "users", "user", user_name, user)) return error;
  if (!user) return ctx_where + ".user: user " + in_quotes(user_name) + " not found";

  // client-go resolves relative paths against the absolute directory of the file naming them.
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  const fs::path dir = absolute.parent_path();
  if (auto error = read_cluster(*cluster, "clusters[" + cluster_name + "].cluster", dir, c)) {
    return error;
  }
  if (auto error = read_user(*user, "users[" + user_name + "].user", dir, c)) return error;
  c.source = "kubeconfig " + path + " (context " + name + ")";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> load_kubeconfig(const std::string& path, const std::string& context,
                                           KubeConfig& out) {
  const std::string prefix = "kubeconfig " + path + ": ";
  std::string text;
  if (auto error = read_bounded(path, text)) return prefix + *error;
  KubeConfig c;
  std::optional<std::string> error;
  // yaml-cpp reports with exceptions (bad syntax, too deep a nesting, a node of the wrong kind).
  try {
    const YAML::Node root = YAML::Load(text);
    error = read_kubeconfig(root, path, context, c);
  } catch (const YAML::Exception& e) {
    error = std::string("not valid YAML: ") + e.what();
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (error) return prefix + *error;
  out = std::move(c);
  return std::nullopt;
}

std::optional<std::string> load_in_cluster(KubeConfig& out, bool* in_pod,
                                           const std::function<const char*(const char*)>& getenv,
                                           const std::string& dir) {
  const char* host = getenv("KUBERNETES_SERVICE_HOST");
  const char* port = getenv("KUBERNETES_SERVICE_PORT");
  const bool in = host != nullptr && *host != '\0' && port != nullptr && *port != '\0';
  if (in_pod != nullptr) *in_pod = in;
  if (!in) return std::nullopt;

  KubeConfig c;
  const std::string host_text = host;
  const bool ipv6 = host_text.find(':') != std::string::npos;
  c.server = "https://" + (ipv6 ? "[" + host_text + "]" : host_text) + ":" + port;
  if (auto error = parse_server(c.server, c)) {
    return "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT give " +
           in_quotes(c.server) + ", which " + *error;
  }
  c.tls_server_name = c.host;
  const std::string base = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  if (auto error = read_bounded(base + "ca.crt", c.ca_pem)) return "in-cluster: " + *error;
  if (c.ca_pem.empty()) return "in-cluster: " + base + "ca.crt is empty";
  c.token_file = base + "token";
  std::string text;
  if (auto error = read_bounded(c.token_file, text)) return "in-cluster: " + *error;
  c.token = std::string(trim(text));
  if (c.token.empty()) return "in-cluster: " + c.token_file + " is empty";
  if (auto error = check_token(c.token)) return "in-cluster: " + c.token_file + " " + *error;
  c.source = "in-cluster";
  out = std::move(c);
  return std::nullopt;
}

TokenSource::TokenSource(const KubeConfig& config, std::chrono::seconds max_age)
    : file_(config.token_file),
      token_(config.token),
      max_age_(max_age),
      stale_(!config.token_file.empty()) {}

TokenSource::Stamp TokenSource::stamp() const {
  Stamp s;
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file_, ec);
  if (ec) return s;
  const fs::file_time_type mtime = fs::last_write_time(file_, ec);
  if (ec) return s;
  s.exists = true;
  s.size = size;
  s.mtime = mtime;
  return s;
}

void TokenSource::invalidate() { stale_ = true; }

const std::string& TokenSource::token() {
  if (file_.empty()) return token_;
  const auto now = std::chrono::steady_clock::now();
  // Stamped before the read: a change during the read shows as a new stamp on the next call.
  const Stamp current = stamp();
  if (!stale_ && current == seen_ && now - read_at_ < max_age_) return token_;
  stale_ = false;
  seen_ = current;
  read_at_ = now;  // a failed read waits for a change or max_age too: no re-read on every call

  std::string text;
  std::optional<std::string> error = read_bounded(file_, text);
  if (!error) {
    const std::string_view value = trim(text);
    if (value.empty()) {
      error = "token file " + file_ + " is empty";
    } else if (auto bad = check_token(value)) {
      error = "token file " + file_ + " " + *bad;
    } else {
      token_ = std::string(value);
      error_.clear();
      return token_;
    }
  } else {
    *error = "token file: " + *error;
  }
  if (error_ != *error) error_ = std::move(*error);
  return token_;
}

}  // namespace kpw::kube
