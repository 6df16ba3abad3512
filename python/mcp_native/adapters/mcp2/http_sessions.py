"""mcp 2.x: what a client POSTs to an open session handed to the session's server by the POST,
without the session's read loop; with JSON responses, the answer put on the request's stream
without the transport's router.

Stock, a POST in a session goes through the session's transport: its checks, the body parsed
and validated; the message is sent on the transport's read stream (a zero-buffer stream that
snapshots the sender's context), where the session's ``JSONRPCDispatcher`` read loop takes it
and dispatches it (a request's handler spawned in the session's task group); the handler's
answer is sent on the write stream, where the transport's ``message_router`` task takes it and
puts it on the request's stream, where the POST takes it and writes it. Two task switches and
two stream hand-offs a request, about a quarter of a weather call's CPU in a session.

Here the session's server is built where the manager builds it (:func:`serve_loop`: stock's
steps, the dispatcher, the connection, the ``ServerRunner``, its run, the connection closed) and
recorded. From the session's second request on (the manager's ``_handle_stateful_request``
finds its transport by the session header) the transport's read-stream writer is
:class:`_Handoff`: the transport's own POST runs as stock, and what it sends the loop is
dispatched at once by the dispatcher's own ``_dispatch`` with a snapshot of the POST's context,
as the loop dispatches it with the sender's snapshot (a request's handler spawned in the
session's task group, cancelled with the session, registered for the client's cancellation; a
notification; a client's answer to the server's request). ``initialize`` (handled inline: the
loop waits for it), an error the POST reports, and a request to a session with an event store go
through the read stream, as stock: there the POST's SSE response mints its priming event, which
a client resumes from, in the turns of the event loop that stock's hand-over through the stream
and the loop gives it before the handler starts (a handler that closes its stream at once,
started first, would leave the client nothing to resume from).

With JSON responses and no event store, the dispatcher's write stream is :class:`_Answers`: a
response or error with an id goes straight onto its request's stream, as the router puts it
there (no event id); every other message the session writes (notifications, requests to the
client, answers with no id) goes through the write stream and the router, as stock. With SSE
responses everything goes through the router, which keeps a request's messages in order.

Each hand-off is decided when it happens: DEBUG on the SDK's loggers on this path (stock writes
lines this one skips), a function of the stock path replaced by someone else, another backend
than asyncio, or the group uninstalled, and the message goes through the streams as stock.

Group ``http-session-tasks`` goes further for a session whose transport keeps no events (JSON or
SSE responses): stock, the request that opens it starts a task in the manager's task group (the
session's server task) that connects the transport (four memory streams and the router's task)
and runs the dispatcher's read loop (its task group), and ``DELETE`` tears them down: about 0.17
ms of CPU a session in process before any message. Here (:class:`_Lite`, decided when the
session opens: it is served so for its life) the transport is never connected: its read-stream
writer dispatches what the POST sends with the dispatcher's own ``_dispatch`` (``initialize``
too: no other request can reach a session before its id is answered), the handlers spawned in
tasks of their own from the POST's context, and its write stream puts each message where the
router puts it, from the task that writes it. The session ends as stock's task ends it, in a
task that outlives the request that ends it: the transport terminated (``DELETE``, the manager
discarding it), a handler's task raising ("Session <id> crashed"), or idle past its timeout
("Session <id> idle timeout", a timer of the event loop at the deadline the transport sets);
then waiters are woken with CONNECTION_CLOSED, handlers still running cancelled and awaited, the
connection closed and the session discarded. The manager shutting down ends every session still
open, as its task group's cancellation ends stock's session tasks.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import weakref
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server import runner as _runner
from mcp.server import streamable_http as _transport
from mcp.server import streamable_http_manager as _manager
from mcp.server.connection import Connection
from mcp.shared import _compat, _context_streams
from mcp.shared import jsonrpc_dispatcher as _dispatcher_module
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

from .._engines.http import one_pass_allowed
from .._engines.http_sse import deliver
from .._patching.patch import SdkSteps

stock_handle_stateful_request: Callable[..., Any] | None = None  # set by install()
stock_serve_loop: Callable[..., Any] | None = None  # set by install()
stock_serve_opening_request: Callable[..., Any] | None = None  # set by install()

_Transport = _transport.StreamableHTTPServerTransport
_Manager = _manager.StreamableHTTPSessionManager
_SESSION_HEADER = _transport.MCP_SESSION_ID_HEADER.encode("ascii")
_Dispatcher = _dispatcher_module.JSONRPCDispatcher

# The loggers of the stock path: with DEBUG on any of them, stock writes lines this one skips.
_LOGGERS = tuple(
    logging.getLogger(name)
    for name in (
        "mcp.server.streamable_http_manager",
        _transport.__name__,
        _dispatcher_module.__name__,
        _runner.__name__,
    )
)

# What the stock path runs that this one does not (the read stream's send and the router's
# delivery of an answer; ``serve_connection``, which the session's server built here stands in
# for), and what the hand-off calls in the loop's place.
_STEPS = SdkSteps(
    (_context_streams.ContextSendStream, "send", _context_streams.__name__, "ContextSendStream.send"),
    (_Transport, "connect", _transport.__name__, "StreamableHTTPServerTransport.connect"),
    (_runner, "serve_connection", _runner.__name__, "serve_connection"),
    (_Dispatcher, "_dispatch", _dispatcher_module.__name__, "JSONRPCDispatcher._dispatch"),
    (_Dispatcher, "run", _dispatcher_module.__name__, "JSONRPCDispatcher.run"),
    (_runner, "serve_loop", _runner.__name__, "serve_loop"),
)


class _Session:
    """A session's server as :func:`serve_loop` built it."""

    __slots__ = ("dispatcher", "read_stream", "runner", "transport")

    def __init__(self, read_stream: Any, dispatcher: Any, runner: Any) -> None:
        self.read_stream, self.dispatcher, self.runner = read_stream, dispatcher, runner
        self.transport: Any = None  # bound by the session's first request


