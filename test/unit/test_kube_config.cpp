// kube/kube_config: kubeconfig files and a pod's service account read as client-go reads them, and
// the token file re-read as it rotates.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include "kube/kube_config.hpp"
#include "util/base64.hpp"

namespace {

namespace fs = std::filesystem;
using kpw::kube::KubeConfig;

constexpr const char* kCaPem =
    "-----BEGIN CERTIFICATE-----\nMIIBCAkube+ca/test==\n-----END CERTIFICATE-----\n";
constexpr const char* kCertPem =
    "-----BEGIN CERTIFICATE-----\nMIIBclient+cert/test=\n-----END CERTIFICATE-----\n";
constexpr const char* kKeyPem =
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEclient+key\n-----END EC PRIVATE KEY-----\n";

std::string b64(std::string_view bytes) {
  std::string out;
  kpw::append_base64(out, bytes);
  return out;
}

// A fresh directory under the system's temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    std::random_device random;
    for (;;) {
      path_ = fs::temp_directory_path() /
              ("kpw-kubeconfig-" + std::to_string(random()) + "-" + std::to_string(++counter));
      if (fs::create_directory(path_)) break;
    }
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to `name` (sub-directories created) and returns the file's path.
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    return file.string();
  }
  std::string path(const std::string& name = "") const {
    return name.empty() ? path_.string() : (path_ / name).string();
  }

 private:
  fs::path path_;
};

// A kubeconfig with one context "main" (cluster "c", user "u") as the current one.
std::string kubeconfig(const std::string& cluster, const std::string& user) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "contexts:\n- name: main\n  context:\n    cluster: c\n    user: u\n"
         "clusters:\n- name: c\n  cluster:\n" +
         cluster + "users:\n- name: u\n  user:\n" + user;
}

const std::string kServer = "    server: https://api.example.com:6443\n";
const std::string kToken = "    token: abc.def\n";

std::optional<std::string> load(const TempDir& dir, const std::string& text, KubeConfig& out,
                                const std::string& context = "") {
  return kpw::kube::load_kubeconfig(dir.write("config", text), context, out);
}

// The error of loading `text`, "" when it loads.
std::string load_error(const std::string& text) {
  TempDir dir;
  KubeConfig config;
  const auto error = load(dir, text, config);
  return error ? *error : "";
}

}  // namespace

TEST_CASE("kubeconfig: the current context's cluster and inline token", "[kubeconfig]") {
  TempDir dir;
  KubeConfig c;
  const std::string path = dir.write("config", kubeconfig(kServer, "    token: ' abc.def\n'\n"));
  REQUIRE_FALSE(kpw::kube::load_kubeconfig(path, "", c));
  CHECK(c.server == "https://api.example.com:6443");
  CHECK(c.host == "api.example.com");
  CHECK(c.port == "6443");
  CHECK(c.base_path == "");
  CHECK(c.tls_server_name == "api.example.com");
  CHECK(c.token == "abc.def");  // trimmed
  CHECK(c.token_file == "");
  CHECK(c.ca_pem == "");
  CHECK_FALSE(c.insecure_skip_tls_verify);
  CHECK(c.client_cert_pem == "");
  CHECK(c.source == "kubeconfig " + path + " (context main)");
  kpw::kube::TokenSource source(c);
  CHECK(source.token() == "abc.def");
  CHECK(source.last_error() == "");
}

TEST_CASE("kubeconfig: a named context wins over current-context", "[kubeconfig]") {
  const std::string text =
      "current-context: one\n"
      "contexts:\n"
      "- name: one\n  context: {cluster: c1, user: u1}\n"
      "- name: two\n  context: {cluster: c2, user: u2}\n"
      "clusters:\n"
      "- name: c1\n  cluster: {server: 'https://one.example'}\n"
      "- name: c2\n  cluster: {server: 'https://two.example'}\n"
      "users:\n"
      "- name: u1\n  user: {token: t1}\n"
      "- name: u2\n  user: {token: t2}\n";
  TempDir dir;
  KubeConfig c;
  REQUIRE_FALSE(load(dir, text, c));
  CHECK(c.host == "one.example");
  CHECK(c.token == "t1");
  REQUIRE_FALSE(load(dir, text, c, "two"));
  CHECK(c.host == "two.example");
  CHECK(c.token == "t2");
  CHECK(c.source.find("(context two)") != std::string::npos);
}

