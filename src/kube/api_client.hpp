// A client of one Kubernetes API server, the little the watch caches and RB-2's status writes need
// of client-go's REST client: GET or PATCH a whole body, or GET a watch and stream its body; every
// wait bounded, the requests rate-limited, one call at a time on the caller's thread, stoppable
// from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "kube/kube_config.hpp"

namespace kpw::kube {

// Like client-go's token bucket (--kube-api-qps, --kube-api-burst); several clients may share
// one, as one client-go client's requests do.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst);
  // Takes a token now (0), or says how long until one is due (nothing taken).
  std::chrono::duration<double> take();

 private:
  std::mutex mutex_;
  const double qps_;
  const double burst_;
  double tokens_;
  std::chrono::steady_clock::time_point refilled_;
};

struct ClientLimits {
  std::chrono::milliseconds connect_timeout{10'000};  // resolve, TCP connect and TLS handshake
  std::chrono::milliseconds request_timeout{60'000};  // a whole GET, from the request's write
  std::size_t max_body_bytes = 256u << 20;            // a GET's body (a list page)
  // Like upstream's --kube-api-qps and --kube-api-burst: a token bucket before every request.
  double qps = 40;
  int burst = 60;
  // Shared with other clients (RB-2's writes); null: the client has a bucket of its own.
  std::shared_ptr<RateLimiter> limiter;
};

struct Response {
  unsigned status = 0;  // 0: no HTTP answer (error says why)
  std::string body;     // a GET's body; a watch's body only when its status is not 200 (≤ 64 KiB)
  std::string error;    // "" when an answer arrived and was read to its end
  bool ok() const { return status == 200 && error.empty(); }
};

class ApiClient {
 public:
  // The TLS context is made here: a CA, client pair or key that does not load is an error now.
  static std::optional<std::string> make(const KubeConfig& config, const ClientLimits& limits,
                                         std::unique_ptr<ApiClient>& out);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // GET `target` (path and query) and read the whole answer.
  Response get(std::string_view target);
  // Any method with a body of `content_type` (RB-2's status write: PATCH), the whole answer read.
  Response send(std::string_view method, std::string_view target, std::string_view body,
                std::string_view content_type);
  // Every later call ends by `deadline` at the latest (connect, rate limit and answer included),
  // until it is cleared with nullopt.
  void set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline);

  // GET a watch: `on_bytes` is called with the body's bytes as they arrive (return false to stop
  // reading) until the server ends the answer, a read waits longer than `idle`, an error, or
  // stop(). While waiting, `tick` (if set) is called every `tick_period`.
  Response watch(std::string_view target, std::chrono::milliseconds idle,
                 const std::function<bool(std::string_view)>& on_bytes,
                 const std::function<void()>& tick = {},
                 std::chrono::milliseconds tick_period = std::chrono::milliseconds(100));

  // After a 401: the token file is read again before the next request.
  void credentials_rejected();
  // Sleeps `d`, or less when stop() is called; false once stopping.
  bool sleep_for(std::chrono::milliseconds d);
  // Any thread: the call in progress returns at once with an error, and so does every later one.
  void stop();
  bool stopping() const;
  const KubeConfig& config() const;

 private:
  struct Impl;
  explicit ApiClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kpw::kube
