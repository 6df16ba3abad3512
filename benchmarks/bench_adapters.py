"""Real MCP servers over stdio, stock vs on mcp-native, driven by the SDK's own client.

For each framework (MCPServer from ``mcp``, fastmcp) one stock server process (``python
examples/<app>.py``) and one adapted one (``python -m mcp_native run examples/<app>.py``) run
side by side; rounds alternate between them, and in each round the client in this process has
the adapters installed exactly when it talks to the adapted server. Reported per framework and
payload: the median round-trip latency per ``tools/call``, stock and adapted, the speed-up
(stock time / adapted time) and the 10th-90th percentile range of each, calls per second, the
response's size on the wire, and the server process's CPU time per call (user + system, all its
threads, as the server itself reports it: ``cpu_server.py``; what the server spends, without the
client and the pipe), and this process's (the client's) CPU time per call; client and server take
turns, so the round trip is about the sum of the two. ``server_profile`` then
splits the adapted server's time between mcp-native, pydantic, the framework, the event loop
and the tool (cProfile).

``--client-transport`` compares the two stdio client transports alone, against one server.
"""

from __future__ import annotations

import os
import pstats
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp.client.stdio
from mcp import ClientSession, StdioServerParameters

import mcp_native
from mcp_native import adapters

ROOT = Path(__file__).resolve().parents[1]
APPS = {"MCPServer": ROOT / "examples" / "mcpserver_app.py", "fastmcp": ROOT / "examples" / "fastmcp_app.py"}
CALLS = {"weather": ("get_weather", {"city": "Paris"}), "200 records": ("list_records", {"count": 200})}
MODES = ("stock", "adapted")


def server_params(app: Path, mode: str, cpu_file: Path | None = None) -> StdioServerParameters:
    """The stock or adapted server; with ``cpu_file``, run by ``cpu_server.py``, which writes its
    CPU time there on SIGUSR1 (``server_cpu``)."""
    args = [str(app)] if mode == "stock" else ["-m", "mcp_native", "run", str(app)]
    if cpu_file is not None:
        args = [str(ROOT / "benchmarks" / "cpu_server.py"), str(cpu_file), *args]
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))


async def server_cpu(session: ClientSession, pid: int, cpu_file: Path) -> float:
    """User + system CPU seconds of a server run by ``cpu_server.py``, all its threads. The span
    between two readings also holds the server's answer to one ping, spread over a batch's calls."""
    cpu_file.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    await session.send_ping()  # the server has run the handler before it answers (or soon after)
    while not cpu_file.exists():
        await anyio.sleep(0.001)
    return int(cpu_file.read_text()) / 1e9


def children() -> set[int]:
    """PIDs of this process's children (the stdio servers)."""
    me = str(os.getpid())
    pids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[1] == me:
                        pids.add(int(entry))
            except OSError:
                pass
    return pids


def stdio_client(params: StdioServerParameters, errlog: TextIO) -> Any:
    """The SDK's stdio client transport as it is now: the adapters replace it while installed."""
    return mcp.client.stdio.stdio_client(params, errlog=errlog)


def set_client(mode: str) -> None:
    """The client side of a round: the adapters installed for the adapted server only (its
    session is also opened with them, on the adapted client transport)."""
    if mode == "adapted":
        adapters.install(server=False)  # the client's validation and its stdio transport
    else:
        adapters.uninstall()


