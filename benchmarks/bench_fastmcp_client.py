"""fastmcp's own ``Client`` reading a fastmcp server over stdio: the round trip of one
``tools/call`` whose result is ``shapes_server.py``'s 200-record pydantic model (or another of
its tools), stock against adapted on both sides.

Three clients, each in a process of its own with its own server, run in turn for several rounds
(the median of each client's per-round medians is reported):

- ``stock``: nothing of mcp-native;
- ``no-client-data``: adapted both sides, but fastmcp's ``.data`` built stock (the
  ``fastmcp-client-data`` group put back);
- ``adapted``: adapted both sides.

    python benchmarks/bench_fastmcp_client.py [--tool records_model] [--rounds 5] [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "benchmarks" / "shapes_server.py"
MODES = ("stock", "no-client-data", "adapted")


def worker(mode: str, tool: str, calls: int) -> None:
    """Prints the median round trip of ``calls`` calls, in ms, after 20 to warm up."""
    report = None
    if mode != "stock":
        from mcp_native import adapters

        report = adapters.install()
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    if mode == "no-client-data":
        assert report is not None
        for group in report.groups:
            if group.spec.name == "fastmcp-client-data":
                for patch in group.patches:
                    patch.restore()

    async def run() -> float:
        args = [str(SERVER), "fastmcp"]
        if mode != "stock":
            args = ["-m", "mcp_native", "run", "--quiet", *args]
        env = {k: v for k, v in os.environ.items() if k != "MCP_NATIVE_ADAPTERS"}
        async with Client(StdioTransport(sys.executable, args, env=env, cwd=str(ROOT))) as client:
            for _ in range(20):
                await client.call_tool(tool, {})
            times = []
            for _ in range(calls):
                start = time.perf_counter()
                await client.call_tool(tool, {})
                times.append(time.perf_counter() - start)
        return statistics.median(times) * 1e3

    print(f"{asyncio.run(run()):.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default="records_model")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.tool, args.calls)
        return
    medians: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            cmd = [sys.executable, __file__, "--worker", mode, "--tool", args.tool, "--calls", str(args.calls)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
            medians[mode].append(float(out.stdout.strip().splitlines()[-1]))
    stock = statistics.median(medians["stock"])
    print(f"fastmcp Client -> fastmcp server, stdio, {args.tool}: median of {args.rounds} rounds of {args.calls} calls")
    for mode in MODES:
        m = statistics.median(medians[mode])
        rounds = " ".join(f"{x:.2f}" for x in medians[mode])
        print(f"  {mode:15} {m:8.2f} ms  {m / stock:6.3f} of stock   (rounds: {rounds})")


if __name__ == "__main__":
    main()
