"""The shapes table: one tool result in each common return shape, stock vs on mcp-native.

For each framework (MCPServer, fastmcp) one stock and one adapted ``shapes_server.py`` run side
by side over stdio, driven by the SDK's own client (adapted too, for the adapted server, as in
``bench_adapters``); rounds alternate between them. Per framework, size and shape: the median
round trip per ``tools/call`` with its 10th-90th percentile range, the server process's CPU time
per call (user + system, all threads, as the server reports it: ``cpu_server.py``),
adapted/stock, and the adapted round trip over the TypedDict shape's on the same framework and
size.

    python benchmarks/bench_shapes.py [--quick]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import bench_adapters as bench
from mcp import ClientSession, StdioServerParameters

from mcp_native import adapters

SERVER = Path(__file__).resolve().parent / "shapes_server.py"
FRAMEWORKS = {"MCPServer": "mcpserver", "fastmcp": "fastmcp"}
SIZES = {"weather": "weather", "200 records": "records"}
SHAPES = ("typeddict", "model", "dataclass", "list", "float")


def tools() -> list[tuple[str, str, str]]:
    """(size, shape, tool name) of every tool the server has."""
    out = []
    for size, prefix in SIZES.items():
        for shape in SHAPES:
            if shape != "float" or size == "weather":
                out.append((size, shape, f"{prefix}_{shape}"))
    return out


def params(fw: str, mode: str, cpu_file: Path) -> StdioServerParameters:
    """The stock or adapted server, run by ``cpu_server.py`` (``bench_adapters.server_cpu``)."""
    script = [str(SERVER), FRAMEWORKS[fw]]
    args = script if mode == "stock" else ["-m", "mcp_native", "run", *script]
    args = [str(bench.ROOT / "benchmarks" / "cpu_server.py"), str(cpu_file), *args]
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(bench.ROOT))


async def measure(rounds: int, calls: int) -> list[dict[str, Any]]:
    keys = [(fw, size, shape, tool) for fw in FRAMEWORKS for size, shape, tool in tools()]
    times: dict[tuple[str, str, str, str], list[float]] = {(*k[:3], m): [] for k in keys for m in bench.MODES}
    cpu: dict[tuple[str, str, str, str], float] = dict.fromkeys(times, 0.0)
    async with AsyncExitStack() as stack:
        errlog = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 (closed by the stack)
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sessions: dict[tuple[str, str], ClientSession] = {}
        pids: dict[tuple[str, str], int] = {}
        for fw in FRAMEWORKS:
            for mode in bench.MODES:
                bench.set_client(mode)
                before = bench.children()
                cpu_file = tmp / f"{fw}-{mode}.cpu"
                read, write = await stack.enter_async_context(bench.stdio_client(params(fw, mode, cpu_file), errlog))
                (pids[fw, mode],) = bench.children() - before
                sessions[fw, mode] = await stack.enter_async_context(ClientSession(read, write))
                await sessions[fw, mode].initialize()
                await sessions[fw, mode].list_tools()
        try:
            for r in range(rounds):
                for fw, size, shape, tool in keys:
                    for mode in bench.MODES if r % 2 == 0 else bench.MODES[::-1]:
                        bench.set_client(mode)
                        session, key = sessions[fw, mode], (fw, size, shape, mode)
                        cpu_file = tmp / f"{fw}-{mode}.cpu"
                        c0 = await bench.server_cpu(session, pids[fw, mode], cpu_file)
                        for _ in range(calls):
                            t0 = time.perf_counter()
                            result = await session.call_tool(tool, {})
                            times[key].append(time.perf_counter() - t0)
                            assert not result.is_error, result
                        cpu[key] += await bench.server_cpu(session, pids[fw, mode], cpu_file) - c0
                print(f"shapes: round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        finally:
            adapters.uninstall()
    rows = []
    for fw, size, shape, _tool in keys:
        row: dict[str, Any] = {"framework": fw, "payload": size, "shape": shape}
        for mode in bench.MODES:
            t = times[fw, size, shape, mode]
            deciles = statistics.quantiles(t, n=10, method="inclusive")
            row[f"{mode}_ms"] = statistics.median(t) * 1e3
            row[f"{mode}_p10_ms"], row[f"{mode}_p90_ms"] = deciles[0] * 1e3, deciles[-1] * 1e3
            row[f"{mode}_server_cpu_ms"] = cpu[fw, size, shape, mode] / len(t) * 1e3
        row["ratio"] = row["adapted_ms"] / row["stock_ms"]
        rows.append(row)
    for row in rows:
        typed = next(
            r
            for r in rows
            if (r["framework"], r["payload"], r["shape"]) == (row["framework"], row["payload"], "typeddict")
        )
        row["vs_typeddict"] = row["adapted_ms"] / typed["adapted_ms"]
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| framework | payload | shape | stock ms/call (p10-p90) | mcp-native ms/call (p10-p90) | mcp-native/stock "
        "| server CPU ms/call stock → mcp-native | mcp-native vs its TypedDict |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['framework']} | {r['payload']} | {r['shape']} "
            f"| {r['stock_ms']:.2f} ({r['stock_p10_ms']:.2f}-{r['stock_p90_ms']:.2f}) "
            f"| {r['adapted_ms']:.2f} ({r['adapted_p10_ms']:.2f}-{r['adapted_p90_ms']:.2f}) | {r['ratio']:.2f} "
            f"| {r['stock_server_cpu_ms']:.2f} → {r['adapted_server_cpu_ms']:.2f} | {r['vs_typeddict']:.2f}× |"
        )
    return "\n".join(lines)


def main(quick: bool) -> list[dict[str, Any]]:
    rows = anyio.run(measure, *((2, 5) if quick else (10, 20)))
    print(table(rows))
    return rows


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
