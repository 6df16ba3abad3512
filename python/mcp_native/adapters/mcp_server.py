"""MCPServer's tool results, written once (``mcp`` 2.x).

Stock MCPServer validates a tool's return value against its output model and dumps it
(``structuredContent``), pretty-prints the raw return value with pydantic-core for the text
mirror, and then the server runner validates and dumps the whole ``CallToolResult`` twice more
(a model dump, then the protocol version's surface model) before the transport writes it.

Here, for a tool with an output schema that returns a dict:

- the output model validates and dumps the value as stock does (same coercions, same errors);
- the mirror is ``structuredContent`` (its ``result`` member for a wrapped output) written by
  :func:`mcp_native._core.pydantic_json_text` (pydantic-core's indented layout and float
  spelling), so the mirror shows what ``structuredContent`` holds;
- the runner sends such a result, unchanged since, as the dict its surface dump would give,
  without validating and dumping it again.

Anything else (other return types, results built or changed elsewhere, values JSON cannot hold,
cache hints) takes the stock path.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from mcp.types import CallToolResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from .._core import pydantic_json_text

stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()
stock_serialize: Callable[..., dict[str, Any]] | None = None  # set by install()
mirror_indent: int | None = 2  # install(mirror="compact") sets None

# id(block) -> (weak reference to the block, the members of the structuredContent it mirrors), for
# the text blocks this package wrote, while they live: the proof that a result they go out in
# holds a JSON-native structuredContent (the JSON dump of a validated value), if its members are
# still those objects.
_proven: dict[int, tuple[weakref.ref[TextContent], tuple[tuple[str, Any], ...]]] = {}
_FIELDS = frozenset({"content", "structured_content"})


def mirror(text: str, structured: dict[str, Any]) -> TextContent:
    """The text block of ``structured``, marked for :func:`serialize`."""
    block = TextContent(type="text", text=text)
    key = id(block)
    _proven[key] = (weakref.ref(block, lambda _ref: _proven.pop(key, None)), tuple(structured.items()))
    return block


def convert_result(self: Any, result: Any) -> Any:
    """``FuncMetadata.convert_result`` with the text mirror written natively."""
    assert stock_convert_result is not None
    output_model = self.output_model if self.output_schema is not None else None
    if type(result) is not dict or output_model is None:
        return stock_convert_result(self, result)
    value = {"result": result} if self.wrap_output else result
    output_adapter = getattr(self, "_output_adapter", None)
    if output_adapter is None:  # mcp 2.0: the output model is a BaseModel class
        structured = output_model.model_validate(value).model_dump(mode="json", by_alias=True)
    else:
        adapter = output_adapter(output_model)
        validated = adapter.validate_python(value, by_alias=True, by_name=True)
        if isinstance(validated, BaseModel):
            structured = validated.model_dump(mode="json", by_alias=True)
        else:
            structured = adapter.dump_python(validated, mode="json", by_alias=True)
    try:
        text = pydantic_json_text(structured["result"] if self.wrap_output else structured, mirror_indent)
    except (ValueError, TypeError):  # not JSON-native (NaN, say): pydantic's own text
        return stock_convert_result(self, result)
    return CallToolResult(content=[mirror(text, structured)], structured_content=structured)


def _wire(result: Any) -> dict[str, Any] | None:
    """The surface dump of a result whose only block is a marked mirror of its structuredContent
    (whose members must be the very objects marked: the models may copy the dict itself)."""
    if type(result) is not CallToolResult or result.model_fields_set != _FIELDS or len(result.content) != 1:
        return None
    block = result.content[0]
    proven = _proven.get(id(block))
    if proven is None or proven[0]() is not block or block.annotations is not None or block.meta is not None:
        return None
    structured, marked = result.structured_content, proven[1]
    if type(structured) is not dict or len(structured) != len(marked) or result.is_error or result.meta is not None:
        return None
    if any(structured.get(k, structured) is not v for k, v in marked):
        return None
    return {"content": [{"text": block.text, "type": "text"}], "isError": False, "structuredContent": structured}


def serialize(self: Any, method: str, version: str, result: Any) -> dict[str, Any]:
    """``ServerRunner._serialize``: a result proven by its marked mirror goes out as is."""
    assert stock_serialize is not None
    if method == "tools/call" and self.server.cache_hints.get(method) is None and (wire := _wire(result)) is not None:
        if version in MODERN_PROTOCOL_VERSIONS:
            wire = {
                "content": wire["content"],
                "isError": False,
                "resultType": "complete",
                "structuredContent": wire["structuredContent"],
            }
        stamped: dict[str, Any] = self._stamp_server_info(version, wire)
        return stamped
    return stock_serialize(self, method, version, result)
