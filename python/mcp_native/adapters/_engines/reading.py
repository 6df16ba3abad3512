"""Which messages the native decoder (:class:`mcp_native.jsonrpc.Decoder`) is proven to read as
the SDK's own pydantic parser reads them (mcp 2.x: ``jsonrpc_message_adapter.validate_json``;
mcp 1.x: ``JSONRPCMessage.model_validate_json``), shared by every transport that reads messages
natively: the stdio server and client (:class:`LineDecoder`) and the Streamable HTTP client
(``http_client.decode``). What is not proven is read by the SDK's parser (:func:`sdk_parse`),
which then gives its own model or its own error:

- an error response: the decoder reads a missing ``id`` as null, which the SDK's model refuses;
- text with a ``\\uD800``-``\\uDFFF`` escape: pydantic refuses a lone surrogate, which the decoder
  reads (a pair, as an emoji escaped, is read alike by both, and is simply left to the SDK);
- a value nested deeper than :data:`MAX_DEPTH` levels: pydantic's parser stops at about 200.

A line the decoder refuses (``Invalid``) stays the transport's to answer.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

from mcp.shared.message import SessionMessage

from ... import jsonrpc
from ..._core import SchemaValidator
from .wire import WIRE, sdk_message

# The deepest nesting of params or result read natively. pydantic-core's JSON parser refuses a
# message about 200 levels deep (the envelope and the payload are two of them): well under.
MAX_DEPTH = 190

# An escape of a surrogate code unit, lone or in a pair: the case-insensitive hex digits D800-DFFF.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
# The longest text the pattern matches, less one: what a chunk boundary may split.
_SPLIT = 5

# A schema every value passes, that visits every value (so that the native walk reaches each
# level): it fails only on the instance depth limit. It walks 200 records in about 20 µs.
_WALK = SchemaValidator(
    {"items": {"$ref": "#"}, "additionalProperties": {"$ref": "#"}},
    "https://json-schema.org/draft/2020-12/schema",
    False,
    None,
    (64, 64, MAX_DEPTH, sys.maxsize),
)


def _shallow(payload: Any) -> bool:
    """Whether ``payload`` nests at most :data:`MAX_DEPTH` levels."""
    try:
        return bool(_WALK.is_valid(payload))
    except Exception:  # the depth limit (mcp_native.errors.ValidationError), or any other
        return False


def has_surrogate(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` holds a ``\\uD800``-``\\uDFFF`` escape."""
    return _SURROGATE.search(data) is not None


def proven(item: Any) -> bool:
    """Whether the SDK's model of ``item`` is what its parser gives for the item's line, provided
    the line holds no surrogate escape (:func:`has_surrogate`): a request, a notification or a
    result response whose payload nests at most :data:`MAX_DEPTH` levels."""
    kind = type(item)
    if kind is jsonrpc.Response:
        payload = item.result
    elif kind is jsonrpc.Request or kind is jsonrpc.Notification:
        payload = item.params
    else:  # Invalid, ErrorResponse
        return False
    return not payload or _shallow(payload)


def sdk_parse(text: str) -> Any:
    """The SDK's own parser on one line's text (as the stock transport reads it, a str): its
    model, or its error raised."""
    return WIRE.parse(text)


def sdk_read(line: bytes) -> SessionMessage | Exception:
    """What the stock stdio server hands its session for ``line`` (valid UTF-8: the decoder has
    read it), which it reads from a text file ("\r\n" read as "\n"): the SDK's
    ``SessionMessage``, or its parser's error."""
    try:
        return SessionMessage(sdk_parse(line.removesuffix(b"\r").decode() + "\n"))
    except Exception as exc:  # as stock
        return exc


def delivered(item: Any, received: Callable[[Any], None]) -> SessionMessage | Exception:
    """What a stdio server's session receives for a decoded line that is not Invalid (``bytes``,
    one :class:`LineDecoder` leaves to the SDK: :func:`sdk_read`); ``received`` is told of each
    message."""
    if type(item) is bytes:
        read = sdk_read(item)
        if type(read) is not SessionMessage:
            return read
        message = read.message
    else:
        message = sdk_message(item)
    received(message)
    return SessionMessage(message)


class LineDecoder:
    """:class:`mcp_native.jsonrpc.Decoder` for a stream of lines, whose items are the decoder's
    but that each message not :func:`proven` is its line instead (``bytes``, without the line
    ending), for :func:`sdk_parse`. The start of a line not complete yet is held (references to
    the chunks, up to ``max_message_bytes``: the decoder reports a longer line as Invalid), so
    that a chunk whose messages are not all proven can be read again line by line."""

    __slots__ = ("_decoder", "_held", "_held_bytes", "_max", "_over", "_suspect", "_tail", "_version")

    def __init__(
        self, *, max_message_bytes: int = jsonrpc.DEFAULT_MAX_MESSAGE_BYTES, protocol_version: str = "2025-11-25"
    ) -> None:
        self._max = max_message_bytes
        self._version = protocol_version
        self._decoder = jsonrpc.Decoder(max_message_bytes=max_message_bytes, protocol_version=protocol_version)
        self._held: list[bytes] = []  # the chunks of the incomplete line
        self._held_bytes = 0
        self._over = False  # the incomplete line is longer than max_message_bytes: not held
        self._suspect = False  # the incomplete line holds a surrogate escape
        self._tail = b""  # the last bytes fed, for an escape split over two chunks

    def feed(self, chunk: bytes) -> list[Any]:
        suspect = has_surrogate(chunk) or (bool(self._tail) and has_surrogate(self._tail + chunk[:_SPLIT]))
        self._tail = (self._tail + chunk[-_SPLIT:])[-_SPLIT:]  # chunks may be shorter than an escape
        items: list[Any] = self._decoder.feed(chunk)
        end = chunk.rfind(b"\n") + 1
        if end:
            if items and (suspect or self._suspect or not all(map(proven, items))):
                items = self._again(items, chunk[:end], final=False)
            rest = chunk[end:]
            self._held, self._held_bytes, self._over = ([rest], len(rest), False) if rest else ([], 0, False)
            self._suspect = bool(rest) and has_surrogate(rest)
        elif not self._over:
            self._held.append(chunk)
            self._held_bytes += len(chunk)
            self._suspect = self._suspect or suspect
            if self._held_bytes > self._max:
                self._held, self._held_bytes, self._over = [], 0, True
        return items

    def close(self) -> list[Any]:
        items: list[Any] = self._decoder.close()
        if items and (self._suspect or not all(map(proven, items))):
            items = self._again(items, b"", final=True)
        self._held, self._held_bytes, self._over, self._suspect, self._tail = [], 0, False, False, b""
        return items

    def _again(self, items: list[Any], done: bytes, final: bool) -> list[Any]:
        """The items of the lines ``done`` completes, read again one by one."""
        data = b"".join(self._held) + done
        lines = data.split(b"\n")
        if not final:
            lines.pop()  # what follows the last newline: the next line's start
        if self._over:  # the first line was too long to be held: the decoder refused it
            lines.pop(0)
        again: list[Any] = []
        for line in lines:
            decoder = jsonrpc.Decoder(max_message_bytes=self._max, protocol_version=self._version)
            for item in decoder.feed(line + b"\n"):
                keep = type(item) is jsonrpc.Invalid or (proven(item) and not has_surrogate(line))
                again.append(item if keep else line)
        # The too long line's Invalid, when this chunk ended it (else an earlier one reported it).
        return items[: len(items) - len(again)] + again
