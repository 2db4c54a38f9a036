#include "server/listener.hpp"

#include <boost/asio/post.hpp>

#include "server/metrics.hpp"
#include "server/plain_session.hpp"
#include "server/tls_session.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;

}  // namespace

void Listener::accept() {
  net::io_context& loop = *loops_[next_loop_++ % loops_.size()];
  acceptor_.async_accept(loop.get_executor(),
                         [self = shared_from_this()](error_code ec, Socket socket) {
                           if (!self->acceptor_.is_open()) return;
                           if (!ec) self->admit(std::move(socket));
                           self->accept();
                         });
}

void Listener::close() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    error_code ignored;
    self->acceptor_.close(ignored);
  });
}

std::string Listener::endpoint() const {
  error_code ec;
  const tcp::endpoint e = acceptor_.local_endpoint(ec);
  if (ec) return "?";
  return e.address().to_string() + ":" + std::to_string(e.port());
}

// Over the cap an HTTPS connection is closed at once, so the ones already open keep their
// service. Each session starts on its own loop's thread, as all its later work runs.
void Listener::admit(Socket socket) {
  error_code ignored;
  if (stream_ == Stream::kPlain) {
    socket.set_option(tcp::no_delay(true), ignored);
    auto session = std::make_shared<PlainSession>(std::move(socket), port_, state_);
    net::post(session->stream().get_executor(), [session] { session->run(); });
    return;
  }
  if (static_cast<std::size_t>(metrics::open_connections()) >= state_.options.max_connections) {
    metrics::connection_refused();
    socket.close(ignored);
    return;
  }
  socket.set_option(tcp::no_delay(true), ignored);
  metrics::connection_opened();
  auto session = std::make_shared<TlsSession>(std::move(socket), state_.tls.load(), port_, state_);
  net::post(session->stream().get_executor(), [session] { session->run(); });
}

}  // namespace kpw
