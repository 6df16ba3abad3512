"""The mcp 1.x line over stdio, stock vs on mcp-native, driven by the SDK's own client.

Run with the Python of an environment that has mcp 1.x (and fastmcp 2.x/3.x for its row), from
the repository root:

    build/sdk-1x/mcp-1.30.0/bin/python benchmarks/bench_mcp1.py
    build/sdk-1x/fastmcp-3.4.11/bin/python benchmarks/bench_mcp1.py

Per server (FastMCP 1.x, mcp 1.x's low-level ``Server``, and fastmcp when installed), one stock
process (``python examples/<app>.py``) and one adapted (``python -m mcp_native run ...``) run side
by side; rounds alternate between them, and the client in this process has the adapters
installed exactly when it talks to the adapted server (as ``bench_adapters.py`` does on 2.x).
Reported: the median round trip per ``tools/call``, stock and adapted, adapted/stock and the
speed-up (stock time / adapted time), and the server process's CPU time per call (user + system,
all its threads, as the server reports it: ``cpu_server.py``, as in ``bench_adapters.py``), for
the weather report and the 200-record table.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp.client.stdio
from bench_adapters import children, server_cpu
from mcp import ClientSession, StdioServerParameters

from mcp_native import adapters

ROOT = Path(__file__).resolve().parents[1]
APPS = {
    "FastMCP (mcp 1.x)": ROOT / "examples" / "fastmcp1_app.py",
    "low-level Server (mcp 1.x)": ROOT / "examples" / "lowlevel1_app.py",
}
if importlib.util.find_spec("fastmcp") is not None:
    APPS["fastmcp"] = ROOT / "examples" / "fastmcp_app.py"
CALLS = {"weather": ("get_weather", {"city": "Paris"}), "200 records": ("list_records", {"count": 200})}
MODES = ("stock", "adapted")


def set_client(mode: str) -> None:
    if mode == "adapted":
        adapters.install(server=False)
    else:
        adapters.uninstall()


async def measure(rounds: int, calls: int) -> dict[str, Any]:
    times = {app: {p: {m: [] for m in MODES} for p in CALLS} for app in APPS}
    cpu = {app: {p: dict.fromkeys(MODES, 0.0) for p in CALLS} for app in APPS}
    async with AsyncExitStack() as stack:
        errlog = stack.enter_context(open("/dev/null", "w"))  # noqa: SIM115 (closed by the stack)
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sessions: dict[tuple[str, str], Any] = {}
        pids: dict[tuple[str, str], int] = {}
        for n, (app, path) in enumerate(APPS.items()):
            for mode in MODES:
                set_client(mode)
                args = [str(path)] if mode == "stock" else ["-m", "mcp_native", "run", "--quiet", str(path)]
                args = [str(ROOT / "benchmarks" / "cpu_server.py"), str(tmp / f"{n}-{mode}.cpu"), *args]
                params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
                before = children()
                read, write = await stack.enter_async_context(mcp.client.stdio.stdio_client(params, errlog=errlog))
                (pids[app, mode],) = children() - before
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                await session.list_tools()
                sessions[app, mode] = session
        try:
            for r in range(rounds):
                for n, app in enumerate(APPS):
                    for payload, (tool, args) in CALLS.items():
                        for mode in MODES if r % 2 == 0 else MODES[::-1]:
                            set_client(mode)
                            session = sessions[app, mode]
                            cpu_file = tmp / f"{n}-{mode}.cpu"
                            c0 = await server_cpu(session, pids[app, mode], cpu_file)
                            for _ in range(calls):
                                t0 = time.perf_counter()
                                result = await session.call_tool(tool, args)
                                times[app][payload][mode].append(time.perf_counter() - t0)
                                assert not result.isError, result
                            cpu[app][payload][mode] += await server_cpu(session, pids[app, mode], cpu_file) - c0
        finally:
            adapters.uninstall()
    return {"times": times, "cpu": cpu}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--calls", type=int, default=30, help="calls per round, server and payload")
    args = ap.parse_args()
    raw = anyio.run(measure, args.rounds, args.calls)
    versions = ", ".join(
        f"{d} {importlib.metadata.version(d)}" for d in ("mcp", "fastmcp") if importlib.util.find_spec(d)
    )
    print(f"median round trip per tools/call over stdio ({versions}; {args.rounds} rounds x {args.calls} calls)")
    print(
        "| server | payload | stock ms | mcp-native ms | adapted/stock | speed-up | server CPU ms/call stock → mcp-native |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for app, payloads in raw["times"].items():
        for payload, by_mode in payloads.items():
            stock, ours = (statistics.median(by_mode[m]) * 1e3 for m in MODES)
            cpu = [raw["cpu"][app][payload][m] / len(by_mode[m]) * 1e3 for m in MODES]
            print(
                f"| {app} | {payload} | {stock:.2f} | {ours:.2f} | {ours / stock:.2f} | {stock / ours:.2f}x faster "
                f"| {cpu[0]:.2f} → {cpu[1]:.2f} |"
            )


if __name__ == "__main__":
    main()
