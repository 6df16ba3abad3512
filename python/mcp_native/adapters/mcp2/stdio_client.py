"""mcp 2.x: the stdio client transport (``mcp.client.stdio.stdio_client``, which fastmcp 4.x's
``StdioTransport`` uses too) served natively by ``adapters._engines.stdio_client``.

Same contract as the stock transport: it spawns the server with the SDK's own helpers, yields a
pair of streams of ``SessionMessage``, and winds down with the SDK's shutdown sequence (stdout
drained while the server exits, a bounded window to flush accepted messages, stdin closed, the
grace period, then the kill of the process tree), shielded from the caller's cancellation.
Encodings other than strict UTF-8, and Windows, keep the stock transport.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

import mcp.client.stdio as _stock

from .._engines.stdio_client import spawn

# Set by install(): the function this one replaces, for what it leaves to the stock transport.
stock_stdio_client: Callable[..., Any] | None = None


@asynccontextmanager
async def stdio_client(
    server: _stock.StdioServerParameters, errlog: TextIO = sys.stderr
) -> AsyncIterator[tuple[Any, Any]]:
    """Spawns an MCP server subprocess and connects to it over stdin/stdout (see the module
    docstring)."""
    async with spawn(
        server,
        errlog,
        stock_stdio_client,
        _stock,
        drain_stdout=_stock._drain_stdout,
        stop=_stock._stop_server_process,
        flush_timeout=_stock._WRITER_FLUSH_TIMEOUT,
    ) as streams:
        yield streams
