"""Per tools/call cost of the low-level Server's output validation, 200 records (examples/payloads.py's
list_records): in process and over stdio. Run from the repository root:
.venv/bin/python benchmarks/bench_lowlevel_validation.py

With mcp 1.x installed (build/sdk-1x/mcp-1.30.0/bin/python benchmarks/bench_lowlevel_validation.py)
it measures examples/lowlevel1_app.py instead, whose stock handler runs jsonschema.validate on the
arguments and the result of every call, against the adapted handler's compiled validators."""

import asyncio
import importlib.metadata
import json
import statistics
import subprocess
import sys
import time

import jsonschema

sys.path.insert(0, "examples")
from mcp import types

from mcp_native import adapters
from mcp_native.adapters._engines import validation as _validation

MCP1 = importlib.metadata.version("mcp").startswith("1.")
APP = "examples/lowlevel1_app.py" if MCP1 else "examples/lowlevel_app.py"


def mcp1_handler_time(n=1000):
    """The stock or adapted tools/call handler of mcp 1.x's low-level Server, as the session calls it."""
    import lowlevel1_app

    server = lowlevel1_app.Server("bench")  # built after install(): its handlers are the adapted ones
    server.list_tools()(lowlevel1_app.handle_list_tools)
    server.call_tool()(lowlevel1_app.handle_call_tool)
    req = types.CallToolRequest(params=types.CallToolRequestParams(name="list_records", arguments={"count": 200}))
    call = server.request_handlers[types.CallToolRequest]

    async def loop():
        await call(req)  # fills the tool cache
        t = time.perf_counter()
        for _ in range(n):
            await call(req)
        return (time.perf_counter() - t) / n * 1e6

    return asyncio.run(loop())


def handler_time(n=1000):
    if MCP1:
        return mcp1_handler_time(n)
    import lowlevel_app

    params = types.CallToolRequestParams(name="list_records", arguments={"count": 200})
    server = lowlevel_app.server
    asyncio.run(server.get_request_handler("tools/list").handler(None, None))
    call = server.get_request_handler("tools/call")

    async def loop():
        t = time.perf_counter()
        for _ in range(n):
            await call.handler(None, params)
        return (time.perf_counter() - t) / n * 1e6

    return asyncio.run(loop())


CALLS = 100 if MCP1 else 1000  # a stock 1.x call takes tens of ms
stock, adapted = [], []
for _ in range(7):
    stock.append(handler_time(CALLS))
    adapters.install(output_validation="error")
    adapted.append(handler_time(CALLS))
    adapters.uninstall()
if MCP1:
    print(
        f"in process, mcp 1.x's tools/call handler (min of 7x{CALLS}): stock (jsonschema.validate) {min(stock):.0f} us, adapted {min(adapted):.0f} us: {min(stock) / min(adapted):.1f}x faster"
    )
else:
    print(
        f"in process, the tools/call handler as the runner gets it (min of 7x{CALLS}): stock {min(stock):.0f} us, validated {min(adapted):.0f} us (+{min(adapted) - min(stock):.0f} us)"
    )
app = __import__("lowlevel1_app" if MCP1 else "lowlevel_app")
data = app.list_records(200)
val = _validation.output_validator(app.RECORDS)
best = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(1000):
        _validation.first_error(val, data)
    best.append((time.perf_counter() - t) / 1000 * 1e6)
print(f"the check alone, compiled validator: {min(best):.1f} us")
v = jsonschema.validators.validator_for(app.RECORDS)(app.RECORDS)
t = time.perf_counter()
for _ in range(100):
    v.validate(data)
print(f"python-jsonschema, cached validator: {(time.perf_counter() - t) / 100 * 1e6:.0f} us")
t = time.perf_counter()
for _ in range(100):
    jsonschema.validate(instance=data, schema=app.RECORDS)
per_call = (time.perf_counter() - t) / 100 * 1e6
print(
    f"python-jsonschema, jsonschema.validate as mcp 1.x's handler calls it (a new validator and a metaschema check per call): {per_call:.0f} us; the compiled validator is {per_call / min(best):.0f}x faster"
)


def stdio(mode, n=100 if MCP1 else 500):
    cmd = [
        sys.executable,
        *(["-m", "mcp_native", "run", "--quiet", "--output-validation", mode] if mode else []),
        APP,
    ]
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}},
    }
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()

    send(init)
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    p.stdout.readline()
    times = []
    for i in range(n):
        t = time.perf_counter()
        send(
            {
                "jsonrpc": "2.0",
                "id": i + 2,
                "method": "tools/call",
                "params": {"name": "list_records", "arguments": {"count": 200}},
            }
        )
        p.stdout.readline()
        times.append(time.perf_counter() - t)
    p.stdin.close()
    p.wait()
    return statistics.median(times[n // 5 :]) * 1e6  # after the warm-up


rounds = {None: [], "off": [], "error": []}
for _ in range(3):
    for mode in rounds:
        rounds[mode].append(stdio(mode))
for mode, ts in rounds.items():
    print(
        f"stdio round trip, median per call, best of 3 runs: {'stock' if mode is None else 'adapted, output_validation=' + mode}: {min(ts):.0f} us"
        + ("" if mode is None else f" ({min(rounds[None]) / min(ts):.1f}x faster)")
    )
