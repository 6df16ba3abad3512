"""What the rest of a fastmcp ``tools/call`` is: the adapted weather call with each of two of
fastmcp's own per-call mechanisms replaced by a stand-in, against stock and plain mcp-native.

The stand-ins change what fastmcp does, which is why the adapters leave these mechanisms alone;
they exist here only to measure them:

- ``telemetry``: no OpenTelemetry span at the middleware seam or around the tool
  (``seam_span``, ``server_span``; with no tracer provider set they still build the attributes,
  start a non-recording span and attach it to the context, which carries the client's trace
  context to the tool);
- ``visibility``: no lookup of the session's visibility rules in the server's state store
  (``get_visibility_rules``, on every call);
- ``both``.

Every server is ``shapes_server.py``'s fastmcp app (the weather-size pydantic model); the client
is the SDK's, adapted for every server but stock's. Rounds alternate between the servers.

    python benchmarks/bench_fastmcp_floor.py [--quick]
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any

VARIANTS = ("stock", "mcp-native", "telemetry", "visibility", "both")
TOOL = "weather_model"


def _replace(module: str, name: str, value: Any) -> None:
    """Sets ``module.name``, which must exist: a renamed mechanism fails the run, not the result."""
    target = sys.modules[module]
    if not hasattr(target, name):
        raise SystemExit(f"fastmcp has no {module}.{name}: this benchmark needs updating")
    setattr(target, name, value)


def stand_ins(variant: str) -> None:
    """Replaces the mechanisms ``variant`` names (in this server process only)."""
    import fastmcp.server.low_level
    import fastmcp.server.server
    import fastmcp.server.transforms.visibility
    from opentelemetry.trace import INVALID_SPAN

    @contextlib.contextmanager
    def no_span(*_: Any, **__: Any) -> Iterator[Any]:
        yield INVALID_SPAN

    async def no_rules(_context: Any) -> list[Any]:
        return []

    if variant in ("telemetry", "both"):
        _replace("fastmcp.server.low_level", "seam_span", no_span)
        _replace("fastmcp.server.server", "server_span", no_span)
    if variant in ("visibility", "both"):
        _replace("fastmcp.server.transforms.visibility", "get_visibility_rules", no_rules)


def serve(variant: str) -> None:
    """This file run as a server (``serve VARIANT``): the shapes server's fastmcp app."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import shapes_server
    from fastmcp import FastMCP

    stand_ins(variant)
    app = FastMCP("shapes")
    for tool in shapes_server.TOOLS:
        app.tool(tool)
    app.run("stdio", show_banner=False)


async def measure(rounds: int, calls: int) -> dict[str, list[float]]:
    import bench_adapters as bench
    from mcp import ClientSession, StdioServerParameters

    from mcp_native import adapters

    times: dict[str, list[float]] = {v: [] for v in VARIANTS}
    async with AsyncExitStack() as stack:
        errlog = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 (closed by the stack)
        sessions = {}
        for variant in VARIANTS:
            mode = "stock" if variant == "stock" else "adapted"
            script = [os.path.abspath(__file__), "serve", variant]
            args = script if mode == "stock" else ["-m", "mcp_native", "run", *script]
            params = StdioServerParameters(command=sys.executable, args=args, cwd=str(bench.ROOT))
            bench.set_client(mode)
            read, write = await stack.enter_async_context(bench.stdio_client(params, errlog))
            sessions[variant] = await stack.enter_async_context(ClientSession(read, write))
            await sessions[variant].initialize()
        try:
            for r in range(rounds):
                for variant in VARIANTS if r % 2 == 0 else VARIANTS[::-1]:
                    bench.set_client("stock" if variant == "stock" else "adapted")
                    for i in range(calls + 5):
                        t0 = time.perf_counter()
                        result = await sessions[variant].call_tool(TOOL, {})
                        if i >= 5:  # the first calls after a switch warm this server up again
                            times[variant].append(time.perf_counter() - t0)
                        assert not result.is_error, result
                print(f"fastmcp floor: round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        finally:
            adapters.uninstall()
    return times


def table(times: dict[str, list[float]]) -> str:
    stock, ours = statistics.median(times["stock"]), statistics.median(times["mcp-native"])
    lines = [
        "| fastmcp 1 weather call | ms/call (p10-p90) | /stock | saved vs mcp-native, ms |",
        "|---|---:|---:|---:|",
    ]
    for variant, t in times.items():
        med = statistics.median(t)
        deciles = statistics.quantiles(t, n=10, method="inclusive")
        saved = "" if variant == "stock" else f"{(ours - med) * 1e3:.3f}"
        lines.append(
            f"| {variant} | {med * 1e3:.2f} ({deciles[0] * 1e3:.2f}-{deciles[-1] * 1e3:.2f}) "
            f"| {med / stock:.2f} | {saved} |"
        )
    return "\n".join(lines)


def main(quick: bool) -> dict[str, list[float]]:
    import anyio

    times = anyio.run(measure, *((3, 20) if quick else (12, 30)))
    print(table(times))
    return times


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2])
    else:
        main(quick="--quick" in sys.argv)
