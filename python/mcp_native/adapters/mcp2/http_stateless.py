"""mcp 2.x: a stateless Streamable HTTP request of the 2025 era served in one pass.

Stock, ``StreamableHTTPSessionManager._handle_stateless_request`` builds a transport for every
POST, starts a task in the manager's task group that connects it (four memory streams and a
message-router task) and runs a ``JSONRPCDispatcher`` over it (a task group and a read loop,
which spawns one more task for the request) with a ``ServerRunner`` over a born-ready
``Connection``; the transport hands the message to that loop through the streams, waits for the
response on a stream of its own, writes it, and is terminated.

Here the same work without the streams, the router, the loop and their tasks, for what a
stateless client sends:

- a POST holding one request (``initialize`` included): the transport is built as stock builds
  it and checks the request with its own code (the security settings, ``Accept``,
  ``Content-Type``); the body is parsed and validated by the SDK's own parser and message
  adapter; the SDK's own ``JSONRPCDispatcher._handle_request`` (the handler chain with its
  OpenTelemetry span, the exception-to-error mapping, its logging) runs the request over the
  ``ServerRunner`` and ``Connection`` stock builds, in a task of its own that starts from a copy
  of the request's context, as stock's spawned task does. In JSON mode the answer is written by
  the transport's ``_create_json_response`` (natively, with ``http-responses``); what the handler
  notifies goes where it goes in stock's JSON mode: nowhere (a JSON body carries only the
  response). With SSE responses, the transport's own ``EventSourceResponse`` and
  ``_run_sse_writer`` stream what the handler writes for the request (its notifications as they
  come, then the answer), routed to the request's stream as the transport's router routes it;
  once the response ends (answered, or the client gone), a handler still running is cancelled,
  as stock's teardown cancels it.
- a POST holding one notification or response, in either response mode: the transport's 202,
  then the message handed to the SDK's own ``JSONRPCDispatcher._dispatch`` (a notification's
  handler chain runs in a task from the request's context, as stock spawns it); a handler still
  waiting once the transport is terminated is cancelled, as stock's teardown cancels the
  dispatcher's task group.
- ``DELETE`` and the methods the transport refuses: answered by the transport's own
  ``handle_request`` (405 without a session), which needs no connection for them.

Then, as stock, the transport is terminated (its INFO line "Terminating session: None"
included) and the connection's exit stack unwound.

Everything else takes the stock path, the body handed back to it where it was read: ``GET`` (a
stream), a batch, a body the SDK's parser or envelope refuses
(stock answers it), DEBUG enabled on the SDK's loggers on this path (stock writes debug lines
this path does not pass through), any function of the stock path replaced by someone else
(OpenTelemetry's instrumentation wraps the transport's ``connect`` to open its span), a backend
other than asyncio.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import anyio
import pydantic_core
from mcp.server import runner as _runner
from mcp.server import streamable_http as _transport
from mcp.server import streamable_http_manager as _manager
from mcp.server.connection import Connection
from mcp.shared import jsonrpc_dispatcher as _dispatcher_module
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    INTERNAL_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from starlette.requests import Request

from .._engines.http import one_pass_allowed, replayed
from .._engines.http_sse import deliver, request_stream, stream_request
from .._patching.patch import SdkSteps

stock_handle_stateless_request: Callable[..., Any] | None = None  # set by install()

_Transport = _transport.StreamableHTTPServerTransport
_Dispatcher = _dispatcher_module.JSONRPCDispatcher

# The loggers of the stock path: with DEBUG on any of them, stock writes lines this one skips.
_LOGGERS = tuple(logging.getLogger(m.__name__) for m in (_manager, _transport, _dispatcher_module, _runner))

# What the stock path runs that this one does not.
_SKIPPED = SdkSteps(
    (_Transport, "connect", _transport.__name__, "StreamableHTTPServerTransport.connect"),
    (_Transport, "handle_request", _transport.__name__, "StreamableHTTPServerTransport.handle_request"),
    (_Transport, "_handle_post_request", _transport.__name__, "StreamableHTTPServerTransport._handle_post_request"),
    (_Dispatcher, "run", _dispatcher_module.__name__, "JSONRPCDispatcher.run"),
    (_Dispatcher, "_dispatch_request", _dispatcher_module.__name__, "JSONRPCDispatcher._dispatch_request"),
    (_manager, "serve_connection", _runner.__name__, "serve_connection"),
    (_runner, "serve_connection", _runner.__name__, "serve_connection"),
)


def _one_pass() -> bool:
    return one_pass_allowed(_LOGGERS) and _SKIPPED.intact()


class _Answer:
    """The dispatcher's write stream for one request: it keeps the request's response (or
    error) and drops the rest, as stock's router does in JSON mode."""

    def __init__(self, request_id: Any) -> None:
        self.request_id = request_id
        self.message: Any = None

    async def send(self, item: Any) -> None:
        message = item.message
        answers = type(message) is not JSONRPCNotification and getattr(message, "id", None) == self.request_id
        if self.message is None and answers:
            self.message = message


