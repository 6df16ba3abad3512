"""Both lines of the ``mcp`` SDK: a 2025-era request with SSE responses answered before any
other message, written at once.

Stock, ``StreamableHTTPServerTransport._handle_post_request`` streams a request's messages
through sse-starlette's ``EventSourceResponse``: its headers at once, then each event that the
transport's ``_run_sse_writer`` forwards from the request's stream, then the end. That response
costs about 0.3 ms of server CPU however short it is (five tasks, a task group and a zero-buffer
stream; one event through it 380 µs against 65 for a JSON ``Response`` on the same uvicorn),
about a third of a session's weather call.

Here the transport's ``EventSourceResponse`` is a factory. For a POST's response (its data
sender the transport's own ``_run_sse_writer``, or in mcp 1.26 its ``sse_writer`` closure, with
no priming event: no event store) it
returns :class:`_Prompt`, which sends the response's start (its status and headers, at once, as
the stock response does) and waits for the first message the transport's router writes to the
request's stream (watched as it is written, nothing taken from it), for ``FIRST_MESSAGE`` at
most. The request's answer first: the answer's event is written at once (in a body message with
sse-starlette's own encoding of the transport's own event data, then the end), and the streams
closed and cleaned as ``_run_sse_writer`` closes and cleans them. A notification or a request
first (streamed as it comes, as stock streams it), no message by then, or the stream closed: the
stock response streams it, its own start dropped, nothing having been taken from the stream.
Listed in docs/behaviour-differences.md: a client gone before the first message is noticed
then, within a second (as stock, the session's handler runs on either way; its answer goes
nowhere), and the stock response's pings, when it takes over, count from then.

Every other ``EventSourceResponse`` of the transport (the GET stream, a replay), an event store,
DEBUG on the transport's or sse-starlette's loggers, another backend than asyncio, a
``_run_sse_writer`` replaced by someone else, and sse-starlette other than 3.x (whose writing this
follows) take the stock response. The stateless one-pass paths (mcp 2.x's ``http_stateless``, mcp 1.x's
``http_one_pass``) answer their requests the same way (:func:`request_stream`,
:func:`stream_request`).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
from mcp.server import streamable_http as _transport
from sse_starlette import EventSourceResponse
from sse_starlette.event import ensure_bytes

from .._patching.patch import is_sdk_function
from .wire import WIRE

stock_event_source_response: Callable[..., Any] | None = None  # set by install()

# How long a request waits for its first message before the stock response takes over (well
# within sse-starlette's first ping at 15 s, which keeps proxies from closing an idle stream).
FIRST_MESSAGE = 1.0
# sse-starlette's logger: with DEBUG on, its response writes a line per chunk.
SSE_LOG = logging.getLogger("sse_starlette.sse")
# The writing at once follows sse-starlette 3.x's EventSourceResponse (tested: 3.7.0, what every
# tested mcp release resolves to): its headers, separator, ensure_bytes and body messages.
SSE_LINE = importlib.metadata.version("sse-starlette").split(".")[0] == "3"

_Transport = _transport.StreamableHTTPServerTransport
_SSE = _transport.CONTENT_TYPE_SSE
# The installed line's answers (1.x wraps each message in the JSONRPCMessage root model).
_ANSWERS = (WIRE.types.JSONRPCResponse, WIRE.types.JSONRPCError)
# The transport's writer of a POST's stream: a method (mcp 2.x, 1.30) or, in mcp 1.26, a closure.
_WRITER = "StreamableHTTPServerTransport._run_sse_writer"
_CLOSURE = "StreamableHTTPServerTransport._handle_post_request.<locals>.sse_writer"
_proven: set[Any] = set()  # the code objects found to be the SDK's own writers
# A POST's request stream: mcp 1.26's holds nothing (a send waits for the writer's read).
_BUFFER = getattr(_transport, "REQUEST_STREAM_BUFFER_SIZE", 0)


def _answers(event: Any) -> bool:
    return isinstance(WIRE.inner(event.message), _ANSWERS)


async def answered_events(transport: Any, reader: Any) -> list[Any] | None:
    """The SSE events of an answered request's stream, from ``reader``, up to its answer, as the
    transport's ``_run_sse_writer`` makes them; None if the stream ends before (closed by the
    session's termination). The answer is in the stream, or being handed to it: in mcp 1.26
    the streams hold nothing, the router's send waits for this read."""
    events = []
    while True:
        try:
            event = await reader.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return None
        events.append(transport._create_event_data(event))
        if _answers(event):
            return events


