// TLS straight on the socket: OpenSSL reads and writes the connection's descriptor itself
// (non-blocking, through the stream's own BIO), and the loop is asked only to wait until the socket
// is readable or writable again. A wait for a readable socket is a read: the loop's reactor reads
// what arrives into the stream's inbox, which OpenSSL's next read takes first (a bare wait made
// Asio re-arm the descriptor with EPOLL_CTL_MOD, one system call more per keep-alive request and
// ~0.5 us on this VM: docs/performance.md, "Waits that read"). Asio's ssl::stream instead runs
// every record through a BIO pair and its own 17 KB buffers, a state machine of three operations
// per read and an OpenSSL error-queue clear per step: measured, 30 % of a keep-alive request's
// user-space instructions beside a constant answer (docs/performance.md, "Transport against
// nginx").
//
// An AsyncReadStream and AsyncWriteStream for Beast's HTTP reads and net::async_write, plus the
// server side of the handshake and close_notify. Every operation tries OpenSSL first and waits
// only when it asks for more (SSL_ERROR_WANT_READ / WANT_WRITE: the socket said EAGAIN), so data
// OpenSSL already holds is never left waiting for a readiness edge that will not come. A result
// found at once is posted, never handed to the caller inside its own call.
//
// Not thread-safe: one connection's operations run on its loop, one read and one write at most
// (HttpSession never overlaps them). After close() no operation touches the descriptor (its
// number may belong to another connection by then).
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>

#include "server/server_state.hpp"

namespace kpw {

class TlsStream {
 public:
  using executor_type = LoopExecutor;
  using error_code = boost::system::error_code;

  TlsStream(Socket&& socket, boost::asio::ssl::context& ctx);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  executor_type get_executor() noexcept { return socket_.get_executor(); }
  Socket& socket() { return socket_; }
  SSL* native_handle() { return ssl_; }
  bool is_open() const { return socket_.is_open(); }
  // Closes the descriptor: a pending wait ends with operation_aborted (timed_out: timeout).
  void close(bool timed_out = false);
  // The next read is of a request the client has likely not sent yet (an answer was just
  // written): unless OpenSSL holds bytes already, it waits for the socket before reading, which
  // saves the read(2) that would find nothing. Safe with Asio's edge-triggered epoll: a read of
  // its own tries the socket at once unless its last read emptied it, and bytes arriving since
  // are an edge it has not seen yet.
  void read_waits_first() { read_waits_first_ = true; }

  // What one OpenSSL call did: bytes moved (or the operation finished), an error, or a wait.
  enum class Step { kDone, kWantRead, kWantWrite };

