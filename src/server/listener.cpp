#include "server/listener.hpp"

#include <boost/asio/post.hpp>

#include "server/metrics.hpp"
#include "server/session.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;

}  // namespace

void TlsListener::accept() {
  net::io_context& loop = *loops_[next_loop_++ % loops_.size()];
  acceptor_.async_accept(loop.get_executor(),
                         [self = shared_from_this()](error_code ec, tcp::socket socket) {
                           if (!self->acceptor_.is_open()) return;
                           if (!ec) self->admit(std::move(socket));
                           self->accept();
                         });
}

void TlsListener::close() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    error_code ignored;
    self->acceptor_.close(ignored);
  });
}

// Over the cap a connection is closed at once, so the ones already open keep their service.
void TlsListener::admit(tcp::socket socket) {
  if (static_cast<std::size_t>(metrics::open_connections()) >= state_.options.max_connections) {
    metrics::connection_refused();
    error_code ignored;
    socket.close(ignored);
    return;
  }
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  metrics::connection_opened();
  // The session starts on its own loop's thread, as all its later work runs.
  auto session = std::make_shared<Session>(std::move(socket), state_.tls.load(), state_);
  net::post(session->get_executor(), [session] { session->run(); });
}

}  // namespace kpw
