"""The native stdio client transport, shared by both SDK lines (``adapters.mcp2.stdio_client``
for mcp 2.x, ``adapters.mcp1.stdio_client`` for mcp 1.x, each of which spawns the server with
its SDK's own helpers and winds it down with its SDK's shutdown sequence). :func:`connect`
yields the same pair of streams of ``SessionMessage`` as the stock transports. What differs:

- each line the server writes is framed and parsed by :class:`mcp_native.jsonrpc.Decoder`
  instead of pydantic (about 4x faster on a 64 KB tool result), in the session's own task when
  it asks for the next message, instead of a reader task handing each one over through a
  memory stream; a line that is not a valid message (bad JSON or UTF-8, a wrong envelope) is
  logged and handed to the session as a ``ValueError``, as the stock parser does with its
  pydantic error (the stock transport fails as a whole on invalid UTF-8); a line the decoder
  reads but has not proven to read as the SDK does (an error response, a surrogate escape,
  deep nesting: ``_engines.reading``) is read by the SDK's parser, with its model or its
  error, logged, as stock;
- each message the session sends is written by the sending task itself (responses natively),
  instead of a writer task: on asyncio the line goes to the pipe at once and a transport task
  only waits out a full pipe, so that ``send`` returns once the line is handed over, as before;
- it reads the server's output when the session asks for it, not one chunk ahead.

A failed write ends the read stream (the session sees the connection close) and drains the
server's output; a failed read of stdout mid-session is logged and ends it too.
"""

from __future__ import annotations

import asyncio
import codecs
import inspect
import logging
import math
import sys
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectStreamStatistics
from mcp.shared.message import SessionMessage

from ... import jsonrpc
from .reading import LineDecoder, sdk_parse
from .wire import LineWriter, ReceiveStream, WriteStream, sdk_message

# The stock transports' logger.
logger = logging.getLogger("mcp.client.stdio")


def serves(server: Any) -> bool:
    """Whether the native transport serves these ``StdioServerParameters``: strict UTF-8, off
    Windows; other encodings and Windows keep the stock transport."""
    utf8 = codecs.lookup(server.encoding).name == "utf-8" and server.encoding_error_handler == "strict"
    return utf8 and sys.platform != "win32"


def _message(item: jsonrpc.Message | bytes) -> SessionMessage | Exception:
    """What the session receives for one decoded line: the message, or the parse error as a
    value for the session to surface (logged, as the stock parser logs it). A line the decoder
    has not proven to read as the SDK does (``bytes``) is the SDK parser's, as in stock."""
    kind = type(item)
    if kind is bytes:
        try:
            # Valid UTF-8 (the decoder has read it); stock's line: up to "\n", a "\r" kept.
            return SessionMessage(sdk_parse(item.decode()))  # type: ignore[union-attr]
        except ValueError as exc:  # pydantic's ValidationError, as stock catches it
            logger.exception("Failed to parse JSONRPC message from server")
            return exc
    if kind is not jsonrpc.Invalid:
        return SessionMessage(sdk_message(item))  # type: ignore[arg-type]
    assert isinstance(item, jsonrpc.Invalid)
    problem = f"{item.message}: {item.error.get('data')}"
    logger.error("Failed to parse JSONRPC message from server: %s", problem)
    return ValueError(f"invalid JSON-RPC message from the server: {problem}")


