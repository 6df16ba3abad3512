"""The client's side of Streamable HTTP: CPU per ``tools/call`` of the SDK's own client
(``mcp.client.Client`` on a URL; on the mcp 1.x line ``ClientSession`` over
``streamablehttp_client``), stock and adapted, against one MCPServer (1.x: FastMCP 1.x) under
uvicorn.

The server (``benchmarks/http_app.py``, adapted, stateless, logging at WARNING) runs in its own
process, one for JSON responses and one for SSE; the clients run one at a time, each in a process
of its own, stock (no adapters) or adapted (``install()``, every group), and call the weather and
the 200-record tools in a loop. What is reported is the client process's own CPU time per call
(user + system, ``CLOCK_PROCESS_CPUTIME_ID``, which is what ``/proc/<pid>/stat`` accumulates, at
nanosecond resolution), not wall time: on a shared machine the server and other load change the
round trip, much less the work the client does per call. Each figure is the median of
``--reps`` runs (stock and adapted alternate), and adapted/stock is given as "N× faster", with
``--groups http-client`` comparing the adapters with and without the HTTP client's group.

    python benchmarks/bench_http_client.py [--calls 300] [--reps 3] [--groups all|http-client]
    build/sdk-pairs/mcp-1.30.0+fastmcp-3.4.11/venv/bin/python benchmarks/bench_http_client.py
"""

# ruff: noqa: RUF001, RUF002 (speed-ups are written with the multiplication sign)
from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

CALLS = {"weather": ("get_weather", {"city": "Paris"}), "200 records": ("list_records", {"count": 200})}
# (response, state, the client's mode): a 2025-era session-less server, JSON and SSE, and a
# 2026-07-28 request (JSON: its SSE answers that complete at once are sent as JSON too). The 1.x
# line has the 2025 era only.
MCP1 = importlib.metadata.version("mcp").startswith("1.")
SHAPES = (
    (("json", "stateless", "legacy"), ("sse", "stateless", "legacy"))
    if MCP1
    else (
        ("json", "stateless-2025", "legacy"),
        ("sse", "stateless-2025", "legacy"),
        ("json", "stateless", "2026-07-28"),
    )
)
FRAMEWORK, GROUP = ("FastMCP 1.x", "http-client-1x") if MCP1 else ("MCPServer", "http-client")


def client(url: str, mode: str, tool: str, calls: int, adapt: str) -> None:
    """One client process: warm up, then CPU per call over ``calls`` calls, printed as JSON."""
    import asyncio

    if adapt != "stock":
        from mcp_native import adapters

        if adapt == "adapted":
            adapters.install()
        else:  # every group but the HTTP client's
            adapters.install()
            report = adapters.report()
            assert report is not None
            for group in report.groups:
                if group.spec.name == GROUP:
                    for patch in reversed(group.patches):
                        patch.restore()
    name, args = CALLS[tool]

    async def timed(call: Any) -> dict[str, Any]:
        for _ in range(30):
            await call()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(calls):
            result = await call()
            assert not (result.isError if MCP1 else result.is_error), result
        cpu1, wall1 = time.process_time(), time.perf_counter()
        return {"cpu_ms": 1000 * (cpu1 - cpu0) / calls, "wall_ms": 1000 * (wall1 - wall0) / calls}

    async def run() -> dict[str, Any]:
        if MCP1:  # (the names of mcp 1.x: the type checker sees 2.x)
            connect: Any = importlib.import_module("mcp.client.streamable_http").streamablehttp_client
            session_type: Any = importlib.import_module("mcp.client.session").ClientSession
            async with connect(url) as (read, write, _), session_type(read, write) as session:
                await session.initialize()
                return await timed(lambda: session.call_tool(name, args))
        from mcp.client import Client

        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            return await timed(lambda: c.call_tool(name, args))

    print(json.dumps(asyncio.run(run())))


def measure(url: str, mode: str, tool: str, calls: int, adapt: str) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--client", url, mode, tool, str(calls), adapt]
    env = {k: v for k, v in os.environ.items() if k != "MCP_NATIVE_ADAPTERS"}
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--groups", choices=("all", "http-client"), default="all")
    ap.add_argument("--client", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.client:
        url, mode, tool, calls, adapt = args.client
        client(url, mode, tool, int(calls), adapt)
        return 0

    import bench_http

    baseline = "stock" if args.groups == "all" else "without-http-client"
    print(
        f"Client CPU per tools/call over Streamable HTTP, mcp {importlib.metadata.version('mcp')}'s client: "
        f"{baseline} vs adapted "
        f"({args.calls} calls, median of {args.reps} runs)"
    )
    print(f"| response | mode | payload | {baseline} ms | adapted ms | speed-up |")
    print("|---|---|---|---:|---:|---:|")
    rows = []
    for response, state, mode in SHAPES:
        config = bench_http.Config(FRAMEWORK, response, state, 1)
        with open(os.devnull, "w") as log:
            server = bench_http.Server(config, "adapted", log)
            try:
                for tool in CALLS:
                    runs: dict[str, list[float]] = {baseline: [], "adapted": []}
                    for rep in range(args.reps):
                        order = (baseline, "adapted") if rep % 2 == 0 else ("adapted", baseline)
                        for adapt in order:
                            runs[adapt].append(measure(server.url, mode, tool, args.calls, adapt)["cpu_ms"])
                    before, after = statistics.median(runs[baseline]), statistics.median(runs["adapted"])
                    rows.append((response, mode, tool, before, after))
                    print(
                        f"| {response.upper()} | {mode} | {tool} | {before:.3f} | {after:.3f} | {before / after:.2f}× faster |",
                        flush=True,
                    )
            finally:
                server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