# The sessions whose server runs here, by their read stream (the transport's ``_read_stream``).
_SESSIONS: dict[int, _Session] = {}


def _allowed() -> bool:
    """Whether a message may skip the streams now (see the module's docstring)."""
    return (
        _Manager.__dict__.get("_handle_stateful_request") is handle_stateful_request
        and one_pass_allowed(_LOGGERS)
        and _STEPS.intact()
    )


class _Handoff:
    """The transport's read-stream writer: what its POST sends the session's loop, dispatched
    at once (:func:`_hand_over`) where it may be, else sent on the stream."""

    def __init__(self, writer: Any, session: _Session) -> None:
        self.writer, self.session = writer, session

    def __getattr__(self, name: str) -> Any:  # the stream's other methods (close, aclose)
        return getattr(self.writer, name)

    async def send(self, item: Any) -> None:
        session = self.session
        dispatcher = session.dispatcher
        if (
            isinstance(item, SessionMessage)
            and dispatcher._running
            and not (
                isinstance(item.message, JSONRPCRequest)
                and (item.message.method in dispatcher._inline_methods or session.transport._event_store is not None)
            )
            and _allowed()
        ):
            await _hand_over(self.session, item)
        else:
            await self.writer.send(item)


async def _hand_over(session: _Session | _Lite, item: SessionMessage) -> None:
    """``item`` dispatched as the session's loop dispatches what it reads."""
    runner = session.runner
    await session.dispatcher._dispatch(item, runner.on_request, runner.on_notify, contextvars.copy_context())


