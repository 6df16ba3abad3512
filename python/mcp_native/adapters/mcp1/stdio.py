"""mcp 1.x: the stdio server transport (``mcp.server.stdio.stdio_server``, used by the low-level
``Server``, 1.x's FastMCP and fastmcp 2.x/3.x) served natively by ``adapters._engines.stdio_server``.

Stock wraps ``sys.stdin.buffer`` and ``sys.stdout.buffer`` in text files and reads them through
a worker thread; this serves the same fds 0 and 1 natively, with the same pair of streams of
``SessionMessage`` (each message in the line's ``JSONRPCMessage`` root model, written with
``exclude_none`` as stock writes it). Beyond what ``_engines.stdio_server`` does on both lines: invalid
UTF-8 is answered with a parse error, where 1.30 reads U+FFFD into the line and 1.26 fails the
whole transport; a lone CR is JSON whitespace, not the end of a line as in a text file. Explicit
``stdin``/``stdout`` streams, and standard streams that are not the process's fd 0 and 1
(replaced by a test harness), go to the stock transport.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from .._engines.stdio_server import serve

# Set by install(): the function this one replaces, for explicit streams.
stock_stdio_server: Callable[..., Any] | None = None


def _backed_by(stream: Any, fd: int) -> bool:
    try:
        return bool(stream.buffer.fileno() == fd)
    except (AttributeError, OSError, ValueError):
        return False


@asynccontextmanager
async def stdio_server(stdin: Any = None, stdout: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    """Serve MCP over the process's stdin and stdout (see the module docstring)."""
    if stdin or stdout or not (_backed_by(sys.stdin, 0) and _backed_by(sys.stdout, 1)):
        assert stock_stdio_server is not None
        async with stock_stdio_server(stdin, stdout) as streams:
            yield streams
        return
    sys.stdout.flush()  # what print() buffered goes first, as stock's writes to the same buffer
    async with serve(0, 1, anyio.create_memory_object_stream) as streams:
        yield streams