async def start(response: Any, send: Any) -> None:
    """``response``'s (the transport's ``EventSourceResponse``) start: its status and headers."""
    await send({"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers})


async def write_events(response: Any, events: list[Any], send: Any) -> None:
    """``events`` written as ``response`` writes them after its start: each event as a body
    message, then the end."""
    for event in events:
        await send({"type": "http.response.body", "body": ensure_bytes(event, response.sep), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def first_answer(response: Any, answered: asyncio.Future[bool], transport: Any, reader: Any, send: Any) -> Any:
    """``response``'s start sent at once, then, if the request's first message (settled by its
    :class:`Watch` within ``FIRST_MESSAGE``) is its answer, the events up to it from ``reader``;
    else None: the stock response streams it, its start dropped (:func:`after_start`)."""
    timer = asyncio.get_running_loop().call_later(FIRST_MESSAGE, _settle, answered)
    try:
        await start(response, send)  # at once, as the stock response starts
        answered_first = await answered
    finally:
        timer.cancel()
    return await answered_events(transport, reader) if answered_first else None


def after_start(send: Any) -> Any:
    """``send`` for a response whose start went out already: the start it sends is dropped."""
    started = False

    async def rest(message: Any) -> None:
        nonlocal started
        if not started and message["type"] == "http.response.start":
            started = True
            return
        await send(message)

    return rest


class Watch:
    """The send side of a request's stream, as the transport's router and cleanup use it: its
    first message settles ``answered``, True if it is the request's answer, False if not (a
    notification or a request, to be streamed as it comes); closing it settles it False."""

    __slots__ = ("answered", "stream")

    def __init__(self, stream: Any, answered: asyncio.Future[bool]) -> None:
        self.stream, self.answered = stream, answered

    def _settle(self, outcome: bool) -> None:
        if not self.answered.done():
            self.answered.set_result(outcome)

    async def send(self, item: Any) -> None:
        self._settle(_answers(item))  # the reader settled now waits for it, as stock's would
        await self.stream.send(item)

    def close(self) -> None:
        self.stream.close()
        self._settle(False)

    async def aclose(self) -> None:
        await self.stream.aclose()
        self._settle(False)


class _Prompt:
    """A POST's SSE response: written at once if its first message is its answer, else the stock
    ``response`` (see the module's docstring)."""

    def __init__(self, response: Any, post: tuple[Any, Any, Any, Any], answered: asyncio.Future[bool]) -> None:
        self.response, self.answered = response, answered
        self.transport, self.request_id, self.sse_writer, self.reader = post

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if SSE_LOG.isEnabledFor(logging.DEBUG) or _transport.logger.isEnabledFor(logging.DEBUG):
            await self.response(scope, receive, send)  # stock writes debug lines this path skips
            return
        request_id, sse_writer, reader = self.request_id, self.sse_writer, self.reader
        try:
            events = await first_answer(self.response, self.answered, self.transport, reader, send)
        except BaseException:  # cancelled before the answer is written: what _run_sse_writer's end cleans
            with anyio.CancelScope(shield=True):
                await self._end(request_id, sse_writer, reader)
            raise
        if events is None:  # the stock response streams it, after the start that went out
            await self.response(scope, receive, after_start(send))
            return
        try:
            await write_events(self.response, events, send)
        finally:
            await self._end(request_id, sse_writer, reader)

    async def _end(self, request_id: Any, sse_writer: Any, reader: Any) -> None:
        """What ``_run_sse_writer`` does once the answer is written: both of its streams closed,
        the request's writer and streams dropped."""
        await sse_writer.aclose()
        await reader.aclose()
        self.transport._sse_stream_writers.pop(request_id, None)
        await self.transport._clean_up_memory_streams(request_id)


def _sdk_writer(fn: Any, qualname: str) -> bool:
    """Whether ``fn`` is the SDK's own writer ``qualname`` (each code object checked once)."""
    code = getattr(fn, "__code__", None)
    if code is not None and code in _proven:
        return True
    if is_sdk_function(fn, _transport.__name__, qualname):
        _proven.add(code)
        return True
    return False


def _post(sender: Any) -> tuple[Any, Any, Any, Any] | None:
    """(the transport, the request id, the SSE stream's writer, the request stream's reader) of
    a POST's writer with no priming event, or None for anything else."""
    if isinstance(sender, partial):
        if len(sender.args) != 4 or sender.keywords or not _sdk_writer(getattr(sender.func, "__func__", None), _WRITER):
            return None
        request_id, sse_writer, reader, priming_event = sender.args
        return (
            None
            if priming_event is not None
            else (getattr(sender.func, "__self__", None), request_id, sse_writer, reader)
        )
    if not _sdk_writer(sender, _CLOSURE):
        return None
    # mcp 1.26's closure: what it closes over; its priming event needs an event store.
    cells = dict(zip(sender.__code__.co_freevars, sender.__closure__ or (), strict=True))
    try:
        names = ("self", "request_id", "sse_stream_writer", "request_stream_reader")
        transport, request_id, sse_writer, reader = (cells[name].cell_contents for name in names)
    except (KeyError, ValueError):  # a cell not set (yet)
        return None
    return transport, request_id, sse_writer, reader


def _settle(answered: asyncio.Future[bool]) -> None:
    if not answered.done():
        answered.set_result(False)


def event_source_response(*args: Any, **kwargs: Any) -> Any:
    """The transport's ``EventSourceResponse``: the stock response, or for a POST's (see the
    module's docstring) :class:`_Prompt` over it."""
    assert stock_event_source_response is not None
    response = stock_event_source_response(*args, **kwargs)
    post = _post(kwargs.get("data_sender_callable")) if SSE_LINE else None
    if post is None or not isinstance(post[0], _Transport) or post[0]._event_store is not None:
        return response
    transport, request_id, _, reader = post
    requests: dict[Any, Any] = transport._request_streams
    streams = requests.get(request_id)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another backend (trio)
        return response
    if streams is None or streams[1] is not reader:
        return response
    answered: asyncio.Future[bool] = loop.create_future()
    requests[request_id] = (Watch(streams[0], answered), reader)
    return _Prompt(response, post, answered)


async def deliver(streams: dict[str, Any], target: str, message: Any) -> None:
    """``message`` onto the stream of request ``target``, as the transport's router puts it there
    (no event id: a stateless transport has no event store); a stream that is gone or closed is
    dropped from ``streams``, and the message with it."""
    stream = streams.get(target)
    if stream is not None:
        try:
            await stream[0].send(_transport.EventMessage(message, None))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            streams.pop(target, None)


def request_stream(transport: Any, request_id: str) -> asyncio.Future[bool] | None:
    """The request's stream, made as the transport's POST makes it in SSE mode (a stateless
    transport: no priming event, no session header), its send side a :class:`Watch` where the
    answer may be written at once: the future its first message settles; None where it is
    streamed as stock streams it (DEBUG on sse-starlette's logger, another sse-starlette)."""
    writer, reader = anyio.create_memory_object_stream[Any](_BUFFER)
    if not SSE_LINE or SSE_LOG.isEnabledFor(logging.DEBUG):
        transport._request_streams[request_id] = (writer, reader)
        return None
    answered: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    transport._request_streams[request_id] = (Watch(writer, answered), reader)
    return answered


async def stream_request(
    transport: Any, request_id: str, answered: asyncio.Future[bool] | None, scope: Any, receive: Any, send: Any
) -> None:
    """The response of a stateless POST's request in SSE mode, from its stream
    (:func:`request_stream`): it starts at once, and if the request's first message is its
    answer, that is written at once (the same events, each in a body message of its own as
    ``EventSourceResponse`` sends them, without its task group: sse-starlette's tasks per
    response cost a weather call more than the rest of the one pass; a client gone before then
    is noticed after it); else the stream goes as stock's transport streams it, after the start
    that went out."""
    if answered is None:
        await _stream_as_stock(transport, request_id, scope, receive, send)
        return
    response = _sse_response(content=())
    reader = transport._request_streams[request_id][1]
    try:
        events = await first_answer(response, answered, transport, reader, send)
        if events is not None:
            await write_events(response, events, send)
    except Exception:  # as stock's transport logs a failed SSE response
        _transport.logger.exception("SSE response error")
        events = []
    if events is None:
        await _stream_as_stock(transport, request_id, scope, receive, after_start(send))
    else:
        await transport._clean_up_memory_streams(request_id)


def _sse_response(**kwargs: Any) -> Any:
    # No session header: a stateless transport has none.
    headers = {"Cache-Control": "no-cache, no-transform", "Connection": "keep-alive", "Content-Type": _SSE}
    return EventSourceResponse(headers=headers, **kwargs)


async def _stream_as_stock(transport: Any, request_id: str, scope: Any, receive: Any, send: Any) -> None:
    """The request's stream as stock's transport streams it, from what is in it so far."""
    sse_writer, sse_reader = anyio.create_memory_object_stream[dict[str, Any]](0)
    transport._sse_stream_writers[request_id] = sse_writer
    reader = transport._request_streams[request_id][1]
    # No priming event: a stateless transport has no event store.
    writer = getattr(transport, "_run_sse_writer", None)
    response = _sse_response(
        content=sse_reader,
        data_sender_callable=(
            partial(writer, request_id, sse_writer, reader, None)
            if writer is not None
            else partial(_closure_writer, transport, request_id, sse_writer, reader)
        ),
    )
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(response, scope, receive, send)
    except Exception:
        _transport.logger.exception("SSE response error")
        await sse_writer.aclose()
        await transport._clean_up_memory_streams(request_id)
    finally:
        await sse_reader.aclose()


async def _closure_writer(transport: Any, request_id: str, sse_writer: Any, reader: Any) -> None:
    """mcp 1.26's writer of a POST's stream, the ``sse_writer`` closure of its
    ``_handle_post_request`` (whose source the group's fingerprint pins), which a stateless one
    pass cannot call: the request's events forwarded up to its answer, then its streams closed
    and dropped, as there (a stateless transport has no event store: no priming event). The
    same steps as 1.30's ``_run_sse_writer``."""
    try:
        async with sse_writer, reader:
            async for event in reader:
                await sse_writer.send(transport._create_event_data(event))
                if _answers(event):
                    break
    except anyio.ClosedResourceError:
        _transport.logger.debug("SSE stream closed by close_sse_stream()")
    except Exception:
        _transport.logger.exception("Error in SSE writer")
    finally:
        _transport.logger.debug("Closing SSE writer")
        transport._sse_stream_writers.pop(request_id, None)
        await transport._clean_up_memory_streams(request_id)
