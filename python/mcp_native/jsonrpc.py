"""JSON-RPC 2.0 framing for MCP's stdio transport (newline-delimited JSON).

``Decoder`` turns a byte stream into ``Request``, ``Notification``, ``Response``, ``ErrorResponse``
and ``Invalid`` items; an ``Invalid`` carries the exact error response line to send back. The
``encode_*`` functions produce complete compact lines ending in a single ``\\n``.

A line is a ``-32700`` parse error exactly when ``mcp_native.loads`` rejects it. Lines are parsed
by simdjson; valid JSON it cannot represent (integers beyond 64 bits, escaped lone surrogates,
numbers beyond the double range) is classified on a copy with placeholders and its values are
read as ``loads`` reads them, so such a line costs a second parse but decodes exactly.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import _core
from .protocol import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED,
    ProtocolVersion,
)

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "Decoder",
    "ErrorResponse",
    "Invalid",
    "Message",
    "Notification",
    "Request",
    "Response",
    "encode_error",
    "encode_notification",
    "encode_request",
    "encode_response",
]

# The versions the Decoder reads: all but 2025-03-26, whose JSON-RPC batches (several messages
# on one line) it does not split. (encode_error takes all five.)
SUPPORTED_PROTOCOL_VERSIONS = tuple(v.value for v in ProtocolVersion if v is not ProtocolVersion.V2025_03_26)
DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024


# The message types are named tuples built directly by the native decoder (as cheap as a plain
# tuple). Equality also compares the type, so a Notification never equals a Response that
# happens to hold the same two values.
# NamedTuple allows neither a base class nor a decorator with these methods: they are set on
# each message type below.
def _eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self: tuple[Any, ...], other: object) -> bool:
    return not _eq(self, other)


def _hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, tuple(self)))


class Request(NamedTuple):
    """A request: expects a response carrying the same ``id``."""

    id: str | int
    method: str
    params: dict[str, Any] | None = None


class Notification(NamedTuple):
    """A notification: no ``id``, no response."""

    method: str
    params: dict[str, Any] | None = None


class Response(NamedTuple):
    """A successful response (``result`` is an object)."""

    id: str | int
    result: dict[str, Any]


class ErrorResponse(NamedTuple):
    """An error response. ``id`` is None when the peer could not read the request's id;
    ``error`` has an integer ``code``, a string ``message`` and maybe ``data``."""

    id: str | int | None
    error: dict[str, Any]

    @property
    def code(self) -> int:
        return self.error["code"]  # type: ignore[no-any-return]

    @property
    def message(self) -> str:
        return self.error["message"]  # type: ignore[no-any-return]


class Invalid(NamedTuple):
    """A line that is not a valid message. ``response`` is the error response line to send back
    (``error`` parsed: ``code``, ``message`` and ``data``, a sentence saying what is wrong);
    ``id`` is the offending message's id when it could be read, else None."""

    id: str | int | None
    error: dict[str, Any]
    response: bytes

    @property
    def code(self) -> int:
        return self.error["code"]  # type: ignore[no-any-return]

    @property
    def message(self) -> str:
        return self.error["message"]  # type: ignore[no-any-return]


Message = Request | Notification | Response | ErrorResponse | Invalid

for _type in (Request, Notification, Response, ErrorResponse, Invalid):
    _type.__eq__ = _eq  # type: ignore[method-assign]
    _type.__ne__ = _ne  # type: ignore[assignment,method-assign]
    _type.__hash__ = _hash  # type: ignore[method-assign]
del _type

_core._jsonrpc_set_types(Request, Notification, Response, ErrorResponse, Invalid)

# The encoders return one whole line: compact JSON (as mcp_native.dumps writes it) and "\n".
# Arguments are checked (id a str or a non-bool int; method and message str; params a dict or
# None; result a dict; code an int); a bad one raises TypeError/ValueError naming it.
# encode_error(None, ...) answers a request whose id is unknown. The schemas of 2025-11-25 and
# 2026-07-28 make the id of an error response optional but never null, so it is left out (the
# default); up to 2025-06-18 the id is required, which such an answer cannot have, so those
# versions write "id": null, as JSON-RPC 2.0 prescribes (ProtocolVersion.error_id_required).
# The Decoder's Invalid responses follow the same rule.
encode_request = _core.encode_request
encode_notification = _core.encode_notification
encode_response = _core.encode_response
encode_error = _core.encode_error


class Decoder:
    """Incremental decoder of newline-delimited JSON-RPC messages (the stdio transport).

    ``feed(chunk)`` returns the messages completed by ``chunk``, in order; ``close()`` returns the
    last one if the stream did not end with a newline. ``\\r\\n`` endings and blank lines are
    accepted. Nothing a peer sends makes these methods raise: each bad line (invalid JSON or
    UTF-8, a wrong envelope, a batch, a line over ``max_message_bytes``) becomes an ``Invalid``
    item, and decoding continues with the next line. ``protocol_version`` decides how an
    unknown id is written in error responses: ``null`` up to 2025-06-18, left out after.
    """

    __slots__ = ("_decoder",)

    def __init__(
        self,
        *,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        protocol_version: str = "2025-11-25",
    ) -> None:
        if not isinstance(max_message_bytes, int) or isinstance(max_message_bytes, bool):
            raise TypeError(f"max_message_bytes must be an int, not {type(max_message_bytes).__name__}")
        if not isinstance(protocol_version, str):
            raise TypeError(f"protocol_version must be a str, not {type(protocol_version).__name__}")
        self._decoder = _core.JsonRpcDecoder(max_message_bytes, protocol_version)

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Message]:
        """Decodes the lines completed by ``chunk``."""
        return self._decoder.feed(chunk)

    def close(self) -> list[Message]:
        """Ends the stream: decodes a final line without newline and resets the decoder."""
        return self._decoder.close()

    @property
    def max_message_bytes(self) -> int:
        return self._decoder.max_message_bytes

    @property
    def protocol_version(self) -> str:
        return self._decoder.protocol_version

    @property
    def pending_bytes(self) -> int:
        """Bytes of an incomplete line held until its newline arrives."""
        return self._decoder.pending_bytes

    def __repr__(self) -> str:
        return f"Decoder(max_message_bytes={self.max_message_bytes}, protocol_version={self.protocol_version!r})"