  template <class MutableBuffers, class Handler>
  auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    const bool wait = read_waits_first_ && SSL_has_pending(ssl_) == 0 && inbox_empty();
    read_waits_first_ = false;
    return start([buffers](TlsStream& s, std::size_t& n, error_code& ec) {
      return s.read_once(first_mutable(buffers), n, ec);
    }, std::forward<Handler>(handler), wait);
  }
  template <class ConstBuffers, class Handler>
  auto async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    return start([buffers](TlsStream& s, std::size_t& n, error_code& ec) {
      return s.write_once(first_const(buffers), n, ec);
    }, std::forward<Handler>(handler));
  }
  // The server's side of the handshake, from a connection just accepted; handler(error_code).
  // It waits for the socket first: the ClientHello is rarely there yet.
  template <class Handler>
  auto async_handshake(Handler&& handler) {
    return start_void([](TlsStream& s, std::size_t&, error_code& ec) { return s.handshake_once(ec); },
                      std::forward<Handler>(handler), /*wait_first=*/true);
  }
  // close_notify sent, the peer's awaited (bounded by the caller's deadline); handler(error_code).
  template <class Handler>
  auto async_shutdown(Handler&& handler) {
    return start_void([](TlsStream& s, std::size_t&, error_code& ec) { return s.shutdown_once(ec); },
                      std::forward<Handler>(handler));
  }

 private:
  template <class Attempt>
  struct Op {
    TlsStream& stream;
    Attempt attempt;
    bool waited = false;   // the first attempt is over: a result may be handed over directly
    bool wait_first = false;
    bool posted = false;   // the result was found at once and posted to be handed over
    bool reading = false;  // waiting by a read into the inbox
    std::size_t n = 0;
    error_code result;

    // Entered first, after a post, after a wait for a writable socket (ec), and after a read
    // into the inbox (ec, the bytes it holds now).
    template <class Self>
    void operator()(Self& self, error_code ec = {}, std::size_t received = 0) {
      if (posted) return self.complete(result, n);
      if (ec && !(reading && stream.read_ended(ec))) {
        return self.complete(stream.waited_error(ec), 0);
      }
      reading = false;
      if (!stream.is_open()) return self.complete(boost::asio::error::bad_descriptor, 0);
      stream.inbox_end_ += received;
      const Step step = wait_first ? Step::kWantRead : attempt(stream, n, result);
      wait_first = false;
      if (step == Step::kDone) {
        if (waited) return self.complete(result, n);
        posted = true;
        return boost::asio::post(stream.get_executor(), std::move(self));
      }
      waited = true;
      if (step == Step::kWantWrite) {
        return stream.socket_.async_wait(Socket::wait_write, std::move(self));
      }
      // Only SSL_shutdown asks for more without having read all there is: it reads next time.
      if (!stream.inbox_empty()) return boost::asio::post(stream.get_executor(), std::move(self));
      stream.inbox_begin_ = stream.inbox_end_ = 0;
      reading = true;
      stream.socket_.async_read_some(boost::asio::buffer(stream.inbox_), std::move(self));
    }
  };

  template <class Attempt, class Handler>
  auto start(Attempt attempt, Handler&& handler, bool wait_first = false) {
    return boost::asio::async_compose<Handler, void(error_code, std::size_t)>(
        Op<Attempt>{*this, std::move(attempt), false, wait_first, false, false, 0, error_code{}},
        handler, socket_);
  }
  template <class Attempt, class Handler>
  auto start_void(Attempt attempt, Handler&& handler, bool wait_first = false) {
    return start(
        std::move(attempt),
        [h = std::forward<Handler>(handler)](error_code ec, std::size_t) mutable { h(ec); },
        wait_first);
  }

  template <class Buffers>
  static boost::asio::mutable_buffer first_mutable(const Buffers& buffers) {
    for (boost::asio::mutable_buffer b : boost::beast::buffers_range_ref(buffers)) {
      if (b.size() > 0) return b;
    }
    return {};
  }
  template <class Buffers>
  static boost::asio::const_buffer first_const(const Buffers& buffers) {
    for (boost::asio::const_buffer b : boost::beast::buffers_range_ref(buffers)) {
      if (b.size() > 0) return b;
    }
    return {};
  }

  Step read_once(boost::asio::mutable_buffer b, std::size_t& n, error_code& ec);
  Step write_once(boost::asio::const_buffer b, std::size_t& n, error_code& ec);
  Step moved(int ret, std::size_t& n, error_code& ec);
  static Step nothing_to_move(std::size_t& n, error_code& ec);
  Step handshake_once(error_code& ec);
  Step shutdown_once(error_code& ec);
  // The outcome of an OpenSSL call that returned `ret` <= 0.
  Step failed(int ret, error_code& ec);
  error_code waited_error(error_code ec) const;
  // A read into the inbox that failed (eof, a reset): what OpenSSL's next read of the socket
  // will be told, true; false for an end that is the stream's (closed, timed out).
  bool read_ended(error_code ec);
  bool inbox_empty() const { return inbox_begin_ == inbox_end_; }

  // The stream's BIO (tls_stream.cpp): the inbox first, then the socket.
  friend struct SocketBio;
  int bio_read(char* out, int size);
  int bio_write(const char* in, int size);

  // Holds a PropagationPolicy review with its headers and its TLS record (~2.7 KB): the common
  // request arrives in the read that ended the wait. The rest of a larger one OpenSSL reads from
  // the socket itself.
  static constexpr std::size_t kInboxBytes = 4096;

  Socket socket_;
  SSL* ssl_ = nullptr;
  bool timed_out_ = false;
  bool read_waits_first_ = false;
  int read_error_ = 0;  // the inbox's failed read: -1 the peer's end of stream, else its errno
  std::size_t inbox_begin_ = 0;  // the bytes of inbox_ OpenSSL has not read yet, [begin, end)
  std::size_t inbox_end_ = 0;
  char inbox_[kInboxBytes];
};

}  // namespace kpw
