// The API server's LIST pages, watch stream framing and events, Status bodies, read without I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/interpreter_operations.hpp"
#include "json/json.hpp"

// The readers that take a text (read_ric_list, read_status, read_watch_event) parse it with the
// calling thread's JsonArena (thread_json_arena()) and leave that arena empty: whatever document
// the thread held is gone. The cache calls them on its own thread, never on a review thread.

namespace kpw::kube {

// What RIC-1 needs of one ResourceInterpreterCustomization, nothing more (the cache holds these,
// not objects).
struct RicSummary {
  std::string name;                // metadata.name
  std::string resource_version;    // metadata.resourceVersion
  std::string target_api_version;  // spec.target.apiVersion ("" if absent)
  std::string target_kind;         // spec.target.kind
  // Bit i: kInterpreterOperations[i]'s customization has a non-empty luaScript.
  karmada::OperationMask operations = 0;

  bool operator==(const RicSummary&) const = default;
};

// Reads one RIC object into `out` (every field set anew). An error when the value is not an
// object, when metadata.name is missing, not a string or empty, or when `kind` is present and
// names another kind.
std::optional<std::string> read_ric(const JsonValue& object, RicSummary& out);

// A LIST page: {"kind":"ResourceInterpreterCustomizationList",
// "metadata":{"resourceVersion":"..","continue":".."},"items":[...]}.
struct ListPage {
  std::vector<RicSummary> items;
  std::string resource_version;  // the list's: the watch starts from the last page's
  std::string continue_token;    // "" on the last page
};
// Parses `body` in place. An error when it is not JSON, not an object, another kind, has no
// metadata.resourceVersion (nothing to watch from), `items` is not an array, or an item is not
// a RIC (read_ric, with its index).
std::optional<std::string> read_ric_list(std::string& body, ListPage& out);

// A metav1.Status (the body of a non-2xx answer, the object of an ERROR event).
struct ApiStatus {
  int code = 0;  // 0: the body was not a Status
  std::string reason;
  std::string message;

  bool operator==(const ApiStatus&) const = default;
};
// The longest piece of a body that is not a Status kept as the message.
inline constexpr std::size_t kMaxStatusEchoBytes = 200;
// Lenient: a body that is not a JSON object of kind Status gives code 0 and, as message, its
// first kMaxStatusEchoBytes bytes with every byte that is not printable ASCII as '?' (a tab or
// line break as a space, trailing spaces dropped) and "... (N bytes)" when cut. Copies the body.
ApiStatus read_status(std::string_view body);
// A Status object's code (0 when absent or not an int), reason and message ("" when absent).
ApiStatus read_status(const JsonValue& object);

enum class EventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  EventType type = EventType::kAdded;
  RicSummary object;  // ADDED/MODIFIED/DELETED: the RIC; BOOKMARK: only resource_version filled
  ApiStatus status;   // ERROR: the Status (code 410 = resourceVersion too old: the cache relists)
};
// One event's JSON text {"type":"ADDED","object":{...}}, parsed in place; every field of `out`
// set anew. An error for invalid JSON, a missing type or object, an unknown type, an object that
// is not a RIC, or a BOOKMARK without metadata.resourceVersion.
std::optional<std::string> read_watch_event(std::string& text, WatchEvent& out);

// The watch stream's framing: the API server writes one JSON object per event, each followed by
// "\n", in HTTP chunks that split events anywhere. Feed it bytes as they arrive; take whole
// events out. Framed by JSON structure (bracket depth outside strings, escapes honoured), not by
// newline: whitespace between objects is skipped, anything else there is an error, and so is an
// event over max_event_bytes. Whether an event is valid JSON is read_watch_event's question.
// Each byte is scanned once (the scan state lives across feed() calls) and moved at most once
// more, amortised. The bytes kept (buffered()) are the events not yet taken and the one being
// framed, so a caller that takes every event after each feed keeps at most max_event_bytes plus
// one feed's bytes (the buffer's size is at most twice what it keeps, plus one feed).
class EventFramer {
 public:
  explicit EventFramer(std::size_t max_event_bytes = 16u << 20);

  // Appends bytes and frames them. Returns an error once the stream is broken, and from then on
  // (the caller drops the connection); the events completed before the break can still be taken.
  std::optional<std::string> feed(std::string_view bytes);
  // Moves the next whole event's text into `event` (reusing its capacity); false when none is
  // complete.
  bool next(std::string& event);
  // Forgets everything, the break included (a new connection).
  void reset();
  // The bytes kept: events not yet taken and the event being framed.
  std::size_t buffered() const;
  bool broken() const { return error_.has_value(); }

 private:
  struct Range {
    std::uint64_t begin, end;  // stream offsets
  };
  std::uint64_t head() const;  // stream offset of the first byte kept
  void compact();
  void fail(std::string error);

  std::size_t max_event_bytes_;
  std::string buffer_;  // the stream from offset base_ on
  std::uint64_t base_ = 0;
  std::deque<Range> ready_;  // whole events not yet taken
  // The scan: every byte before base_ + buffer_.size() has been scanned.
  bool in_event_ = false;
  std::uint64_t event_begin_ = 0;
  std::size_t depth_ = 0;  // brackets open in the event
  bool in_string_ = false;
  bool escaped_ = false;
  std::optional<std::string> error_;
};

}  // namespace kpw::kube
