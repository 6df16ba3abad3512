"""mcp 2.x: the stdio server transport (``mcp.server.stdio.stdio_server``, used by MCPServer,
the low-level ``Server`` and fastmcp 4.x) served natively by ``adapters._engines.stdio_server``.

Same contract as the stock transport: it claims fd 0 and 1 the same way (through the SDK's own
helpers, which divert ``sys.stdin``/``sys.stdout`` while it serves) and yields the same pair of
streams of ``SessionMessage``. Explicit ``stdin``/``stdout`` streams (text files the caller
opened), and standard streams that are not the process's fd 0 and 1 (replaced by a test
harness), go to the stock transport.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp.server.stdio as _stock
from mcp.shared._context_streams import create_context_streams

from .._engines.stdio_server import serve

# Set by install(): the function this one replaces, for explicit streams.
stock_stdio_server: Callable[..., Any] | None = None


@asynccontextmanager
async def stdio_server(stdin: Any = None, stdout: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    """Serve MCP over the process's stdin and stdout (see the module docstring)."""
    if (
        stdin is not None
        or stdout is not None
        or not (_stock._is_backed_by_fd(sys.stdin, 0) and _stock._is_backed_by_fd(sys.stdout, 1))
    ):
        assert stock_stdio_server is not None
        async with stock_stdio_server(stdin, stdout) as streams:
            yield streams
        return

    restore_stdin: Callable[[], None] | None = None
    restore_stdout: Callable[[], None] | None = None
    try:
        stdin_buffer, restore_stdin = _stock._claim_fd(0, sys.stdin, "rb", _stock._open_stdin_diversion)
        stdout_buffer, restore_stdout = _stock._claim_fd(1, sys.stdout, "wb", _stock._open_stdout_diversion)
        in_fd, out_fd = stdin_buffer.fileno(), stdout_buffer.fileno()
        if out_fd == 1:
            sys.stdout.flush()  # served in place: what print() buffered goes first
        async with serve(in_fd, out_fd, create_context_streams) as streams:
            yield streams
    finally:
        if restore_stdout is not None:
            restore_stdout()
        if restore_stdin is not None:
            restore_stdin()
