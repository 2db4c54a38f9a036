-- wrk script: POST one AdmissionReview body, over and over, on keep-alive connections.
--
--   BODY_FILE=test/bench/pp-review.json BENCH_PATH=/validate-propagationpolicy \
--     wrk -t2 -c50 -d10s --latency -s test/bench/post.lua https://127.0.0.1:8443
--
-- BODY_FILE: the request body (required). BENCH_PATH: the request path (default: the URL's).
-- CHECK_ANSWERS=1: check every answer (HTTP 200 and a "response" in its body) and add
-- `answers_ok=N answers_bad=M` to the WRK_RESULT line. Off by default: it needs a Lua response()
-- hook per request (wrk then parses and hands over every answer), which costs wrk CPU; the
-- stall phase of run.sh turns it on for its hostile client, whose requests are few and slow.
--
-- The body is read when the script loads (wrk's setup phase, once per Lua state: the main one
-- and each thread's) and handed to wrk's own request builder, so the request is formatted once
-- and stays static — no Lua runs per request, wrk stays as cheap as it can be on a shared box.
--
-- done() prints one parseable line:
--   WRK_RESULT requests=N duration_s=S rps=R p50_us=A p99_us=B mean_us=C max_us=D
--              non2xx=E connect_errors=F read_errors=G write_errors=H timeouts=I
-- Latencies are in microseconds. non2xx is wrk's status-error count (answers with HTTP status
-- >= 400; counting 1xx/3xx as well would need a Lua response() hook per request, and the
-- server never sends either).

local body_file = os.getenv("BODY_FILE")
if body_file == nil or body_file == "" then
  error("post.lua: set BODY_FILE to the AdmissionReview JSON to POST")
end
local f, err = io.open(body_file, "rb")
if f == nil then
  error("post.lua: cannot read BODY_FILE " .. body_file .. ": " .. tostring(err))
end
local body = f:read("*a")
f:close()

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
local path = os.getenv("BENCH_PATH")
if path ~= nil and path ~= "" then
  wrk.path = path
end

local check = os.getenv("CHECK_ANSWERS") == "1"
local threads = {}
if check then
  -- Globals of each thread's Lua state, read by done() through thread:get().
  answers_ok, answers_bad = 0, 0

  function setup(thread)
    table.insert(threads, thread)
  end

  function response(status, headers, body)
    if status == 200 and body ~= nil and string.find(body, '"response"', 1, true) then
      answers_ok = answers_ok + 1
    else
      answers_bad = answers_bad + 1
    end
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local answers = ""
  if check then
    local ok, bad = 0, 0
    for _, thread in ipairs(threads) do
      ok = ok + (thread:get("answers_ok") or 0)
      bad = bad + (thread:get("answers_bad") or 0)
    end
    answers = string.format(" answers_ok=%d answers_bad=%d", ok, bad)
  end
  io.write(string.format(
    "WRK_RESULT requests=%d duration_s=%.2f rps=%.1f p50_us=%d p99_us=%d mean_us=%.0f " ..
    "max_us=%d non2xx=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d%s\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max,
    e.status, e.connect, e.read, e.write, e.timeout, answers))
end
