#include "kube/watch_events.hpp"

#include <limits>
#include <utility>

#include "api/object.hpp"
#include "validators/resource_binding_quota.hpp"

namespace kpw::kube {

namespace {

constexpr std::string_view kRicKindName = "ResourceInterpreterCustomization";
constexpr std::string_view kQuotaKindName = "FederatedResourceQuota";

// Parses `text` with the thread's arena; the caller reads the document, then releases it (so no
// document outlives the text it points into).
const JsonValue* parse(std::string& text, std::string_view what, std::string& error) {
  JsonArena& arena = thread_json_arena();
  JsonParseResult parsed = arena.parse_in_place(text);
  if (!parsed.ok) {
    error = "cannot decode ";
    error += what;
    error += ": ";
    error += parsed.error;
    return nullptr;
  }
  if (!arena.document().IsObject()) {
    arena.release();
    error = std::string(what) + " is not a JSON object";
    return nullptr;
  }
  return &arena.document();
}

// A `kind` that is present, a non-empty string and not `expected`: what to say of it.
std::optional<std::string> other_kind(const JsonValue& object, std::string_view expected) {
  const std::string_view kind = string_or_empty(&object, "kind");
  if (kind.empty() || kind == expected) return std::nullopt;
  return "of kind " + echoed(kind) + ", expected " + std::string(expected);
}

// An object of `kind` (when it says) with a non-empty string metadata.name, into `name`.
std::optional<std::string> read_identity(const JsonValue& object, std::string_view kind,
                                         std::string& name) {
  if (!object.IsObject()) return "the object is not a JSON object";
  if (auto other = other_kind(object, kind)) return "the object is " + *other;
  const JsonValue* value = member(object_member(&object, "metadata"), "name");
  if (value == nullptr) return "the object has no metadata.name";
  if (!value->IsString()) return "the object's metadata.name is not a string";
  if (value->GetStringLength() == 0) return "the object's metadata.name is empty";
  name.assign(view(*value));
  return std::nullopt;
}

// A byte of a body that is not a Status, as a log line may show it.
char printable(char c) {
  if (c == '\t' || c == '\n' || c == '\r') return ' ';
  return c >= 0x20 && c < 0x7F ? c : '?';
}

}  // namespace

std::optional<std::string> read_ric(const JsonValue& object, RicSummary& out) {
  out.name.clear();
  out.resource_version.clear();
  out.target_api_version.clear();
  out.target_kind.clear();
  out.operations = 0;
  if (auto error = read_identity(object, kRicKindName, out.name)) return error;
  const JsonValue* metadata = object_member(&object, "metadata");
  out.resource_version.assign(string_or_empty(metadata, "resourceVersion"));
  const JsonValue* spec = object_member(&object, "spec");
  const JsonValue* target = object_member(spec, "target");
  out.target_api_version.assign(string_or_empty(target, "apiVersion"));
  out.target_kind.assign(string_or_empty(target, "kind"));
  const JsonValue* customizations = object_member(spec, "customizations");
  for (std::size_t i = 0; i < karmada::kExclusiveOperations; ++i) {
    const JsonValue* customization =
        object_member(customizations, karmada::kInterpreterOperations[i].customization);
    if (!string_or_empty(customization, "luaScript").empty()) {
      out.operations |= static_cast<karmada::OperationMask>(1u << i);
    }
  }
  return std::nullopt;
}

std::optional<std::string> read_quota_summary(const JsonValue& object, QuotaSummary& out) {
  out.ns.clear();
  out.name.clear();
  out.resource_version.clear();
  if (auto error = read_identity(object, kQuotaKindName, out.name)) return error;
  const JsonValue* metadata = object_member(&object, "metadata");
  const std::string_view ns = string_or_empty(metadata, "namespace");
  if (ns.empty()) return "the object has no metadata.namespace";
  out.ns.assign(ns);
  if (auto error = read_quota(object, out.entry)) return "the object: " + *error;
  out.resource_version = out.entry.resource_version;
  return std::nullopt;
}

namespace detail {

ReleaseDocument::~ReleaseDocument() { thread_json_arena().release(); }

std::optional<std::string> open_list(std::string& body, std::string_view list_kind,
                                     std::string& resource_version, std::string& continue_token,
                                     const JsonValue*& items) {
  items = nullptr;
  std::string error;
  const JsonValue* root = parse(body, "the list", error);
  if (root == nullptr) return error;
  if (string_or_empty(root, "kind") == "Status") {
    const ApiStatus status = read_status(*root);
    return "the list is a Status: " + status.message;
  }
  if (auto other = other_kind(*root, list_kind)) return "the list is " + *other;
  const JsonValue* metadata = object_member(root, "metadata");
  resource_version.assign(string_or_empty(metadata, "resourceVersion"));
  if (resource_version.empty()) return "the list has no metadata.resourceVersion";
  continue_token.assign(string_or_empty(metadata, "continue"));
  items = member(root, "items");
  if (items != nullptr && !items->IsArray()) {
    items = nullptr;
    return "the list's items is not an array";
  }
  return std::nullopt;
}

std::string_view event_name(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
    case EventType::kBookmark:
      return "BOOKMARK";
    case EventType::kError:
      return "ERROR";
  }
  return "";
}

std::optional<std::string> open_event(std::string& text, EventType& type, const JsonValue*& object,
                                      std::string& bookmark_version, ApiStatus& status) {
  type = EventType::kAdded;
  object = nullptr;
  std::string error;
  const JsonValue* root = parse(text, "the watch event", error);
  if (root == nullptr) return error;
  const JsonValue* type_value = member(root, "type");
  if (type_value == nullptr || !type_value->IsString()) return "the watch event has no type";
  const JsonValue* event_object = object_member(root, "object");
  if (event_object == nullptr) return "the watch event has no object";
  const std::string_view name = view(*type_value);
  if (name == "ADDED" || name == "MODIFIED" || name == "DELETED") {
    type = name == "ADDED"      ? EventType::kAdded
           : name == "MODIFIED" ? EventType::kModified
                                : EventType::kDeleted;
    object = event_object;
    return std::nullopt;
  }
  if (name == "BOOKMARK") {
    type = EventType::kBookmark;
    bookmark_version.assign(
        string_or_empty(object_member(event_object, "metadata"), "resourceVersion"));
    if (bookmark_version.empty()) return "the BOOKMARK event has no metadata.resourceVersion";
    return std::nullopt;
  }
  if (name == "ERROR") {
    type = EventType::kError;
    status = read_status(*event_object);
    return std::nullopt;
  }
  return "unknown watch event type " + echoed(name);
}

}  // namespace detail

