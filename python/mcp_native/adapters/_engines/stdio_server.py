"""The native stdio server transport, shared by both SDK lines (``adapters.mcp2.stdio`` for mcp
2.x, ``adapters.mcp1.stdio`` for mcp 1.x, each of which claims fd 0 and 1 as its stock
transport would and falls back to it where this cannot serve). :func:`serve` yields the same
pair of streams of ``SessionMessage`` as the stock transports. What differs:

- lines are framed and parsed by :class:`mcp_native.jsonrpc.Decoder`: every malformed line (bad
  JSON or UTF-8, a wrong envelope, a batch, a line over the size limit) is answered with its
  JSON-RPC error (``-32700``/``-32600``, with the id when it can be read) instead of being logged
  and dropped; invalid UTF-8 is a parse error, not U+FFFD; a lone CR does not end a line; what
  ``_engines.reading`` does not prove is read by the SDK's parser, as stock reads it;
- responses are written as finished lines by :func:`mcp_native.jsonrpc.encode_response`;
- on pipes and sockets, reads and writes happen in the event loop (non-blocking writes) instead
  of a worker thread per line; other files (a regular file, a terminal) keep a worker thread;
- when stdout is a pipe or socket, no task relays the messages: the serving loop decodes stdin
  itself when it asks for the next message, and each response is written by the task that
  sends it (:class:`WriteStream`): two memory-stream hops and their task wakeups fewer per
  request, and on asyncio no registration of stdin with the event loop per message. What the session sees is the
  same: a yield to the loop at each receive and send, messages and responses in the same
  order, a send that returns once its line is handed over (a line the pipe does not take at
  once is finished by a task of the transport, as the writer task would), the transport
  failing when a write fails;
- at the end of input (a client that writes its requests and closes stdin), the end of the
  stream, on which the SDK cancels the handlers still running (2.x) or closes the stream their
  answers go to (1.x), waits until every request read has been answered, for at most
  :data:`EOF_GRACE_SECONDS`; the server's own requests, which the client can no longer
  answer, get the SDK's "Connection closed" at once; a request the session still leaves
  unanswered gets that error from the transport. Stock answers what finishes before its relay
  tasks pass the end on, and nothing for a handler cancelled while it sends its answer.
"""

from __future__ import annotations

import asyncio
import contextvars
import fcntl
import logging
import os
import stat
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
from mcp.shared.message import SessionMessage

from ... import jsonrpc
from .reading import LineDecoder, delivered
from .wire import WIRE, LineWriter, ReceiveStream, WriteStream, encode

logger = logging.getLogger("mcp_native.adapters")

_READ_SIZE = 1 << 16
# Unknown ids are written as null: JSON-RPC 2.0's rule, and the SDKs' JSONRPCError requires the
# member (a response without it would be dropped by their readers).
_ERROR_ID_RULE = "2025-06-18"

# How long the server goes on after the end of its input while requests it has read are still
# unanswered. A client that writes its requests and closes stdin (a shell pipe, a batch job)
# gets every answer its handlers give within this time; then the session ends as stock ends it
# at once: the handlers still running are cancelled and each of their requests is answered
# with a "Connection closed" error. Shorter than the 2 s the SDK's client waits for the server
# to exit once it has closed stdin, so that a client leaving with calls in flight never has to
# kill the server.
EOF_GRACE_SECONDS = 1.5


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


