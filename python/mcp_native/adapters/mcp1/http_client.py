"""mcp 1.x: the Streamable HTTP client transport (``mcp.client.streamable_http``, which
``streamablehttp_client`` and fastmcp 2.x/3.x's ``StreamableHttpTransport`` use) reads the
server's messages natively: each JSON response body and each SSE event's data is parsed by
``adapters._engines.http_client`` into the same ``JSONRPCMessage`` as stock's
``JSONRPCMessage.model_validate_json``.

What stays the SDK's: the HTTP exchange (httpx), the SSE framing (httpx-sse), the protocol
version read from ``initialize``'s answer (the transport's own method), the requests' writing,
and every message :func:`..._engines.http_client.decode` does not prove (an error response, a
body it refuses, a lone surrogate, deep nesting): the stock method reads those, with its own
model or its own error. Stock formats each SSE message's debug line (``SSE message: ...``, the
message's repr: as long as the parse itself for a large result) even with DEBUG off; here only
when DEBUG is on, which logs the same line.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .._engines.http_client import decode, decode_text

# Set by install(): the methods these replace, for what they leave to the stock parser.
stock_handle_json_response: Callable[..., Awaitable[None]] | None = None
stock_handle_sse_event: Callable[..., Awaitable[bool]] | None = None

# mcp 1.x's modules (the type checker sees mcp 2.x, whose names these are not).
_stock: Any = importlib.import_module("mcp.client.streamable_http")
_types: Any = importlib.import_module("mcp.types")
SessionMessage: Any = importlib.import_module("mcp.shared.message").SessionMessage


async def handle_json_response(
    self: Any, response: Any, read_stream_writer: Any, is_initialization: bool = False
) -> None:
    """Handle JSON response from the server."""
    assert stock_handle_json_response is not None  # set by install()
    try:
        message = decode(await response.aread())
        if message is not None:
            if is_initialization:
                self._maybe_extract_protocol_version_from_message(message)
            await read_stream_writer.send(SessionMessage(message))
    except Exception as exc:  # as stock
        _stock.logger.exception("Error parsing JSON response")
        await read_stream_writer.send(exc)
        return
    if message is None:  # the stock method reads the same bytes again (httpx keeps them)
        await stock_handle_json_response(self, response, read_stream_writer, is_initialization)


async def handle_sse_event(
    self: Any,
    sse: Any,
    read_stream_writer: Any,
    original_request_id: Any = None,
    resumption_callback: Callable[[str], Awaitable[None]] | None = None,
    is_initialization: bool = False,
) -> bool:
    """Handle an SSE event, returning True if the response is complete."""
    assert stock_handle_sse_event is not None  # set by install()
    message = decode_text(sse.data) if sse.event == "message" and sse.data else None
    if message is None:  # another event, a priming event, or a message not read natively
        return await stock_handle_sse_event(
            self, sse, read_stream_writer, original_request_id, resumption_callback, is_initialization
        )
    try:
        if _stock.logger.isEnabledFor(logging.DEBUG):
            _stock.logger.debug(f"SSE message: {message}")
        if is_initialization:
            self._maybe_extract_protocol_version_from_message(message)
        is_response = isinstance(message.root, _types.JSONRPCResponse | _types.JSONRPCError)
        # If this is a response and we have original_request_id, replace it
        if original_request_id is not None and is_response:
            message.root.id = original_request_id
        await read_stream_writer.send(SessionMessage(message))
        if sse.id and resumption_callback:
            await resumption_callback(sse.id)
        return is_response
    except Exception as exc:  # as stock: a closed read stream when the caller cancels mid-SSE
        _stock.logger.exception("Error parsing SSE message")
        await read_stream_writer.send(exc)
        return False