ApiStatus read_status(const JsonValue& object) {
  ApiStatus status;
  const std::optional<std::int64_t> code = int_member(&object, "code");
  if (code && *code >= std::numeric_limits<int>::min() &&
      *code <= std::numeric_limits<int>::max()) {
    status.code = static_cast<int>(*code);
  }
  status.reason.assign(string_or_empty(&object, "reason"));
  status.message.assign(string_or_empty(&object, "message"));
  return status;
}

std::string status_text(unsigned status_code, std::string_view body, std::string_view error) {
  if (status_code == 0) return std::string(error);
  const ApiStatus status = read_status(body);
  std::string text = "HTTP " + std::to_string(status_code);
  if (!status.reason.empty()) text += " " + status.reason;
  if (!status.message.empty()) text += ": " + status.message;
  if (!error.empty()) text += " (" + std::string(error) + ")";
  return text;
}

ApiStatus read_status(std::string_view body) {
  const std::size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && body[first] == '{') {
    std::string text(body);
    std::string error;
    const detail::ReleaseDocument release;
    const JsonValue* root = parse(text, "the body", error);
    if (root != nullptr && string_or_empty(root, "kind") == "Status") return read_status(*root);
  }
  ApiStatus status;
  const std::string_view kept = body.substr(0, kMaxStatusEchoBytes);
  status.message.reserve(kept.size());
  for (const char c : kept) status.message += printable(c);
  while (!status.message.empty() && status.message.back() == ' ') status.message.pop_back();
  if (kept.size() < body.size()) {
    status.message += "... (" + std::to_string(body.size()) + " bytes)";
  }
  return status;
}

