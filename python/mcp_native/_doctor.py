"""``python -m mcp_native doctor [APP]``: what the installed SDKs get, group by group, and the
per-request costs a setting removes: those the installed distributions tell, and, given the app a
server serves (``module:attribute`` or ``path/to/server.py``), those its Streamable HTTP apps show
once imported. Nothing is patched and nothing is served: the app is imported the way an ASGI
server imports it, a script without running its ``__main__`` block."""

from __future__ import annotations

import gc
import importlib
import importlib.metadata
import inspect
import logging
import os
import runpy
import sys
import time
from collections.abc import Callable
from typing import Any


def _installed(dist: str) -> str | None:
    """The installed version of ``dist``, or None (read from its metadata: nothing is imported)."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3] if part.isdigit())


def per_request_costs(installed: Callable[[str], str | None] = _installed, app_loaded: bool = False) -> list[str]:
    """What this environment spends on every request that a setting removes, as far as the
    installed distributions tell (the program itself is not run): each with the cost measured,
    where it was measured, and the setting. With ``app_loaded`` the SDK's log level is the app's
    to tell (:func:`app_costs`), not named here."""
    found: list[str] = []
    mcp, rich = installed("mcp"), installed("rich")
    to = "through rich" if rich else "to stderr"
    if mcp is not None and mcp.startswith("1.") and not app_loaded:
        # Its constructor passes log_level="INFO" to its settings, over FASTMCP_LOG_LEVEL.
        found.append(
            f'FastMCP (mcp {mcp}) logs each request at INFO {to} ("Processing request of type ...", '
            '"Terminating session: None" when stateless): server CPU per weather call 1.41 ms at INFO, '
            "0.33 ms at WARNING adapted, 3.54 and 2.38 ms stock (mcp 1.30.0, stateless JSON, uvicorn, "
            'scripts/bench-http); set FastMCP(..., log_level="WARNING") (FASTMCP_LOG_LEVEL does not reach it)'
        )
    elif mcp is not None and not app_loaded:
        found.append(
            f'MCPServer (mcp {mcp}) logs at INFO {to} by default ("Terminating session" for each session '
            "and each 2025-era stateless request): server CPU per weather call 1.00 ms at INFO, 0.45 ms at "
            "WARNING adapted, 1.41 and 0.89 ms stock (mcp 2.3.0, 2025-era stateless JSON, uvicorn, "
            'scripts/bench-http); set MCPServer(..., log_level="WARNING") (FASTMCP_LOG_LEVEL does not reach it)'
        )
    if mcp is not None and (2,) <= _release(mcp) < (2, 3):
        found.append(
            f"mcp {mcp} runs the server's tools/list handler before each 2026-07-28 tools/call with "
            "arguments, to check its Mcp-Param-* headers: on mcp 2.3.0, where a server can skip it, the "
            "low-level Server's weather call took 0.37 ms of server CPU with it and 0.26 ms without "
            "(stock; scripts/bench-http --framework 'low-level Server'); mcp-native skips it for an "
            "MCPServer whose listing is its own and that has no middleware of its own (in process on mcp "
            "2.2.0, a sync weather call 558 -> 313 µs of CPU, benchmarks/bench_http_floor.py); for other "
            "servers upgrade to mcp 2.3.0 (MCPServer and fastmcp skip it there; a low-level Server given "
            "get_tool_input_schema does)"
        )
    uvicorn = installed("uvicorn")
    if uvicorn is not None:
        missing = [d for d in ("httptools", "uvloop") if installed(d) is None]
        if missing:
            found.append(
                f"uvicorn {uvicorn} without {' and '.join(missing)}: a stock MCPServer weather call "
                "took 911 µs with h11 and asyncio, 719 µs with both (mcp 2.3.0, 2025 era, "
                "docs/deploying-over-http.md); install uvicorn[standard] (or httptools uvloop)"
            )
        found.append(
            f"uvicorn {uvicorn} writes an access-log line for each request unless it runs with "
            "--no-access-log (or --log-level warning): about 30 µs of server CPU per request, 10% of an "
            "adapted MCPServer weather call (0.32 -> 0.29 ms, 2025-era stateless JSON, httptools + uvloop)"
        )
    if installed("httpcore") is not None and installed("sniffio") is None:
        found.append(
            "httpcore without sniffio: httpcore tries to import sniffio on each request it sends, "
            "5.5% of an HTTP server's CPU in a profile (issue 35); install sniffio"
        )
    return found


def load(target: str) -> None:
    """Imports ``target`` as an ASGI server would: ``module[:attribute]`` from the current
    directory, or ``path/to/file.py[:attribute]`` (run as a module of another name, so that its
    ``if __name__ == "__main__"`` block does not start a server). Raises ``SystemExit`` naming
    what is missing."""
    where, _, attribute = target.partition(":")
    sys.path.insert(0, os.getcwd())
    script = where.endswith(".py") or os.sep in where
    if script and not os.path.isfile(where):
        raise SystemExit(f"doctor: no file {where!r}")
    try:
        if script:
            sys.path.insert(0, os.path.dirname(os.path.abspath(where)))
            found = attribute in runpy.run_path(where, run_name="__mcp_native_doctor__")
        else:
            found = hasattr(importlib.import_module(where), attribute)
    except Exception as e:  # the app's own failure, named, as the ASGI server would
        raise SystemExit(f"doctor: importing {where!r} failed: {type(e).__name__}: {e}") from None
    if attribute and not found:
        raise SystemExit(f"doctor: {where!r} has no attribute {attribute!r}")


def _http_apps() -> list[tuple[Any, bool, bool]]:
    """Every Streamable HTTP app of the ``mcp`` SDK built so far, as (its low-level server,
    json_response, stateless): each session manager alive (MCPServer's, FastMCP 1.x's and the
    low-level Server's build theirs with the app), and each fastmcp app, whose manager is built
    when the app starts, from the two settings its lifespan holds."""
    manager_module = sys.modules.get("mcp.server.streamable_http_manager")
    if manager_module is None:
        return []
    manager_kind = manager_module.StreamableHTTPSessionManager
    starlette = sys.modules.get("starlette.applications")
    app_kind = starlette.Starlette if starlette is not None else ()
    found: list[tuple[Any, bool, bool]] = []
    for o in gc.get_objects():
        if isinstance(o, manager_kind):
            found.append((o.app, o.json_response, o.stateless))
        elif isinstance(o, app_kind) and (server := getattr(o.state, "fastmcp_server", None)) is not None:
            lifespan = inspect.unwrap(o.router.lifespan_context)  # (under asynccontextmanager's)
            code = getattr(lifespan, "__code__", None)
            cells = dict(zip(code.co_freevars, lifespan.__closure__ or (), strict=True)) if code is not None else {}
            if "json_response" in cells and "stateless_http" in cells:
                settings = cells["json_response"].cell_contents, cells["stateless_http"].cell_contents
                found.append((server._mcp_server, bool(settings[0]), bool(settings[1])))
    return found


def _sync_tools(server: Any) -> tuple[list[str], bool]:
    """The sync tools that ``server`` (a low-level Server) runs in a worker thread on each call,
    by name, from the framework that owns it (MCPServer, FastMCP 1.x, fastmcp), and whether
    that framework is fastmcp (whose tools take ``run_in_thread=False``)."""
    for o in gc.get_objects():
        manager = getattr(o, "_tool_manager", None)
        if manager is not None and server in (getattr(o, "_lowlevel_server", None), getattr(o, "_mcp_server", None)):
            tools = getattr(manager, "_tools", {}).values()
            return sorted(t.name for t in tools if getattr(t, "is_async", True) is False), False
        provider = getattr(o, "_local_provider", None)
        if provider is not None and getattr(o, "_mcp_server", None) is server:
            from fastmcp.utilities.async_utils import is_coroutine_function

            tools = getattr(provider, "_components", {}).values()
            return sorted(
                t.name
                for t in tools
                if getattr(t, "run_in_thread", False)
                and callable(fn := getattr(t, "fn", None))
                and not is_coroutine_function(fn)
                and not inspect.isasyncgenfunction(fn)
            ), True
    return [], False


def _unfrozen_heap() -> tuple[int, float] | None:
    """With the collector on and nothing frozen: how many objects it tracks, and what a full
    collection of them takes here, in ms (the best of 3, after one that frees what importing left)."""
    if not gc.isenabled() or gc.get_freeze_count():
        return None
    gc.collect()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        gc.collect()
        best = min(best, time.perf_counter() - start)
    return len(gc.get_objects()), best * 1e3


def app_costs(target: str) -> list[str]:
    """The per-request costs that the Streamable HTTP apps built when ``target`` is imported
    show, each with its measured cost and the setting; a line saying so when it builds none."""
    load(target)
    apps = _http_apps()
    if not apps:
        return [
            f"{target} builds no Streamable HTTP app when imported (a script that builds it in main() "
            "or run()): name the module:attribute your ASGI server serves"
        ]
    found: list[str] = []
    heap = _unfrozen_heap()
    if heap is not None:
        objects, ms = heap
        found.append(
            f"{target}: the garbage collector tracks {objects:,} objects once the app is built (the SDK's "
            f"models and schemas among them), and each full collection walks them all: {ms:.0f} ms here. "
            "Under load one runs every few hundred calls: server CPU per call 1.05 -> 0.86 ms stock and "
            "0.90 -> 0.85 adapted for a weather call, 5.45 -> 3.93 and 2.46 -> 1.84 for 200 records, p99 "
            "about halved, with the heap frozen (MCPServer, mcp 2.3.0, stateless JSON, HTTP_GC_FREEZE=1 "
            "scripts/bench-http --quick); once the app is built (at the end of the module your ASGI server "
            "imports), call gc.collect() then gc.freeze(), which leaves those objects out of every later "
            "collection"
        )
    # Both lines of the SDK write their per-request INFO lines ("Terminating session: ...") there.
    if logging.getLogger("mcp.server.streamable_http").isEnabledFor(logging.INFO):
        found.append(
            f"{target}: the SDK logs at INFO, a line for each session or 2025-era stateless request: server "
            "CPU per weather call 1.00 ms at INFO, 0.45 ms at WARNING adapted (MCPServer, mcp 2.3.0; "
            "FastMCP 1.x 1.41 and 0.33 ms, mcp 1.30.0; stateless JSON, scripts/bench-http); set the "
            'server\'s log_level="WARNING" (MCPServer(...) and FastMCP 1.x take it only as an argument)'
        )
    for server, json_response, stateless in apps:
        name = f"{target} ({getattr(server, 'name', type(server).__name__)})"
        if not json_response:
            found.append(
                f"{name} answers each POST as an SSE stream (json_response=False, the default): a 2025-era "
                "stateless weather call took 1.57 ms of server CPU stock and 0.58 ms on mcp-native, against "
                "0.74 and 0.39 ms with JSON responses (MCPServer, mcp 2.3.0, uvicorn, scripts/bench-http); "
                "where no client needs notifications during a call, pass json_response=True"
            )
        if not stateless:
            found.append(
                f"{name} keeps a session for each client (stateless_http=False, the default): a client that "
                "opens one per call (initialize, notifications/initialized, tools/call, DELETE) took 2.82 ms "
                "of server CPU per call stock and 1.95 ms on mcp-native, against 2.91 and 1.43 ms stateless "
                "(MCPServer, mcp 2.3.0, JSON responses, scripts/bench-http --state flow --state flow-sessions), "
                "and each session is held in the worker's memory (with a task on stock) until DELETE or its "
                "idle timeout; where no tool needs a session, pass stateless_http=True"
            )
        # mcp 2.3.0's lookup: with none, a 2026-07-28 tools/call with arguments lists the tools.
        lookup = getattr(server, "get_tool_input_schema", False)
        if lookup is None and server.get_request_handler("tools/list") is not None:
            found.append(
                f"{name} is a low-level Server without get_tool_input_schema: each 2026-07-28 tools/call "
                "with arguments runs its tools/list handler first, to check the Mcp-Param-* headers; a "
                "weather call took 0.37 ms of server CPU stock and 0.35 ms on mcp-native, against 0.26 and "
                "0.25 ms with it (mcp 2.3.0, uvicorn, scripts/bench-http --framework 'low-level Server'); "
                "pass Server(..., get_tool_input_schema=...), a tool's inputSchema by its name"
            )
        sync, fastmcp = _sync_tools(server)
        if sync:
            found.append(
                f"{name} runs {len(sync)} sync tool{'s' if len(sync) > 1 else ''} ({', '.join(sync)}) in a worker "
                "thread on each call: 46-80 µs of CPU for the hop alone (anyio.to_thread.run_sync; an adapted "
                "MCPServer weather call took 200 µs of CPU in process with its tool sync, 130 with it async, "
                "benchmarks/bench_http_floor.py); where a tool does not block, define it with async def"
                + (" or pass run_in_thread=False" if fastmcp else "")
            )
    return found


def doctor(target: str | None) -> int:
    from . import adapters

    report = adapters.check()
    costs = per_request_costs(app_loaded=target is not None)
    if target is not None:
        costs += app_costs(target)
    print(report.describe())
    if costs:
        print("per-request costs a setting removes:")
        print("\n".join(f"  - {line}" for line in costs))
    if not report.versions:
        print("no MCP SDK installed (mcp, fastmcp): nothing to patch")
        return 1
    if not [g for g in report.groups if g.state == "waiting"]:
        print("nothing can be patched: every group stays stock")
        return 1
    print(report.summary())
    return 0