class _StdinWriter(LineWriter):
    """Writes the session's lines to the server's stdin (see :class:`LineWriter`). On asyncio
    a line goes into the pipe's transport at once, which writes what the pipe takes and keeps
    the rest; :meth:`run` then waits for the pipe to drain by sending an empty chunk (anyio's
    send then only drains, and maps a failure as it does for the stock writer). Other process
    streams (trio, a test's fake) take the whole line in :meth:`run`, as the stock writer task
    does.

    A failed write ends the transport: ``on_failure`` ends the read stream, later sends raise
    ``BrokenResourceError``."""

    def __init__(self, stdin: anyio.abc.ByteSendStream, on_failure: Callable[[], None]) -> None:
        super().__init__()
        self._stdin = stdin
        # asyncio's StreamWriter under anyio's wrapper: a write that never waits.
        stream = getattr(stdin, "_stream", None)
        self._direct = stream if isinstance(stream, asyncio.StreamWriter) else None
        self._on_failure = on_failure
        self._broken = False

    @property
    def broken(self) -> bool:
        return self._broken

    def _put(self, data: bytes) -> bytes | None:
        if self._broken:
            raise anyio.BrokenResourceError
        stream = self._direct
        if stream is None:
            return data
        try:
            stream.write(data)
        except Exception:  # a closed transport (uvloop raises): the stock path maps the error
            return data
        transport = stream.transport
        if transport.get_write_buffer_size() == 0 and not transport.is_closing():
            return None
        return b""  # in the transport's buffer: wait for the pipe to take it

    def _started(self, data: bytes, rest: bytes) -> bool:
        return not rest

    async def _finish(self, rest: bytes) -> None:
        try:
            await self._stdin.send(rest)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may still be alive: end the read stream so the session sees the
            # connection close instead of a request hanging forever.
            if not self._broken:
                self._broken = True
                self._on_failure()


class _ReadStream(ReceiveStream):
    """The stream the session receives messages from: ``receive`` reads and decodes the server's
    stdout itself when no decoded message is left. Each receive yields to the event loop once, as
    a memory stream's does: at a checkpoint when a message is already decoded, else while it
    waits for output. :meth:`end` and :meth:`close` interrupt a receive that waits."""

    __slots__ = (
        "_closed",
        "_decoder",
        "_drain_stdout",
        "_ended",
        "_idle",
        "_pending",
        "_scope",
        "_stdout",
        "shutting_down",
    )

    def __init__(self, stdout: anyio.abc.ByteReceiveStream, drain_stdout: Callable[[Any], Awaitable[None]]) -> None:
        self._stdout = stdout
        self._drain_stdout = drain_stdout
        self._decoder = LineDecoder(max_message_bytes=sys.maxsize)  # stock sets no limit either
        self._pending: deque[jsonrpc.Message | bytes] = deque()
        self._ended = False  # end of output, a failed read or write: EndOfStream once delivered
        self._closed = False
        self._scope: anyio.CancelScope | None = None  # of a read in progress
        self._idle: anyio.Event | None = None  # for drain(): set when that read is over
        self.shutting_down = False

    async def receive(self) -> SessionMessage | Exception:
        if self._pending:
            await anyio.lowlevel.checkpoint()
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            if self._pending:
                return _message(self._pending.popleft())
            if self._ended:
                raise anyio.EndOfStream
            await self._read()

    async def _read(self) -> None:
        try:
            with anyio.CancelScope() as self._scope:
                chunk = await self._stdout.receive()
                self._pending.extend(self._decoder.feed(chunk))
        except anyio.EndOfStream:
            self._ended = True  # an unterminated last line is dropped, as the stock reader does
        except anyio.ClosedResourceError:
            self._ended = True  # our own shutdown closed stdout under the read
        except (anyio.BrokenResourceError, ConnectionError):
            self._ended = True
            if not self.shutting_down:
                logger.exception("Reading from the MCP server's stdout failed mid-session")
        finally:
            self._scope = None
            if self._idle is not None:
                self._idle.set()

    def statistics(self) -> MemoryObjectStreamStatistics:
        """What the stock memory stream reports: no open send side once the server's output has
        ended and each message decoded from it is delivered (the stock reader task closes its end
        then), or once closed. fastmcp 3.x's stdio transport reads that as a dead server and
        starts a new one; without it a keep-alive client reuses the dead session."""
        over = self._closed or (self._ended and not self._pending)
        waiting = int(self._scope is not None)
        return MemoryObjectStreamStatistics(
            len(self._pending), math.inf, int(not over), int(not self._closed), 0, waiting
        )

    def end(self) -> None:
        """Ends the stream (a write failed): what is decoded is delivered, then ``EndOfStream``."""
        self._ended = True
        if self._scope is not None:
            self._scope.cancel()

    def close(self) -> None:
        self._closed = True
        if self._scope is not None:
            self._scope.cancel()

    async def drain(self, process: Any) -> None:
        """Discards the server's remaining output (the line's helper), once a read in progress is
        over: a server blocked writing stdout could neither read stdin nor exit."""
        with anyio.CancelScope(shield=True):
            if self._scope is not None:  # close() or end() has cancelled it: wait for it to unwind
                self._idle = anyio.Event()
                await self._idle.wait()
            await self._drain_stdout(process)


