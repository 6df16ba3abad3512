"""mcp 1.x: a stateless Streamable HTTP request, notification or DELETE in one pass.

Stock, ``StreamableHTTPSessionManager._handle_stateless_request`` builds a transport for every
POST and starts a task in the manager's task group that connects it (four memory streams and a
message-router task in a task group of its own) and runs ``Server.run`` over it: the server's
lifespan entered, a ``ServerSession`` whose receive loop is a task of its own in another task
group, and a task group in which the message the loop hands over through one more memory stream
is handled in a task of its own. The transport parses the body, hands the message to that loop,
waits on a stream of its own for the answer the router routes there, writes it, and is
terminated. For an adapted FastMCP 1.x weather call (mcp 1.30.0, in process) that machinery is
about two thirds of the CPU.

Here, for a server whose ``run`` is the low-level ``Server.run`` (FastMCP 1.x's server and a
low-level ``Server``), or fastmcp 3.x's run where group ``http-one-pass-3x`` says how it opens its
session (``adapters.fastmcp3.http_one_pass``), what a stateless client sends is served as the
run and the session's receive loop serve it, without the streams, the router, the loops and
their tasks:

- a POST holding one request, in JSON response mode: the transport is built as stock builds it
  and checks the request with its own code (the security settings, ``Accept``,
  ``Content-Type``); the body is parsed and validated as the transport and the session's receive
  loop validate it; then, in a task started from a copy of the request's context (as stock's
  task is), the server's lifespan is entered, the session the run opens built (stateless, the
  server's initialization options: built once per server, ``init_options.stateless_options``),
  the request handed to the session's own ``_received_request`` (which answers ``initialize``)
  and then to the server's own
  ``_handle_message`` (the handler, its errors, its warnings), as the receive loop and the run
  hand it over. The session's write stream keeps the request's answer and drops the rest, as
  the router and stock's JSON-mode POST drop it (what the handler notifies goes nowhere: a JSON
  body carries only the response). The answer is written when it comes.
- the same POST with SSE responses: the same checks (``Accept`` naming both types), the same
  hand-over; the session's write stream routes what the handler writes as the transport's
  router routes it (the answer, and what relates to the request, to the request's stream, which
  holds nothing on 1.26 as there; the rest nowhere: a stateless transport has no event store and
  no GET stream), and the response is stock's stream of it (1.30's ``_run_sse_writer``, or the
  steps of 1.26's writer closure), or the answer written at once if it comes first
  (``_engines.http_sse``, as mcp 2.x's one pass and a session's request). The run's end without
  an answer ends the stream, as stock's ``connect`` cleans its streams up when the run ends.
- a POST holding one notification, in either response mode: the same checks, the transport's 202,
  then the same task hands it to the session's ``_received_notification`` and the server's
  ``_handle_message`` (a cancellation has nothing to cancel in a session of one message).
- a ``DELETE``: the transport's own answer (405: no session to end), while the task enters and
  leaves the lifespan and the session, as stock's run does for it.

Then the transport is terminated (its INFO line "Terminating session: None" included), after
which the session's writes fail as on stock's closed stream, and the request ends; what the task
has left to do (the handler's tail, the tasks fastmcp starts in its session's task group, the
session's and the lifespan's exits) goes on in the session manager's task group, as stock's run
task does.

Everything else takes the stock path, the body handed back to it where it was read: responses,
batches, ``GET``, a body the transport's parser or the session's validation refuses, a protocol
version header stock refuses (stock answers each), a server with another ``run`` of its own
(fastmcp 2.x's) or with task support, DEBUG on the loggers of the stock path (it writes lines
this path does not pass through), a function of the stock path replaced by someone else
(OpenTelemetry's instrumentation wraps the transport's ``connect``), a backend other than
asyncio. Where the request is cancelled (the server shutting
down), the transport is terminated and the task cancelled, as 1.30's stock path does.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import importlib
import json
import logging
import typing
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from http import HTTPStatus
from typing import Any

import anyio
from pydantic import ValidationError
from starlette.requests import Request

from .._engines.http import one_pass_allowed, replayed
from .._engines.http_sse import deliver, request_stream, stream_request
from .._patching.patch import SdkSteps
from .init_options import stateless_options

stock_handle_stateless_request: Callable[..., Any] | None = None  # set by install()

# mcp 1.x's modules (the type checker sees mcp 2.x, whose names these are not).
types: Any = importlib.import_module("mcp.types")
_transport: Any = importlib.import_module("mcp.server.streamable_http")
_manager: Any = importlib.import_module("mcp.server.streamable_http_manager")
_lowlevel: Any = importlib.import_module("mcp.server.lowlevel.server")
ServerMessageMetadata: Any = importlib.import_module("mcp.shared.message").ServerMessageMetadata
_Transport = _transport.StreamableHTTPServerTransport
_Server = _lowlevel.Server

# The loggers of the stock path: with DEBUG on any of them, stock writes lines this one skips.
_LOGGERS = tuple(logging.getLogger(m.__name__) for m in (_manager, _transport, _lowlevel))


@functools.cache
def _sessions() -> tuple[Any, Any, SdkSteps]:
    """mcp 1.x's ``ServerSession`` and ``RequestResponder``, and what the stock path runs that
    this one does not (1.26's transport has no ``_handle_request``). Looked up on first use: mcp
    2.x, under which this module is imported too (the adapters' own tests check every line's
    replacements), has no ``mcp.shared.session``."""
    shared = importlib.import_module("mcp.shared.session")
    server_session = importlib.import_module("mcp.server.session").ServerSession
    skipped = SdkSteps(
        *(
            (_Transport, name, _transport.__name__, f"StreamableHTTPServerTransport.{name}")
            for name in ("connect", "handle_request", "_handle_request", "_handle_post_request")
            if name in _Transport.__dict__
        ),
        (_Server, "run", _lowlevel.__name__, "Server.run"),
        (server_session, "_receive_loop", server_session.__module__, "ServerSession._receive_loop"),
        (shared.BaseSession, "_receive_loop", shared.__name__, "BaseSession._receive_loop"),
    )
    return server_session, shared.RequestResponder, skipped


async def session_closed(session: Any) -> None:
    """The session's exit without its receive loop (which would close the stream to the server):
    that stream, then what the session's exit stack holds."""
    await session._incoming_message_stream_writer.aclose()
    await session._exit_stack.aclose()


@asynccontextmanager
async def _server_session(app: Any, out: Any) -> AsyncIterator[Any]:
    """The session ``Server.run`` serves a stateless request with."""
    session = _sessions()[0](None, out, stateless_options(app), stateless=True)
    try:
        yield session
    finally:
        await session_closed(session)


def _session_opener(app: Any) -> Callable[[Any, Any], AbstractAsyncContextManager[Any]] | None:
    """How the server's ``run`` opens its session, where this path may serve it: ``Server.run``'s
    here, or the one a run replaced by another group says it opens (``one_pass_session``, set by
    ``adapters.fastmcp3.http_one_pass`` on fastmcp 3.x's run); None for the stock path."""
    if not one_pass_allowed(_LOGGERS):
        return None
    handlers = app._experimental_handlers
    if handlers is not None and handlers.task_support is not None:
        return None
    run = type(app).run
    opener = _server_session if run is _Server.run else getattr(run, "one_pass_session", None)
    return opener if opener is not None and _sessions()[2].intact() else None


def _message(body: bytes, headers: Any) -> tuple[Any, Any] | None:
    """The POST's request or notification, as the transport parses it and the session's receive
    loop validates it, where stock would hand it to the session; None for anything else."""
    try:
        message = types.JSONRPCMessage.model_validate(json.loads(body))
    except (ValueError, ValidationError):  # stock's parse error or envelope error
        return None
    root = message.root
    if isinstance(root, types.JSONRPCRequest):
        kind = types.ClientRequest
    elif isinstance(root, types.JSONRPCNotification):
        kind = types.ClientNotification
    else:  # a response: stock's session matches it to what it sent
        return None
    if root.method != "initialize":  # the transport's protocol version check (stateless: no session)
        version = headers.get(_transport.MCP_PROTOCOL_VERSION_HEADER, _transport.DEFAULT_NEGOTIATED_VERSION)
        if version not in _transport.SUPPORTED_PROTOCOL_VERSIONS:
            return None
    member = _members(kind).get(root.method, kind)
    try:
        validated = member.model_validate(root.model_dump(by_alias=True, mode="json", exclude_none=True))
    except ValidationError:  # stock's receive loop answers -32602, or logs it
        return None
    return root, validated if member is kind else kind.model_construct(validated)


@functools.cache
def _members(kind: Any) -> dict[str, Any]:
    """``kind``'s members (the union ``ClientRequest`` or ``ClientNotification`` holds) by their
    ``method``, where each takes one method of its own; else none.

    Stock validates a message against the whole union, which tries every member (20 us of the
    request's 212 on a FastMCP 1.x call). No other member accepts a message whose method one
    member takes, so the union's answer is that member's, wrapped: the same model, its fields set
    the same (``tests/python/test_adapters_mcp1_http.py`` checks it on every request and
    notification type, and on bad ones). A method no member takes fails the union: stock's path."""
    by_method: dict[str, Any] = {}
    for member in typing.get_args(kind.model_fields["root"].annotation):
        field = member.model_fields.get("method")
        if field is None or typing.get_origin(field.annotation) is not typing.Literal:
            return {}
        methods = typing.get_args(field.annotation)
        if len(methods) != 1 or methods[0] in by_method:
            return {}
        by_method[methods[0]] = member
    return by_method


class _Answer:
    """The session's write stream: the first answer to the request resolves ``answer``; the rest
    is dropped, as stock's router and JSON-mode POST drop it. ``closed`` is set when the transport
    is terminated, which closes stock's write stream."""

    def __init__(self, request_id: Any) -> None:
        self.key = str(request_id)
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.closed = False

    async def send(self, item: Any) -> None:
        if self.closed:
            raise anyio.ClosedResourceError
        root = item.message.root
        is_answer = isinstance(root, types.JSONRPCResponse | types.JSONRPCError) and str(root.id) == self.key
        if is_answer and not self.answer.done():
            self.answer.set_result(item.message)


class _Routed(_Answer):
    """SSE mode: the session's write stream, routed as the transport's router routes it: the
    request's answer (which also resolves ``answer``) and what relates to the request to the
    request's stream; the rest is dropped (a stateless transport has no event store and no GET
    stream)."""

    def __init__(self, request_id: Any, streams: dict[str, Any]) -> None:
        super().__init__(request_id)
        self.streams = streams

    async def send(self, item: Any) -> None:
        await super().send(item)
        message, metadata = item.message, item.metadata
        root = message.root
        if isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
            target = str(root.id)
        elif isinstance(metadata, ServerMessageMetadata) and metadata.related_request_id is not None:
            target = str(metadata.related_request_id)
        else:
            return
        await deliver(self.streams, target, message)


def _unanswered(transport: Any, out: _Answer, _: Any) -> None:
    """The run over without an answer: the request's stream ends, as stock's ``connect`` ends
    the streams when the run ends."""
    if not out.answer.done() or out.answer.result() is None:
        stream = transport._request_streams.get(out.key)
        if stream is not None:
            stream[0].close()


async def _serve(app: Any, open_session: Any, parsed: tuple[Any, Any] | None, metadata: Any, out: _Answer) -> None:
    """``Server.run`` and the session's receive loop, for the one message (None: a ``DELETE``, for
    which stock's run enters the lifespan and the session and receives nothing)."""
    try:
        async with AsyncExitStack() as stack:
            lifespan_context = await stack.enter_async_context(app.lifespan(app))
            session = await stack.enter_async_context(open_session(app, out))
            if parsed is None:
                return
            root, message = parsed
            if isinstance(message, types.ClientRequest):
                responder = _sessions()[1](
                    request_id=root.id,
                    request_meta=message.root.params.meta if message.root.params else None,
                    request=message,
                    session=session,
                    on_complete=lambda r: session._in_flight.pop(r.request_id, None),
                    message_metadata=metadata,
                )
                session._in_flight[responder.request_id] = responder
                await session._received_request(responder)
                if not responder._completed:
                    await app._handle_message(responder, session, lifespan_context, False)
            # A session of one message has nothing in flight to cancel and no progress callbacks.
            elif not isinstance(message.root, types.CancelledNotification):
                await session._received_notification(message)
                await app._handle_message(message, session, lifespan_context, False)
    except Exception:
        _manager.logger.exception("Stateless session crashed")
    finally:
        if not out.answer.done():
            out.answer.set_result(None)


async def handle_stateless_request(self: Any, scope: Any, receive: Any, send: Any) -> None:
    """Process request in stateless mode - creating a new transport for each request."""
    assert stock_handle_stateless_request is not None
    method = scope.get("method")
    open_session = _session_opener(self.app) if method in ("POST", "DELETE") else None
    if open_session is None:
        await stock_handle_stateless_request(self, scope, receive, send)
        return
    transport = _Transport(
        mcp_session_id=None,
        is_json_response_enabled=self.json_response,
        event_store=None,
        security_settings=self.security_settings,
    )
    parsed = metadata = refused = None
    if method == "POST":
        request = Request(scope, receive)
        # Refused by the security settings: their answer beside stock's run, as for a DELETE (its
        # warning logged once: stock's transport would log it again).
        refused = await transport._security.validate_request(request, is_post=True)
        has_json, has_sse = transport._check_accept_headers(request)
        checks_pass = has_json and (self.json_response or has_sse) and transport._check_content_type(request)
        if refused is None and not checks_pass:  # stock answers it (nothing is read yet)
            await stock_handle_stateless_request(self, scope, receive, send)
            return
    if method == "POST" and refused is None:
        body = await request.body()
        parsed = _message(body, request.headers)
        if parsed is None:
            await stock_handle_stateless_request(self, scope, replayed(body, receive), send)
            return
        metadata = ServerMessageMetadata(request_context=request)
    request_id = parsed[0].id if parsed is not None and isinstance(parsed[0], types.JSONRPCRequest) else None
    streamed = request_id is not None and not self.json_response
    out = _Routed(request_id, transport._request_streams) if streamed else _Answer(request_id)

    def start() -> asyncio.Task[None]:  # in a copy of the request's context, as stock's task
        serve = _serve(self.app, open_session, parsed, metadata, out)
        return contextvars.copy_context().run(asyncio.get_running_loop().create_task, serve)

    task = None
    try:
        if parsed is None:  # DELETE (405: no session) or a refused POST: the answer beside stock's run
            task = start()
            await (refused or transport.handle_request)(scope, receive, send)
        elif isinstance(parsed[0], types.JSONRPCNotification):  # 202, then the message handed over
            await transport._create_json_response(None, HTTPStatus.ACCEPTED)(scope, receive, send)
            task = start()
        elif streamed:
            answered = request_stream(transport, out.key)
            task = start()
            task.add_done_callback(functools.partial(_unanswered, transport, out))
            await stream_request(transport, out.key, answered, scope, receive, send)
        else:
            task = start()
            answer = await out.answer
            if answer is None:  # stock's answer when the request's stream ends without a response
                _transport.logger.error("No response message received before stream closed")
                response = transport._create_error_response(
                    "Error processing request: No response received", HTTPStatus.INTERNAL_SERVER_ERROR
                )
            else:
                response = transport._create_json_response(answer)
            await response(scope, receive, send)
    except BaseException:
        if task is not None:
            task.cancel()  # as stock's teardown cancels the handler of a request cancelled
        raise
    finally:
        with anyio.CancelScope(shield=True):
            out.closed = True
            await transport.terminate()
    assert task is not None
    if not task.done():
        # What the task still has to do (the handler's tail, tasks fastmcp starts in the session's
        # task group, the session's and the lifespan's exits) outlives the request in the
        # manager's task group, as stock's run task does; its shutdown cancels it.
        self._task_group.start_soon(_outlive, task)


async def _outlive(task: asyncio.Task[None]) -> None:
    await task  # (cancelled, this cancels the task it waits for)