class _Unanswered:
    """The requests each side waits on (ids as the SDK correlates them: "7" and 7 are one): the
    client's that the session has not answered yet, so that the end of input can wait for their
    answers and the transport can answer what the session leaves unanswered; and the server's
    that the client has not answered, which it no longer can once its input has ended."""

    def __init__(self) -> None:
        self._ids: dict[Any, list[Any]] = {}  # correlated id -> the ids as received
        self._asked: dict[Any, Any] = {}  # the server's requests: correlated id -> id as sent
        self._changed: anyio.Event | None = None  # for wait(): the last answer, or a new ask
        self._deadline: float | None = None  # of the grace, from the first wait()
        self._interrupted = False

    def received(self, message: Any) -> None:
        t, message = WIRE.types, WIRE.inner(message)
        if type(message) is t.JSONRPCRequest:
            self._ids.setdefault(WIRE.key(message.id), []).append(message.id)
        elif type(message) is t.JSONRPCNotification and message.method == "notifications/cancelled":
            # mcp 2.x does not answer a request its client has cancelled (1.x answers it, and
            # that answer then settles nothing).
            request_id = (message.params or {}).get("requestId")
            if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
                self._settle(WIRE.key(request_id), every=True)
        elif isinstance(message, (t.JSONRPCResponse, t.JSONRPCError)) and message.id is not None:
            self._asked.pop(WIRE.key(message.id), None)

    def sent(self, message: Any) -> None:
        t, message = WIRE.types, WIRE.inner(message)
        if isinstance(message, (t.JSONRPCResponse, t.JSONRPCError)) and message.id is not None:
            self._settle(WIRE.key(message.id), every=False)
        elif type(message) is t.JSONRPCRequest:
            self._asked[WIRE.key(message.id)] = message.id
            self._wake()

    def _settle(self, key: Any, every: bool) -> None:
        ids = self._ids.get(key)
        if ids is None:
            return
        del ids[: len(ids) if every else 1]
        if not ids:
            del self._ids[key]
            if not self._ids:
                self._wake()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def unanswerable(self) -> SessionMessage | None:
        """Once input has ended: the answer the client can no longer give to one of the
        server's requests, the error the SDK's end of stream would give it (so that the handler
        that asked can finish and answer in turn); None when there is none."""
        if not self._asked:
            return None
        _, request_id = self._asked.popitem()
        return SessionMessage(WIRE.connection_closed(request_id))

    async def wait(self) -> bool:
        """Waits until every request of the client's is answered, or :meth:`interrupt`, for
        :data:`EOF_GRACE_SECONDS` from the first call in all: False; True as soon as the server
        asks the client something (see :meth:`unanswerable`)."""
        if self._deadline is None:
            self._deadline = anyio.current_time() + EOF_GRACE_SECONDS
        with anyio.CancelScope(deadline=self._deadline) as scope:
            while self._ids and not self._interrupted and not self._asked:
                self._changed = anyio.Event()
                await self._changed.wait()
        if scope.cancelled_caught:
            logger.warning(
                "input ended with %d request(s) unanswered after %.1f s; their handlers are cancelled",
                sum(map(len, self._ids.values())),
                EOF_GRACE_SECONDS,
            )
            return False
        return bool(self._asked) and not self._interrupted

    def interrupt(self) -> None:
        """Ends a :meth:`wait` at once (the session is closing the stream)."""
        self._interrupted = True
        self._wake()

    def left(self) -> list[Any]:
        return [i for ids in self._ids.values() for i in ids]


async def _answer_left(unanswered: _Unanswered, write: Callable[[bytes], Awaitable[None]]) -> None:
    """Answers each request the session ended without answering (its handler was cancelled
    while its answer waited to be written): a "Connection closed" error, as the SDK writes for
    the handlers it cancels, rather than nothing. Called once the session has closed its write
    stream, so no answer of its own can follow."""
    try:
        for request_id in unanswered.left():
            await write(encode(WIRE.connection_closed(request_id)))
    except (OSError, anyio.BrokenResourceError):  # the client is gone: nobody left to answer
        pass


class _Writer:
    """Writes whole lines to fd, in order, from any task (the writer task of the relayed path)."""

    def __init__(self, fd: int, nonblocking: bool) -> None:
        self.fd = fd
        self.nonblocking = nonblocking
        self.lock = anyio.Lock()

    async def write(self, data: bytes) -> None:
        async with self.lock:
            if self.nonblocking:
                await _write_all(self.fd, memoryview(data))
                return
            view = memoryview(data)
            while view:
                view = view[await anyio.to_thread.run_sync(os.write, self.fd, view) :]


async def _write_all(fd: int, view: memoryview) -> None:
    """Writes all of `view` to non-blocking `fd`, waiting in the event loop while it is full."""
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            await anyio.wait_writable(fd)
            continue
        view = view[n:]


