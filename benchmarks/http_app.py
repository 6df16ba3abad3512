"""The example tools (``examples/payloads.py``) served over Streamable HTTP, for ``bench_http.py``
and ``tests/python/test_http_reliability.py``: an ASGI app for uvicorn, gunicorn, granian or
hypercorn, chosen by the environment.

    HTTP_APP=mcpserver|lowlevel|fastmcp|fastmcp1|minimcp HTTP_RESPONSE=json|sse [HTTP_TOOLS=async] \\
        HTTP_STATE=stateful|stateless|stateless-2025|flow|flow-sessions uvicorn --app-dir benchmarks http_app:app [--workers N]

Stock as written; adapted with ``MCP_NATIVE_ADAPTERS=1`` in the environment (every worker). The
MCP endpoint is ``/mcp``. ``fastmcp1`` is mcp 1.x's FastMCP (``mcp.server.fastmcp``). Beside the example tools, ``ticking(steps)`` reports progress every
10 ms (a long SSE stream for a client to drop), and ``GET /stats`` answers with the worker's own
pid, resident memory and number of asyncio tasks. ``HTTP_GC_FREEZE=1`` freezes the heap once
the app is built (``gc.freeze()``, as doctor suggests), on both sides.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from payloads import TOOLS
from starlette.requests import Request
from starlette.responses import JSONResponse


def _coroutine(tool: Any) -> Any:
    """``tool`` as a coroutine function of the same signature: served without the worker-thread
    hop a sync tool takes (``HTTP_TOOLS=async``; bench_http_floor.py)."""

    @functools.wraps(tool)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return tool(*args, **kwargs)

    return run


if os.environ.get("HTTP_TOOLS") == "async":
    TOOLS = tuple(_coroutine(tool) for tool in TOOLS)
FRAMEWORK = os.environ.get("HTTP_APP", "mcpserver")
JSON_RESPONSE = os.environ.get("HTTP_RESPONSE", "json") == "json"
# "flow" (bench_http's session per call) is a stateless server too: each call's client does the
# whole handshake first and DELETEs after; "flow-sessions" is that flow against sessions.
STATELESS = os.environ.get("HTTP_STATE", "stateless") in ("stateless", "stateless-2025", "flow")


async def stats(request: Request) -> JSONResponse:
    with open("/proc/self/statm") as f:
        rss_kib = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    return JSONResponse({"pid": os.getpid(), "rss_kib": rss_kib, "tasks": len(asyncio.all_tasks())})


app: Any
if FRAMEWORK == "fastmcp":
    from fastmcp import Context, FastMCP

    server = FastMCP("weather")

    async def ticking(steps: int, ctx: Context) -> str:
        """Progress every 10 ms, then "done"."""
        for i in range(steps):
            await ctx.report_progress(i + 1, steps)
            await asyncio.sleep(0.01)
        return "done"

    for tool in (*TOOLS, ticking):
        server.tool()(tool)
    server.custom_route("/stats", methods=["GET"])(stats)
    app = server.http_app(json_response=JSON_RESPONSE, stateless_http=STATELESS)
elif FRAMEWORK == "mcpserver":
    from mcp.server.mcpserver import Context as MCPContext
    from mcp.server.mcpserver import MCPServer

    # Its constructor passes its own default level (INFO), as FastMCP 1.x's does: the level only
    # reaches it as an argument.
    level = os.environ.get("FASTMCP_LOG_LEVEL")
    mcpserver = MCPServer("weather", **({"log_level": level} if level else {}))

    async def ticking_mcp(steps: int, ctx: MCPContext) -> str:  # type: ignore[type-arg]
        """Progress every 10 ms, then "done"."""
        for i in range(steps):
            await ctx.report_progress(i + 1, steps)
            await asyncio.sleep(0.01)
        return "done"

    for tool in TOOLS:
        mcpserver.tool()(tool)
    mcpserver.tool(name="ticking")(ticking_mcp)
    mcpserver.custom_route("/stats", methods=["GET"])(stats)
    app = mcpserver.streamable_http_app(json_response=JSON_RESPONSE, stateless_http=STATELESS)
elif FRAMEWORK == "lowlevel":
    from lowlevel_app import TOOLS as lowlevel_tools
    from lowlevel_app import server as lowlevel
    from starlette.routing import Route

    # The SDK's low-level Server with the tools declared by hand (examples/lowlevel_app.py): no
    # get_tool_input_schema, as a server built on it has unless its author passes one, so a
    # 2026-07-28 tools/call with arguments runs its tools/list handler first to check the
    # Mcp-Param-* headers; LOWLEVEL_INPUT_SCHEMA=1 passes one (what doctor points to).
    if os.environ.get("LOWLEVEL_INPUT_SCHEMA"):
        schemas = {tool.name: tool.input_schema for tool in lowlevel_tools}
        lowlevel.get_tool_input_schema = schemas.get
    app = lowlevel.streamable_http_app(
        json_response=JSON_RESPONSE, stateless_http=STATELESS, custom_starlette_routes=[Route("/stats", stats)]
    )
elif FRAMEWORK == "fastmcp1":
    from mcp.server.fastmcp import Context as Context1  # type: ignore[attr-defined,unused-ignore]
    from mcp.server.fastmcp import FastMCP as FastMCP1  # type: ignore[attr-defined,unused-ignore]

    # Its constructor passes its own default level (INFO) to its settings, over FASTMCP_LOG_LEVEL:
    # the variable only reaches it as an argument.
    level = os.environ.get("FASTMCP_LOG_LEVEL")
    fastmcp1 = FastMCP1(
        "weather", json_response=JSON_RESPONSE, stateless_http=STATELESS, **({"log_level": level} if level else {})
    )

    async def ticking_1x(steps: int, ctx: Context1) -> str:
        """Progress every 10 ms, then "done"."""
        for i in range(steps):
            await ctx.report_progress(i + 1, steps)
            await asyncio.sleep(0.01)
        return "done"

    for tool in TOOLS:
        fastmcp1.tool()(tool)
    fastmcp1.tool(name="ticking")(ticking_1x)
    fastmcp1.custom_route("/stats", methods=["GET"])(stats)
    app = fastmcp1.streamable_http_app()
elif FRAMEWORK == "minimcp":
    from minimcp import HTTPTransport, MiniMCP  # type: ignore[import-not-found,unused-ignore]
    from starlette.routing import Route

    # Stateless and JSON only: one POST, one answer (no sessions, no event stream for a call
    # that sends no notifications).
    mini = MiniMCP(name="weather")
    for tool in TOOLS:
        mini.tool()(tool)
    app = HTTPTransport(mini).as_starlette("/mcp")
    app.router.routes.append(Route("/stats", stats, methods=["GET"]))
else:
    raise SystemExit(f"HTTP_APP must be mcpserver, lowlevel, fastmcp, fastmcp1 or minimcp, not {FRAMEWORK!r}")

if os.environ.get("HTTP_GC_FREEZE"):
    # What doctor suggests for a server whose heap is large: the objects built so far (the SDK's
    # models and schemas, the app) left out of every later collection, stock and adapted alike.
    gc.freeze()
