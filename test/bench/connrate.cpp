// New TLS connections per second, closed loop: each of --connections slots repeats
// TCP connect -> full TLS 1.3 handshake -> one POSTed review (`Connection: close`) -> read the
// whole answer -> close, for --seconds. Nothing is resumed: every handshake is a full one (X25519
// key exchange, the server's ECDSA P-256 signature checked as TLS 1.3 requires).
//
//   connrate --port P --body FILE [--path /validate-propagationpolicy] [--connections 32]
//            [--seconds 5] [--warmup 1] [--threads 2]
//
// The client side is GnuTLS, not OpenSSL: client and server share this machine's cores, and an
// OpenSSL 3.0 client spends ~450 µs of CPU per handshake (a third of it decoding the server's
// certificate key), twice what the server spends, so it measured the client. GnuTLS needs about
// half that, closer to what the API server's Go client costs. wrk with `Connection: close` is
// worse still (~500 µs, most of it polling reads during the handshake).
//
// Like wrk it does not verify the certificate chain (the server's work is the same either way).
// Every answer must be HTTP 200 with "allowed":true, or it counts as an error. --threads: each
// thread polls its share of the slots.
//
// Prints one line:
//   CONNRATE connections=N seconds=S rate=R errors=E p50_us=A p99_us=B client_cpu_us=C ...
// where client_cpu_us is this process's own CPU time per connection.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  unsigned short port = 0;
  std::string body_file, path = "/validate-propagationpolicy";
  unsigned connections = 32, seconds = 5, warmup = 1, threads = 2;
};

// One thread's tallies, summed at the end.
struct Tally {
  unsigned long done = 0, errors = 0;
  std::vector<double> latencies_us;
};

// One connection after another: connect, handshake, write the request, read the answer, close.
class Slot {
 public:
  enum class State { kIdle, kConnecting, kHandshake, kWriting, kReading };

  Slot(const sockaddr_in& server, const std::string& request, gnutls_certificate_credentials_t cred,
       gnutls_priority_t priority)
      : server_(server), request_(request), cred_(cred), priority_(priority) {}
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() { close(); }

  // Starts the next connection; false when the socket cannot even be made.
  bool start() {
    started_ = Clock::now();
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    const int on = 1;  // as Go's net package (the API server's client) does by default
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&server_), sizeof server_) != 0 &&
        errno != EINPROGRESS) {
      return false;
    }
    gnutls_init(&session_, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_TICKETS);
    gnutls_priority_set(session_, priority_);
    gnutls_credentials_set(session_, GNUTLS_CRD_CERTIFICATE, cred_);
    gnutls_server_name_set(session_, GNUTLS_NAME_DNS, "localhost", 9);
    gnutls_transport_set_int(session_, fd_);
    answer_.clear();
    written_ = 0;
    state_ = State::kConnecting;
    events_ = POLLOUT;
    return true;
  }

  int fd() const { return fd_; }
  short events() const { return events_; }
  State state() const { return state_; }
  Clock::time_point started() const { return started_; }

  // Advances on readiness. Returns +1 when a connection finished with a good answer, -1 when it
  // failed, 0 while it is still under way.
  int step() {
    switch (state_) {
      case State::kConnecting: {
        int error = 0;
        socklen_t len = sizeof error;
        ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
        if (error != 0) return fail();
        state_ = State::kHandshake;
        [[fallthrough]];
      }
      case State::kHandshake: {
        const int r = gnutls_handshake(session_);
        if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) return wait();
        if (r < 0) return fail();
        state_ = State::kWriting;
        [[fallthrough]];
      }
      case State::kWriting:
        while (written_ < request_.size()) {
          const ssize_t n =
              gnutls_record_send(session_, request_.data() + written_, request_.size() - written_);
          if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) return wait();
          if (n < 0) return fail();
          written_ += static_cast<std::size_t>(n);
        }
        state_ = State::kReading;
        [[fallthrough]];
      case State::kReading:
        for (;;) {
          char buf[4096];
          const ssize_t n = gnutls_record_recv(session_, buf, sizeof buf);
          if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) return wait();
          if (n <= 0) return fail();  // closed (or an error) before the whole answer
          answer_.append(buf, static_cast<std::size_t>(n));
          if (const int verdict = complete_answer()) return finish(verdict > 0);
        }
      case State::kIdle:
        break;
    }
    return fail();
  }

 private:
  // 0 while the answer is incomplete; +1 for a whole HTTP 200 answer allowing the review; -1 for
  // a whole answer that does not.
  int complete_answer() const {
    const std::size_t head_end = answer_.find("\r\n\r\n");
    if (head_end == std::string::npos) return 0;
    const std::string_view head(answer_.data(), head_end);
    const std::size_t cl = head.find("Content-Length: ");
    if (cl == std::string_view::npos) return -1;
    const std::size_t length = std::strtoul(head.data() + cl + 16, nullptr, 10);
    if (answer_.size() < head_end + 4 + length) return 0;
    const bool ok = head.substr(0, 12) == "HTTP/1.1 200" &&
                    answer_.find("\"allowed\":true", head_end) != std::string::npos;
    return ok ? 1 : -1;
  }

  int wait() {
    events_ = gnutls_record_get_direction(session_) == 1 ? POLLOUT : POLLIN;
    return 0;
  }
  int finish(bool ok) {
    close();
    return ok ? 1 : -1;
  }
  int fail() { return finish(false); }

  void close() {
    if (session_ != nullptr) {
      gnutls_deinit(session_);
      session_ = nullptr;
    }
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    state_ = State::kIdle;
  }

  const sockaddr_in& server_;
  const std::string& request_;
  gnutls_certificate_credentials_t cred_;
  gnutls_priority_t priority_;
  gnutls_session_t session_ = nullptr;
  int fd_ = -1;
  State state_ = State::kIdle;
  short events_ = 0;
  std::size_t written_ = 0;
  std::string answer_;
  Clock::time_point started_;
};

