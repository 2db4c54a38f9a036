#include "server/tls_stream.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>

namespace kpw {
namespace {

namespace net = boost::asio;
using boost::system::error_code;

// A buffer's size as OpenSSL's int, capped (a call then moves part of it, as a partial write).
int int_size(std::size_t size) { return size > INT_MAX ? INT_MAX : static_cast<int>(size); }

// OpenSSL requires an empty error queue before a call whose outcome SSL_get_error reads; peeking
// is far cheaper than ERR_clear_error, which walks every slot of the queue each time.
// errno too, so that a stale value is not taken for the socket's error (SSL_ERROR_SYSCALL).
void clear_errors() {
  if (ERR_peek_error() != 0) ERR_clear_error();
  errno = 0;
}

}  // namespace

// OpenSSL's socket BIO, but reading the stream's inbox before the socket. As BIO_s_socket, a
// failure is a retry when BIO_sock_non_fatal_error says so (EAGAIN, EINTR, ...); what it answers
// that OpenSSL 3 asks: a flush is done at once, and after a read found the end of the
// stream BIO_eof is true (OpenSSL then tells a truncation, SSL_R_UNEXPECTED_EOF_WHILE_READING,
// from a close_notify).
struct SocketBio {
  static BIO_METHOD* method() {
    static BIO_METHOD* const m = [] {
      BIO_METHOD* made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "kpw socket");
      if (made == nullptr || BIO_meth_set_read(made, &read) != 1 ||
          BIO_meth_set_write(made, &write) != 1 || BIO_meth_set_ctrl(made, &ctrl) != 1) {
        throw std::runtime_error("BIO_meth_new failed");
      }
      return made;
    }();
    return m;
  }

  static TlsStream& stream(BIO* bio) { return *static_cast<TlsStream*>(BIO_get_data(bio)); }