@asynccontextmanager
async def connect(
    process: Any,
    *,
    drain_stdout: Callable[[Any], Awaitable[None]],
    stop: Callable[[Any], Awaitable[None]],
    flush_timeout: float,
) -> AsyncIterator[tuple[Any, Any]]:
    """The session's streams over a spawned server ``process`` (see the module docstring); at
    the end the server's output is drained (``drain_stdout``), accepted messages get
    ``flush_timeout`` seconds to reach it, then ``stop`` winds the process down, all shielded
    from the caller's cancellation."""
    # The spawn succeeded; no awaits until the task group is entered, or a cancellation
    # delivered in the gap would leak the live process.
    assert process.stdin and process.stdout, "server process is spawned with pipes"
    read_stream = _ReadStream(process.stdout, drain_stdout)
    drain_now = anyio.Event()
    writer_done = anyio.Event()

    async def drain_when_asked() -> None:
        # Started with the transport, not when asked: a task started once the caller's scope is
        # cancelled (fastmcp closes its client by cancelling the task that holds it) would be
        # cancelled before its first step and never drain. Always asked, at the latest on exit.
        with anyio.CancelScope(shield=True):
            await drain_now.wait()
            await read_stream.drain(process)

    async with anyio.create_task_group() as tg:

        def drain() -> None:
            drain_now.set()

        def write_failed() -> None:
            read_stream.end()
            drain()  # a live server must not block on a full stdout

        writer = _StdinWriter(process.stdin, write_failed)
        write_stream = WriteStream(writer)

        async def write_rest() -> None:
            try:
                await writer.run()
            finally:
                writer_done.set()

        tg.start_soon(write_rest)
        tg.start_soon(drain_when_asked)
        try:
            yield read_stream, write_stream
        finally:
            read_stream.shutting_down = True
            # Shutdown must finish even under caller cancellation, or the server process
            # would leak; every wait inside is bounded.
            with anyio.CancelScope(shield=True):
                # Drain first: a server stuck writing stdout cannot read its stdin, so
                # draining is what lets the flush below complete.
                read_stream.close()
                drain()
                # Bounded window for accepted messages to reach the server.
                write_stream.close()
                with anyio.move_on_after(flush_timeout):
                    await writer_done.wait()
                await stop(process)
                # One pass so unblocked tasks exit on their own before the cancel.
                await anyio.lowlevel.checkpoint()
            # Unstick a write that a kill survivor's open pipe end could still block.
            tg.cancel_scope.cancel()


@asynccontextmanager
async def spawn(
    server: Any,
    errlog: Any,
    stock_client: Callable[..., Any] | None,
    sdk: Any,
    *,
    drain_stdout: Callable[[Any], Awaitable[None]],
    stop: Callable[[Any], Awaitable[None]],
    flush_timeout: float,
) -> AsyncIterator[tuple[Any, Any]]:
    """A line's ``stdio_client``: for parameters the native transport does not serve, the stock
    one (``stock_client``); else the server spawned with the helpers of the line's
    ``mcp.client.stdio`` (``sdk``) and :func:`connect`-ed with the line's shutdown steps."""
    if not serves(server):
        assert stock_client is not None  # set by install()
        async with stock_client(server, errlog) as streams:
            yield streams
        return

    found = sdk._get_executable_command(server.command)
    # A coroutine function from mcp 2.3 on, a plain function before.
    command = await found if inspect.isawaitable(found) else found
    process = await sdk._create_platform_compatible_process(
        command=command,
        args=server.args,
        env=sdk.get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    async with connect(process, drain_stdout=drain_stdout, stop=stop, flush_timeout=flush_timeout) as streams:
        yield streams
