"""MCPServer's tool results, written once (``mcp`` 2.x).

Stock MCPServer validates a tool's return value against its output model and dumps it
(``structuredContent``), writes the text mirror from the raw return value with pydantic-core
(``_convert_to_content``: a JSON block per value, pretty-printed; a string as it is; a list or
tuple one block per item, flattened; ``None`` no block), and then the server runner validates
and dumps the whole ``CallToolResult`` twice more (a model dump, then the protocol version's
surface model) before the transport writes it.

Here, for a tool with an output schema whose return value is a dict, list, tuple, str, number,
bool, ``None``, pydantic model or dataclass:

- the output model validates and dumps the value as stock does (same coercions, same errors),
  or, where its core schema proves the round trip would give the value back unchanged and the
  value is exactly of that shape, a native copy of it stands for the dump
  (:mod:`.._engines.outputs`);
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

from collections.abc import Callable
from typing import Any

from mcp.types import CallToolResult, ContentBlock
from mcp_types import InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from .._engines.mirror import json_block, proven_result, server_mirror
from .._engines.outputs import exact_copy

stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()
stock_serialize: Callable[..., dict[str, Any]] | None = None  # set by install()
mirror_indent: int | None = 2  # install(mirror="compact") sets None


def convert_result(self: Any, result: Any) -> Any:
    """``FuncMetadata.convert_result`` with the text mirror written natively."""
    assert stock_convert_result is not None
    output_model = self.output_model if self.output_schema is not None else None
    if output_model is None or isinstance(result, (CallToolResult, InputRequiredResult)):
        return stock_convert_result(self, result)
    kind = type(result)
    if not (kind is list or kind is tuple or kind is str or result is None or json_block(kind)):
        return stock_convert_result(self, result)  # content blocks, Image, Audio, ...
    value = {"result": result} if self.wrap_output else result
    output_adapter = getattr(self, "_output_adapter", None)
    owner = output_model if output_adapter is None else _adapter(self, output_model, output_adapter)
    structured = exact_copy(owner, value)  # what the model's validation and dump give back, if proven
    if structured is None and output_adapter is None:  # mcp 2.0: the output model is a BaseModel class
        structured = output_model.model_validate(value).model_dump(mode="json", by_alias=True)
    elif structured is None:
        validated = owner.validate_python(value, by_alias=True, by_name=True)
        if isinstance(validated, BaseModel):
            structured = validated.model_dump(mode="json", by_alias=True)
        else:
            structured = owner.dump_python(validated, mode="json", by_alias=True)
    blocks = server_mirror(result, structured, self.wrap_output, mirror_indent)
    if blocks is None:
        return stock_convert_result(self, result)
    content: list[ContentBlock] = list(blocks)
    return CallToolResult(content=content, structured_content=structured)


def _adapter(metadata: Any, output_model: Any, output_adapter: Callable[[Any], Any]) -> Any:
    """``metadata._output_adapter(output_model)``, taken from the cache it keeps when built for that
    model: its read of the cache through pydantic's private-attribute lookup costs more than the
    rest of the lookup together (about 5% of an adapted 2026-07-28 weather call)."""
    private = metadata.__pydantic_private__
    cached = private.get("_adapter") if private else None
    if cached is not None and cached[0] is output_model:
        return cached[1]
    return output_adapter(output_model)


def _wire(result: Any) -> dict[str, Any] | None:
    """The surface dump of a result whose blocks are a marked mirror of its structuredContent."""
    if (
        type(result) is not CallToolResult
        or (proven := proven_result(result, "structured_content", "is_error")) is None
    ):
        return None
    meta, blocks = proven
    wire = {
        "content": [{"text": b.text, "type": "text"} for b in blocks],
        "isError": False,
        "structuredContent": result.structured_content,
    }
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
