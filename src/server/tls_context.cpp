#include "server/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace kpw {
namespace {

namespace ssl = boost::asio::ssl;

// The OpenSSL error queue as one line ("error:0480006C:PEM routines::no start line").
std::string openssl_error() {
  unsigned long code = ERR_get_error();
  std::string out;
  while (code != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
    code = ERR_get_error();
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

// ALPN: pick http/1.1 when offered; otherwise carry on without ALPN rather than failing the
// handshake with a fatal alert.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

std::optional<std::string> load_tls_context(const std::string& cert_file,
                                            const std::string& key_file, TlsMinVersion min_version,
                                            TlsContext& out) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression |
                   ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(
      native, min_version == TlsMinVersion::kTls13 ? TLS1_3_VERSION : TLS1_2_VERSION);
  // No resumption: the API server's webhook client (client-go's TLSConfigFor) keeps no session
  // cache, so every connection is a full handshake and tickets would be pure cost: OpenSSL sends
  // two per connection by default, ~30 µs of server CPU and a record the client must parse.
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(native, 0);
  SSL_CTX_set_options(native, SSL_OP_NO_TICKET);
  // TLS 1.3 suites in the order Go's server (upstream's webhook) uses on AES hardware: AES-128-GCM
  // first. OpenSSL clients put AES-256-GCM-SHA384 first, whose key schedule costs more; a client
  // that prefers ChaCha20 (no AES instructions) still gets it.
  SSL_CTX_set_ciphersuites(native,
                           "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                           "TLS_CHACHA20_POLY1305_SHA256");
  SSL_CTX_set_options(native, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA);
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(native, cert_file.c_str()) != 1) {
    return "cannot load the serving certificate " + cert_file + ": " + openssl_error();
  }
  if (SSL_CTX_use_PrivateKey_file(native, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return "cannot load the private key " + key_file + ": " + openssl_error();
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return "the private key " + key_file + " does not match the certificate " + cert_file;
  }
  SSL_CTX_set_alpn_select_cb(native, &select_alpn, nullptr);
  out = std::move(ctx);
  return std::nullopt;
}

}  // namespace kpw