void run_slots(unsigned count, const sockaddr_in& server, const std::string& request,
               gnutls_certificate_credentials_t cred, gnutls_priority_t priority,
               Clock::time_point measure_from, Clock::time_point stop_at, Tally& tally) {
  std::vector<std::unique_ptr<Slot>> slots;
  for (unsigned i = 0; i < count; ++i) {
    slots.push_back(std::make_unique<Slot>(server, request, cred, priority));
  }
  auto count_result = [&](const Slot& s, bool ok) {
    const Clock::time_point now = Clock::now();
    if (s.started() < measure_from || now > stop_at) return;  // warm-up, or past the end
    if (!ok) {
      ++tally.errors;
      return;
    }
    ++tally.done;
    tally.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(now - s.started()).count());
  };
  auto restart = [&](Slot& s) {
    while (Clock::now() < stop_at) {
      if (s.start()) return;
      count_result(s, false);
    }
  };
  for (auto& s : slots) restart(*s);
  std::vector<pollfd> fds(slots.size());
  while (Clock::now() < stop_at) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      fds[i] = pollfd{slots[i]->fd(), slots[i]->events(), 0};
    }
    if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      Slot& s = *slots[i];
      if (const int r = s.step(); r != 0) {
        count_result(s, r > 0);
        restart(s);
      }
    }
  }
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t i =
      std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int usage() {
  std::fprintf(stderr,
               "usage: connrate --port P --body FILE [--path P] [--connections N] [--seconds N] "
               "[--warmup N] [--threads N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    const auto number = [&] { return static_cast<unsigned>(std::atoi(value.c_str())); };
    if (flag == "--port")
      o.port = static_cast<unsigned short>(number());
    else if (flag == "--body")
      o.body_file = value;
    else if (flag == "--path")
      o.path = value;
    else if (flag == "--connections")
      o.connections = number();
    else if (flag == "--seconds")
      o.seconds = number();
    else if (flag == "--warmup")
      o.warmup = number();
    else if (flag == "--threads")
      o.threads = number();
    else {
      std::fprintf(stderr, "connrate: unknown flag %s\n", flag.c_str());
      return usage();
    }
  }
  if (o.port == 0 || o.body_file.empty() || o.connections == 0 || o.seconds == 0 ||
      o.threads == 0 || o.threads > o.connections) {
    return usage();
  }
  std::ifstream in(o.body_file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "connrate: cannot read %s\n", o.body_file.c_str());
    return 2;
  }
  const std::string body{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string request = "POST " + o.path + "?timeout=3s HTTP/1.1\r\nHost: localhost\r\n" +
                              "Content-Type: application/json\r\nConnection: close\r\n" +
                              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;

  gnutls_global_init();
  gnutls_certificate_credentials_t cred;
  gnutls_certificate_allocate_credentials(&cred);
  gnutls_priority_t priority;
  // TLS 1.3, one key share (X25519), as a Go client sends.
  if (gnutls_priority_init(&priority, "NORMAL:-VERS-ALL:+VERS-TLS1.3:-GROUP-ALL:+GROUP-X25519",
                           nullptr) != GNUTLS_E_SUCCESS) {
    std::fprintf(stderr, "connrate: GnuTLS refused the priority string\n");
    return 2;
  }
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(o.port);
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

  const Clock::time_point start = Clock::now();
  const Clock::time_point measure_from = start + std::chrono::seconds(o.warmup);
  const Clock::time_point stop_at = measure_from + std::chrono::seconds(o.seconds);
  std::vector<Tally> tallies(o.threads);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < o.threads; ++t) {
    const unsigned share = o.connections / o.threads + (t < o.connections % o.threads ? 1 : 0);
    threads.emplace_back(run_slots, share, std::cref(server), std::cref(request), cred, priority,
                         measure_from, stop_at, std::ref(tallies[t]));
  }
  // Process CPU at the edges of the measured window.
  std::this_thread::sleep_until(measure_from);
  const double cpu_from = cpu_seconds();
  std::this_thread::sleep_until(stop_at);
  const double cpu_to = cpu_seconds();
  for (std::thread& t : threads) t.join();

  unsigned long done = 0, errors = 0;
  std::vector<double> l;
  for (Tally& t : tallies) {
    done += t.done;
    errors += t.errors;
    l.insert(l.end(), t.latencies_us.begin(), t.latencies_us.end());
  }
  gnutls_priority_deinit(priority);
  gnutls_certificate_free_credentials(cred);
  gnutls_global_deinit();

  const double seconds = static_cast<double>(o.seconds);
  const double p50 = percentile(l, 0.50), p99 = percentile(l, 0.99);
  std::printf(
      "CONNRATE connections=%lu seconds=%.2f rate=%.1f errors=%lu p50_us=%.0f p99_us=%.0f "
      "client_cpu_us=%.1f slots=%u threads=%u\n",
      done, seconds, static_cast<double>(done) / seconds, errors, p50, p99,
      done > 0 ? (cpu_to - cpu_from) * 1e6 / static_cast<double>(done) : 0.0, o.connections,
      o.threads);
  return done > 0 && errors == 0 ? 0 : 1;
}
