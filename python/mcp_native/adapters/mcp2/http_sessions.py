"""mcp 2.x: a request in an open session, with JSON responses, handed to the session's server
without its read loop and router.

Stock, a POST in a session goes through the session's transport: its checks, the body parsed
and validated, a stream made for the request's answer; the message is sent on the transport's
read stream (a zero-buffer stream that snapshots the sender's context), where the session's
``JSONRPCDispatcher`` read loop takes it and spawns the request's handler in the session's task
group; the handler's answer is sent on the write stream, where the transport's
``message_router`` task takes it and puts it on the request's stream, where the POST takes it
and writes it. Two task switches and two stream hand-offs a request, about a quarter of a
weather call's CPU in a session.

Here, for a request (not ``initialize``) POSTed to a session of a manager with JSON responses
and no event store:

- the session's dispatcher and kernel are recorded where the manager builds them
  (:func:`serve_loop`, the SDK's own steps: the dispatcher, the connection, the
  ``ServerRunner``, its run, the connection's close);
- the POST runs the transport's own checks (security, the session's state, ``Accept``,
  ``Content-Type``, the session header), parses and validates the body with the SDK's parser
  and message adapter, makes the request's stream as stock makes it, and hands the request to
  the dispatcher's own ``_dispatch_request`` with a snapshot of its context, as the read loop
  hands it over with the sender's snapshot: the handler is spawned in the session's task group
  (cancelled with the session), registered for the client's cancellation, answered by the
  dispatcher's own code;
- the answer (a response or error with an id) goes from the dispatcher straight onto the
  request's stream, as the router puts it there (no event store: no event id); every other
  message the session writes (notifications, requests to the client, answers with no id) goes
  through the write stream and the router, as stock.

The transport's idle-timeout bookkeeping and the manager's session checks run as stock (this
replaces the transport's ``_handle_request``, which both call). Everything else takes the
stock path: ``initialize``, a notification or response, a batch, a body the SDK's parser or
envelope refuses (the body handed back where it was read), SSE responses, an event store,
DEBUG on the SDK's loggers on this path, a session whose server was not started here, any
function of the stock path replaced by someone else, a backend other than asyncio.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from typing import Any

import anyio
import pydantic_core
from mcp.server import runner as _runner
from mcp.server import streamable_http as _transport
from mcp.server.connection import Connection
from mcp.shared import _context_streams
from mcp.shared import jsonrpc_dispatcher as _dispatcher_module
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR, JSONRPCError, JSONRPCRequest, JSONRPCResponse, jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.requests import Request

from .._engines.http import one_pass_allowed, replayed
from .._engines.http_sse import deliver
from .._patching.patch import SdkSteps

stock_handle_request: Callable[..., Any] | None = None  # set by install()
stock_serve_loop: Callable[..., Any] | None = None  # set by install()

_Transport = _transport.StreamableHTTPServerTransport
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

# What the stock path runs that this one does not (the session's server built here stands in
# for ``serve_connection``; the POST for the transport's ``_handle_post_request``, the read
# stream's send and the loop's ``_dispatch``; the answer's delivery for the router).
_SKIPPED = SdkSteps(
    (_Transport, "_handle_post_request", _transport.__name__, "StreamableHTTPServerTransport._handle_post_request"),
    (_Transport, "connect", _transport.__name__, "StreamableHTTPServerTransport.connect"),
    (_Dispatcher, "_dispatch", _dispatcher_module.__name__, "JSONRPCDispatcher._dispatch"),
    (_runner, "serve_connection", _runner.__name__, "serve_connection"),
    (
        _context_streams.ContextSendStream,
        "send",
        _context_streams.__name__,
        "ContextSendStream.send",
    ),
)


class _Session:
    """A session's server as :func:`serve_loop` built it: what a POST hands its request to."""

    __slots__ = ("dispatcher", "read_stream", "runner", "transport")

    def __init__(self, read_stream: Any, dispatcher: Any, runner: Any) -> None:
        self.read_stream, self.dispatcher, self.runner = read_stream, dispatcher, runner
        self.transport: Any = None  # bound by the session's first one-pass POST


# The sessions whose server runs here, by their read stream (the transport's ``_read_stream``).
_SESSIONS: dict[int, _Session] = {}


class _Answers:
    """The session dispatcher's write stream: once its transport is bound (JSON responses, no
    event store), a response or error with an id goes straight onto its request's stream, as
    the transport's router puts it there; everything else, and everything before, goes through
    the write stream and the router."""

    def __init__(self, stream: Any, session: _Session | None = None) -> None:
        self.stream, self.session = stream, session

    async def __aenter__(self) -> _Answers:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.stream.__aexit__(*exc)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def send(self, item: SessionMessage) -> None:
        transport = self.session.transport if self.session is not None else None
        message = item.message
        if (
            transport is None
            or not isinstance(message, JSONRPCResponse | JSONRPCError)
            or message.id is None
            or transport._terminated
            or _transport.logger.isEnabledFor(logging.DEBUG)  # the router's debug lines
        ):
            await self.stream.send(item)
            return
        await deliver(transport._request_streams, str(message.id), message)


