"""The mcp 1.x line over stdio, stock vs on mcp-native, driven by the SDK's own client.

Run with the Python of an environment that has mcp 1.x (and fastmcp 2.x/3.x for its row), from
the repository root:

    build/sdk-pairs/mcp-1.30.0+fastmcp-3.4.11/venv/bin/python benchmarks/bench_mcp1.py

(``scripts/sdk-pairs --pair 1.30.0+3.4.11`` makes that environment and runs this ``--quick``;
the full ``scripts/demo`` runs it too and puts the table in docs/benchmarks.md and the README.)

Per server (FastMCP 1.x, mcp 1.x's low-level ``Server``, and fastmcp when installed), one stock
process (``python examples/<app>.py``) and one adapted (``python -m mcp_native run ...``) run side
by side; rounds alternate between them, and the client in this process has the adapters
installed exactly when it talks to the adapted server (as ``bench_adapters.py`` does on 2.x).
Reported: the median round trip per ``tools/call``, stock and adapted, adapted/stock and the
speed-up (stock time / adapted time), and the server process's CPU time per call (user + system,
all its threads, as the server reports it: ``cpu_server.py``, as in ``bench_adapters.py``), for
the weather report and the 200-record table. The adapted server's first answer to each call
must be the stock one's (content and ``structuredContent``); exit status 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
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
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "weather": ("get_weather", {"city": "Paris"}),
    "200 records": ("list_records", {"count": 200}),
}
MODES = ("stock", "adapted")


def set_client(mode: str) -> None:
    if mode == "adapted":
        adapters.install(server=False)
    else:
        adapters.uninstall()


async def measure(rounds: int, calls: int) -> list[dict[str, Any]]:
    times: dict[str, dict[str, dict[str, list[float]]]] = {
        app: {p: {m: [] for m in MODES} for p in CALLS} for app in APPS
    }
    cpu = {app: {p: dict.fromkeys(MODES, 0.0) for p in CALLS} for app in APPS}
    answers: dict[tuple[str, str, str], Any] = {}
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
                    for payload, (tool, arguments) in CALLS.items():
                        for mode in MODES if r % 2 == 0 else MODES[::-1]:
                            set_client(mode)
                            session = sessions[app, mode]
                            cpu_file = tmp / f"{n}-{mode}.cpu"
                            c0 = await server_cpu(session, pids[app, mode], cpu_file)
                            for _ in range(calls):
                                t0 = time.perf_counter()
                                result = await session.call_tool(tool, arguments)
                                times[app][payload][mode].append(time.perf_counter() - t0)
                                assert not result.isError, result
                                answers.setdefault((app, payload, mode), (result.content, result.structuredContent))
                            cpu[app][payload][mode] += await server_cpu(session, pids[app, mode], cpu_file) - c0
        finally:
            adapters.uninstall()
    rows = []
    for app, payloads in times.items():
        for payload, by_mode in payloads.items():
            stock, ours = (statistics.median(by_mode[m]) * 1e3 for m in MODES)
            rows.append(
                {
                    "server": app,
                    "payload": payload,
                    "stock_ms": stock,
                    "adapted_ms": ours,
                    "cpu_ms": [cpu[app][payload][m] / len(by_mode[m]) * 1e3 for m in MODES],
                    "same_answer": answers[app, payload, "stock"] == answers[app, payload, "adapted"],
                }
            )
    return rows


def versions() -> dict[str, str]:
    return {d: importlib.metadata.version(d) for d in ("mcp", "fastmcp") if importlib.util.find_spec(d)}


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| server | payload | stock ms | mcp-native ms | adapted/stock | speed-up "
        "| server CPU ms/call stock → mcp-native | answer |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        stock, ours = r["stock_ms"], r["adapted_ms"]
        out.append(
            f"| {r['server']} | {r['payload']} | {stock:.2f} | {ours:.2f} | {ours / stock:.2f} "
            f"| {stock / ours:.2f}× faster | {r['cpu_ms'][0]:.2f} → {r['cpu_ms'][1]:.2f} "
            f"| {'as stock' if r['same_answer'] else 'DIFFERS'} |"
        )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--calls", type=int, default=30, help="calls per round, server and payload")
    ap.add_argument("--quick", action="store_true", help="2 rounds of 5 calls: a smoke run and the answers' check")
    ap.add_argument("--json", type=Path, help="also write the rows and versions there")
    args = ap.parse_args()
    rounds, calls = (2, 5) if args.quick else (args.rounds, args.calls)
    rows = anyio.run(measure, rounds, calls)
    named = ", ".join(f"{d} {v}" for d, v in versions().items())
    print(f"median round trip per tools/call over stdio ({named}; {rounds} rounds x {calls} calls)")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps({"versions": versions(), "rounds": rounds, "calls": calls, "rows": rows}))
    if not all(r["same_answer"] for r in rows):
        print("bench_mcp1: an adapted server's answer DIFFERS from stock's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
