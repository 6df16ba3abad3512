"""fastmcp 3.x (on mcp 1.x): ``Tool.convert_result`` serializing once, its mirror marked.

Stock, fastmcp 3.x serializes a tool's return value twice (pydantic-core's compact JSON for the
text mirror, ``to_jsonable_python`` for ``structuredContent``), and ``ToolResult()`` serializes
and validates that once more; then mcp 1.x's low-level handler builds the ``CallToolResult``
and the session dumps it again (``adapters.mcp1.server``).

Here, for a tool with the default serializer that returns a dict, list, tuple, str, number,
bool, ``None``, pydantic model or dataclass, the value is serialized as stock does, once; the
mirror, stock's compact JSON of it (a string as it is, ``None`` and an empty list no block), is
written natively from that serialization (byte-identical) and marked, so that the session sends
the result without dumping it (``adapters.mcp1.server.send_response``). A wrapped output
(``x-fastmcp-wrap-result``) gets ``{"result": ...}`` and fastmcp's ``_meta`` mark as stock.
Anything else (content blocks, ``Image``/``Audio``/``File``, bytes, Prefab apps, a
``ToolResult``, a tool's own serializer, values JSON cannot hold, results stock refuses) takes
the stock conversion.

Output validation stays where fastmcp 3.x has it, in mcp 1.x's low-level ``call_tool`` handler
(``adapters.mcp1.lowlevel``, compiled once).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any, get_args

import pydantic_core
from fastmcp.utilities.types import Audio, File, Image
from mcp.types import ContentBlock
from pydantic import BaseModel

from ..._core import pydantic_json_text
from .._engines.mirror import fastmcp_tool_result

# fastmcp 3.x's tools module (mypy checks this package against fastmcp 4.x, whose differs).
base: Any = importlib.import_module("fastmcp.tools.base")
ToolResult = base.ToolResult

stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()
# What stock renders as blocks of their own when a list holds one.
_CONTENT: tuple[type, ...] = (*(get_args(ContentBlock) or (ContentBlock,)), Audio, Image, File)
_SCALARS = (dict, str, int, float, bool, type(None))


def _prefab(raw: Any) -> bool:
    """Whether ``raw`` is a Prefab app or component, which stock renders (with prefab-ui installed)."""
    return bool(base._HAS_PREFAB) and isinstance(raw, (base._PrefabApp, base._PrefabComponent))


def _plain(raw: Any) -> bool:
    """Whether stock's conversion of ``raw`` is its serialization and the mirror of that."""
    kind = type(raw)
    if kind in _SCALARS:
        return True
    if kind is list or kind is tuple:  # one check per type of item (isinstance of a union is slow)
        return not any(issubclass(k, _CONTENT) for k in set(map(type, raw)))
    if isinstance(raw, BaseModel):
        return not isinstance(raw, (ToolResult, *_CONTENT)) and not _prefab(raw)
    return dataclasses.is_dataclass(raw) and not isinstance(raw, type) and not _prefab(raw)


def convert_result(self: Any, raw_value: Any) -> Any:
    """``Tool.convert_result``: serialized once, the mirror written natively and marked."""
    assert stock_convert_result is not None
    if self.serializer is not None or not _plain(raw_value):
        return stock_convert_result(self, raw_value)
    kind = type(raw_value)
    try:
        structured = pydantic_core.to_jsonable_python(raw_value, by_alias=base.resolve_serialize_by_alias(raw_value))
        # Stock's _convert_to_content: no block for None and [], a string as it is, anything
        # else pydantic-core's compact JSON (of the raw value, which its serialization is).
        if raw_value is None or ((kind is list or kind is tuple) and not raw_value):
            texts = []
        else:
            texts = [raw_value if kind is str else pydantic_json_text(structured, None)]
    except Exception:  # stock's errors, or not JSON-native: the stock conversion says what it does
        return stock_convert_result(self, raw_value)
    result = fastmcp_tool_result(ToolResult, texts, structured, self.output_schema)
    # None: no structured object (stock's refusal, or no structured content) or no block to mark.
    return stock_convert_result(self, raw_value) if result is None else result
