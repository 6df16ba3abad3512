"""What the Streamable HTTP tests of the 2025-era server path share: the JSON-RPC bodies they
send, and a stock and an adapted uvicorn server of one app side by side, each with the SDK
transport's log in a file of its own."""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from mcp_native import adapters

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_http_floor

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post_scope(headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
    """The ASGI scope of a POST of ``body`` to ``/mcp`` on 127.0.0.1:8000, for an app called in
    process (the in-process benchmark's)."""
    fields = {"Host": "127.0.0.1:8000", **headers}
    return bench_http_floor.post_scope([(k.lower().encode(), v.encode()) for k, v in fields.items()], body)


async def asgi_post(app: Any, headers: Mapping[str, str], body: bytes) -> tuple[int, bytes]:
    """One POST of ``body`` to ``/mcp`` through the ASGI ``app`` in process: its status and body
    (the client stays until its answer)."""
    import anyio

    pending = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop()
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(post_scope(headers, body), receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


async def stock_then_adapted(run: Callable[[], Any], group: str) -> tuple[Any, Any]:
    """``await run()`` on the stock SDKs, then with the adapters installed (``group`` among the
    patched); stock again after it, whatever happens (a test that follows sees stock's SDKs)."""
    adapters.uninstall()
    stock = await run()
    report = adapters.install()
    try:
        assert group in report.patched, report
        return stock, await run()
    finally:
        adapters.uninstall()


# Put at the top of an app's source: the transport's log lines (at ``level``) go to $LOG_FILE.
TRANSPORT_LOG = """
import logging, os

log = logging.getLogger("mcp.server.streamable_http")
log.setLevel(logging.{level})
log.propagate = False
handler = logging.FileHandler(os.environ["LOG_FILE"])
handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
log.addHandler(handler)
"""

# Put at the top of an app's source: ``streamed`` counts the responses sse-starlette's
# EventSourceResponse streamed (an answer written at once goes out without it).
STREAM_COUNTER = """
import sse_starlette.sse

streamed = 0
stock_call = sse_starlette.sse.EventSourceResponse.__call__


async def counted(self, scope, receive, send):
    global streamed
    streamed += 1
    await stock_call(self, scope, receive, send)


sse_starlette.sse.EventSourceResponse.__call__ = counted
"""

# Put after an app's ``server`` (an MCPServer): the tools the HTTP tests share. ``log`` is
# TRANSPORT_LOG's; ``/release`` lets ``gated`` answer; ``/tasks`` counts the server's tasks.
TOOLS = """
import asyncio

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from starlette.responses import JSONResponse


@server.tool()
async def chatty(ctx: Context) -> str:
    await ctx.info("working")
    await ctx.report_progress(1, 2, "half")
    return "done"


@server.tool()
async def quiet(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
async def slow(ctx: Context, steps: int = 1000) -> str:
    try:
        for i in range(steps):
            await ctx.report_progress(i, steps)
            await asyncio.sleep(0.01)
    except asyncio.CancelledError:
        log.warning("slow cancelled")
        raise
    return "done"


gate = asyncio.Event()


@server.tool()
async def gated(ctx: Context, notify: bool = False) -> str:
    if notify:
        await ctx.report_progress(1, 2)
    await gate.wait()
    gate.clear()
    return "released"


@server.custom_route("/release", methods=["POST"])
async def release(request):
    gate.set()
    return JSONResponse({})


@server.custom_route("/tasks", methods=["GET"])
async def tasks(request):
    return JSONResponse(len(asyncio.all_tasks()))


@server.tool()
def fails() -> str:
    # A ToolError is logged at INFO: a crash's traceback, rendered by rich at ERROR, can take
    # longer than a second on a loaded machine, past which a session's SSE answer is streamed.
    raise ToolError("it failed")
"""

# conftest's ``served``: ``with served(lambda port: cmd, cwd, env) as port:``.
Served = Callable[[Callable[[int], list[str]], Path, dict[str, str]], AbstractContextManager[int]]


def body(method: str, params: object = None, id: object = 1) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def call(tool: str, arguments: object = None, id: object = 1, meta: object = None) -> bytes:
    params: dict[str, object] = {"name": tool, "arguments": arguments or {}}
    if meta is not None:
        params["_meta"] = meta
    return body("tools/call", params, id)


def pair(
    tmp_path: Path, served: Served, name: str, source: str, extra: dict[str, str]
) -> Iterator[tuple[int, int, Path, Path]]:
    """A stock and an adapted uvicorn server of the app ``source`` (module ``name``, its ASGI
    app ``app``), with ``extra`` in their environment: their ports and log files."""
    (tmp_path / f"{name}.py").write_text(source)
    stock_env = {**{k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}, **extra}
    stock_log, adapted_log = tmp_path / "stock.log", tmp_path / "adapted.log"

    def uvicorn(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", f"{name}:app", "--port", str(port), "--log-level", "warning"]

    with (
        served(uvicorn, tmp_path, {**stock_env, "LOG_FILE": str(stock_log)}) as stock,
        served(uvicorn, tmp_path, {**stock_env, "LOG_FILE": str(adapted_log), adapters.ENVIRONMENT: "1"}) as adapted,
    ):
        yield stock, adapted, stock_log, adapted_log


def exchange(
    port: int, method: str, path: str = "/mcp", data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str | None, str | None, bytes]:
    """One request on a connection of its own (``HEADERS`` unless ``headers``): the status, the
    content type, the session header and the raw body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=data, headers=HEADERS if headers is None else headers)
        response = conn.getresponse()
        raw = response.read()
        return response.status, response.getheader("content-type"), response.getheader("mcp-session-id"), raw
    finally:
        conn.close()


def json_body(kind: str | None, raw: bytes) -> object:
    """A body's JSON where it has JSON, else its bytes."""
    return json.loads(raw) if kind == "application/json" and raw else raw


def post_raw(port: int, data: bytes, headers: dict[str, str]) -> socket.socket:
    """A POST sent on a connection of its own: what the caller reads of the answer, and when it
    drops the connection, is its own."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    start = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}Content-Length: {len(data)}\r\n\r\n"
    sock.sendall(start.encode() + data)
    return sock


def read_until(sock: socket.socket, done: Callable[[bytes], bool], received: bytes = b"") -> bytes:
    """What the server sent on ``sock``, read until ``done`` of it (the connection open)."""
    while not done(received):
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    return received


def tasks(port: int) -> int:
    """How many tasks the server (an app with TOOLS) has."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/tasks", timeout=30) as response:
        count = json.load(response)
    assert isinstance(count, int)
    return count


def drop_mid_call(port: int, log: Path, data: bytes, headers: dict[str, str]) -> None:
    """POSTs ``data`` (a call of ``slow`` asking for progress), drops the connection after three
    progress notifications, then waits (10 s at most) for ``slow`` to log its cancellation and
    for the server's tasks to be back to their count before."""
    baseline, cancelled = tasks(port), log.read_text().count("slow cancelled")
    with post_raw(port, data, headers) as sock:
        read_until(sock, lambda received: received.count(b"notifications/progress") >= 3)
    deadline = time.monotonic() + 10
    while log.read_text().count("slow cancelled") == cancelled or tasks(port) > baseline:
        assert time.monotonic() < deadline, (tasks(port), baseline)
        time.sleep(0.05)