// --- EventFramer ---

EventFramer::EventFramer(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

std::uint64_t EventFramer::head() const {
  if (!ready_.empty()) return ready_.front().begin;
  if (in_event_) return event_begin_;
  return base_ + buffer_.size();
}

std::size_t EventFramer::buffered() const {
  return static_cast<std::size_t>(base_ + buffer_.size() - head());
}

// Drops the bytes before head() when they are at least as many as those kept: each move copies
// no more bytes than were dropped, so moves cost as much as the stream once, in all.
void EventFramer::compact() {
  const std::size_t dropped = static_cast<std::size_t>(head() - base_);
  if (dropped == 0 || dropped < buffer_.size() - dropped) return;
  buffer_.erase(0, dropped);
  base_ += dropped;
  // After a large event, give its memory back rather than hold it for the stream's life.
  if (buffer_.empty() && buffer_.capacity() > (std::size_t{1} << 20)) std::string().swap(buffer_);
}

void EventFramer::fail(std::string error) {
  error_ = std::move(error);
  // The event being framed can never complete: keep only the whole events before the break.
  in_event_ = false;
  if (ready_.empty()) {
    std::string().swap(buffer_);
  } else {
    buffer_.resize(static_cast<std::size_t>(ready_.back().end - base_));
  }
}

std::optional<std::string> EventFramer::feed(std::string_view bytes) {
  if (error_) return error_;
  compact();
  const std::size_t from = buffer_.size();
  buffer_.append(bytes);
  const char* data = buffer_.data();
  const std::size_t size = buffer_.size();
  for (std::size_t i = from; i < size; ++i) {
    const char c = data[i];
    if (!in_event_) {
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      if (c != '{') {
        std::string error = "watch stream: unexpected byte ";
        if (c >= 0x20 && c < 0x7F) {
          error += '\'';
          error += c;
          error += "' ";
        }
        static constexpr char kHex[] = "0123456789abcdef";
        const unsigned char u = static_cast<unsigned char>(c);
        error += "(0x";
        error += kHex[u >> 4];
        error += kHex[u & 15];
        error += ") between events at stream offset " + std::to_string(base_ + i);
        fail(std::move(error));
        return error_;
      }
      in_event_ = true;
      event_begin_ = base_ + i;
      depth_ = 1;
      continue;
    }
    if (base_ + i - event_begin_ >= max_event_bytes_) {
      fail("watch stream: an event is longer than " + std::to_string(max_event_bytes_) + " bytes");
      return error_;
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        break;
      case '{':
      case '[':
        ++depth_;
        break;
      case '}':
      case ']':
        if (--depth_ == 0) {
          in_event_ = false;
          ready_.push_back(Range{event_begin_, base_ + i + 1});
        }
        break;
      default:
        break;
    }
  }
  // Whitespace scanned between events is dropped (head() moved past it).
  if (ready_.empty() && !in_event_) {
    base_ += buffer_.size();
    buffer_.clear();
  }
  return std::nullopt;
}

bool EventFramer::next(std::string& event) {
  if (ready_.empty()) return false;
  const Range range = ready_.front();
  ready_.pop_front();
  event.assign(buffer_, static_cast<std::size_t>(range.begin - base_),
               static_cast<std::size_t>(range.end - range.begin));
  if (ready_.empty() && !in_event_) {  // nothing kept: empty the buffer without moving a byte
    base_ += buffer_.size();
    buffer_.clear();
  }
  return true;
}

void EventFramer::reset() {
  std::string().swap(buffer_);
  base_ = 0;
  ready_.clear();
  in_event_ = false;
  event_begin_ = 0;
  depth_ = 0;
  in_string_ = false;
  escaped_ = false;
  error_.reset();
}

}  // namespace kpw::kube
