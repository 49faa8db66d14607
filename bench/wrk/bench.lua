-- wrk script for bench/run.ts: the request shape comes from the environment (headers come from -H), and done()
-- prints one machine-readable line that bench/wrk-output.ts parses. No request()/response() hooks, so wrk keeps
-- sending its pre-built request and the load generator's own cost stays low.
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
end

local function int(value)
  return math.floor(tonumber(value) or 0)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"bytes":%d,"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%d},' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    int(summary.requests), int(summary.duration), int(summary.bytes),
    int(latency:percentile(50)), int(latency:percentile(90)), int(latency:percentile(99)), int(latency.max), int(latency.mean),
    int(e.connect), int(e.read), int(e.write), int(e.status), int(e.timeout)))
end