TEST_CASE("kubeconfig: a missing context, cluster or user is named", "[kubeconfig]") {
  const std::string no_current = std::string() +
                                 "contexts:\n- name: main\n  context: {cluster: c, user: u}\n"
                                 "clusters:\n- name: c\n  cluster: {server: 'https://h'}\n"
                                 "users:\n- name: u\n  user: {token: t}\n";
  CHECK(load_error(no_current).find("current-context is not set") != std::string::npos);

  TempDir dir;
  KubeConfig c;
  const auto missing = load(dir, kubeconfig(kServer, kToken), c, "other");
  REQUIRE(missing);
  CHECK(missing->find("context \"other\" not found") != std::string::npos);

  std::string text = kubeconfig(kServer, kToken);
  text.replace(text.find("cluster: c\n"), 11, "cluster: gone\n");
  CHECK(load_error(text).find("contexts[main].context.cluster: cluster \"gone\" not found") !=
        std::string::npos);

  text = kubeconfig(kServer, kToken);
  text.replace(text.find("user: u\n"), 8, "user: nobody\n");
  CHECK(load_error(text).find("contexts[main].context.user: user \"nobody\" not found") !=
        std::string::npos);

  text = kubeconfig(kServer, kToken);
  text.replace(text.find("current-context: main"), 21, "current-context: lost");
  CHECK(load_error(text).find("context \"lost\" not found (it is the current-context)") !=
        std::string::npos);

  text = kubeconfig(kServer, kToken) + "- name: u\n  user: {token: x}\n";
  CHECK(load_error(text).find("users: the name \"u\" appears twice") != std::string::npos);
}

TEST_CASE("kubeconfig: server URLs are parsed strictly", "[kubeconfig]") {
  struct Good {
    std::string server, host, port, base_path;
  };
  for (const Good& g : {
           Good{"https://[::1]:6443", "::1", "6443", ""},
           Good{"https://[fd00::10]", "fd00::10", "443", ""},
           Good{"https://10.0.0.1", "10.0.0.1", "443", ""},
           Good{"HTTPS://kube.local:443/", "kube.local", "443", ""},
           Good{"https://rancher.example/k8s/clusters/c-1/", "rancher.example", "443",
                "/k8s/clusters/c-1"},
       }) {
    INFO(g.server);
    TempDir dir;
    KubeConfig c;
    const auto error = load(dir, kubeconfig("    server: '" + g.server + "'\n", kToken), c);
    REQUIRE_FALSE(error);
    CHECK(c.server == g.server);
    CHECK(c.host == g.host);
    CHECK(c.port == g.port);
    CHECK(c.base_path == g.base_path);
    CHECK(c.tls_server_name == g.host);
  }
  struct Bad {
    std::string server, why;
  };
  for (const Bad& b : {
           Bad{"http://127.0.0.1:8080", "is http: credentials are never sent in clear text"},
           Bad{"127.0.0.1:6443", "is not an https:// URL"},
           Bad{"ftp://h", "only https is supported"},
           Bad{"https://admin:pw@h", "user information"},
           Bad{"https://h/?watch=1", "query or a fragment"},
           Bad{"https://h#top", "query or a fragment"},
           Bad{"https://h:0", "invalid port"},
           Bad{"https://h:65536", "invalid port"},
           Bad{"https://h:", "invalid port"},
           Bad{"https://h:6443x", "invalid port"},
           Bad{"https://::1:6443", "IPv6 address goes in brackets"},
           Bad{"https://[::1", "without ']'"},
           Bad{"https://[zz::1]:1", "invalid IPv6"},
           Bad{"https://[::1]x", "not a port"},
           Bad{"https://", "no host"},
           Bad{"https://h%41", "invalid host"},
           Bad{"https://h/a b", "invalid character in its path"},
       }) {
    INFO(b.server);
    const std::string error = load_error(kubeconfig("    server: '" + b.server + "'\n", kToken));
    CHECK(error.find("clusters[c].cluster.server: \"" + b.server + "\" ") != std::string::npos);
    CHECK(error.find(b.why) != std::string::npos);
  }
  CHECK(load_error(kubeconfig("    insecure-skip-tls-verify: true\n", kToken))
            .find("clusters[c].cluster.server: not set") != std::string::npos);
}

