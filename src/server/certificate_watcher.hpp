// Re-reads the serving certificate when its files change: a changed pair that loads replaces the
// context for new handshakes (open connections keep theirs); a broken one is logged and the old
// pair kept.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <ctime>
#include <string>

#include "server/server.hpp"
#include "server/tls_context.hpp"

namespace kpw {

// What identifies the content of a file for change detection (stat follows the symlinks a
// Secret volume swaps).
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  bool operator==(const FileStamp& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

// Checks the files every cert_check_interval, on the loop it is given.
class CertificateWatcher {
 public:
  // `current` is the context new handshakes take.
  CertificateWatcher(boost::asio::io_context& ioc, const ServerOptions& options,
                     std::atomic<TlsContext>& current);

  void start();
  void stop() { timer_.cancel(); }

 private:
  void check();

  boost::asio::steady_timer timer_;
  const ServerOptions& options_;
  std::atomic<TlsContext>& current_;
  FileStamp cert_;
  FileStamp key_;
};

}  // namespace kpw