class _PipeWriter(LineWriter):
    """Writes whole lines to a non-blocking pipe or socket (see :class:`LineWriter`): at once as
    far as the pipe takes them. A line whose first byte is written is written whole. A sender
    that cannot encode or write its message fails the transport: :meth:`run` raises the error."""

    def __init__(self, fd: int, unanswered: _Unanswered) -> None:
        super().__init__()
        self.fd = fd
        self.unanswered = unanswered
        self.error: BaseException | None = None

    def _put(self, data: bytes) -> memoryview | None:
        try:
            n = os.write(self.fd, data)
        except BlockingIOError:
            n = 0
        return None if n == len(data) else memoryview(data)[n:]

    def _started(self, data: bytes, rest: memoryview) -> bool:
        return len(rest) < len(data)

    async def _finish(self, rest: memoryview) -> None:
        try:
            await _write_all(self.fd, rest)
        except OSError as e:
            self.fail(e)
            raise

    @property
    def broken(self) -> bool:
        return self.error is not None

    async def write_message(self, message: Any) -> None:
        # A failed write (the client went away) or a message that cannot be encoded fails the
        # transport, as a failing writer task would; a sender that comes after that is refused,
        # as by a stock writer task that is gone.
        try:
            await super().write_message(message)
        except anyio.BrokenResourceError:
            raise
        except Exception as e:
            self.fail(e)
        else:
            self.unanswered.sent(message)

    def fail(self, error: BaseException) -> None:
        """Fails the transport (from a sender): :meth:`run` raises ``error``."""
        if self.error is None:
            self.error = error
        self._wake.set()

    def close(self) -> None:
        super().close()
        self.unanswered.interrupt()  # the session sends no more answers: none to wait for

    def _check(self) -> None:
        if self.error is not None:
            raise self.error


async def _read(fd: int, pollable: bool) -> bytes:
    if not pollable:
        return await anyio.to_thread.run_sync(os.read, fd, _READ_SIZE)
    while True:
        await anyio.wait_readable(fd)
        try:
            return os.read(fd, _READ_SIZE)
        except BlockingIOError:  # readiness was spurious (a pipe another process made non-blocking)
            continue


class _ReadStream(ReceiveStream):
    """The stream the session receives messages from: ``receive`` decodes the pipe itself when no
    decoded message is left, instead of a reader task handing each message over through a memory
    stream. Each receive yields to the event loop once, as a memory stream's does: at a
    checkpoint when a message is already decoded, else while it waits for input. ``last_context``
    is a copy of the context the transport was entered in, per message (what a reader task
    started there would have captured).

    On asyncio, a pollable stdin stays registered with the event loop while the session reads
    (one registration, instead of one per message), and the loop's callback reads and decodes
    what arrives; it stops reading while a chunk waits undelivered, so no more than one chunk
    is read ahead of the session, as with a reader task.

    At the end of input, ``EndOfStream`` (on which the SDK cancels the handlers still running)
    waits until every request delivered has been answered, or :data:`EOF_GRACE_SECONDS`."""

    __slots__ = (
        "_closed",
        "_context",
        "_decoder",
        "_ended",
        "_eof",
        "_error",
        "_fd",
        "_loop",
        "_loop_reader",
        "_pending",
        "_pollable",
        "_registered",
        "_waiter",
        "_writer",
        "last_context",
    )
    yields_on_receive = True  # for adapters.mcp2.server_runner

    def __init__(self, fd: int, pollable: bool, writer: _PipeWriter) -> None:
        self._fd = fd
        self._pollable = pollable
        self._writer = writer
        self._decoder = LineDecoder(protocol_version=_ERROR_ID_RULE)
        self._pending: deque[jsonrpc.Message | bytes] = deque()
        self._eof = False
        self._ended = False  # EndOfStream delivered (once the answers were waited for)
        self._error: OSError | None = None
        self._closed = False
        self._context = contextvars.copy_context()
        self.last_context: contextvars.Context | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop stdin is registered with
        self._loop_reader = pollable  # False once the loop turns out to have no readers
        self._registered = False
        self._waiter: asyncio.Future[None] | None = None

    async def receive(self) -> SessionMessage | Exception:
        if self._pending or self._closed or self._eof:
            await anyio.lowlevel.checkpoint()
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            if self._pending:
                item = self._pending.popleft()
                self.last_context = self._context.copy()
                if type(item) is jsonrpc.Invalid:
                    await self._writer.write(item.response)
                    # As the stock transport does, the session sees the failure too.
                    return ValueError(f"{item.message}: {item.error.get('data')}")
                return delivered(item, self._writer.unanswered.received)
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            if self._eof:
                if self._ended:
                    raise anyio.EndOfStream
                unanswerable = self._writer.unanswered.unanswerable()
                if unanswerable is not None:
                    self.last_context = self._context.copy()
                    return unanswerable
                self._ended = not await self._writer.unanswered.wait()
                continue  # the stream may have been closed meanwhile
            if self._loop_reader and self._register():
                waiter = self._waiter = self._loop.create_future()  # type: ignore[union-attr]
                try:
                    await waiter
                finally:
                    self._waiter = None
                continue
            self._feed(await _read(self._fd, self._pollable))

    def _feed(self, chunk: bytes) -> None:
        if chunk:
            self._pending.extend(self._decoder.feed(chunk))
        else:
            self._eof = True
            self._pending.extend(self._decoder.close())

    def _register(self) -> bool:
        """Registers stdin with the running asyncio loop (if not already); False elsewhere."""
        if self._registered:
            return True
        try:
            loop = asyncio.get_running_loop()
            loop.add_reader(self._fd, self._on_readable)
        except (RuntimeError, NotImplementedError):  # not asyncio, or a loop without readers
            self._loop_reader = False
            return False
        self._loop = loop
        self._registered = True
        return True

    def unregister(self) -> None:
        if self._registered:
            self._registered = False
            assert self._loop is not None
            self._loop.remove_reader(self._fd)

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self._fd, _READ_SIZE)
        except BlockingIOError:  # readiness was spurious (a pipe another process made non-blocking)
            return
        except OSError as e:
            self._error = e
            self.unregister()
        else:
            self._feed(chunk)
            if self._eof or self._waiter is None:
                self.unregister()  # the end, or a chunk read ahead: read on when it is delivered
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def close(self) -> None:
        self._closed = True
        self._writer.unanswered.interrupt()
        self.unregister()