TEST_CASE("kubeconfig: certificate authority inline or as a file, TLS name, insecure",
          "[kubeconfig]") {
  TempDir dir;
  KubeConfig c;
  REQUIRE_FALSE(load(dir,
                     kubeconfig(kServer + "    certificate-authority-data: " + b64(kCaPem) +
                                    "\n    tls-server-name: kubernetes.default\n",
                                kToken),
                     c));
  CHECK(c.ca_pem == kCaPem);
  CHECK(c.tls_server_name == "kubernetes.default");
  CHECK(c.host == "api.example.com");
  CHECK_FALSE(c.insecure_skip_tls_verify);

  dir.write("pki/ca.crt", "file CA bytes");
  REQUIRE_FALSE(
      load(dir, kubeconfig(kServer + "    certificate-authority: pki/ca.crt\n", kToken), c));
  CHECK(c.ca_pem == "file CA bytes");

  const std::string absolute = dir.write("elsewhere/ca.pem", "absolute CA");
  REQUIRE_FALSE(
      load(dir, kubeconfig(kServer + "    certificate-authority: " + absolute + "\n", kToken), c));
  CHECK(c.ca_pem == "absolute CA");

  REQUIRE_FALSE(load(dir, kubeconfig(kServer + "    insecure-skip-tls-verify: true\n", kToken), c));
  CHECK(c.insecure_skip_tls_verify);
  CHECK(c.ca_pem == "");

  CHECK(load_error(kubeconfig(kServer + "    insecure-skip-tls-verify: maybe\n", kToken))
            .find("insecure-skip-tls-verify: must be true or false") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer + "    insecure-skip-tls-verify: true\n" +
                                  "    certificate-authority-data: " + b64(kCaPem) + "\n",
                              kToken))
            .find("insecure-skip-tls-verify is set together with a certificate authority") !=
        std::string::npos);
  CHECK(load_error(kubeconfig(kServer + "    certificate-authority-data: '" + b64(kCaPem) +
                                  "'\n    certificate-authority: pki/ca.crt\n",
                              kToken))
            .find("both certificate-authority-data and certificate-authority are set") !=
        std::string::npos);
  CHECK(load_error(kubeconfig(kServer + "    certificate-authority-data: 'not*base64'\n", kToken))
            .find("clusters[c].cluster.certificate-authority-data: not valid base64") !=
        std::string::npos);
  CHECK(load_error(kubeconfig(kServer + "    certificate-authority: missing.crt\n", kToken))
            .find("clusters[c].cluster.certificate-authority: cannot read /") != std::string::npos);
}

