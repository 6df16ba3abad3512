"""The Streamable HTTP client's reading of one JSON-RPC message, shared by both SDK lines: a JSON
response body or the data of one SSE event, parsed by :class:`mcp_native.jsonrpc.Decoder` into
the line's own model (:data:`.wire.WIRE`), the model its pydantic parser gives for the same
bytes (mcp 2.x: ``jsonrpc_message_adapter.validate_json``; mcp 1.x: ``JSONRPCMessage
.model_validate_json``).

:func:`decode` returns None for anything it has not proven to be read alike, and the caller hands
the text to the SDK's own parser, which then gives its own model or its own error:

- not exactly one message, or one the decoder refuses (bad JSON or UTF-8, a wrong envelope, a
  batch, ``"params": null``, several lines: a pretty-printed body);
- an error response: the decoder reads a missing ``id`` as null, which the SDK's model refuses;
- text with a ``\\uD800``-``\\uDFFF`` escape: pydantic refuses a lone surrogate, which the decoder
  reads (a pair, as an emoji escaped, is read alike by both, and is simply left to the SDK);
- a value nested deeper than :data:`MAX_DEPTH` levels: pydantic's parser stops at about 200.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from ... import jsonrpc
from ..._core import SchemaValidator
from .wire import sdk_message

# The deepest nesting of params or result read natively. pydantic-core's JSON parser refuses a
# message about 200 levels deep (the envelope and the payload are two of them): well under.
MAX_DEPTH = 190

# An escape of a surrogate code unit, lone or in a pair: the case-insensitive hex digits D800-DFFF.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")

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


def decode(body: bytes | bytearray | memoryview) -> Any | None:
    """The SDK's model of the one JSON-RPC message ``body`` holds (a request, a notification or a
    result response), as its pydantic parser reads it; None where that is not proven (see the
    module docstring): the SDK's parser reads it."""
    if _SURROGATE.search(body) is not None:
        return None
    decoder = jsonrpc.Decoder(max_message_bytes=sys.maxsize)  # the SDK sets no limit either
    items = decoder.feed(body)
    items += decoder.close()
    if len(items) != 1:
        return None
    item: Any = items[0]
    kind = type(item)
    if kind is jsonrpc.Response:
        payload = item.result
    elif kind is jsonrpc.Request or kind is jsonrpc.Notification:
        payload = item.params
    else:  # Invalid, ErrorResponse
        return None
    if payload and not _shallow(payload):
        return None
    return sdk_message(item)


def decode_text(text: str) -> Any | None:
    """:func:`decode` for an SSE event's data, a str."""
    try:
        body = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 form
        return None
    return decode(body)