class _Answers:
    """The session dispatcher's write stream: once its transport is bound (JSON responses, no
    event store), a response or error with an id goes straight onto its request's stream, as
    the transport's router puts it there; everything else goes through the write stream."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.transport: Any = None

    async def __aenter__(self) -> _Answers:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:  # the stream's other methods (close, aclose)
        return getattr(self.stream, name)

    async def send(self, item: SessionMessage) -> None:
        transport, message = self.transport, item.message
        if (
            transport is None
            or not isinstance(message, JSONRPCResponse | JSONRPCError)
            or message.id is None
            or transport._terminated
            or not _allowed()
        ):
            await self.stream.send(item)
            return
        await deliver(transport._request_streams, str(message.id), message)


async def serve_loop(server: Any, read_stream: Any, write_stream: Any, **kwargs: Any) -> None:
    """Drive ``server`` in handshake-only loop mode over a stream pair until the channel closes.

    Stock's steps (the dispatcher, the connection, the kernel, the run, the connection closed),
    with the session recorded for its transport and its write stream :class:`_Answers`."""
    assert stock_serve_loop is not None
    if not _STEPS.intact():
        await stock_serve_loop(server, read_stream, write_stream, **kwargs)
        return
    answers = _Answers(write_stream)
    dispatcher = _Dispatcher(
        read_stream,
        answers,
        raise_handler_exceptions=kwargs.get("raise_exceptions", False),
        inline_methods=frozenset({"initialize"}),
    )
    connection = Connection.for_loop(dispatcher, session_id=kwargs.get("session_id"))
    runner = _runner.ServerRunner(server, connection, kwargs["lifespan_state"], init_options=kwargs.get("init_options"))
    _SESSIONS[id(read_stream)] = _Session(read_stream, dispatcher, runner)
    try:
        try:
            await dispatcher.run(runner.on_request, runner.on_notify)
        finally:
            await _runner.aclose_shielded(connection)
    finally:
        _SESSIONS.pop(id(read_stream), None)


async def handle_stateful_request(self: Any, scope: Any, receive: Any, send: Any) -> None:
    """Process request in stateful mode - maintaining session state between requests.

    Stock's, with the session's server bound to its transport on the session's first request
    after the one that opened it."""
    assert stock_handle_stateful_request is not None
    session_id = next((v.decode("latin-1") for k, v in scope["headers"] if k == _SESSION_HEADER), None)
    transport: Any = self._server_instances.get(session_id) if session_id is not None else None
    session = _SESSIONS.get(id(transport._read_stream)) if transport is not None else None
    if session is not None and session.transport is None and session.read_stream is transport._read_stream:
        session.transport = transport
        transport._read_stream_writer = _Handoff(transport._read_stream_writer, session)
        if transport.is_json_response_enabled and transport._event_store is None:
            session.dispatcher._write_stream.transport = transport
    await stock_handle_stateful_request(self, scope, receive, send)


# --- A session without its tasks (no event store) -------------------------------------------


class _Tasks:
    """The session dispatcher's task group: what it spawns (a request's handler, a
    notification's) runs in a task of its own, from the context it is spawned in (the POST's
    snapshot, as stock's from its sender's); an exception escaping one ends the session, as it
    ends stock's task group and with it the session's server task."""

    def __init__(self, session: _Lite) -> None:
        self.session = session
        self.running: set[asyncio.Task[None]] = set()

    def start_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        task = asyncio.get_running_loop().create_task(fn(*args))
        self.running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.running.discard(task)
        if not task.cancelled() and task.exception() is not None and not self.session.closed:
            self.session.crashed = task.exception()
            self.session.end()


class _Router:
    """The session's write stream: each message put where the transport's ``message_router``
    puts it without an event store (a response or error with an id on its request's stream; a
    message related to a request on that request's stream with SSE responses, dropped with JSON
    ones; the rest on the GET stream), by the task that writes it, without the router's task
    and stream."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport

    async def send(self, item: SessionMessage) -> None:
        message, metadata = item.message, item.metadata
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            target = str(message.id)
        elif (related := getattr(metadata, "related_request_id", None)) is not None:
            if self.transport.is_json_response_enabled:
                return  # a JSON body carries only the response
            target = str(related)
        else:
            target = _transport.GET_STREAM_KEY
        await deliver(self.transport._request_streams, target, message)

    async def aclose(self) -> None:
        pass


class _Lite:
    """A session served without its tasks: stock's dispatcher, connection and ``ServerRunner``,
    built as ``serve_loop`` builds them, with what the transport's POST sends the loop
    dispatched at once by the dispatcher's own ``_dispatch`` (``initialize`` included: nothing
    else can reach a session before its id is answered), and what the session writes put
    where the router puts it. It ends as stock's session task ends it: the transport terminated
    (a DELETE, the manager discarding it), idle past its timeout (:class:`_IdleScope`), a crash,
    or the manager shutting down."""

    def __init__(self, manager: Any, transport: Any) -> None:
        self.manager, self.transport = manager, transport
        self.closed = False
        self.crashed: BaseException | None = None
        self.idle = False
        dispatcher = self.dispatcher = _Dispatcher(
            None,  # type: ignore[arg-type]
            _Router(transport),  # type: ignore[arg-type]
            inline_methods=frozenset({"initialize"}),
        )
        dispatcher._tg = self.tasks = _Tasks(self)  # type: ignore[assignment]
        dispatcher._running = True
        self.connection = Connection.for_loop(dispatcher, session_id=transport.mcp_session_id)
        self.runner = _runner.ServerRunner(manager.app, self.connection, manager._lifespan_state)
        if transport._idle_timeout is not None:  # where connect() makes it
            transport.idle_scope = _IdleScope(self)
        transport._read_stream_writer = self
        transport._write_stream = dispatcher._write_stream

    async def send(self, item: Any) -> None:  # what the transport's POST sends the session's loop
        if self.closed:
            raise anyio.ClosedResourceError
        await _hand_over(self, item)  # (an exception, the POST's failure, observed as the loop does)

    async def aclose(self) -> None:  # the transport terminated: the loop's read stream closed
        self.end()

    def end(self) -> None:
        """The loop's end, as stock's ``run`` ends it: closed to new messages, waiters woken
        with CONNECTION_CLOSED, the handlers in flight cancelled; then, in a task of its own
        (the session's server task winds down after the request that ended it), the handlers
        awaited, the connection closed and the session discarded."""
        if self.closed:
            return
        self.closed = True
        if isinstance(self.transport.idle_scope, _IdleScope):
            self.transport.idle_scope.stop()
        dispatcher = self.dispatcher
        dispatcher._running = False
        dispatcher._closed = True
        dispatcher._fan_out_closed()
        for task in self.tasks.running:
            task.cancel()
        _sweeper(self.manager).wind_down(self)

    async def wound_down(self) -> None:
        with anyio.CancelScope(shield=True):
            if self.tasks.running:
                await asyncio.wait(list(self.tasks.running))
            self.dispatcher._tg = None
            await _compat.resync_tracer()
            await _runner.aclose_shielded(self.connection)
            session_id = self.transport.mcp_session_id
            if self.crashed is not None:
                # Stock's line; its traceback is the task group's, wrapping this one.
                _manager.logger.error(f"Session {session_id} crashed", exc_info=self.crashed)
            elif self.idle:
                _manager.logger.info(f"Session {session_id} idle timeout")
            await self.manager._discard_session(session_id, self.transport)


