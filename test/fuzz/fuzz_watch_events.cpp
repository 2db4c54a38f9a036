// libFuzzer: untrusted bytes as the watch caches read them from the API server
// (src/kube/watch_events.hpp). The input's first three bytes choose where to split it, the size of
// the pieces and the framer's event limit; the rest is a watch stream, framed in one piece, in
// two parts then pieces, and (up to 1 KiB) a byte at a time: every way must give the same events
// and the same break, each event a whole bracketed text of the stream with only whitespace
// before it, and what the framer keeps bounded. Every event is read with read_watch_event, the
// whole stream with read_watch_event, read_ric_list and read_status; every event also as the
// quota cache reads it, each quota read then charged as RB-2 charges it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/watch_events.hpp"
#include "validators/resource_binding_quota.hpp"

namespace {

using kpw::kube::EventFramer;

[[noreturn]] void fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz_watch_events: %s\ninput (%zu bytes): %.*s\n", what, input.size(),
               static_cast<int>(input.size()), input.data());
  std::abort();
}

struct Framed {
  std::vector<std::string> events;
  std::optional<std::string> error;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Feeds `stream` as [0, split) then pieces of `piece` bytes, taking every event after each feed
// and checking what the framer keeps.
Framed frame(std::string_view stream, std::size_t split, std::size_t piece, std::size_t limit) {
  EventFramer framer(limit);
  Framed out;
  std::string text;
  std::size_t at = 0;
  while (at < stream.size() && !out.error) {
    const std::size_t n = at == 0 && split > 0 ? split : piece;
    const std::string_view bytes = stream.substr(at, n);
    at += bytes.size();
    out.error = framer.feed(bytes);
    if (framer.buffered() > limit + bytes.size())
      fail("the framer keeps more than allowed", stream);
    while (framer.next(text)) out.events.push_back(text);
    if (framer.buffered() > limit) fail("the framer keeps more than an event", stream);
    if (out.error != framer.feed("")) fail("feed() forgot or invented a break", stream);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 3, size - 3);
  const std::size_t split = stream.empty() ? 0 : data[0] % (stream.size() + 1);
  const std::size_t piece = 1 + data[1] % 64;
  // Small limits to reach the limit's error; 0x80 and above: the default (16 MiB).
  const std::size_t limit = data[2] < 0x80 ? 2 + std::size_t{data[2]} * 4 : 16u << 20;

  const Framed whole = frame(stream, 0, stream.size() + 1, limit);
  const Framed pieces = frame(stream, split, piece, limit);
  if (whole.events != pieces.events) fail("pieces frame other events than one feed", stream);
  if (whole.error != pieces.error) fail("pieces break otherwise than one feed", stream);
  if (stream.size() <= 1024) {
    const Framed bytes = frame(stream, 0, 1, limit);
    if (bytes.events != whole.events || bytes.error != whole.error) {
      fail("a byte at a time frames otherwise than one feed", stream);
    }
  }

  // Each event is the next text of the stream after whitespace, whole and within the limit.
  std::size_t at = 0;
  for (const std::string& event : whole.events) {
    while (at < stream.size() && is_space(stream[at])) ++at;
    if (stream.substr(at, event.size()) != event) fail("an event is not the stream's text", stream);
    if (event.size() > limit || event.front() != '{' ||
        (event.back() != '}' && event.back() != ']')) {
      fail("an event is not one bracketed text within the limit", stream);
    }
    at += event.size();
  }
  if (!whole.error) {  // the rest: whitespace, then at most the start of an event
    while (at < stream.size() && is_space(stream[at])) ++at;
    if (at < stream.size() && stream[at] != '{') fail("bytes left unframed", stream);
  }

  kpw::kube::WatchEvent event;
  std::string text;
  for (const std::string& framed : whole.events) {
    text = framed;
    if (!kpw::kube::read_watch_event(text, event)) {
      const bool object = event.type == kpw::kube::EventType::kAdded ||
                          event.type == kpw::kube::EventType::kModified ||
                          event.type == kpw::kube::EventType::kDeleted;
      if (object && event.object.name.empty()) fail("an object event without a name", framed);
      if (event.type == kpw::kube::EventType::kBookmark && event.object.resource_version.empty()) {
        fail("a bookmark without a resourceVersion", framed);
      }
    }
  }
  text.assign(stream);
  (void)kpw::kube::read_watch_event(text, event);

  // The same events as the quota cache reads them (RB-2), each quota then charged as a review
  // would charge it: lists sorted, what is written only above zero.
  kpw::kube::WatchEventOf<kpw::kube::QuotaSummary> quota_event;
  const kpw::ResourceAmounts delta = {{"cpu", kpw::Quantity::of(1500, -3)},
                                      {"memory", kpw::Quantity::of(-1, 6)},
                                      {"nvidia.com/gpu", kpw::Quantity::of(2, 0)}};
  kpw::ResourceAmounts used;
  kpw::QuotaJudgment judged;
  std::string patch;
  const auto by_name = [](const auto& a, const auto& b) { return a.name < b.name; };
  for (const std::string& framed : whole.events) {
    text = framed;
    if (kpw::kube::read_event(text, kpw::kube::kQuotaKind, quota_event)) continue;
    if (quota_event.type != kpw::kube::EventType::kAdded &&
        quota_event.type != kpw::kube::EventType::kModified) {
      continue;
    }
    const kpw::QuotaEntry& quota = quota_event.object.entry;
    if (quota_event.object.ns.empty() || quota.name.empty()) fail("a quota without a name", framed);
    if (!std::is_sorted(quota.overall.begin(), quota.overall.end(), by_name) ||
        !std::is_sorted(quota.used.begin(), quota.used.end(), by_name)) {
      fail("a quota's lists are not sorted", framed);
    }
    for (const kpw::StrictRules mode : {kpw::StrictRules::kDeny, kpw::StrictRules::kOff}) {
      if (kpw::check_quota("ns", quota, delta, mode, used, judged) == kpw::QuotaCheck::kCharged) {
        for (const kpw::ResourceAmount& a : used) {
          if (a.value.sign() <= 0) fail("a charge writes an amount that is not above zero", framed);
        }
        patch.clear();
        kpw::append_overall_used_patch(quota, used, patch);
      }
    }
  }

  text.assign(stream);
  kpw::kube::ListPage page;
  if (!kpw::kube::read_ric_list(text, page)) {
    if (page.resource_version.empty()) fail("a list without a resourceVersion", stream);
    for (const kpw::kube::RicSummary& item : page.items) {
      if (item.name.empty()) fail("a list item without a name", stream);
    }
  } else if (!page.items.empty()) {
    fail("a refused list left items", stream);
  }

  // A body that cannot be a JSON object is echoed: printable ASCII, cut with its length.
  const kpw::kube::ApiStatus status = kpw::kube::read_status(stream);
  const std::size_t first = stream.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || stream[first] != '{') {
    if (status.code != 0 || !status.reason.empty()) fail("a Status read from no object", stream);
    const std::size_t marker = sizeof("... ( bytes)") - 1 + std::to_string(stream.size()).size();
    if (status.message.size() > kpw::kube::kMaxStatusEchoBytes + marker) {
      fail("an echo longer than its limit", stream);
    }
    for (const char c : status.message) {
      if (c < 0x20 || c >= 0x7F) fail("an echo that is not printable", stream);
    }
  }
  return 0;
}
