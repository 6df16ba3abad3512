"""The server runner of ``mcp`` 2.x: ``_replay_from_opening_request`` (what ``Server.run`` serves
a stdio connection through, for MCPServer and fastmcp alike) without its relay task, and
``aclose_shielded`` without its scope where a connection has nothing to unwind.

Stock peeks at the client's first request, then starts a task that replays the frames it
peeked at and relays every later message from the transport's stream into a second memory
stream, which the serving loop reads: one more task wakeup and stream hop per message. Here the
serving loop gets a stream that replays the same frames and then reads the transport's stream
itself: the same messages in the same order, with the same sender contexts, and a yield to the
event loop at each receive as a memory stream's checkpoint gives.

``aclose_shielded`` ends every connection the runner serves, and a Streamable HTTP server makes
one per request (``serve_one`` for a 2026-07-28 request, the one pass of a 2025-era one): stock
enters a shielded cancel scope bounded by a timer (a handle scheduled on the event loop, then
cancelled) around ``connection.exit_stack.aclose()``. With no callback on the stack, which is
what a request leaves unless a handler pushed one, that close returns without suspending: there
is nothing to shield, to bound or to log, and the call returns at once. A stack with a callback,
or of another kind, takes stock's.
"""

from __future__ import annotations

import contextvars
import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
import mcp.server.runner as _runner
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared._context_streams import ContextReceiveStream
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest

from .._engines.wire import ReceiveStream

# The stock function's logger and lead limit.
logger = logging.getLogger("mcp.server.runner")
stock_replay: Any = None  # the original, kept by install()
stock_aclose_shielded: Any = None  # the original, kept by install()


def _limit() -> int:
    # Read when called: a test may change the stock module's limit. Through the module bound at
    # import, not the package's attribute: a failed import elsewhere (OpenTelemetry's MCP
    # instrumentation on mcp 2.x) can leave a re-imported ``mcp`` without its ``server``.
    return int(_runner._PRE_REQUEST_REPLAY_LIMIT)


class _Replayed(ReceiveStream):
    """The peeked frames, then the transport's stream, as one receive stream."""

    __slots__ = ("_closed", "_context", "_lead", "_stream", "_yields", "last_context")

    def __init__(self, lead: deque[tuple[contextvars.Context, Any]], stream: Any) -> None:
        self._lead = lead
        self._stream = stream
        self._closed = False
        # Streams whose receive always yields to the loop (a memory stream's checkpoint, say);
        # any other gets a checkpoint here.
        self._yields = isinstance(stream, (ContextReceiveStream, MemoryObjectReceiveStream)) or getattr(
            stream, "yields_on_receive", False
        )
        # What the stock relay task would capture for a stream that carries no sender context.
        self._context = contextvars.copy_context()
        self.last_context: contextvars.Context | None = None

    async def receive(self) -> Any:
        if self._lead or not self._yields:
            await anyio.lowlevel.checkpoint()
        if self._closed:
            raise anyio.ClosedResourceError
        if self._lead:
            self.last_context, item = self._lead.popleft()
            return item
        try:
            item = await self._stream.receive()
        except anyio.ClosedResourceError:
            if self._closed:
                raise
            # Receive end closed under us (stateless SHTTP teardown); same as EOF.
            logger.debug("read stream closed by transport; treating as EOF")
            raise anyio.EndOfStream from None
        ctx = getattr(self._stream, "last_context", None)
        self.last_context = ctx if ctx is not None else self._context.copy()
        return item

    def close(self) -> None:
        self._closed = True


def _sender_context(stream: Any) -> contextvars.Context:
    ctx = getattr(stream, "last_context", None)
    return ctx if ctx is not None else contextvars.copy_context()


@asynccontextmanager
async def replay_from_opening_request(read_stream: Any) -> AsyncIterator[tuple[JSONRPCRequest | None, Any]]:
    """Peek at the client's first request without consuming it (see the module docstring)."""
    lead: deque[tuple[contextvars.Context, Any]] = deque()
    opening_request: JSONRPCRequest | None = None
    limit = _limit()
    replayed: _Replayed | None = None
    try:
        try:
            async for item in read_stream:
                if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
                    opening_request = item.message
                elif len(lead) >= limit:
                    logger.debug("dropped a frame received before the first request: %r", item)
                    continue
                lead.append((_sender_context(read_stream), item))
                if opening_request is not None:
                    break
        except anyio.ClosedResourceError:
            logger.debug("read stream closed by transport; treating as EOF")
        replayed = _Replayed(lead, read_stream)
        yield opening_request, replayed
    finally:
        await read_stream.aclose()
        if replayed is not None:
            replayed.close()


async def aclose_shielded(connection: Any) -> None:
    """``aclose_shielded``: stock's, unless the connection's exit stack holds nothing to unwind."""
    stack = connection.exit_stack
    if type(stack) is AsyncExitStack and not stack._exit_callbacks:  # type: ignore[attr-defined]  # its deque
        return
    await stock_aclose_shielded(connection)
