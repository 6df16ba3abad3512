"""mcp 2.x: a 2026-07-28 request on a server with SSE responses (the SDK's default), without a
task group, a memory stream and a timeout scope per request.

Stock, ``handle_modern_request`` in SSE mode runs the request's handler in a task group beside a
task that watches for the client's disconnect, and waits on a zero-buffer memory stream, for
``_SSE_PING_INTERVAL`` (15 s), for the handler's first notification: none before the handler is
done, and it answers in JSON with the table-mapped status; a notification first (or the window
over), and it commits ``text/event-stream``, sends each notification (a ping after each quiet
window), then the answer's event. The client gone cancels the task group: the handler, and
whatever the response was doing. That machinery costs about 150 µs of a weather call's 470 (in
process; JSON mode, which has none of it, 320).

Here the same steps with the same outcomes, on asyncio directly: the checks before the handler
are stock's own functions in stock's order; the handler runs as stock's ``run_handler`` (the
SDK's ``serve_one`` through ``_to_jsonrpc_response``) in a task started from a copy of the
request's context, as the task group's, inside an anyio cancel scope (what the disconnect
cancels, shields respected); the watcher is a task waiting on ``receive`` as stock's; the
handler's notifications go through :class:`_Sink`, which hands each event over as the
zero-buffer stream does (the handler's ``notify`` returns once the response took it, and a sink
closed raises ``BrokenResourceError``, which ``notify`` drops as stock). The writing is stock's
``_write`` and ``_sse_event`` (natively, with the http-modern group).

JSON mode (already one pass in stock), DEBUG on the module's logger, another backend than
asyncio, and any of stock's steps replaced by someone else take the stock function; so does mcp
2.0.1, whose entry refuses notifications rather than acknowledging them (it has no
``_acknowledge_notification``): this follows 2.1.1-2.3.0's.

Before the handler, in either mode, a ``tools/call`` with arguments has its ``Mcp-Param-*``
headers checked against the tool's input schema (``validate_mcp_param_headers``): stock walks
every schema position twice in Python per call (about 7% of an adapted 2026-07-28 weather call
in JSON mode, counted by callgrind), to find the properties that declare an ``x-mcp-header``;
where none does, it returns None whatever the headers and arguments. Here a schema made only of
plain dicts, lists, strings, numbers, booleans and None, with that key in none of its dicts, is
answered None at once; any other (and one of more than 10,000 nodes, or one that holds itself)
takes stock's check.

mcp 2.0.1-2.2.0 (and 2.3.0 for a server without ``get_tool_input_schema``) find that schema by
running the server's whole ``tools/list`` through the dispatch path (``_tool_input_schema``): for
MCPServer about half of a 2026-07-28 weather call (573 -> 446 us in process on mcp 2.2.0, adapted,
where 2.3.0's hook gives 150). For an MCPServer whose listing is its own (stock's
``_handle_list_tools``, ``list_tools`` and ``ToolManager.list_tools``, neither overridden), with
only the SDK's two middlewares around it (OpenTelemetry's, whose span would record nothing: no
provider and nothing current recording; the request-state boundary, which passes a listing
through), that listing is the manager's tools as they are. Once stock's listing has succeeded
for the same tools (the same objects, under their own names, at the same protocol version), a
call to a tool that is not among them, or whose schema declares no header, gets None at once:
the answer stock's listing leads to (no tool listed, or nothing to check). Anything else, DEBUG
on the module's logger, and any tool added or removed since, take stock's listing; a listing
that failed (logged by stock) is never taken as proof. What is not seen: a registered tool's
fields changed in place, not through the manager.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import operator
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

import anyio
import mcp.shared._otel as _shared_otel
from mcp.server import _streamable_http_modern as _modern
from mcp.shared import inbound as _inbound

from .._engines.tracing import proxy_without_provider, spans_unrecorded
from .._patching.patch import SdkSteps, is_sdk_function
from . import otel

stock_handle_modern_request: Callable[..., Any] | None = None  # set by install()
stock_validate_mcp_param_headers: Callable[..., Any] | None = None  # set by install()
stock_tool_input_schema: Callable[..., Any] | None = None  # set by install()
_SCALARS = (str, int, float, bool, type(None))
_HEADER_KEY = _inbound.X_MCP_HEADER_KEY  # what a property declaring its header carries
_WALK_LIMIT = 10_000  # nodes; a bigger schema (or one that holds itself) takes stock's walk

# What the stock function runs that this one calls from the module (each still the SDK's).
_STEPS = SdkSteps(
    *(
        (_modern, name, _modern.__name__, name)
        for name in (
            "_to_jsonrpc_response",
            "_acknowledge_notification",
            "_mcp_param_rejection",
            "_is_notification_shaped",
        )
    )
)


def _declares_no_header(schema: Any) -> bool:
    """Whether ``schema`` is plain JSON (exact types) with no ``x-mcp-header`` key in any of its
    dicts, found within ``_WALK_LIMIT`` nodes (a schema that holds itself never is)."""
    stack = [schema]
    for _ in range(_WALK_LIMIT):
        if not stack:
            return True
        node = stack.pop()
        kind = type(node)
        if kind is dict:
            if _HEADER_KEY in node:
                return False
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        elif kind not in _SCALARS:
            return False
    return False


def validate_mcp_param_headers(input_schema: Any, arguments: Any, headers: Any) -> Any:
    """``validate_mcp_param_headers``: None at once for a schema that declares no header."""
    assert stock_validate_mcp_param_headers is not None
    if _declares_no_header(input_schema):
        return None
    return stock_validate_mcp_param_headers(input_schema, arguments, headers)


class _Listing:
    """What MCPServer's own listing runs, read once its modules are loaded (this one loads while
    they are being imported), and the tools each server last listed with stock's success."""

    def __init__(self) -> None:
        from mcp.server import _otel, request_state
        from mcp.server.mcpserver.server import MCPServer
        from mcp.server.mcpserver.tools.tool_manager import ToolManager
        from mcp_types import PaginatedRequestParams

        self.server_class = MCPServer
        self.manager_list = ToolManager.list_tools
        self.params_type = PaginatedRequestParams
        self.otel_class = _otel.OpenTelemetryMiddleware
        self.boundary_class = request_state.RequestStateBoundary
        self.passes_listing = "tools/list" not in request_state._MRTR_METHODS
        self.steps = SdkSteps(
            (MCPServer, "_handle_list_tools", MCPServer.__module__, "MCPServer._handle_list_tools"),
            (MCPServer, "list_tools", MCPServer.__module__, "MCPServer.list_tools"),
            (ToolManager, "list_tools", ToolManager.__module__, "ToolManager.list_tools"),
            (self.boundary_class, "__call__", request_state.__name__, "RequestStateBoundary.__call__"),
        )
        self.listed: weakref.WeakKeyDictionary[Any, tuple[str, list[Any]]] = weakref.WeakKeyDictionary()

    def server(self, app: Any) -> Any | None:
        """The MCPServer whose own listing is ``app``'s ``tools/list``, with nothing around it
        that a listing would show itself to, or None."""
        entry = app.get_request_handler("tools/list")
        handler = getattr(entry, "handler", None)
        server = getattr(handler, "__self__", None)
        cls: Any = type(server)
        middleware = app.middleware
        otel_call = self.otel_class.__call__
        if not (
            getattr(handler, "__func__", None) is self.server_class._handle_list_tools
            and isinstance(server, self.server_class)
            and cls.list_tools is self.server_class.list_tools
            and server._lowlevel_server is app
            and entry.params_type is self.params_type
            and type(server._tool_manager).list_tools is self.manager_list
            and type(server._tool_manager._tools) is dict
            and type(middleware) is list
            and len(middleware) == 2
            and type(middleware[0]) is self.otel_class
            and type(middleware[1]) is self.boundary_class
            and self.passes_listing
            and self.steps.intact()
            and (
                otel_call is otel.middleware_call
                or is_sdk_function(otel_call, self.otel_class.__module__, "OpenTelemetryMiddleware.__call__")
            )
            and spans_unrecorded()
            and proxy_without_provider(_shared_otel._tracer)
        ):
            return None
        return server


