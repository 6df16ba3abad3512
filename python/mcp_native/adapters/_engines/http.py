"""Streamable HTTP, both of the ``mcp`` SDK's server paths: JSON-RPC responses written by the
native encoder, and a malformed envelope answered with ``-32600`` Invalid Request (the
2025-era path says ``-32602`` Invalid params, which JSON-RPC reserves for a method's params).

2025-era path (``mcp.server.streamable_http.StreamableHTTPServerTransport``): response bodies
(``_create_json_response``) and SSE event data (``_create_event_data``). mcp 1.x has only this
path, with the same two methods: :func:`._wire.encode` writes the installed line's messages (1.x's
root model, ``exclude_none``), so one pair of functions serves both lines. 2026-07-28 path
(``mcp.server._streamable_http_modern``): ``_write`` and ``_sse_event``, for responses; errors and
notifications keep the stock serialization (its ``exclude_none`` rules); request bodies parsed by
``mcp_native.loads`` instead of ``json.loads`` (:data:`modern_json`).

The 2025-era path keeps its own parser: ``pydantic_core.from_json`` is native code already, as
fast as ``mcp_native.loads`` on a tools/call body (about 2 µs for 200 bytes, 8 µs for a 40 KB
string argument), and it refuses what ``loads`` accepts (nesting past 200 levels, escaped lone
surrogates), which would have to be checked for first.
"""

from __future__ import annotations

import asyncio
import json
import logging
from http import HTTPStatus
from typing import Any

from mcp.server.streamable_http import CONTENT_TYPE_JSON, MCP_SESSION_ID_HEADER
from starlette.responses import Response

from ... import jsonrpc, loads
from .wire import WIRE, encode

# The originals, set by install(): the replacements hand them what they do not write natively.
stock_create_error_response: Any = None
stock_sse_event: Any = None
stock_write: Any = None


def _response_line(message: Any) -> bytes | None:
    """The compact JSON of a result response, without its newline, or None to use stock."""
    if type(message) is WIRE.types.JSONRPCResponse:
        try:
            return jsonrpc.encode_response(message.id, message.result)[:-1]
        except (TypeError, ValueError):
            return None
    return None


def create_json_response(
    self: Any, response_message: Any, status_code: HTTPStatus = HTTPStatus.OK, headers: dict[str, str] | None = None
) -> Response:
    """Create a JSON response from a JSONRPCMessage."""
    response_headers = {"Content-Type": CONTENT_TYPE_JSON}
    if headers:
        response_headers.update(headers)
    if self.mcp_session_id:
        response_headers[MCP_SESSION_ID_HEADER] = self.mcp_session_id
    body = encode(response_message)[:-1] if response_message else None
    return Response(body, status_code=status_code, headers=response_headers)


def create_event_data(self: Any, event_message: Any) -> dict[str, str]:
    """Create event data dictionary from an EventMessage."""
    event_data = {"event": "message", "data": encode(event_message.message)[:-1].decode()}
    if event_message.event_id:
        event_data["id"] = event_message.event_id
    return event_data


def create_error_response(
    self: Any,
    error_message: str,
    status_code: HTTPStatus,
    error_code: int = jsonrpc.INVALID_REQUEST,
    headers: dict[str, str] | None = None,
) -> Response:
    """Create an error response with a simple string message."""
    if error_code == jsonrpc.INVALID_PARAMS and error_message.startswith("Validation error:"):
        error_code = jsonrpc.INVALID_REQUEST  # the envelope failed, not a method's params
    return stock_create_error_response(self, error_message, status_code, error_code, headers)  # type: ignore[no-any-return]


def sse_event(msg: Any) -> bytes:
    """Serialise a JSON-RPC message as one SSE `event: message` frame."""
    data = _response_line(msg)
    if data is None:
        return stock_sse_event(msg)  # type: ignore[no-any-return]
    return b"event: message\r\ndata: " + data + b"\r\n\r\n"


async def write(msg: Any, scope: Any, receive: Any, send: Any) -> None:
    """Serialise a JSON-RPC reply with the table-mapped HTTP status."""
    body = _response_line(msg)
    if body is None:
        await stock_write(msg, scope, receive, send)
        return
    await Response(body, status_code=HTTPStatus.OK, media_type="application/json")(scope, receive, send)


# Nesting json.loads reads on any Python: it fails where the interpreter's recursion limit ends
# (1000 frames by default, some of them in use by the server), loads at 1024 levels.
_NESTING = 200


class _Json:
    """Stands in for the ``json`` module in ``mcp.server._streamable_http_modern``. A request
    body goes to ``mcp_native.loads``, which reads any JSON it accepts as ``json.loads`` does
    and several times faster (7 µs against 1.5 µs for a 200-byte tools/call). A body it refuses
    (``NaN``, a byte-order mark, UTF-16, an encoded surrogate) or that may be nested deeper than
    ``_NESTING``, and everything else asked of ``json``, goes to the real module: the SDK's
    answer to a body ``json.loads`` cannot read stays its own."""

    @staticmethod
    def loads(s: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            not args
            and not kwargs
            and type(s) is bytes
            and (len(s) <= 2 * _NESTING or s.count(b"[") + s.count(b"{") <= _NESTING)
        ):
            try:
                return loads(s)
            except ValueError:
                pass
        return json.loads(s, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)


modern_json = _Json()


def replayed(body: bytes, receive: Any) -> Any:
    """``receive`` for a stock path handed a request whose body was read: the body once, then
    the rest."""
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def one_pass_allowed(loggers: tuple[logging.Logger, ...]) -> bool:
    """Whether a one pass may serve in place of a stock path whose loggers are ``loggers``: none
    at DEBUG (stock writes lines there that the one pass does not pass through), and the
    request on asyncio (not trio)."""
    if any(logger.isEnabledFor(logging.DEBUG) for logger in loggers):
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