TEST_CASE("kubeconfig: client certificate and key inline or as files", "[kubeconfig]") {
  TempDir dir;
  KubeConfig c;
  // Base64 wrapped over lines, as some tools write it: Go skips the newlines.
  std::string wrapped = b64(kCertPem);
  wrapped.insert(20, "\n      ");
  REQUIRE_FALSE(load(dir,
                     kubeconfig(kServer, "    client-certificate-data: |\n      " + wrapped +
                                             "\n    client-key-data: " + b64(kKeyPem) + "\n"),
                     c));
  CHECK(c.client_cert_pem == kCertPem);
  CHECK(c.client_key_pem == kKeyPem);
  CHECK(c.token == "");

  dir.write("certs/admin.crt", kCertPem);
  dir.write("certs/admin.key", kKeyPem);
  REQUIRE_FALSE(load(dir,
                     kubeconfig(kServer,
                                "    client-certificate: certs/admin.crt\n"
                                "    client-key: ./certs/../certs/admin.key\n" +
                                    kToken),
                     c));
  CHECK(c.client_cert_pem == kCertPem);
  CHECK(c.client_key_pem == kKeyPem);
  CHECK(c.token == "abc.def");  // a token may go with a client certificate

  const std::string path =
      dir.write("config", kubeconfig(kServer,
                                     "    client-certificate: certs/admin.crt\n"
                                     "    client-key: key.pem\n"));
  const auto error = kpw::kube::load_kubeconfig(path, "", c);
  REQUIRE(error);
  CHECK(*error == "kubeconfig " + path + ": users[u].user.client-key: cannot read " +
                      dir.path("key.pem") + ": No such file or directory");

  CHECK(load_error(kubeconfig(kServer, "    client-certificate-data: " + b64(kCertPem) + "\n"))
            .find("needs both client-certificate and client-key") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer, "    client-key-data: " + b64(kKeyPem) +
                                           "\n    client-key: key.pem\n"))
            .find("both client-key-data and client-key are set") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer, "    client-key-data: 'YWJj='\n"))
            .find("users[u].user.client-key-data: not valid base64") != std::string::npos);
}

TEST_CASE("kubeconfig: tokenFile resolves against the kubeconfig's directory and is re-read",
          "[kubeconfig]") {
  TempDir dir;
  const std::string token_path = dir.write("secrets/token", "first-token\n");
  KubeConfig c;
  REQUIRE_FALSE(load(dir, kubeconfig(kServer, "    tokenFile: secrets/token\n"), c));
  CHECK(c.token_file == token_path);
  CHECK(c.token == "first-token");

  kpw::kube::TokenSource source(c, std::chrono::hours(1));
  CHECK(source.token() == "first-token");

  // A new size: seen without waiting for max_age.
  dir.write("secrets/token", "second-token-longer\n");
  CHECK(source.token() == "second-token-longer");

  // Same size, later modification time: seen too.
  const auto before = fs::last_write_time(token_path);
  dir.write("secrets/token", "third--token-longer\n");
  fs::last_write_time(token_path, before + std::chrono::seconds(5));
  CHECK(source.token() == "third--token-longer");

  // Same size and time: the cached token stays until invalidate() (after a 401).
  const auto stamp = fs::last_write_time(token_path);
  dir.write("secrets/token", "fourth-token-longer\n");
  fs::last_write_time(token_path, stamp);
  CHECK(source.token() == "third--token-longer");
  source.invalidate();
  CHECK(source.token() == "fourth-token-longer");
  CHECK(source.last_error() == "");
}

TEST_CASE("kubeconfig: a token file is re-read every max_age even when it looks unchanged",
          "[kubeconfig]") {
  TempDir dir;
  const std::string token_path = dir.write("token", "aaaa");
  KubeConfig c;
  c.token_file = token_path;
  c.token = "aaaa";
  kpw::kube::TokenSource source(c, std::chrono::seconds(0));
  CHECK(source.token() == "aaaa");
  const auto stamp = fs::last_write_time(token_path);
  dir.write("token", "bbbb");
  fs::last_write_time(token_path, stamp);
  CHECK(source.token() == "bbbb");
}

