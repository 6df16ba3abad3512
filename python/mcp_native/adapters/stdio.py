"""The stdio server transport of the ``mcp`` SDK (used by MCPServer, the low-level ``Server`` and
fastmcp), with native framing.

Same contract as ``mcp.server.stdio.stdio_server``: it claims fd 0 and 1 the same way (through
the SDK's own helpers) and yields the same pair of streams of ``SessionMessage``. What differs:

- lines are framed and parsed by :class:`mcp_native.jsonrpc.Decoder`: every malformed line (bad
  JSON or UTF-8, a wrong envelope, a batch, a line over the size limit) is answered with its
  JSON-RPC error (``-32700``/``-32600``, with the id when it can be read) instead of being logged
  and dropped; invalid UTF-8 is a parse error, not U+FFFD; a lone CR does not end a line;
- responses are written as finished lines by :func:`mcp_native.jsonrpc.encode_response`;
- on pipes and sockets, reads and writes happen in the event loop (non-blocking writes) instead
  of a worker thread per line; other files (a regular file, a terminal) keep a worker thread.

Explicit ``stdin``/``stdout`` streams (text files the caller opened), and standard streams that
are not the process's fd 0 and 1 (replaced by a test harness), go to the stock transport.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
import mcp.server.stdio as _stock
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from .. import jsonrpc
from ._wire import encode, sdk_message

_READ_SIZE = 1 << 16
# Unknown ids are written as null: JSON-RPC 2.0's rule, and the SDKs' JSONRPCError requires the
# member (a response without it would be dropped by their readers).
_ERROR_ID_RULE = "2025-06-18"

# The stock transport's helpers reused to claim fd 0 and 1 (install() checks they exist).
STOCK_HELPERS = ("_claim_fd", "_is_backed_by_fd", "_open_stdin_diversion", "_open_stdout_diversion")
# Set by install(): the function this one replaces, for explicit streams.
stock_stdio_server: Callable[..., Any] | None = None


def _pollable(fd: int) -> bool:
    """Pipes and sockets can wait in the event loop; regular files and terminals cannot (epoll
    refuses regular files, and a terminal's non-blocking flag would outlive the process)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _shared_with_stderr(fd: int) -> bool:
    """Whether fd is the file stderr writes to (``2>&1``): logging must not meet a non-blocking
    flag set for the wire."""
    try:
        a, b = os.fstat(fd), os.fstat(2)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class _Writer:
    """Writes whole lines to fd, in order, from any task."""

    def __init__(self, fd: int, nonblocking: bool) -> None:
        self.fd = fd
        self.nonblocking = nonblocking
        self.lock = anyio.Lock()

    async def write(self, data: bytes) -> None:
        async with self.lock:
            view = memoryview(data)
            while view:
                if not self.nonblocking:
                    n = await anyio.to_thread.run_sync(os.write, self.fd, view)
                else:
                    try:
                        n = os.write(self.fd, view)
                    except BlockingIOError:
                        await anyio.wait_writable(self.fd)
                        continue
                view = view[n:]


async def _read(fd: int, pollable: bool) -> bytes:
    if not pollable:
        return await anyio.to_thread.run_sync(os.read, fd, _READ_SIZE)
    while True:
        await anyio.wait_readable(fd)
        try:
            return os.read(fd, _READ_SIZE)
        except BlockingIOError:  # readiness was spurious (a pipe another process made non-blocking)
            continue


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
    restore_flags: tuple[int, int] | None = None  # (fd, flags) to put back
    try:
        stdin_buffer, restore_stdin = _stock._claim_fd(0, sys.stdin, "rb", _stock._open_stdin_diversion)
        stdout_buffer, restore_stdout = _stock._claim_fd(1, sys.stdout, "wb", _stock._open_stdout_diversion)
        in_fd, out_fd = stdin_buffer.fileno(), stdout_buffer.fileno()
        if out_fd == 1:
            sys.stdout.flush()  # served in place: what print() buffered goes first
        read_pollable = _pollable(in_fd)
        write_pollable = _pollable(out_fd) and not _shared_with_stderr(out_fd)
        if write_pollable:
            restore_flags = (out_fd, fcntl.fcntl(out_fd, fcntl.F_GETFL))
            fcntl.fcntl(out_fd, fcntl.F_SETFL, restore_flags[1] | os.O_NONBLOCK)
        writer = _Writer(out_fd, write_pollable)

        read_stream_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, write_stream_reader = create_context_streams[SessionMessage](0)

        async def stdin_reader() -> None:
            decoder = jsonrpc.Decoder(protocol_version=_ERROR_ID_RULE)
            try:
                async with read_stream_writer:
                    while True:
                        chunk = await _read(in_fd, read_pollable)
                        for item in decoder.feed(chunk) if chunk else decoder.close():
                            if type(item) is jsonrpc.Invalid:
                                await writer.write(item.response)
                                # As the stock transport does, the session sees the failure too.
                                await read_stream_writer.send(ValueError(f"{item.message}: {item.error.get('data')}"))
                            else:
                                await read_stream_writer.send(SessionMessage(sdk_message(item)))
                        if not chunk:
                            return
            except anyio.ClosedResourceError:  # pragma: no cover
                await anyio.lowlevel.checkpoint()

        async def stdout_writer() -> None:
            try:
                async with write_stream_reader:
                    async for session_message in write_stream_reader:
                        await writer.write(encode(session_message.message))
            except anyio.ClosedResourceError:  # pragma: no cover
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            tg.start_soon(stdin_reader)
            tg.start_soon(stdout_writer)
            yield read_stream, write_stream
    finally:
        if restore_flags is not None:
            fcntl.fcntl(restore_flags[0], fcntl.F_SETFL, restore_flags[1])
        if restore_stdout is not None:
            restore_stdout()
        if restore_stdin is not None:
            restore_stdin()
