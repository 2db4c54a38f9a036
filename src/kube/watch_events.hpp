// The API server's LIST pages, watch stream framing and events, Status bodies, read without I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/quota.hpp"
#include "api/interpreter_operations.hpp"
#include "json/json.hpp"

// The readers that take a text (read_list, read_status, read_event) parse it with the
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
// What an answer of the API server says went wrong, for a log line or a review's message:
// "HTTP 409 Conflict: <the Status's message>", or the client's error when no answer came.
std::string status_text(unsigned status, std::string_view body, std::string_view error);

// Reads one RIC object into `out` (every field set anew). An error when the value is not an
// object, when metadata.name is missing, not a string or empty, or when `kind` is present and
// names another kind.
std::optional<std::string> read_ric(const JsonValue& object, RicSummary& out);

// What a watch cache keeps of one FederatedResourceQuota (RB-2): its namespace and what RB-2
// reads (admission/quota.hpp).
struct QuotaSummary {
  std::string ns;
  std::string name;
  std::string resource_version;
  QuotaEntry entry;

  bool operator==(const QuotaSummary&) const = default;
};
// Reads one FederatedResourceQuota into `out`, as read_ric does (metadata.namespace required).
std::optional<std::string> read_quota_summary(const JsonValue& object, QuotaSummary& out);

// The kind a cache watches, for the readers below: a Summary has `name` and `resource_version`.
template <class Summary>
struct WatchedKind {
  std::string_view list_kind;  // the LIST answer's kind
  std::optional<std::string> (*read)(const JsonValue& object, Summary& out);
};
inline constexpr WatchedKind<RicSummary> kRicKind{"ResourceInterpreterCustomizationList",
                                                  &read_ric};
inline constexpr WatchedKind<QuotaSummary> kQuotaKind{"FederatedResourceQuotaList",
                                                      &read_quota_summary};

// A LIST page: {"kind":"<Kind>List", "metadata":{"resourceVersion":"..","continue":".."},
// "items":[...]}.
template <class Summary>
struct ListPageOf {
  std::vector<Summary> items;
  std::string resource_version;  // the list's: the watch starts from the last page's
  std::string continue_token;    // "" on the last page
};
using ListPage = ListPageOf<RicSummary>;

enum class EventType { kAdded, kModified, kDeleted, kBookmark, kError };

template <class Summary>
struct WatchEventOf {
  EventType type = EventType::kAdded;
  Summary object;    // ADDED/MODIFIED/DELETED: the object; BOOKMARK: only resource_version filled
  ApiStatus status;  // ERROR: the Status (code 410 = resourceVersion too old: the cache relists)
};

using WatchEvent = WatchEventOf<RicSummary>;

namespace detail {
// Releases the thread's JSON document however a read ends.
struct ReleaseDocument {
  ~ReleaseDocument();
};
// Parses a LIST answer (the thread's arena: release with ReleaseDocument); `items` null when
// absent or null.
std::optional<std::string> open_list(std::string& body, std::string_view list_kind,
                                     std::string& resource_version, std::string& continue_token,
                                     const JsonValue*& items);
// Parses one event: its type, and the object of ADDED/MODIFIED/DELETED, the resourceVersion of
// a BOOKMARK or the Status of an ERROR.
std::optional<std::string> open_event(std::string& text, EventType& type, const JsonValue*& object,
                                      std::string& bookmark_version, ApiStatus& status);
std::string_view event_name(EventType type);
}  // namespace detail

// Parses `body` in place. An error when it is not JSON, not an object, another kind, has no
// metadata.resourceVersion (nothing to watch from), `items` is not an array, or an item does not
// read (with its index).
template <class Summary>
std::optional<std::string> read_list(std::string& body, const WatchedKind<Summary>& kind,
                                     ListPageOf<Summary>& out) {
  out.items.clear();
  out.resource_version.clear();
  out.continue_token.clear();
  const detail::ReleaseDocument release;
  const JsonValue* items = nullptr;
  if (auto error = detail::open_list(body, kind.list_kind, out.resource_version, out.continue_token,
                                     items)) {
    return error;
  }
  if (items == nullptr) return std::nullopt;
  out.items.resize(items->Size());
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    if (auto item_error = kind.read((*items)[i], out.items[i])) {
      out.items.clear();
      return "the list's items[" + std::to_string(i) + "]: " + *item_error;
    }
  }
  return std::nullopt;
}
inline std::optional<std::string> read_ric_list(std::string& body, ListPage& out) {
  return read_list(body, kRicKind, out);
}

// One event's JSON text {"type":"ADDED","object":{...}}, parsed in place; every field of `out`
// set anew. An error for invalid JSON, a missing type or object, an unknown type, an object that
// does not read, or a BOOKMARK without metadata.resourceVersion.
template <class Summary>
std::optional<std::string> read_event(std::string& text, const WatchedKind<Summary>& kind,
                                      WatchEventOf<Summary>& out) {
  out.object = Summary{};
  out.status = ApiStatus{};
  const detail::ReleaseDocument release;
  const JsonValue* object = nullptr;
  if (auto error =
          detail::open_event(text, out.type, object, out.object.resource_version, out.status)) {
    return error;
  }
  if (object == nullptr) return std::nullopt;
  if (auto error = kind.read(*object, out.object)) {
    return "the " + std::string(detail::event_name(out.type)) + " event: " + *error;
  }
  return std::nullopt;
}
inline std::optional<std::string> read_watch_event(std::string& text, WatchEvent& out) {
  return read_event(text, kRicKind, out);
}

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
