#include "server/certificate_watcher.hpp"

#include <sys/stat.h>

#include "server/metrics.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

FileStamp stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return FileStamp{st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

}  // namespace

CertificateWatcher::CertificateWatcher(boost::asio::io_context& ioc, const ServerOptions& options,
                                       std::atomic<TlsContext>& current)
    : timer_(ioc),
      options_(options),
      current_(current),
      cert_(stamp(options.cert_file)),
      key_(stamp(options.key_file)) {}

void CertificateWatcher::start() {
  timer_.expires_after(options_.cert_check_interval);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    check();
    start();
  });
}

void CertificateWatcher::check() {
  const FileStamp cert = stamp(options_.cert_file);
  const FileStamp key = stamp(options_.key_file);
  if (cert == cert_ && key == key_) return;
  cert_ = cert;
  key_ = key;
  TlsContext fresh;
  if (auto error = load_tls_context(options_.cert_file, options_.key_file, options_.tls_min_version,
                                    fresh)) {
    metrics::certificate_reloaded(false);
    log::error("certificate changed but cannot be used; keeping the previous one",
               {{"error", *error}});
    return;
  }
  current_.store(std::move(fresh));
  metrics::certificate_reloaded(true);
  log::info("certificate reloaded", {{"cert", options_.cert_file}});
}

}  // namespace kpw