  static int read(BIO* bio, char* out, int size) {
    BIO_clear_retry_flags(bio);
    const int ret = stream(bio).bio_read(out, size);
    if (ret == 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
    if (ret < 0 && BIO_sock_non_fatal_error(errno) != 0) BIO_set_retry_read(bio);
    return ret;
  }

  static int write(BIO* bio, const char* in, int size) {
    BIO_clear_retry_flags(bio);
    const int ret = stream(bio).bio_write(in, size);
    if (ret < 0 && BIO_sock_non_fatal_error(errno) != 0) BIO_set_retry_write(bio);
    return ret;
  }

  static long ctrl(BIO* bio, int cmd, long, void*) {
    switch (cmd) {
      case BIO_CTRL_FLUSH:
        return 1;
      case BIO_CTRL_EOF:
        return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0;
      default:
        return 0;
    }
  }
};

int TlsStream::bio_read(char* out, int size) {
  if (!inbox_empty()) {
    const std::size_t n = std::min(inbox_end_ - inbox_begin_, static_cast<std::size_t>(size));
    std::memcpy(out, inbox_ + inbox_begin_, n);
    inbox_begin_ += n;
    return static_cast<int>(n);
  }
  if (read_error_ != 0) {  // what the inbox's read found, once
    const int error = read_error_;
    read_error_ = 0;
    if (error < 0) return 0;
    errno = error;
    return -1;
  }
  const ssize_t n =
      ::read(static_cast<int>(socket_.native_handle()), out, static_cast<std::size_t>(size));
  return static_cast<int>(n);
}

int TlsStream::bio_write(const char* in, int size) {
  const ssize_t n = ::send(static_cast<int>(socket_.native_handle()), in,
                           static_cast<std::size_t>(size), MSG_NOSIGNAL);
  return static_cast<int>(n);
}

bool TlsStream::read_ended(error_code ec) {
  if (ec == net::error::operation_aborted) return false;
  read_error_ = ec == net::error::eof ? -1 : ec.value();
  return true;
}

TlsStream::TlsStream(Socket&& socket, net::ssl::context& ctx)
    : socket_(std::move(socket)), ssl_(SSL_new(ctx.native_handle())) {
  if (ssl_ == nullptr) throw std::runtime_error("SSL_new failed");
  // OpenSSL's reads and writes must never block the loop: Asio sets O_NONBLOCK only for its own
  // socket operations (the inbox's reads), and OpenSSL's are not.
  error_code ec;
  socket_.non_blocking(true, ec);
  if (ec) {
    SSL_free(ssl_);
    throw boost::system::system_error(ec, "O_NONBLOCK");
  }
  // Partial writes and a retry from a moved buffer, as net::async_write continues; the record
  // buffers are kept while requests come (OpenSSL's RELEASE_BUFFERS, which Asio sets, freed and
  // allocated ~17 KB twice per request; an idle connection lets them go, TlsSession::on_timer);
  // read-ahead takes a whole record (or several) in one read(2) instead of its 5-byte header
  // first.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_clear_mode(ssl_, SSL_MODE_RELEASE_BUFFERS);
  SSL_set_read_ahead(ssl_, 1);
  BIO* bio = BIO_new(SocketBio::method());
  if (bio == nullptr) {
    SSL_free(ssl_);
    throw std::runtime_error("BIO_new failed");
  }
  BIO_set_data(bio, this);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);  // one reference, for both directions
  SSL_set_accept_state(ssl_);
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

void TlsStream::close(bool timed_out) {
  if (!socket_.is_open()) return;
  timed_out_ = timed_out;
  error_code ignored;
  socket_.close(ignored);
}

error_code TlsStream::waited_error(error_code ec) const {
  if (ec == net::error::operation_aborted && timed_out_) return boost::beast::error::timeout;
  return ec;
}

TlsStream::Step TlsStream::read_once(net::mutable_buffer b, std::size_t& n, error_code& ec) {
  if (b.size() == 0) return nothing_to_move(n, ec);
  clear_errors();
  return moved(SSL_read(ssl_, b.data(), int_size(b.size())), n, ec);
}

TlsStream::Step TlsStream::write_once(net::const_buffer b, std::size_t& n, error_code& ec) {
  if (b.size() == 0) return nothing_to_move(n, ec);
  clear_errors();
  return moved(SSL_write(ssl_, b.data(), int_size(b.size())), n, ec);
}

// SSL_read's or SSL_write's `ret`: the bytes moved, or (0 or below) what failed.
TlsStream::Step TlsStream::moved(int ret, std::size_t& n, error_code& ec) {
  if (ret <= 0) {
    n = 0;
    return failed(ret, ec);
  }
  n = static_cast<std::size_t>(ret);
  ec = {};
  return Step::kDone;
}

// An empty buffer is never handed to OpenSSL (whose 0 would mean a failure): nothing moved.
TlsStream::Step TlsStream::nothing_to_move(std::size_t& n, error_code& ec) {
  n = 0;
  ec = {};
  return Step::kDone;
}

TlsStream::Step TlsStream::handshake_once(error_code& ec) {
  clear_errors();
  const int ret = SSL_do_handshake(ssl_);
  if (ret == 1) {
    ec = {};
    return Step::kDone;
  }
  return failed(ret, ec);
}

// 1: both close_notify alerts are through; 0: ours is sent, the peer's is awaited: the socket is
// waited for first (the peer has had no time to answer; reading now would find nothing), then
// SSL_shutdown again reads it.
TlsStream::Step TlsStream::shutdown_once(error_code& ec) {
  clear_errors();
  const int ret = SSL_shutdown(ssl_);
  if (ret == 1) {
    ec = {};
    return Step::kDone;
  }
  if (ret == 0) return Step::kWantRead;
  return failed(ret, ec);
}

// As Asio's engine maps them: the peer's close_notify is eof; a close without it is
// stream_truncated; a socket error is that error; anything else is OpenSSL's first error.
TlsStream::Step TlsStream::failed(int ret, error_code& ec) {
  const int err = SSL_get_error(ssl_, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return Step::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Step::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      ec = net::error::eof;
      return Step::kDone;
    case SSL_ERROR_SYSCALL: {
      const unsigned long code = ERR_get_error();
      if (code != 0) {
        ec = error_code(static_cast<int>(code), net::error::get_ssl_category());
      } else if (errno != 0 && ret < 0) {
        ec = error_code(errno, boost::system::system_category());
      } else {
        ec = net::ssl::error::stream_truncated;
      }
      ERR_clear_error();
      return Step::kDone;
    }
    default: {
      const unsigned long code = ERR_get_error();
      if (ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        ec = net::ssl::error::stream_truncated;
      } else {
        ec = error_code(static_cast<int>(code), net::error::get_ssl_category());
      }
      ERR_clear_error();
      return Step::kDone;
    }
  }
}

}  // namespace kpw