@asynccontextmanager
async def serve(
    in_fd: int, out_fd: int, memory_streams: Callable[[int], tuple[Any, Any]]
) -> AsyncIterator[tuple[Any, Any]]:
    """Serve MCP over ``in_fd`` and ``out_fd`` (see the module docstring); ``memory_streams`` is
    the line's own pair of memory streams, for the relayed path (stdout not a pipe)."""
    restore_flags: list[tuple[int, int]] = []  # (fd, flags) to put back
    try:
        read_pollable = _pollable(in_fd)
        write_pollable = _pollable(out_fd) and not _shared_with_stderr(out_fd)
        # Reads happen once the loop reports the pipe readable, but a blocking descriptor would
        # still block the loop if another reader (a process sharing the pipe) took the data first.
        nonblocking = [out_fd] if write_pollable else []
        if read_pollable and not _shared_with_stderr(in_fd):
            nonblocking.insert(0, in_fd)
        for fd in nonblocking:
            restore_flags.append((fd, fcntl.fcntl(fd, fcntl.F_GETFL)))
            fcntl.fcntl(fd, fcntl.F_SETFL, restore_flags[-1][1] | os.O_NONBLOCK)
        unanswered = _Unanswered()
        if write_pollable:
            pipe_writer = _PipeWriter(out_fd, unanswered)
            read_stream = _ReadStream(in_fd, read_pollable, pipe_writer)
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(pipe_writer.run)
                    yield read_stream, WriteStream(pipe_writer)
                    if not pipe_writer.broken:
                        await _answer_left(unanswered, pipe_writer.write)
            finally:
                read_stream.unregister()
            return

        writer = _Writer(out_fd, write_pollable)

        read_stream_writer, context_read_stream = memory_streams(0)
        context_write_stream, write_stream_reader = memory_streams(0)

        async def stdin_reader() -> None:
            decoder = LineDecoder(protocol_version=_ERROR_ID_RULE)
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
                                await read_stream_writer.send(delivered(item, unanswered.received))
                        if not chunk:
                            # The session ends when this stream does: first the answers.
                            while True:
                                unanswerable = unanswered.unanswerable()
                                if unanswerable is not None:
                                    await read_stream_writer.send(unanswerable)
                                elif not await unanswered.wait():
                                    return
            except anyio.ClosedResourceError:  # pragma: no cover
                await anyio.lowlevel.checkpoint()

        async def stdout_writer() -> None:
            try:
                async with write_stream_reader:
                    async for session_message in write_stream_reader:
                        await writer.write(encode(session_message.message))
                        unanswered.sent(session_message.message)
                # The session has closed its write stream and all it sent is written.
                unanswered.interrupt()
                await _answer_left(unanswered, writer.write)
            except anyio.ClosedResourceError:  # pragma: no cover
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            tg.start_soon(stdin_reader)
            tg.start_soon(stdout_writer)
            yield context_read_stream, context_write_stream
    finally:
        for fd, flags in reversed(restore_flags):
            fcntl.fcntl(fd, fcntl.F_SETFL, flags)
