"""The Streamable HTTP client's reading of one JSON-RPC message, shared by both SDK lines: a JSON
response body or the data of one SSE event, parsed by :class:`mcp_native.jsonrpc.Decoder` into
the line's own model (:data:`.wire.WIRE`), the model its pydantic parser gives for the same
bytes (mcp 2.x: ``jsonrpc_message_adapter.validate_json``; mcp 1.x: ``JSONRPCMessage
.model_validate_json``).

:func:`decode` returns None for anything it has not proven to be read alike, and the caller hands
the text to the SDK's own parser, which then gives its own model or its own error: not exactly
one message, or one the decoder refuses (bad JSON or UTF-8, a wrong envelope, a batch,
``"params": null``, several lines: a pretty-printed body), and what ``_engines.reading`` does
not prove (an error response, a surrogate escape, deep nesting).
"""

from __future__ import annotations

import sys
from typing import Any

from ... import jsonrpc
from .reading import has_surrogate, proven
from .wire import sdk_message


def decode(body: bytes | bytearray | memoryview) -> Any | None:
    """The SDK's model of the one JSON-RPC message ``body`` holds (a request, a notification or a
    result response), as its pydantic parser reads it; None where that is not proven (see the
    module docstring): the SDK's parser reads it."""
    if has_surrogate(body):
        return None
    decoder = jsonrpc.Decoder(max_message_bytes=sys.maxsize)  # the SDK sets no limit either
    items = decoder.feed(body)
    items += decoder.close()
    if len(items) != 1 or not proven(items[0]):
        return None
    return sdk_message(items[0])


def decode_text(text: str) -> Any | None:
    """:func:`decode` for an SSE event's data, a str."""
    try:
        body = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 form
        return None
    return decode(body)
