// How to reach the API server, read from a kubeconfig file or from a pod's service account.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace kpw::kube {

// Files read here (kubeconfig, certificates, keys, tokens) are refused above this size: each is
// read whole into memory, and none is legitimately near it.
inline constexpr std::uintmax_t kMaxConfigFileBytes = 1024 * 1024;

struct KubeConfig {
  std::string server;           // as written, e.g. https://127.0.0.1:6443 or https://host/prefix
  std::string host;             // parsed from server: host name or IP (IPv6 without brackets)
  std::string port;             // "443" when absent
  std::string base_path;        // path prefix of server without trailing '/', "" usually
  std::string tls_server_name;  // cluster.tls-server-name, else host (SNI and verification name)
  std::string ca_pem;           // certificate-authority-data (base64-decoded) or the file's bytes
  bool insecure_skip_tls_verify = false;
  std::string token;               // user.token, or the token file's content (trimmed) when read
  std::string token_file;          // user.tokenFile (absolute path after resolution); "" if none
  std::string client_cert_pem;     // client-certificate-data decoded or client-certificate file
  std::string client_key_pem;      // client-key-data decoded or client-key file
  std::string username, password;  // basic auth (user.username/password), rarely used
  std::string source;              // for logs: "kubeconfig /path (context X)" or "in-cluster"
};

// Reads a kubeconfig file as client-go does: the context named by `context` (empty: the
// current-context), its cluster and its user. Relative file paths (certificate-authority,
// client-certificate, client-key, tokenFile) resolve against the kubeconfig file's directory.
// Refused, each with a message naming the file and the field: a server that is not https (a token
// is never sent in clear text), a user with `exec`, `auth-provider` or impersonation (not
// supported), a *-data field together with its file form (client-go refuses that too), a missing
// context, cluster or user. `out` is replaced only on success.
std::optional<std::string> load_kubeconfig(const std::string& path, const std::string& context,
                                           KubeConfig& out);

// In a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (IPv6 host allowed), the CA from
// <dir>/ca.crt and the token from <dir>/token (token_file set, so the token is re-read when kubelet
// rotates it). `getenv` is a parameter so tests can feed an environment. Not in a pod (either
// variable unset or empty, as client-go decides): `*in_pod = false` and nullopt. In a pod: `*in_pod
// = true` and nullopt with `out` filled, or an error when a file is missing or unreadable.
std::optional<std::string> load_in_cluster(
    KubeConfig& out, bool* in_pod, const std::function<const char*(const char*)>& getenv = ::getenv,
    const std::string& dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// The bearer token to send now: `token` when there is no token file; else the file's content
// (trimmed), re-read when its modification time or size changed and at least every `max_age`
// (client-go re-reads a token file each minute). Thread-compatible (one caller thread). When a
// re-read fails it keeps the last good token: last_error() is then the failure's text (it changes
// only when the failure does, so a caller can log on change), and "" again after a good read.
class TokenSource {
 public:
  explicit TokenSource(const KubeConfig& config,
                       std::chrono::seconds max_age = std::chrono::seconds(60));

  const std::string& token();  // may re-read the file
  void invalidate();           // force a re-read on the next token() (after a 401)
  const std::string& last_error() const { return error_; }

 private:
  struct Stamp {
    bool exists = false;
    std::filesystem::file_time_type mtime{};
    std::uintmax_t size = 0;
    bool operator==(const Stamp&) const = default;
  };
  Stamp stamp() const;

  std::string file_;
  std::string token_;
  std::chrono::seconds max_age_;
  bool stale_;  // read on the next token() whatever the file's stamp
  Stamp seen_;  // the stamp when the file was last read (or a read last failed)
  std::chrono::steady_clock::time_point read_at_{};
  std::string error_;
};

}  // namespace kpw::kube
