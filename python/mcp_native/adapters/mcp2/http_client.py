"""mcp 2.x: the Streamable HTTP client transport (``mcp.client.streamable_http``, which
``mcp.client.Client`` on a URL and fastmcp 4.x's ``StreamableHttpTransport`` use) reads the
server's messages natively: each JSON response body and each SSE event's data is parsed by
``adapters._engines.http_client`` into the same ``mcp_types`` model as stock's
``jsonrpc_message_adapter.validate_json``.

What stays the SDK's: the HTTP exchange (httpx2), the SSE framing (httpx2's ``EventSource``:
priming events without data, ``retry`` per event, the event size limit and the response's
charset are its own rules, which a WHATWG parser reads differently), the requests' writing,
and every message :func:`..._engines.http_client.decode` does not prove (an error response, a
body it refuses, a lone surrogate, deep nesting): the stock method reads those, with its own
model or its own error. The SSE event's debug line (``SSE message: ...``, the message's repr:
as long as the parse itself for a large result) is only formatted when DEBUG is on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import mcp.client.streamable_http as _stock
from mcp.shared.message import SessionMessage
from mcp_types import PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCResponse

from .._engines.http_client import decode, decode_text

# Set by install(): the methods these replace, for what they leave to the stock parser.
stock_handle_json_response: Callable[..., Awaitable[None]] | None = None
stock_handle_sse_event: Callable[..., Awaitable[bool]] | None = None


async def handle_json_response(
    self: Any, response: httpx2.Response, read_stream_writer: Any, *, request_id: Any
) -> None:
    """Handle JSON response from the server."""
    assert stock_handle_json_response is not None  # set by install()
    try:
        content = await response.aread()
    except httpx2.StreamError as exc:  # as stock
        _stock.logger.exception("Error parsing JSON response")
        error_data = ErrorData(code=PARSE_ERROR, message=f"Failed to parse JSON response: {exc}")
        error_msg = SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error_data))
        await read_stream_writer.send(error_msg)
        return
    message = decode(content)
    if message is None:
        # The stock method reads the same bytes again (httpx2 keeps what aread() returned).
        await stock_handle_json_response(self, response, read_stream_writer, request_id=request_id)
        return
    await read_stream_writer.send(SessionMessage(message))


async def handle_sse_event(
    self: Any,
    sse: httpx2.ServerSentEvent,
    read_stream_writer: Any,
    original_request_id: Any = None,
    resumption_callback: Callable[[str], Awaitable[None]] | None = None,
) -> bool:
    """Handle an SSE event, returning True if the response is complete."""
    assert stock_handle_sse_event is not None  # set by install()
    message = decode_text(sse.data) if sse.event == "message" and sse.data else None
    if message is None:  # another event, a priming event, or a message not read natively
        return await stock_handle_sse_event(self, sse, read_stream_writer, original_request_id, resumption_callback)
    try:
        if _stock.logger.isEnabledFor(logging.DEBUG):
            _stock.logger.debug(f"SSE message: {message}")
        is_response = isinstance(message, JSONRPCResponse | JSONRPCError)
        # If this is a response and we have original_request_id, replace it
        if original_request_id is not None and is_response:
            message.id = original_request_id
        await read_stream_writer.send(SessionMessage(message))
        if sse.id and resumption_callback:
            await resumption_callback(sse.id)
        return is_response
    except Exception as exc:  # as stock: a closed read stream when the caller cancels mid-SSE
        _stock.logger.exception("Error parsing SSE message")
        if original_request_id is not None:
            error_data = ErrorData(code=PARSE_ERROR, message=f"Failed to parse SSE message: {exc}")
            error_msg = SessionMessage(JSONRPCError(jsonrpc="2.0", id=original_request_id, error=error_data))
            await read_stream_writer.send(error_msg)
            return True
        await read_stream_writer.send(exc)
        return False