class _IdleScope:
    """The transport's ``idle_scope`` for a session without its task: what the transport sets
    (its deadline: never while a request is in flight, the idle timeout after the last one) and
    reads (``cancel_called``), with a timer of the event loop at the deadline that ends the
    session, as stock's scope, cancelled at that deadline, ends the session's task."""

    def __init__(self, session: _Lite) -> None:
        self.session = session
        self.cancel_called = False
        self._deadline = math.inf
        self._timer: asyncio.TimerHandle | None = None

    @property
    def deadline(self) -> float:
        return self._deadline

    @deadline.setter
    def deadline(self, value: float) -> None:
        self._deadline = value
        self.stop()
        if value != math.inf and not self.session.closed:
            self._timer = asyncio.get_running_loop().call_at(value, self._expire)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def cancel(self) -> None:
        self.cancel_called = True
        self.stop()

    def _expire(self) -> None:
        self._timer = None
        self.cancel()
        self.session.idle = True
        self.session.end()


class _Sweeper:
    """Per manager, the sessions served without tasks, and one task in the manager's task group
    that ends every one still open when the manager shuts down (stock: its task group cancelled
    with each session's task in it), and waits for the sessions that are winding down."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self.sessions: set[_Lite] = set()
        self.winding: set[asyncio.Task[None]] = set()
        self.started = False

    def add(self, session: _Lite) -> None:
        self.sessions.add(session)
        if not self.started and self.manager._task_group is not None:
            self.started = True
            self.manager._task_group.start_soon(self._run)

    def wind_down(self, session: _Lite) -> None:
        self.sessions.discard(session)
        task = asyncio.get_running_loop().create_task(session.wound_down())
        self.winding.add(task)
        task.add_done_callback(self.winding.discard)

    async def _run(self) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                for session in list(self.sessions):
                    session.end()
                while self.winding:
                    await asyncio.wait(list(self.winding))


_SWEEPERS: weakref.WeakKeyDictionary[Any, _Sweeper] = weakref.WeakKeyDictionary()


def _sweeper(manager: Any) -> _Sweeper:
    sweeper = _SWEEPERS.get(manager)
    if sweeper is None:
        sweeper = _SWEEPERS[manager] = _Sweeper(manager)
    return sweeper


async def serve_opening_request(self: Any, http_transport: Any, scope: Any, receive: Any, send: Any) -> None:
    """Start the session's server task and let its transport answer the request that opens it.

    Stock's, with a session whose transport keeps no events served without its tasks
    (:class:`_Lite`)."""
    assert stock_serve_opening_request is not None
    if not (
        http_transport._event_store is None
        and self._task_group is not None
        and _manager.__dict__.get("serve_loop") is serve_loop  # (the seam stock's task drives)
        and _allowed()
    ):
        await stock_serve_opening_request(self, http_transport, scope, receive, send)
        return
    session_id = http_transport.mcp_session_id
    session = _Lite(self, http_transport)
    established = False
    try:
        status = await _manager._send_and_report_status(http_transport.handle_request, scope, receive, send)
        established = status is not None and status < 400
    finally:
        if established:
            _sweeper(self).add(session)
        else:
            await self._discard_session(session_id, http_transport)  # (which ends the session)
            session.end()
