"""mcp 1.x: the stdio client transport (``mcp.client.stdio.stdio_client``, which fastmcp
2.x/3.x's ``StdioTransport`` uses too) served natively by ``adapters._engines.stdio_client``.

It spawns the server with the SDK's own helpers and winds it down with the SDK's shutdown
sequence (stdin closed, ``PROCESS_TERMINATION_TIMEOUT`` for the server to exit, then
``_terminate_process_tree``), shielded from the caller's cancellation. Beyond what
``_engines.stdio_client`` does on both lines: the server's output is drained while it exits (stock
1.x stops reading it, so a server still writing could not exit before the kill), and messages
the session has sent get :data:`FLUSH_TIMEOUT` to reach the server before its stdin is closed.
Encodings other than strict UTF-8, and Windows, keep the stock transport.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

import anyio

from .._engines.stdio_client import spawn

# mcp 1.x's module (mypy checks this package against mcp 2.x, whose helpers differ).
_stock: Any = importlib.import_module("mcp.client.stdio")

# Set by install(): the function this one replaces, for what it leaves to the stock transport.
stock_stdio_client: Callable[..., Any] | None = None

# How long a line whose write has begun may take to reach the server at shutdown (mcp 2.x's
# _WRITER_FLUSH_TIMEOUT; stock 1.x closes stdin under its writer task).
FLUSH_TIMEOUT = 0.5


async def _drain_stdout(process: Any) -> None:
    with contextlib.suppress(
        anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError
    ):
        while True:
            await process.stdout.receive()


async def _stop(process: Any) -> None:
    """Stock 1.x's shutdown: stdin closed, the grace period, then the kill of the process tree;
    then its ``async with process`` exit (the pipes closed, the process reaped)."""
    with contextlib.suppress(Exception):  # stdin may be closed already
        await process.stdin.aclose()
    try:
        with anyio.fail_after(_stock.PROCESS_TERMINATION_TIMEOUT):
            await process.wait()
    except TimeoutError:
        await _stock._terminate_process_tree(process)
    except ProcessLookupError:
        pass
    await process.aclose()


@asynccontextmanager
async def stdio_client(server: Any, errlog: TextIO = sys.stderr) -> AsyncIterator[tuple[Any, Any]]:
    """Spawns an MCP server subprocess and connects to it over stdin/stdout (see the module
    docstring)."""
    async with spawn(
        server, errlog, stock_stdio_client, _stock, drain_stdout=_drain_stdout, stop=_stop, flush_timeout=FLUSH_TIMEOUT
    ) as streams:
        yield streams
