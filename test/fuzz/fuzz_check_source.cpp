// libFuzzer: untrusted bytes as a policy file for `check`: the YAML/JSON loader must return
// objects or a syntax error, never crash or recurse without bound; every object it returns must
// answer position lookups.
#include <cstdint>
#include <string>

#include "check/source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const kpw::check::LoadedFile file = kpw::check::load(text);
  for (const kpw::check::SourceObject& obj : file.objects) {
    (void)obj.locate("spec.placement.clusterAffinities[1].affinityName");
    (void)obj.locate("metadata.labels[a/b]");
  }
  return 0;
}
