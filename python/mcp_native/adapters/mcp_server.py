"""MCPServer's tool results, written once (``mcp`` 2.x).

Stock MCPServer validates a tool's return value against its output model and dumps it
(``structuredContent``), writes the text mirror from the raw return value with pydantic-core
(``_convert_to_content``: a JSON block per value, pretty-printed; a string as it is; a list or
tuple one block per item, flattened; ``None`` no block), and then the server runner validates
and dumps the whole ``CallToolResult`` twice more (a model dump, then the protocol version's
surface model) before the transport writes it.

Here, for a tool with an output schema whose return value is a dict, list, tuple, str, number,
bool, ``None``, pydantic model or dataclass:

- the output model validates and dumps the value as stock does (same coercions, same errors);
- the mirror has stock's blocks, each value's JSON written from its counterpart in
  ``structuredContent`` by :func:`mcp_native._core.pydantic_json_text` (pydantic-core's layout
  and float spelling): what the tool returned, as the model dumped it. For a value that
  already matches its model this is stock's text byte for byte; where the model coerced or
  dropped something, the mirror shows what ``structuredContent`` holds;
- the runner sends such a result, unchanged since, as the dict its surface dump would give,
  without validating and dumping it again (the result must have at least one marked block).

Anything else (content blocks, ``Image``/``Audio``, a ``CallToolResult``, results built or
changed elsewhere, values JSON cannot hold, cache hints) takes the stock path.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable
from itertools import repeat
from operator import is_
from typing import Any, get_args

from mcp.types import CallToolResult, ContentBlock, TextContent
from mcp_types import InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter

from .._core import pydantic_json_text

stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()
stock_serialize: Callable[..., dict[str, Any]] | None = None  # set by install()
mirror_indent: int | None = 2  # install(mirror="compact") sets None

# id(first block) -> (weak reference to it, the mirror's other blocks, the members of the
# structuredContent it mirrors), for the text blocks this package wrote, while they live: the
# proof that a result they go out in holds a JSON-native structuredContent (the JSON dump of a
# validated value), if its blocks and members are still those objects.
_Proof = tuple[weakref.ref[TextContent], tuple[TextContent, ...], tuple[tuple[str, Any], ...]]
_proven: dict[int, _Proof] = {}
_FIELDS = frozenset({"content", "structured_content"})
_OPTIONAL_FIELDS = frozenset({"content", "structured_content", "is_error", "meta"})
# The JSON values whose block stock writes with pydantic-core (a str is its own text).
_JSON_SCALARS = (dict, int, float, bool)
# The mirror's blocks, built in one pass (a list of 200 in 60% of the time 200 constructor calls take).
_TEXT_BLOCKS = TypeAdapter(list[TextContent])
# The block types stock passes on as they are (ContentBlock is their union).
_CONTENT_CLASSES: tuple[type, ...] = get_args(ContentBlock) or (ContentBlock,)


def mirrors(texts: list[str], structured: dict[str, Any]) -> list[TextContent]:
    """The text blocks of ``texts``, the mirror of ``structured``, marked for :func:`serialize`."""
    if len(texts) == 1:  # the common case, where one constructor call is quicker
        blocks = [TextContent(type="text", text=texts[0])]
    else:
        blocks = _TEXT_BLOCKS.validate_python([{"type": "text", "text": text} for text in texts])
    if blocks:
        first = blocks[0]
        key = id(first)
        # The callback holds the dict's pop: module globals may be gone when it runs at exit.
        forget = _proven.pop
        _proven[key] = (
            weakref.ref(first, lambda _ref: forget(key, None)),
            tuple(blocks[1:]),
            tuple(structured.items()),
        )
    return blocks


def mirror(text: str, structured: dict[str, Any]) -> TextContent:
    """The text block of ``structured``, marked for :func:`serialize`."""
    return mirrors([text], structured)[0]


def _json_block(kind: type) -> bool:
    """Whether stock writes a value of this type as one block of pydantic-core's JSON."""
    if kind in _JSON_SCALARS:
        return True
    if issubclass(kind, BaseModel):
        return not issubclass(kind, _CONTENT_CLASSES)
    return dataclasses.is_dataclass(kind)


