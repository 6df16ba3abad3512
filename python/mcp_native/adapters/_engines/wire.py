"""The SDK's JSON-RPC message models to and from mcp-native's wire types, shared by the
transports of both SDK lines: :data:`WIRE` is the installed line's (the adapters are only
loaded for a line whose groups are proven)."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectStreamStatistics
from mcp.shared.message import SessionMessage

from ... import jsonrpc

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self is 3.11+; the package runs on 3.10


def _coerce_id(request_id: Any) -> Any:
    """How both lines correlate a response with its request: "7" and 7 are one id (mcp 2.x's
    ``coerce_request_id``, mcp 1.x's ``BaseSession._normalize_request_id``)."""
    if isinstance(request_id, str):
        try:
            return int(request_id)
        except ValueError:
            pass
    return request_id


class Wire:
    """One SDK line's JSON-RPC messages. mcp 2.x: the ``mcp_types`` models, written with
    ``exclude_unset``. mcp 1.x: the ``mcp.types`` models, each wrapped in the ``JSONRPCMessage``
    root model, written with ``exclude_none``. ``types`` holds the models and
    ``CONNECTION_CLOSED``; :meth:`inner` unwraps a message for the checks on its kind."""

    def __init__(self, types: Any, root: Any = None) -> None:
        self.types = types
        self._root = root
        self._dump = {"by_alias": True, "exclude_unset" if root is None else "exclude_none": True}
        self.key: Callable[[Any], Any] = _coerce_id

    def inner(self, message: Any) -> Any:
        return message if self._root is None else message.root

    def _wrap(self, model: Any) -> Any:
        return model if self._root is None else self._root.model_construct(model)

    def message(self, item: jsonrpc.Message) -> Any:
        """The SDK's model of a decoded message, built without validating again (the decoder
        has checked the envelope exactly as the models would, and params/result are any JSON
        object)."""
        t = self.types
        if type(item) is jsonrpc.Request:
            if item.params is None:
                return self._wrap(t.JSONRPCRequest.model_construct(jsonrpc="2.0", id=item.id, method=item.method))
            return self._wrap(
                t.JSONRPCRequest.model_construct(jsonrpc="2.0", id=item.id, method=item.method, params=item.params)
            )
        if type(item) is jsonrpc.Notification:
            if item.params is None:
                return self._wrap(t.JSONRPCNotification.model_construct(jsonrpc="2.0", method=item.method))
            return self._wrap(
                t.JSONRPCNotification.model_construct(jsonrpc="2.0", method=item.method, params=item.params)
            )
        if type(item) is jsonrpc.Response:
            return self._wrap(t.JSONRPCResponse.model_construct(jsonrpc="2.0", id=item.id, result=item.result))
        assert type(item) is jsonrpc.ErrorResponse
        return self._wrap(t.JSONRPCError(jsonrpc="2.0", id=item.id, error=t.ErrorData.model_validate(item.error)))

    def parse(self, line: str) -> Any:
        """The SDK's own parser: the model of one message's JSON text, or its pydantic error."""
        if self._root is None:
            return self.types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return self._root.model_validate_json(line)

    def connection_closed(self, request_id: Any) -> Any:
        """The SDK's error for a request cut off by the end of the connection."""
        t = self.types
        error = t.ErrorData(code=t.CONNECTION_CLOSED, message="Connection closed")
        return self._wrap(t.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

    def encode(self, message: Any) -> bytes:
        """One wire line. Results are plain JSON once the server has shaped them and go out
        through the native encoder; anything it cannot write (a value JSON has no form for,
        which pydantic may still serialize) and the rarer message kinds take the SDK's own
        serialization. (A result's own nulls are kept by both lines' dumps alike.)"""
        inner = self.inner(message)
        if type(inner) is self.types.JSONRPCResponse:
            try:
                return jsonrpc.encode_response(inner.id, inner.result)
            except (TypeError, ValueError):
                pass
        text: str = message.model_dump_json(**self._dump)
        return text.encode() + b"\n"


def _installed_wire() -> Wire:
    if importlib.metadata.version("mcp").startswith("1."):
        types = importlib.import_module("mcp.types")
        return Wire(types, types.JSONRPCMessage)
    return Wire(importlib.import_module("mcp_types"))


WIRE = _installed_wire()
sdk_message = WIRE.message
encode = WIRE.encode


class LineWriter:
    """Writes whole lines in order from any task, with what a stock transport's writer task
    gives its senders: a line is put out at once as far as it can be (:meth:`_put`) and the rest
    is left to :meth:`run` (a task of the transport), so that the sender goes on as soon as its
    line is handed over; a sender that comes while a line is still being written waits for its
    turn, as it would for a busy writer task."""

    def __init__(self) -> None:
        self._busy = False  # a line is being written; later ones wait in _turns
        self._turns: deque[anyio.Event] = deque()
        self._tail: Any = None  # what _put left of a line, for run() to finish
        self._wake = anyio.Event()
        self._closed = False
        self._running = True

    def _put(self, data: bytes) -> Any:
        """Writes what can be written of ``data`` at once; returns what is left, or None."""
        raise NotImplementedError

    def _started(self, data: bytes, rest: Any) -> bool:
        """Whether part of the line is out (the rest must then be written, even if cancelled)."""
        raise NotImplementedError

    async def _finish(self, rest: Any) -> None:
        """Writes what :meth:`_put` left; a failure must leave the writer :attr:`broken`."""
        raise NotImplementedError

    def _check(self) -> None:
        """Raises the error that fails the transport, if any (in :meth:`run`)."""

    @property
    def broken(self) -> bool:
        """Whether a failed write ended the transport (later sends raise ``BrokenResourceError``)."""
        return False

    async def write_message(self, message: Any) -> None:
        # Encoded once its turn has come: senders waiting behind a slow reader hold their
        # messages, as they would waiting for a stock writer task, not a second copy as bytes.
        await self._turn()
        try:
            data = encode(message)
        except BaseException:
            self._next()
            raise
        await self._write_turn(data)

    async def write(self, data: bytes) -> None:
        await self._turn()
        await self._write_turn(data)

    async def _turn(self) -> None:
        """Waits until no other line is being written; ``BrokenResourceError`` once a write
        has failed (a sender then fails at once instead of waiting for a turn)."""
        if self._busy:
            turn = anyio.Event()
            self._turns.append(turn)
            try:
                await turn.wait()
            except BaseException:
                if turn.is_set():
                    self._next()  # the turn came with the cancellation: pass it on
                else:
                    self._turns.remove(turn)
                raise
        else:
            self._busy = True
        if self.broken:
            self._next()
            raise anyio.BrokenResourceError

    async def _write_turn(self, data: bytes) -> None:
        try:
            rest = self._put(data)
        except BaseException:
            self._next()
            raise
        if rest is None:
            self._next()
        elif self._running:
            self._tail = rest
            self._wake.set()
        else:  # the transport is gone (a line written while it closes): finish it here
            try:
                with anyio.CancelScope(shield=self._started(data, rest)):
                    await self._finish(rest)
            finally:
                self._next()

    def _next(self) -> None:
        if self._turns:
            self._turns.popleft().set()
        else:
            self._busy = False

    def close(self) -> None:
        """No more lines will be sent: :meth:`run` returns once the last one is written."""
        self._closed = True
        self._wake.set()

    async def run(self) -> None:
        """The transport's task: finishes each line :meth:`_put` could not write at once; raises
        what :meth:`_check` raises; returns once closed and done."""
        try:
            while True:
                await self._wake.wait()
                self._wake = anyio.Event()
                if self._tail is not None:
                    rest, self._tail = self._tail, None
                    try:
                        await self._finish(rest)
                    except Exception:
                        # The writer is broken now: pass the turn on, so that each waiting
                        # sender fails at once (see _turn) rather than wait for its end.
                        self._next()
                        raise
                    self._next()
                    continue
                self._check()
                if self._closed:
                    return
        finally:
            self._running = False


class ReceiveStream:
    """What a session expects of a receive stream beside ``receive()`` and ``close()``, which a
    subclass defines: ``aclose``, iteration that ends at ``EndOfStream``, and ``async with``
    that closes it."""

    # A __dict__ for the attributes a proxy sets through to the stream it wraps (OpenTelemetry's
    # stream wrappers do, as anyio's memory streams allow); the slots keep the hot path's.
    __slots__ = ("__dict__",)

    async def receive(self) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        self.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


class WriteStream:
    """The stream a session sends its messages to: each one is encoded and written by the
    sending task itself (:class:`LineWriter`), instead of being handed to a writer task through
    a memory stream. What the sender sees is the same: a checkpoint first (where a cancelled
    sender stops, nothing written), then ``send`` returns once its line is handed over;
    ``ClosedResourceError`` after ``aclose``, ``BrokenResourceError`` once a write failed."""

    __slots__ = ("__dict__", "_closed", "_writer")  # __dict__: as ReceiveStream's

    def __init__(self, writer: LineWriter) -> None:
        self._writer = writer
        self._closed = False

    async def send(self, item: SessionMessage) -> None:
        await anyio.lowlevel.checkpoint()
        if self._closed:
            raise anyio.ClosedResourceError
        if self._writer.broken:
            raise anyio.BrokenResourceError
        await self._writer.write_message(item.message)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._writer.close()

    def statistics(self) -> MemoryObjectStreamStatistics:
        """What the stock memory stream reports, as far as it applies: no open send side once
        closed (the session closes it when the connection ends; fastmcp 3.x reads that as a
        dead server), no receiving end once a write failed."""
        return MemoryObjectStreamStatistics(0, 0, int(not self._closed), int(not self._writer.broken), 0, 0)

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()