async def measure(rounds: int, calls: int, frameworks: list[str], errlog: TextIO,
                  tick: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Per framework and payload: per-call seconds of every call, by mode. The servers' stderr
    (their logs) goes to errlog."""
    times: dict[str, dict[str, dict[str, list[float]]]] = {
        fw: {p: {m: [] for m in MODES} for p in CALLS} for fw in frameworks
    }
    cpu: dict[str, dict[str, dict[str, float]]] = {fw: {p: {m: 0.0 for m in MODES} for p in CALLS} for fw in frameworks}
    client_cpu: dict[str, dict[str, dict[str, float]]] = {
        fw: {p: {m: 0.0 for m in MODES} for p in CALLS} for fw in frameworks
    }
    sizes: dict[str, dict[str, int]] = {fw: {} for fw in frameworks}
    async with AsyncExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sessions: dict[tuple[str, str], ClientSession] = {}
        pids: dict[tuple[str, str], int] = {}
        for fw in frameworks:
            for mode in MODES:
                set_client(mode)
                before = children()
                params = server_params(APPS[fw], mode, tmp / f"{fw}-{mode}.cpu")
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                (pids[fw, mode],) = children() - before
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                await session.list_tools()
                sessions[fw, mode] = session
        adapters.uninstall()
        for fw in frameworks:
            for payload, (tool, args) in CALLS.items():
                result = await sessions[fw, "stock"].call_tool(tool, args)
                sizes[fw][payload] = len(mcp_native.dumps({"jsonrpc": "2.0", "id": 1, "result": result.model_dump(by_alias=True, exclude_none=True, mode="json")}))
        try:
            for r in range(rounds):
                for fw in frameworks:
                    for payload, (tool, args) in CALLS.items():
                        order = MODES if r % 2 == 0 else MODES[::-1]
                        for mode in order:
                            set_client(mode)
                            session = sessions[fw, mode]
                            cpu_file = tmp / f"{fw}-{mode}.cpu"
                            c0 = await server_cpu(session, pids[fw, mode], cpu_file)
                            own0 = time.process_time()
                            for _ in range(calls):
                                t0 = time.perf_counter()
                                result = await session.call_tool(tool, args)
                                times[fw][payload][mode].append(time.perf_counter() - t0)
                                assert not result.is_error, result
                            client_cpu[fw][payload][mode] += time.process_time() - own0
                            cpu[fw][payload][mode] += await server_cpu(session, pids[fw, mode], cpu_file) - c0
                tick()
        finally:
            adapters.uninstall()
    return {"times": times, "sizes": sizes, "cpu": cpu, "client_cpu": client_cpu}


# Where a server's CPU goes, by who owns the function (cProfile's keys: file, line, name).
# A sync tool runs in a worker thread, which cProfile does not follow: its time shows as the
# main thread's handing over to it (the thread hop).
SHARES = ("mcp-native", "pydantic", "framework (mcp, fastmcp)", "event loop (asyncio, anyio)", "thread hop to the tool",
          "pipe writes", "other")


def _owner(file: str, name: str) -> str | None:
    if name == "<method 'poll' of 'select.epoll' objects>":
        return None  # waiting for the client: not work
    if "/mcp_native/" in file or "mcp_native._core" in name:
        return "mcp-native"
    if "pydantic" in file or "pydantic_core" in name:
        return "pydantic"
    if any(f"/{p}/" in file for p in ("mcp", "fastmcp", "mcp_types")):
        return "framework (mcp, fastmcp)"
    if any(f"/{p}/" in file or file.endswith(f"/{p}.py") for p in ("asyncio", "anyio", "selectors")):
        return "event loop (asyncio, anyio)"
    if "_thread.lock" in name or any(file.endswith(f"/{m}.py") for m in ("threading", "queue", "thread")):
        return "thread hop to the tool"
    if name == "<built-in method posix.write>":
        return "pipe writes"  # the response to the client (the kernel may switch to it right there)
    return "other"


def _shares(profile: Path) -> dict[str, float]:
    """CPU seconds by owner, from a cProfile dump (own time of each function)."""
    out = dict.fromkeys(SHARES, 0.0)
    for (file, _line, name), (_cc, _nc, own, _cum, _callers) in pstats.Stats(str(profile)).stats.items():  # type: ignore[attr-defined]
        if (who := _owner(file, name)) is not None:
            out[who] += own
    return out


async def _profiled_calls(app: Path, profile: Path, tool: str, args: dict[str, Any], calls: int) -> None:
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                   args=[str(ROOT / "benchmarks" / "profiled_server.py"), str(profile), str(app)])
    set_client("adapted")
    try:
        with open(os.devnull, "w") as errlog:
            before = children()
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                (pid,) = children() - before
                await session.initialize()
                for _ in range(20):  # warm-up
                    await session.call_tool(tool, args)
                os.kill(pid, signal.SIGUSR1)
                await session.send_ping()  # the server has run the handler before it answers
                for _ in range(calls):
                    await session.call_tool(tool, args)
                os.kill(pid, signal.SIGUSR2)
                while not profile.exists():
                    await anyio.sleep(0.05)
    finally:
        adapters.uninstall()


def server_profile(calls: int, frameworks: list[str]) -> list[dict[str, Any]]:
    """Per framework and payload: the share of the adapted server's CPU per call that each owner
    takes, from a cProfile of `calls` calls (start-up excluded: benchmarks/profiled_server.py).
    cProfile slows Python code more than native code, so the shares of Python-heavy parts (the
    framework, the event loop) come out somewhat high."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for fw in frameworks:
            for payload, (tool, args) in CALLS.items():
                path = Path(tmp) / f"{fw}-{tool}.prof"
                anyio.run(_profiled_calls, APPS[fw], path, tool, args, calls)
                work = _shares(path)
                total = sum(work.values()) or 1.0
                rows.append({"framework": fw, "payload": payload, **{k: work[k] / total for k in SHARES}})
    return rows


def profile_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| framework | payload | " + " | ".join(SHARES) + " |", "|---|---|" + "---:|" * len(SHARES)]
    for r in rows:
        lines.append(f"| {r['framework']} | {r['payload']} | " + " | ".join(f"{r[k]:.0%}" for k in SHARES) + " |")
    return "\n".join(lines)


def p10_p90(times: list[float]) -> tuple[float, float]:
    """The 10th and 90th percentiles (linear interpolation between the closest samples)."""
    deciles = statistics.quantiles(times, n=10, method="inclusive")
    return deciles[0], deciles[-1]


def summarize(raw: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for fw, payloads in raw["times"].items():
        for payload, by_mode in payloads.items():
            stock = statistics.median(by_mode["stock"])
            adapted = statistics.median(by_mode["adapted"])
            (stock_p10, stock_p90), (adapted_p10, adapted_p90) = p10_p90(by_mode["stock"]), p10_p90(by_mode["adapted"])
            rows.append({
                "framework": fw,
                "payload": payload,
                "stock_ms": stock * 1e3,
                "adapted_ms": adapted * 1e3,
                "stock_p10_ms": stock_p10 * 1e3,
                "stock_p90_ms": stock_p90 * 1e3,
                "adapted_p10_ms": adapted_p10 * 1e3,
                "adapted_p90_ms": adapted_p90 * 1e3,
                "speedup": stock / adapted,
                "stock_calls_per_s": 1 / stock,
                "adapted_calls_per_s": 1 / adapted,
                "response_bytes": raw["sizes"][fw][payload],
                "stock_server_cpu_ms": raw["cpu"][fw][payload]["stock"] / len(by_mode["stock"]) * 1e3,
                "adapted_server_cpu_ms": raw["cpu"][fw][payload]["adapted"] / len(by_mode["adapted"]) * 1e3,
                "stock_client_cpu_ms": raw["client_cpu"][fw][payload]["stock"] / len(by_mode["stock"]) * 1e3,
                "adapted_client_cpu_ms": raw["client_cpu"][fw][payload]["adapted"] / len(by_mode["adapted"]) * 1e3,
                "calls": len(by_mode["stock"]),
            })
    return rows


def speedup(x: float) -> str:
    return f"{x:.2f}× faster" if x >= 1 else f"{1 / x:.2f}× slower"


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| framework | payload | stock ms/call | mcp-native ms/call | speed-up | calls/s stock → mcp-native "
            "| server CPU ms/call stock → mcp-native | client CPU ms/call stock → mcp-native | response bytes |")
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['framework']} | {r['payload']} | {r['stock_ms']:.2f} | {r['adapted_ms']:.2f} | {speedup(r['speedup'])} "
            f"| {r['stock_calls_per_s']:.0f} → {r['adapted_calls_per_s']:.0f} "
            f"| {r['stock_server_cpu_ms']:.2f} → {r['adapted_server_cpu_ms']:.2f} "
            f"| {r['stock_client_cpu_ms']:.2f} → {r['adapted_client_cpu_ms']:.2f} | {r['response_bytes']:,} |"
        )
    return "\n".join(lines)


