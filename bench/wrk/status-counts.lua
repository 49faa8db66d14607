-- wrk script for bench/login-flood.ts: bench.lua's request shape and BENCH_RESULT line, plus a count of responses by
-- HTTP status (a flood's answers are 200s, 429s and maybe 503s, which bench.lua only counts together as errors),
-- printed as one more line: BENCH_STATUSES {"<status>":<count>,...}.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "bench.lua")

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

local result_line = done

function done(summary, latency, requests)
  result_line(summary, latency, requests)
  local totals = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses") or {}) do
      totals[status] = (totals[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(totals) do
    parts[#parts + 1] = string.format('"%d":%d', status, count)
  end
  io.write('BENCH_STATUSES {' .. table.concat(parts, ',') .. '}\n')
end