_listing: _Listing | None = None


def _same(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


async def tool_input_schema(
    app: Any, request: Any, request_id: Any, verdict: Any, lifespan_state: Any, name: str
) -> Any | None:
    """``_tool_input_schema``: no listing where its answer is known to lead to no check."""
    global _listing
    assert stock_tool_input_schema is not None
    if _listing is None:
        _listing = _Listing()
    server = None if _modern.logger.isEnabledFor(logging.DEBUG) else _listing.server(app)
    if server is None:
        return await stock_tool_input_schema(app, request, request_id, verdict, lifespan_state, name)
    tools: dict[str, Any] = server._tool_manager._tools
    snapshot = list(tools.values())
    listed = _listing.listed.get(server)
    if listed is not None and listed[0] == verdict.protocol_version and _same(listed[1], snapshot):
        tool = tools.get(name)
        if tool is None or _declares_no_header(tool.parameters):
            return None
        return await stock_tool_input_schema(app, request, request_id, verdict, lifespan_state, name)
    schema = await stock_tool_input_schema(app, request, request_id, verdict, lifespan_state, name)
    if (
        type(schema) is dict  # listed whole, and the tool found in it
        and _same(snapshot, list(tools.values()))  # nothing added or removed meanwhile
        and all(type(key) is str and key == tool.name for key, tool in tools.items())
    ):
        _listing.listed[server] = (verdict.protocol_version, snapshot)
    return schema


class _Sink:
    """The handler's side of stock's zero-buffer stream of SSE events: ``send`` waits until the
    response takes the event; once the response is done with it (closed), ``send`` raises
    ``BrokenResourceError``, as the stream's does when its receiver is closed."""

    __slots__ = ("closed", "events", "wake")

    def __init__(self, wake: Callable[[], None]) -> None:
        self.events: deque[tuple[bytes, asyncio.Future[None]]] = deque()
        self.closed = False
        self.wake = wake

    async def send(self, event: bytes) -> None:
        if self.closed:
            raise anyio.BrokenResourceError
        taken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.events.append((event, taken))
        self.wake()
        await taken

    def take(self) -> bytes:
        event, taken = self.events.popleft()
        if not taken.done():
            taken.set_result(None)
        return event

    def close(self) -> None:
        self.closed = True
        while self.events:
            _, taken = self.events.popleft()
            if not taken.done():
                taken.set_exception(anyio.BrokenResourceError())


async def handle_modern_request(
    app: Any,
    security_settings: Any,
    json_response: bool,
    lifespan_state: Any,
    scope: Any,
    receive: Any,
    send: Any,
) -> None:
    """ASGI handler for a single stateless-era POST."""
    assert stock_handle_modern_request is not None
    if json_response or _modern.logger.isEnabledFor(logging.DEBUG) or not _STEPS.intact():
        await stock_handle_modern_request(app, security_settings, json_response, lifespan_state, scope, receive, send)
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another backend (trio)
        await stock_handle_modern_request(app, security_settings, json_response, lifespan_state, scope, receive, send)
        return
    m: Any = _modern  # its private names, read as they are now
    request = m.Request(scope, receive)
    err = await m.TransportSecurityMiddleware(security_settings).validate_request(
        request, is_post=(request.method == "POST")
    )
    if err is not None:
        await err(scope, receive, send)
        return
    if request.method != "POST":
        await m.Response(status_code=405, headers={"Allow": "POST"})(scope, receive, send)
        return
    has_json, has_sse = m.check_accept_headers(request)
    if not has_json or not has_sse:  # SSE mode: both (so subscriptions/listen needs no check of its own)
        await m.Response(status_code=406)(scope, receive, send)
        return
    body = await request.body()
    try:
        decoded = m.json.loads(body)
    except (ValueError, RecursionError):
        error = m.ErrorData(code=m.PARSE_ERROR, message="Parse error")
        await m._write(m.JSONRPCError(jsonrpc="2.0", id=None, error=error), scope, receive, send)
        return
    if m._is_notification_shaped(decoded):
        await m._acknowledge_notification(decoded, request, scope, receive, send)
        return
    try:
        req = m.JSONRPCRequest.model_validate(decoded)
    except m.ValidationError:
        await m._write(m._INVALID_BODY, scope, receive, send)
        return
    duplicated = m.find_duplicated_routing_header(request.headers.items())
    if duplicated is not None:
        rejection = m.InboundLadderRejection(
            code=m.HEADER_MISMATCH, message=f"{duplicated} header appears more than once"
        )
        await m._write_rejection(rejection, req.id, scope, receive, send)
        return
    verdict = m.classify_inbound_request(decoded, headers=dict(request.headers))
    if isinstance(verdict, m.InboundLadderRejection):
        await m._write_rejection(verdict, req.id, scope, receive, send)
        return
    param_rejection = await m._mcp_param_rejection(app, request, req, verdict, lifespan_state)
    if param_rejection is not None:
        await m._write_rejection(param_rejection, req.id, scope, receive, send)
        return
    connection = m.Connection.from_envelope(verdict.protocol_version, verdict.client_info, verdict.client_capabilities)
    dctx = m._SingleExchangeDispatchContext(
        transport=m.TransportContext(kind="streamable-http", can_send_request=False, headers=request.headers),
        request_id=req.id,
        message_metadata=m.ServerMessageMetadata(request_context=request),
        progress_token=m.progress_token_from_params(req.params),
    )
    await _respond(app, dctx, req, connection, lifespan_state, receive, send, scope)


async def _respond(
    app: Any, dctx: Any, req: Any, connection: Any, lifespan_state: Any, receive: Any, send: Any, scope: Any
) -> None:
    """Stock's SSE branch: JSON if the handler is done before its first notification and the
    window, else the event stream; everything cancelled if the client goes away."""
    m: Any = _modern
    loop = asyncio.get_running_loop()
    woken: list[asyncio.Future[None]] = []

    def wake() -> None:
        if woken and not woken[0].done():
            woken[0].set_result(None)

    sink = _Sink(wake)
    dctx.sink = sink
    result: list[Any] = []
    handler_scope = anyio.CancelScope()
    gone = False

    async def run_handler() -> None:
        try:
            with handler_scope:
                coro = m.serve_one(
                    app, dctx, req.method, req.params, connection=connection, lifespan_state=lifespan_state
                )
                result.append(await m._to_jsonrpc_response(req.id, coro))
        finally:
            wake()

    async def watch_disconnect() -> None:
        nonlocal gone
        while (await receive()).get("type") != "http.disconnect":
            pass  # pragma: no cover
        gone = True
        handler_scope.cancel()
        wake()

    handler = contextvars.copy_context().run(loop.create_task, run_handler())
    watcher = contextvars.copy_context().run(loop.create_task, watch_disconnect())

    async def next_event(window: float) -> bytes | None:
        """The handler's next event; None once it is done (or the client gone); b"" after a
        quiet window."""
        while not sink.events and not handler.done() and not gone:
            woken[:] = [loop.create_future()]
            timer = loop.call_later(window, wake)
            try:
                await woken[0]
            finally:
                timer.cancel()
            if not sink.events and not handler.done() and not gone:
                return b""
        if sink.events and not gone:
            return sink.take()
        return None

    try:
        event = await next_event(m._SSE_PING_INTERVAL)
        if event is None:
            if not gone:
                await handler  # done: its answer, in JSON with the table-mapped status
                await m._write(result[0], scope, receive, send)
            return
        await send({"type": "http.response.start", "status": m._OK_STATUS, "headers": m._SSE_HEADERS})
        while event is not None:
            await send({"type": "http.response.body", "body": event or b": ping\r\n\r\n", "more_body": True})
            event = await next_event(m._SSE_PING_INTERVAL)
        if not gone:
            await handler
            await send({"type": "http.response.body", "body": m._sse_event(result[0]), "more_body": False})
    finally:
        sink.close()
        if not handler.done():  # (anyio's cancel formats the task's repr: 7 us a request)
            handler_scope.cancel()
        watcher.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.gather(handler, watcher, return_exceptions=True)