TEST_CASE("kubeconfig: a failed token re-read keeps the last good token and says why",
          "[kubeconfig]") {
  TempDir dir;
  const std::string token_path = dir.write("token", "good\n");
  KubeConfig c;
  c.token_file = token_path;
  kpw::kube::TokenSource source(c, std::chrono::hours(1));
  CHECK(source.token() == "good");

  fs::remove(token_path);
  CHECK(source.token() == "good");
  CHECK(source.last_error() ==
        "token file: cannot read " + token_path + ": No such file or directory");

  dir.write("token", "  \n");
  CHECK(source.token() == "good");
  CHECK(source.last_error() == "token file " + token_path + " is empty");

  dir.write("token", "bad\nheader: injected\n");
  CHECK(source.token() == "good");
  CHECK(source.last_error().find("contains a control character") != std::string::npos);

  dir.write("token", "better\n");
  CHECK(source.token() == "better");
  CHECK(source.last_error() == "");
}

TEST_CASE("kubeconfig: an inline token is used until the token file is read", "[kubeconfig]") {
  TempDir dir;
  dir.write("token", "from-file");
  KubeConfig c;
  REQUIRE_FALSE(load(dir, kubeconfig(kServer, "    token: inline\n    tokenFile: token\n"), c));
  CHECK(c.token == "inline");
  kpw::kube::TokenSource source(c);
  CHECK(source.token() == "from-file");  // client-go prefers the file when it can read it

  CHECK(load_error(kubeconfig(kServer, "    tokenFile: none\n"))
            .find("users[u].user.tokenFile: cannot read ") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer, "    token: t\n    username: admin\n"))
            .find("both a token and a username/password") != std::string::npos);
}

TEST_CASE("kubeconfig: exec, auth-provider and impersonation are refused by name", "[kubeconfig]") {
  CHECK(load_error(kubeconfig(kServer,
                              "    exec:\n      apiVersion: "
                              "client.authentication.k8s.io/v1\n      command: aws\n"))
            .find("users[u].user.exec: not supported") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer, "    auth-provider:\n      name: oidc\n"))
            .find("users[u].user.auth-provider: not supported") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer, kToken + "    as: system:admin\n"))
            .find("users[u].user.as: impersonation is not supported") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer + "    proxy-url: http://proxy:3128\n", kToken))
            .find("clusters[c].cluster.proxy-url: a proxy is not supported") != std::string::npos);
  CHECK(load_error(kubeconfig(kServer, "    exec: null\n" + kToken)) == "");
}

TEST_CASE("kubeconfig: files over 1 MiB are refused", "[kubeconfig]") {
  TempDir dir;
  KubeConfig c;
  const std::string big(kpw::kube::kMaxConfigFileBytes + 1, '#');
  const auto error = load(dir, big, c);
  REQUIRE(error);
  CHECK(error->find("over the limit of 1048576 bytes") != std::string::npos);

  dir.write("big.crt", big);
  const auto cert =
      load(dir, kubeconfig(kServer + "    certificate-authority: big.crt\n", kToken), c);
  REQUIRE(cert);
  CHECK(cert->find("clusters[c].cluster.certificate-authority: ") != std::string::npos);
  CHECK(cert->find("over the limit") != std::string::npos);

  // At the limit is fine.
  const std::string at_limit(kpw::kube::kMaxConfigFileBytes, 'x');
  dir.write("max.crt", at_limit);
  REQUIRE_FALSE(load(dir, kubeconfig(kServer + "    certificate-authority: max.crt\n", kToken), c));
  CHECK(c.ca_pem.size() == kpw::kube::kMaxConfigFileBytes);
}