async def client_transports(rounds: int, calls: int) -> None:
    """The client transport alone: one adapted MCPServer per client transport (the SDK's, the
    adapters'), the client's other adapters installed for both; weather calls in alternating
    rounds. Prints the median round trip and the client's CPU time per call."""
    transports = {"stock client transport": False, "mcp-native client transport": True}
    times: dict[str, list[float]] = {name: [] for name in transports}
    cpu = dict.fromkeys(transports, 0.0)
    tool, args = CALLS["weather"]
    async with AsyncExitStack() as stack:
        sessions = {}
        for name, native in transports.items():
            adapters.install(server=False, transport=native)
            read, write = await stack.enter_async_context(stdio_client(server_params(APPS["MCPServer"], "adapted"), sys.stderr))
            sessions[name] = await stack.enter_async_context(ClientSession(read, write))
            await sessions[name].initialize()
        try:
            adapters.install(server=False, transport=False)  # the transports are chosen: the rest for both
            for r in range(rounds):
                for name in transports if r % 2 == 0 else list(transports)[::-1]:
                    own0 = time.process_time()
                    for _ in range(calls):
                        t0 = time.perf_counter()
                        await sessions[name].call_tool(tool, args)
                        times[name].append(time.perf_counter() - t0)
                    cpu[name] += time.process_time() - own0
        finally:
            adapters.uninstall()
    for name in transports:
        print(f"{name}: median {statistics.median(times[name]) * 1e3:.3f} ms per weather call to an adapted MCPServer, "
              f"client CPU {cpu[name] / len(times[name]) * 1e3:.3f} ms per call")


def main(quick: bool) -> dict[str, Any]:
    rounds, calls = (3, 5) if quick else (15, 20)
    raw = anyio.run(measure, rounds, calls, list(APPS), sys.stderr)
    rows = summarize(raw)
    print(table(rows))
    shares = server_profile(20 if quick else 300, list(APPS))
    print("\nWhere the adapted server's CPU goes (cProfile, own time per function):\n")
    print(profile_table(shares))
    return {"rows": rows, "server_shares": shares}


if __name__ == "__main__":
    if "--client-transport" in sys.argv:  # the client transport alone
        anyio.run(client_transports, 8, 250)
    else:
        main(quick="--quick" in sys.argv)