class _Tasks:
    """The dispatcher's task group for one notification: what it spawns runs in a task started
    from a copy of the request's context (as stock's from its sender's); ``cancel`` cancels what
    still waits, as stock's teardown cancels the group."""

    def __init__(self) -> None:
        self.running: list[tuple[anyio.CancelScope, asyncio.Task[None]]] = []

    def start_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        # As anyio's: mcp 2.0.1-2.2.0's _spawn passes the handler's arguments, 2.3.0's a closure.
        scope = anyio.CancelScope()

        async def run() -> None:
            with scope:
                await fn(*args)

        self.running.append((scope, asyncio.get_running_loop().create_task(run())))

    async def cancel(self) -> None:
        if self.running:
            await anyio.lowlevel.checkpoint()  # stock's teardown takes a turn of the loop at least
        for scope, task in self.running:
            if not task.done():  # (anyio's cancel formats the task's repr: 7 us a request)
                scope.cancel()
            await task


def _dispatcher(write_stream: Any) -> Any:
    """Stock's dispatcher, without a read stream: the one message is handed over directly."""
    return _Dispatcher(
        None,  # type: ignore[arg-type]
        write_stream,
        inline_methods=frozenset({"initialize"}),
        transport_builder=lambda _md: TransportContext(kind="streamable-http", can_send_request=False),
    )


def _accepted(request: Request, json_response: bool) -> bool:
    """The transport's ``Accept`` rule for a POST, in its response mode."""
    has_json, has_sse = _transport.check_accept_headers(request)
    return has_json and (json_response or has_sse)


async def handle_stateless_request(
    self: Any, protocol_version_hint: str | None, scope: Any, receive: Any, send: Any
) -> None:
    """Process request in stateless mode - creating a new transport for each request."""
    assert stock_handle_stateless_request is not None
    method = scope.get("method")
    if method == "GET" or not _one_pass():  # a GET opens a stream
        await stock_handle_stateless_request(self, protocol_version_hint, scope, receive, send)
        return
    transport = _Transport(
        mcp_session_id=None,
        is_json_response_enabled=self.json_response,
        event_store=None,
        security_settings=self.security_settings,
    )
    if method != "POST":  # DELETE or a method it refuses: the transport's own answer, no connection
        await _alone(transport, transport.handle_request, scope, receive, send)
        return
    request = Request(scope, receive)
    refused = await transport._security.validate_request(request, is_post=True)
    if refused is not None:  # its answer, as stock's transport gives it (its warning logged once, here)
        await _alone(transport, refused, scope, receive, send)
        return
    if not (_accepted(request, self.json_response) and transport._check_content_type(request)):
        # stock answers it (nothing is read yet)
        await stock_handle_stateless_request(self, protocol_version_hint, scope, receive, send)
        return
    body = await request.body()
    try:
        message = jsonrpc_message_adapter.validate_python(pydantic_core.from_json(body), by_name=False)
    except (ValueError, ValidationError):
        message = None
    if message is None:  # a batch, or a body the SDK's parser or envelope refuses
        await stock_handle_stateless_request(self, protocol_version_hint, scope, replayed(body, receive), send)
        return
    connection = Connection.from_envelope(
        protocol_version_hint if protocol_version_hint is not None else DEFAULT_NEGOTIATED_VERSION, None, None
    )
    runner = _runner.ServerRunner(self.app, connection, self._lifespan_state)
    tasks = _Tasks()
    try:
        if isinstance(message, JSONRPCRequest) and self.json_response:
            response = await _answer(message, transport, request, runner)
            await response(scope, receive, send)
        elif isinstance(message, JSONRPCRequest):
            await _stream(message, transport, request, runner, scope, receive, send)
        else:
            await transport._create_json_response(None, HTTPStatus.ACCEPTED)(scope, receive, send)
            dispatcher = _dispatcher(None)
            dispatcher._tg = tasks
            await dispatcher._dispatch(
                SessionMessage(message, metadata=transport._message_metadata(request)),
                runner.on_request,
                runner.on_notify,
                None,  # the spawned handler starts from the current context, as from its sender's
            )
    finally:
        # Stock's order: the transport terminated (its teardown cancels what still waits), then
        # the connection's exit stack unwound.
        with anyio.CancelScope(shield=True):
            await transport.terminate()
            await tasks.cancel()
        # Its shielded, bounded scope guards callbacks; with none registered there is nothing to
        # unwind (about 10 µs a request saved).
        if getattr(connection.exit_stack, "_exit_callbacks", True):
            await _runner.aclose_shielded(connection)


