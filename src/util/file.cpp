#include "util/file.hpp"

#include <fstream>
#include <iostream>

namespace kpw {
namespace {

bool read_stream(std::istream& in, std::string& out) {
  char buffer[64 * 1024];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    out.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  return !in.bad();
}

}  // namespace

bool read_file(const std::string& path, std::string& out) {
  out.clear();
  if (path == "-") return read_stream(std::cin, out);
  std::ifstream in(path, std::ios::binary);
  return in && read_stream(in, out);
}

}  // namespace kpw
