-- wrk script for bench/cluster-vs-etcd.ts: every request is a write of something new, so that no two requests
-- (in this run or any other) create the same identity or put the same key. Names are
-- <WRK_NAME_PREFIX>-<thread>-<counter>: the prefix is unique per wrk run (cluster-vs-etcd.ts makes it), the thread
-- number comes from setup() and the counter is per thread, so uniqueness needs no randomness.
-- WRK_WRITE_KIND picks the body:
--   identity: {"name":"<name>","isAdmin":false}, for POST /edge/management/v1/identities; with WRK_ROLE_GROUPS=<n>
--     (bench/scale-bench.ts) it also carries "roleAttributes":["<WRK_ROLE_PREFIX>-<k>"], k = counter mod n (thread
--     offset added), so that policies naming one group's attribute select about 1/n of the identities;
--   etcd: {"key":base64("<name>"),"value":base64(<128 bytes>)}, for etcd's JSON gateway POST /v3/kv/put.
-- Headers (zt-session, content-type) come from -H; done() and the method come from bench.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "bench.lua")

local kind = os.getenv("WRK_WRITE_KIND") or "identity"
local prefix = os.getenv("WRK_NAME_PREFIX") or "bench"
local roleGroups = tonumber(os.getenv("WRK_ROLE_GROUPS") or "")
local rolePrefix = os.getenv("WRK_ROLE_PREFIX") or "group"

local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(text)
  local out = {}
  for i = 1, #text, 3 do
    local a, b, c = text:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local sextets = { math.floor(n / 262144) % 64, math.floor(n / 4096) % 64, math.floor(n / 64) % 64, n % 64 }
    local chars = (b == nil) and 2 or ((c == nil) and 3 or 4)
    for j = 1, 4 do
      if j <= chars then
        local s = sextets[j] + 1
        out[#out + 1] = alphabet:sub(s, s)
      else
        out[#out + 1] = "="
      end
    end
  end
  return table.concat(out)
end

local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local counter = 0
local value64 = base64(string.rep("v", 128))

function request()
  counter = counter + 1
  local name = prefix .. "-" .. tostring(thread_number or 0) .. "-" .. tostring(counter)
  local body
  if kind == "etcd" then
    body = '{"key":"' .. base64(name) .. '","value":"' .. value64 .. '"}'
  else
    local roles = ""
    if roleGroups and roleGroups > 0 then
      local group = (counter + (thread_number or 0) * 7919) % roleGroups
      roles = ',"roleAttributes":["' .. rolePrefix .. "-" .. tostring(group) .. '"]'
    end
    body = '{"name":"' .. name .. '","isAdmin":false' .. roles .. '}'
  end
  return wrk.format(nil, nil, nil, body)
end
