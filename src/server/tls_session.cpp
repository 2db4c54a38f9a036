#include "server/tls_session.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <chrono>

#include "server/metrics.hpp"

namespace kpw {

namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;

TlsSession::TlsSession(boost::asio::ip::tcp::socket&& socket, TlsContext ctx, const Port& port,
                       ServerState& state)
    : HttpSession(port, state), ctx_(std::move(ctx)), stream_(std::move(socket), *ctx_) {}

TlsSession::~TlsSession() { metrics::connection_closed(); }

void TlsSession::run() {
  join_connections();
  lowest().expires_after(state_.options.handshake_timeout);
  stream_.async_handshake(ssl::stream_base::server, [self = shared_from_this()](error_code ec) {
    if (ec) {
      metrics::tls_handshake_failed();
      return self->finish();
    }
    self->acknowledge_now();
    self->wait_for_request(true);
  });
}

// The client's last handshake flight gets no answer from us (we send no session tickets), so the
// kernel would delay its ACK by up to 40 ms; a client that writes its request without TCP_NODELAY
// waits for that ACK (Nagle) before sending. Acknowledge at once instead.
void TlsSession::acknowledge_now() {
#ifdef TCP_QUICKACK
  const int on = 1;
  ::setsockopt(lowest().socket().native_handle(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
#endif
}

// close_notify, bounded: a client that never answers it does not hold the connection.
void TlsSession::shutdown() {
  lowest().expires_after(std::chrono::seconds(3));
  stream_.async_shutdown([self = shared_from_this()](error_code) { self->lowest().close(); });
}

}  // namespace kpw
