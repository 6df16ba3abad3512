"""Per tools/call cost of the low-level Server's output validation, 200 records (examples/payloads.py's
list_records): in process and over stdio. Run from the repository root:
.venv/bin/python benchmarks/bench_lowlevel_validation.py"""

import asyncio
import json
import statistics
import subprocess
import sys
import time

import jsonschema

sys.path.insert(0, "examples")
import lowlevel_app
from mcp import types

from mcp_native import adapters
from mcp_native.adapters import _validation

PARAMS = types.CallToolRequestParams(name="list_records", arguments={"count": 200})


def handler_time(n=1000):
    server = lowlevel_app.server
    asyncio.run(server.get_request_handler("tools/list").handler(None, None))
    call = server.get_request_handler("tools/call")

    async def loop():
        t = time.perf_counter()
        for _ in range(n):
            await call.handler(None, PARAMS)
        return (time.perf_counter() - t) / n * 1e6

    return asyncio.run(loop())


stock, adapted = [], []
for _ in range(7):
    stock.append(handler_time())
    adapters.install(output_validation="error")
    adapted.append(handler_time())
    adapters.uninstall()
print(
    f"in process, the tools/call handler as the runner gets it (min of 7x1000): stock {min(stock):.0f} us, validated {min(adapted):.0f} us (+{min(adapted) - min(stock):.0f} us)"
)
data = lowlevel_app.list_records(200)
val = _validation.output_validator(lowlevel_app.RECORDS)
best = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(1000):
        _validation.first_error(val, data)
    best.append((time.perf_counter() - t) / 1000 * 1e6)
print(f"the check alone, compiled validator: {min(best):.1f} us")
v = jsonschema.validators.validator_for(lowlevel_app.RECORDS)(lowlevel_app.RECORDS)
t = time.perf_counter()
for _ in range(100):
    v.validate(data)
print(
    f"python-jsonschema, cached validator (mcp 1.x's low-level check): {(time.perf_counter() - t) / 100 * 1e6:.0f} us"
)


def stdio(mode, n=500):
    cmd = [
        sys.executable,
        *(["-m", "mcp_native", "run", "--quiet", "--output-validation", mode] if mode else []),
        "examples/lowlevel_app.py",
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
    return statistics.median(times[100:]) * 1e6


rounds = {None: [], "off": [], "error": []}
for _ in range(3):
    for mode in rounds:
        rounds[mode].append(stdio(mode))
for mode, ts in rounds.items():
    print(
        f"stdio round trip, median per call, best of 3 runs: {'stock' if mode is None else 'adapted, output_validation=' + mode}: {min(ts):.0f} us"
    )
