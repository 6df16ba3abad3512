-- wrk script for bench_http.py: POSTs a JSON-RPC tools/call, each with its own id, and checks
-- every answer: its id was sent and is seen once, no error, and the result is the one asked for
-- (the weather tool is asked for a city named after the id and must name it back).
--   wrk -t1 -c32 -d5s -s benchmarks/http_wrk.lua URL -- TOOL HEADER:VALUE...
-- TOOL is get_weather or list_records; the headers carry the protocol version (and the session
-- id, in stateful mode). done() prints one JSON line with the counts and the latency percentiles.

-- Globals, not locals: done() reads each thread's counts with thread:get, setup() sets prefix.
threads = {}
counter = 0
sent, answered, bad, dup, unknown = 0, 0, 0, 0, 0
seen = {}
tool = nil
prefix = nil

function setup(thread)
  thread:set("prefix", "w" .. #threads .. "-")
  table.insert(threads, thread)
end

function init(args)
  tool = args[1]
  for i = 2, #args do
    local k, v = args[i]:match("^([^:]+):(.*)$")
    wrk.headers[k] = v
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["Mcp-Method"] = "tools/call"
  wrk.headers["Mcp-Name"] = tool
end

local modern = nil

function request()
  counter = counter + 1
  sent = sent + 1
  local id = prefix .. counter
  local arguments
  if tool == "get_weather" then
    arguments = '{"city":"' .. id .. '"}'
  else
    arguments = '{"count":200}'
  end
  if modern == nil then
    modern = wrk.headers["Mcp-Protocol-Version"] == "2026-07-28"
  end
  local meta = ""
  if modern then
    meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
  end
  local body = '{"jsonrpc":"2.0","id":"' .. id .. '","method":"tools/call","params":{"name":"' .. tool
    .. '","arguments":' .. arguments .. meta .. '}}'
  return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
  answered = answered + 1
  local id = body:match('"id":"(w%d+%-%d+)"')
  if id == nil then
    bad = bad + 1
    return
  end
  local n = tonumber(id:match("%-(%d+)$"))
  if id:sub(1, #prefix) ~= prefix or n > counter then
    unknown = unknown + 1
  elseif seen[n] then
    dup = dup + 1
  else
    seen[n] = true
  end
  local ok = status == 200 and not body:find('"error":', 1, true) and not body:find('"isError":true', 1, true)
  if tool == "get_weather" then
    ok = ok and body:find('"city":"' .. id .. '"', 1, true) ~= nil
  else
    ok = ok and body:find('"total":200', 1, true) ~= nil
  end
  if not ok then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local s, a, b, d, u = 0, 0, 0, 0, 0
  for _, t in ipairs(threads) do
    s = s + t:get("sent")
    a = a + t:get("answered")
    b = b + t:get("bad")
    d = d + t:get("dup")
    u = u + t:get("unknown")
  end
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"sent":%d,"answered":%d,"bad":%d,'
      .. '"duplicated":%d,"unknown":%d,"socket_errors":%d,"non_2xx":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), s, a, b, d, u,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
