"""What the Streamable HTTP tests of the 2025-era server path share: the JSON-RPC bodies they
send, and a stock and an adapted uvicorn server of one app side by side, each with the SDK
transport's log in a file of its own."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from mcp_native import adapters

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

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