async def serve_loop(server: Any, read_stream: Any, write_stream: Any, **kwargs: Any) -> None:
    """Drive ``server`` in handshake-only loop mode over a stream pair until the channel closes.

    Stock's steps (the dispatcher, the connection, the kernel, the run, the connection closed),
    with the session recorded for its POSTs and its answers delivered by :class:`_Answers`."""
    assert stock_serve_loop is not None
    if not _SKIPPED.intact():
        await stock_serve_loop(server, read_stream, write_stream, **kwargs)
        return
    session_id = kwargs.get("session_id")
    init_options = kwargs.get("init_options")
    answers = _Answers(write_stream)
    dispatcher = _Dispatcher(
        read_stream,
        answers,
        raise_handler_exceptions=kwargs.get("raise_exceptions", False),
        inline_methods=frozenset({"initialize"}),
    )
    connection = Connection.for_loop(dispatcher, session_id=session_id)
    runner = _runner.ServerRunner(server, connection, kwargs["lifespan_state"], init_options=init_options)
    session = answers.session = _Session(read_stream, dispatcher, runner)
    _SESSIONS[id(read_stream)] = session
    try:
        try:
            await dispatcher.run(runner.on_request, runner.on_notify)
        finally:
            await _runner.aclose_shielded(connection)
    finally:
        _SESSIONS.pop(id(read_stream), None)


def _session(transport: Any, scope: Any) -> _Session | None:
    """The session a POST to ``transport`` may be served in one pass by, or None."""
    if scope.get("method") != "POST" or transport.mcp_session_id is None or not transport.is_json_response_enabled:
        return None
    session = _SESSIONS.get(id(transport._read_stream))
    if (
        session is None
        or session.read_stream is not transport._read_stream
        or transport._event_store is not None
        or not one_pass_allowed(_LOGGERS)
        or not _SKIPPED.intact()
    ):
        return None
    return session


async def handle_request(self: Any, scope: Any, receive: Any, send: Any) -> None:
    """The transport's request handling, below its idle-timeout bookkeeping."""
    assert stock_handle_request is not None
    session = _session(self, scope)
    if session is None:
        await stock_handle_request(self, scope, receive, send)
        return
    request = Request(scope, receive)
    error_response = await self._security.validate_request(request, is_post=True)
    if error_response is not None:  # as stock answers it (its warning logged once, there)
        await error_response(scope, receive, send)
        return
    has_json, _ = _transport.check_accept_headers(request)
    if self._terminated or not has_json or not self._check_content_type(request):
        await stock_handle_request(self, scope, receive, send)  # stock answers it (nothing read yet)
        return
    body = await request.body()
    try:
        message = jsonrpc_message_adapter.validate_python(pydantic_core.from_json(body), by_name=False)
    except (ValueError, ValidationError):
        message = None
    if not isinstance(message, JSONRPCRequest) or message.method == "initialize":
        await stock_handle_request(self, scope, replayed(body, receive), send)
        return
    session.transport = self
    await _post(self, session, message, request, scope, receive, send)


async def _post(
    transport: Any, session: _Session, message: JSONRPCRequest, request: Request, scope: Any, receive: Any, send: Any
) -> None:
    """Stock's JSON-mode POST of a request, the request handed to the session's dispatcher."""
    try:
        if not await transport._validate_request_headers(request, send):
            return
        request_id = str(message.id)
        streams = anyio.create_memory_object_stream[_transport.EventMessage](_transport.REQUEST_STREAM_BUFFER_SIZE)
        transport._request_streams[request_id] = streams
        metadata = transport._message_metadata(
            request, on_request_unanswered=partial(transport._terminate_unanswered_request, message.id)
        )
        dispatcher = session.dispatcher
        if dispatcher._running:
            on_request, sender_context = session.runner.on_request, contextvars.copy_context()
            await dispatcher._dispatch_request(message, metadata, on_request, sender_context)
        else:  # the session's loop has ended: its read stream answers as stock's
            await transport._read_stream_writer.send(SessionMessage(message, metadata=metadata))
        try:
            event_message = await streams[1].receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            response = transport._create_error_response(
                "Session terminated before the request completed", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
            )
        else:
            response = transport._create_json_response(event_message.message)
        finally:
            await transport._clean_up_memory_streams(request_id)
        await response(scope, receive, send)
    except Exception as err:  # as stock's POST fails
        _transport.logger.exception("Error handling POST request")
        response = transport._create_error_response(
            "Error handling POST request", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
        )
        await response(scope, receive, send)
        await transport._read_stream_writer.send(Exception(err))
