// Permanent ids (M-6): random version 4 UUIDs, drawn from a per-thread pool of kernel randomness.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <thread>

#include "util/uuid.hpp"

namespace {

bool well_formed_v4(const std::string& id) {
  if (id.size() != 36) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const char c = id[i];
    if (dash != (c == '-')) return false;
    if (!dash && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return id[14] == '4' && std::string("89ab").find(id[19]) != std::string::npos;
}

}  // namespace

TEST_CASE("M-6 permanent ids are distinct well-formed v4 UUIDs across pool refills") {
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {  // 2000 x 16 bytes: the 4 KiB pool is refilled several times
    const kpw::UuidText id = kpw::random_uuid_v4();
    const std::string text(id.data(), id.size());
    INFO(text);
    REQUIRE(well_formed_v4(text));
    REQUIRE(seen.insert(text).second);
  }
}

TEST_CASE("M-6 each thread draws its own ids") {
  std::set<std::string> a, b;
  auto draw = [](std::set<std::string>& out) {
    for (int i = 0; i < 300; ++i) {
      const kpw::UuidText id = kpw::random_uuid_v4();
      out.emplace(id.data(), id.size());
    }
  };
  std::thread t1(draw, std::ref(a)), t2(draw, std::ref(b));
  t1.join();
  t2.join();
  CHECK(a.size() == 300);
  CHECK(b.size() == 300);
  for (const std::string& id : a) CHECK(b.count(id) == 0);
}