def _texts(raw: Any, value: Any, out: list[str]) -> bool:
    """Append the texts of stock's ``_convert_to_content(raw)`` blocks, each JSON text written
    from ``value`` (raw's counterpart in structuredContent); False where stock writes something
    else (content blocks, ``Image``, anything the mirror cannot prove)."""
    kind = type(raw)
    if kind is str:
        out.append(raw)
    elif raw is None:
        pass
    elif kind is list or kind is tuple:
        if type(value) is not list or len(value) != len(raw):
            return False  # the model changed the sequence (a set, say): its items are not raw's
        kinds = set(map(type, raw))
        if len(kinds) == 1 and _json_block(next(iter(kinds))):  # the common case, in one loop
            out.extend(map(pydantic_json_text, value, repeat(mirror_indent, len(value))))
            return True
        return all(_texts(r, v, out) for r, v in zip(raw, value, strict=True))
    elif _json_block(kind):
        out.append(pydantic_json_text(value, mirror_indent))
    else:
        return False
    return True


def convert_result(self: Any, result: Any) -> Any:
    """``FuncMetadata.convert_result`` with the text mirror written natively."""
    assert stock_convert_result is not None
    output_model = self.output_model if self.output_schema is not None else None
    if output_model is None or isinstance(result, (CallToolResult, InputRequiredResult)):
        return stock_convert_result(self, result)
    kind = type(result)
    if not (kind is list or kind is tuple or kind is str or result is None or _json_block(kind)):
        return stock_convert_result(self, result)  # content blocks, Image, Audio, ...
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
    texts: list[str] = []
    try:
        proven = _texts(result, structured["result"] if self.wrap_output else structured, texts)
    except (ValueError, TypeError):  # not JSON-native (NaN, say): pydantic's own text
        proven = False
    if not proven:
        return stock_convert_result(self, result)
    content: list[ContentBlock] = list(mirrors(texts, structured))
    return CallToolResult(content=content, structured_content=structured)


def _wire_meta(meta: Any) -> dict[str, Any] | None:
    """A copy of the one ``_meta`` a marked result may carry, fastmcp's mark of a wrapped
    output, or None."""
    inner = meta.get("fastmcp") if type(meta) is dict and len(meta) == 1 else None
    if type(inner) is dict and len(inner) == 1 and inner.get("wrap_result") is True:
        return {"fastmcp": {"wrap_result": True}}
    return None


def _wire(result: Any) -> dict[str, Any] | None:
    """The surface dump of a result whose blocks are a marked mirror of its structuredContent
    (whose members must be the very objects marked: the models may copy the dict itself)."""
    if type(result) is not CallToolResult or not _FIELDS <= result.model_fields_set <= _OPTIONAL_FIELDS:
        return None
    content = result.content
    proven = _proven.get(id(content[0])) if content else None
    first = proven[0]() if proven is not None else None
    if proven is None or first is None or first is not content[0] or len(proven[1]) != len(content) - 1:
        return None
    structured, marked = result.structured_content, proven[2]
    if type(structured) is not dict or len(structured) != len(marked) or result.is_error:
        return None
    meta = None
    if result.meta is not None and (meta := _wire_meta(result.meta)) is None:
        return None
    if any(structured.get(k, structured) is not v for k, v in marked):
        return None
    ours = (first, *proven[1])
    if not all(map(is_, content, ours)) or any(b.annotations is not None or b.meta is not None for b in ours):
        return None
    blocks = [{"text": b.text, "type": "text"} for b in ours]
    wire = {"content": blocks, "isError": False, "structuredContent": structured}
    return wire if meta is None else {"_meta": meta, **wire}


def serialize(self: Any, method: str, version: str, result: Any) -> dict[str, Any]:
    """``ServerRunner._serialize``: a result proven by its marked mirror goes out as is."""
    assert stock_serialize is not None
    if method == "tools/call" and self.server.cache_hints.get(method) is None and (wire := _wire(result)) is not None:
        if version in MODERN_PROTOCOL_VERSIONS:  # the surface model's key order
            structured = wire.pop("structuredContent")
            wire["resultType"] = "complete"
            wire["structuredContent"] = structured
        stamped: dict[str, Any] = self._stamp_server_info(version, wire)
        return stamped
    return stock_serialize(self, method, version, result)
