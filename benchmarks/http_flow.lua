-- wrk script for bench_http.py's state "flow": each tools/call is a whole session, as a client
-- that connects for one call does it: POST initialize, POST notifications/initialized, POST
-- tools/call, DELETE /mcp, against a server that answers in JSON (stateless, or with sessions:
-- then the session initialize opens is named in the three requests after it). Every answer is
-- checked: initialize's id is the one sent and its result names the protocol version expected;
-- the notification gets the status expected (202); the call's id is the one sent, with no error,
-- and the weather tool, asked for a city named after the call, names it back; DELETE gets the
-- status expected (what stock answers: 405 on a stateless server of mcp 2.x, 200 with sessions).
--   wrk -tN -cN -d5s -s benchmarks/http_flow.lua URL -- VERSION INITIALIZED_STATUS DELETE_STATUS
-- One connection per thread (-t equal to -c): each thread has a Lua state of its own, so the step
-- of the flow and the id in flight are that connection's own. A step whose request failed on the
-- socket is sent again (wrk reconnects; its counts say so), and so is the first one of the first
-- thread (wrk builds a request there to check the script, and does not send it): "resent" counts
-- the requests built again before an answer. done() prints one JSON line.

-- Globals, not locals: done() reads each thread's counts with thread:get, setup() sets prefix.
threads = {}
prefix = nil
version, initialized_status, delete_status = nil, nil, nil
step = 1 -- 1 initialize, 2 notifications/initialized, 3 tools/call, 4 DELETE
flow = 0 -- the number of the flow in progress
flow_ok = true
session = nil -- Mcp-Session-Id, if initialize answered with one (a stateless server does not)
requests, answered, flows, ok_flows = 0, 0, 0, 0
in_flight, resent = 0, 0 -- a request built and not answered yet (0 or 1); built again before its answer
bad_initialize, bad_initialized, bad_call, bad_delete = 0, 0, 0, 0

function setup(thread)
  thread:set("prefix", "f" .. #threads .. "-")
  table.insert(threads, thread)
end

function init(args)
  version = args[1]
  initialized_status = tonumber(args[2])
  delete_status = tonumber(args[3])
end

local function headers(with_version)
  -- A fresh table each time: wrk.format sets Content-Length in the one it is given.
  local h = {
    ["Host"] = wrk.headers["Host"],
    ["Accept"] = "application/json, text/event-stream",
  }
  if with_version then
    h["Mcp-Protocol-Version"] = version
  end
  if session then
    h["Mcp-Session-Id"] = session
  end
  return h
end

local function post(h, body)
  h["Content-Type"] = "application/json"
  return wrk.format("POST", nil, h, body)
end

function request()
  requests = requests + 1
  if in_flight == 1 then
    resent = resent + 1
  end
  in_flight = 1
  if step == 1 then
    flow = flow + 1
    flow_ok = true
    session = nil
    return post(headers(false), '{"jsonrpc":"2.0","id":"' .. prefix .. flow .. '-i","method":"initialize","params":'
      .. '{"protocolVersion":"' .. version .. '","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}')
  elseif step == 2 then
    return post(headers(true), '{"jsonrpc":"2.0","method":"notifications/initialized"}')
  elseif step == 3 then
    local id = prefix .. flow
    return post(headers(true), '{"jsonrpc":"2.0","id":"' .. id .. '","method":"tools/call","params":'
      .. '{"name":"get_weather","arguments":{"city":"' .. id .. '"}}}')
  else
    return wrk.format("DELETE", nil, headers(true), nil)
  end
end

local function header(hs, name)
  for k, v in pairs(hs) do
    if k:lower() == name then
      return v
    end
  end
  return nil
end

local function id_of(body)
  return body:match('^%s*{.-"id"%s*:%s*"([^"]*)"')
end

function response(status, hs, body)
  answered = answered + 1
  in_flight = 0
  local ok
  if step == 1 then
    ok = status == 200
      and (header(hs, "content-type") or ""):find("application/json", 1, true) == 1
      and id_of(body) == prefix .. flow .. "-i"
      and body:match('"protocolVersion"%s*:%s*"([^"]*)"') == version
      and body:find('"serverInfo"', 1, true) ~= nil
      and not body:find('"error"%s*:')
    session = header(hs, "mcp-session-id")
    if not ok then
      bad_initialize = bad_initialize + 1
    end
  elseif step == 2 then
    ok = status == initialized_status
    if not ok then
      bad_initialized = bad_initialized + 1
    end
  elseif step == 3 then
    local id = prefix .. flow
    ok = status == 200
      and id_of(body) == id
      and not body:find('"error"%s*:')
      and not body:find('"isError"%s*:%s*true')
      and body:match('"city"%s*:%s*"([^"]*)"') == id
    if not ok then
      bad_call = bad_call + 1
    end
  else
    ok = status == delete_status
    if not ok then
      bad_delete = bad_delete + 1
    end
  end
  flow_ok = flow_ok and ok
  if step == 4 then
    flows = flows + 1
    if flow_ok then
      ok_flows = ok_flows + 1
    end
    step = 1
  else
    step = step + 1
  end
end

function done(summary, latency, _)
  local totals = {}
  local keys = { "requests", "answered", "in_flight", "resent", "flows", "ok_flows", "bad_initialize",
    "bad_initialized", "bad_call", "bad_delete" }
  for _, k in ipairs(keys) do
    totals[k] = 0
    for _, t in ipairs(threads) do
      totals[k] = totals[k] + t:get(k)
    end
  end
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"sent":%d,"answered":%d,"in_flight":%d,"resent":%d,'
      .. '"flows":%d,"ok_flows":%d,"bad_initialize":%d,"bad_initialized":%d,"bad_call":%d,"bad_delete":%d,'
      .. '"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), totals.requests,
    totals.answered, totals.in_flight, totals.resent, totals.flows, totals.ok_flows, totals.bad_initialize,
    totals.bad_initialized, totals.bad_call,
    totals.bad_delete,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