TEST_CASE("kubeconfig: malformed YAML and wrong shapes are errors, not exceptions",
          "[kubeconfig]") {
  for (const std::string& text : {
           std::string("clusters: [unclosed\n"),
           std::string("key: 'unterminated\n"),
           std::string("just a scalar\n"),
           std::string(""),
           std::string("current-context: main\ncontexts: {main: x}\n"),
           std::string("current-context: main\ncontexts:\n- just-a-string\n"),
           std::string("current-context: [a, b]\n"),
           std::string(5000, '[') + std::string(5000, ']'),
           kubeconfig("    server: [https://h]\n", kToken),
           kubeconfig(kServer, "    token: {a: b}\n"),
       }) {
    INFO(text.substr(0, 80));
    std::string error;
    REQUIRE_NOTHROW(error = load_error(text));
    CHECK_FALSE(error.empty());
    CHECK(error.rfind("kubeconfig ", 0) == 0);
  }
  TempDir dir;
  KubeConfig c;
  const auto missing = kpw::kube::load_kubeconfig(dir.path("nope"), "", c);
  REQUIRE(missing);
  CHECK(*missing == "kubeconfig " + dir.path("nope") + ": cannot read " + dir.path("nope") +
                        ": No such file or directory");
}

TEST_CASE("kubeconfig: in-cluster from the environment and the service account files",
          "[kubeconfig]") {
  TempDir dir;
  dir.write("ca.crt", kCaPem);
  const std::string token_path = dir.write("token", "sa-token\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"}};
  const auto getenv = [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };

  KubeConfig c;
  bool in_pod = false;
  REQUIRE_FALSE(kpw::kube::load_in_cluster(c, &in_pod, getenv, dir.path()));
  CHECK(in_pod);
  CHECK(c.server == "https://10.96.0.1:443");
  CHECK(c.host == "10.96.0.1");
  CHECK(c.port == "443");
  CHECK(c.tls_server_name == "10.96.0.1");
  CHECK(c.ca_pem == kCaPem);
  CHECK(c.token == "sa-token");
  CHECK(c.token_file == token_path);
  CHECK(c.source == "in-cluster");

  env["KUBERNETES_SERVICE_HOST"] = "fd00:10:96::1";
  env["KUBERNETES_SERVICE_PORT"] = "6443";
  REQUIRE_FALSE(kpw::kube::load_in_cluster(c, &in_pod, getenv, dir.path()));
  CHECK(c.server == "https://[fd00:10:96::1]:6443");
  CHECK(c.host == "fd00:10:96::1");
  CHECK(c.port == "6443");

  env["KUBERNETES_SERVICE_PORT"] = "https";
  const auto bad_port = kpw::kube::load_in_cluster(c, &in_pod, getenv, dir.path());
  REQUIRE(bad_port);
  CHECK(bad_port->find("invalid port") != std::string::npos);
  env["KUBERNETES_SERVICE_PORT"] = "443";

  fs::remove(token_path);
  const auto no_token = kpw::kube::load_in_cluster(c, &in_pod, getenv, dir.path());
  REQUIRE(no_token);
  CHECK(in_pod);
  CHECK(*no_token == "in-cluster: cannot read " + token_path + ": No such file or directory");

  dir.write("token", "sa-token\n");
  fs::remove(dir.path("ca.crt"));
  const auto no_ca = kpw::kube::load_in_cluster(c, &in_pod, getenv, dir.path());
  REQUIRE(no_ca);
  CHECK(no_ca->find("ca.crt: No such file or directory") != std::string::npos);
}

TEST_CASE("kubeconfig: not in a pod when the service variables are absent", "[kubeconfig]") {
  KubeConfig c;
  c.server = "untouched";
  bool in_pod = true;
  const auto none = [](const char*) -> const char* { return nullptr; };
  CHECK_FALSE(kpw::kube::load_in_cluster(c, &in_pod, none, "/nonexistent-kpw-dir"));
  CHECK_FALSE(in_pod);
  CHECK(c.server == "untouched");

  // client-go needs both: a host without a port is not a pod either.
  in_pod = true;
  const auto host_only = [](const char* name) -> const char* {
    return std::string(name) == "KUBERNETES_SERVICE_HOST" ? "10.0.0.1" : "";
  };
  CHECK_FALSE(kpw::kube::load_in_cluster(c, &in_pod, host_only, "/nonexistent-kpw-dir"));
  CHECK_FALSE(in_pod);
}