async def _alone(transport: Any, answer: Any, scope: Any, receive: Any, send: Any) -> None:
    """``answer``, one of the transport's that needs no connection, then the transport
    terminated, as stock's finally terminates it."""
    try:
        await answer(scope, receive, send)
    finally:
        with anyio.CancelScope(shield=True):
            await transport.terminate()


def _start(message: JSONRPCRequest, transport: Any, request: Request, runner: Any, out: Any, scope: Any) -> Any:
    """The request run as stock's dispatcher runs it, in a task of its own started from a copy of
    this task's context (as stock's task spawned from the message's sender); what it writes goes
    to ``out``."""

    async def unanswered() -> None:  # the transport's own answer to a request that settles without one
        error = ErrorData(code=_transport.REQUEST_CANCELLED, message="Request cancelled")
        await out.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=message.id, error=error)))

    dispatcher = _dispatcher(out)
    dctx = _dispatcher_module._JSONRPCDispatchContext(
        transport=TransportContext(kind="streamable-http", can_send_request=False),
        _dispatcher=dispatcher,
        _request_id=message.id,
        message_metadata=transport._message_metadata(request, on_request_unanswered=unanswered),
        _progress_token=_dispatcher_module.progress_token_from_params(message.params),
    )
    handle = _Dispatcher._handle_request(dispatcher, message, dctx, scope, runner.on_request)
    return contextvars.copy_context().run(asyncio.get_running_loop().create_task, handle)


async def _answer(message: JSONRPCRequest, transport: Any, request: Request, runner: Any) -> Any:
    """JSON mode: the transport's response carrying the request's answer."""
    answer = _Answer(message.id)
    await _start(message, transport, request, runner, answer, anyio.CancelScope())
    if answer.message is None:  # stock's answer when the request's stream ends without a response
        return transport._create_error_response(
            "Session terminated before the request completed", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
        )
    return transport._create_json_response(answer.message)


class _Router:
    """The dispatcher's write stream in SSE mode: each message goes to the stream of the request
    it answers or relates to, as the transport's ``message_router`` sends it (a stateless
    transport has no event store and no GET stream: anything else is dropped, as there)."""

    def __init__(self, streams: dict[str, Any]) -> None:
        self.streams = streams

    async def send(self, item: SessionMessage) -> None:
        message, metadata = item.message, item.metadata
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            target = str(message.id)
        elif isinstance(metadata, ServerMessageMetadata) and metadata.related_request_id is not None:
            target = str(metadata.related_request_id)
        else:
            return
        await deliver(self.streams, target, message)


async def _stream(
    message: JSONRPCRequest, transport: Any, request: Request, runner: Any, scope: Any, receive: Any, send: Any
) -> None:
    """SSE mode: the request's messages streamed as stock's transport streams them
    (:func:`.._engines.http_sse.stream_request`), each written to the request's stream by the
    handler as it comes rather than through the transport's streams and router; once the
    response ends (answered, or the client gone) a handler still running is cancelled, as stock's
    teardown cancels it."""
    request_id = str(message.id)
    answered = request_stream(transport, request_id)
    handler_scope = anyio.CancelScope()
    handler = _start(message, transport, request, runner, _Router(transport._request_streams), handler_scope)
    try:
        await stream_request(transport, request_id, answered, scope, receive, send)
    finally:
        if not handler.done():
            handler_scope.cancel()
        with anyio.CancelScope(shield=True):
            await handler
