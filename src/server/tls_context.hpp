// The serving TLS context: the certificate pair on disk, the minimum version, Go's TLS 1.3 suite
// order, no resumption, ALPN http/1.1.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "server/server.hpp"

namespace kpw {

// Shared by the connections accepted with it: a rotation replaces it for new handshakes only.
using TlsContext = std::shared_ptr<boost::asio::ssl::context>;

// A context holding the pair on disk now, or the reason it cannot be loaded.
std::optional<std::string> load_tls_context(const std::string& cert_file,
                                            const std::string& key_file, TlsMinVersion min_version,
                                            TlsContext& out);

}  // namespace kpw
