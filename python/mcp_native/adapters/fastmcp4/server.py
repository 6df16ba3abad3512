"""fastmcp's ``Tool.convert_result``: one serialization, and output validation (fastmcp has
none: fastmcp #5030).

For a tool that returns a dict, list, tuple, str, number, bool, ``None``, pydantic model or
dataclass, the value is serialized for its return annotation as stock does, once (stock does it
three times, and writes the text mirror twice); the mirror, stock's compact JSON of that
serialization (a string as it is, ``None`` and ``[]`` no block), is written natively
(byte-identical) and marked, so that the server runner sends the result without a second
validation and dump (``adapters.mcp2.server``). A wrapped output (``x-fastmcp-wrap-result``)
gets ``{"result": ...}`` and fastmcp's ``_meta`` mark as stock. Anything else (content blocks,
``Image``/``Audio``/``File``, bytes, Prefab apps, ``ToolResult``, ``CallToolResult``) takes the
stock conversion.

A tool's ``structuredContent`` is checked against its ``outputSchema`` by a native validator
compiled once per schema. In mode "error" a violating result is never sent: the call fails
with a ``ToolError`` naming the value and its JSON Pointer, which fastmcp turns into an
``isError`` result; "warn" logs it and sends the result; "off" checks nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any, get_args

from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult, _serialize_to_jsonable
from fastmcp.utilities.prefab import is_prefab_app, is_prefab_component
from fastmcp.utilities.types import Audio, File, Image, get_cached_typeadapter
from mcp_types import CallToolResult, ContentBlock
from pydantic import BaseModel

from ..._core import pydantic_json_text
from ...errors import SchemaError
from .._engines import validation as _validation
from .._engines.mirror import fastmcp_tool_result
from .._engines.outputs import exact_copy

logger = logging.getLogger("mcp_native.adapters")

mode = "error"  # set by install()
stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()
# What stock renders as blocks of their own when a list holds one (its is_content_result).
_CONTENT: tuple[type, ...] = (*(get_args(ContentBlock) or (ContentBlock,)), Audio, Image, File)


def convert_result(self: Any, raw_value: Any) -> Any:
    """Convert a raw result to ToolResult, then check it against the tool's output schema."""
    result = _convert(self, raw_value)
    schema = self.output_schema
    if mode == "off" or schema is None or not isinstance(result, ToolResult) or result.structured_content is None:
        return result
    try:
        error = _validation.first_error(_validation.output_validator(schema), result.structured_content)
    except SchemaError as e:
        raise ToolError(f"Tool {self.name!r} has an invalid output schema: {e}") from None
    if error is None:
        return result
    problem = f"Output validation error: the result of tool {self.name!r} does not match its output schema: {error}"
    if mode == "warn":
        logger.warning("%s", problem)
        return result
    raise ToolError(problem)


def _plain(raw: Any) -> bool:
    """Whether stock's conversion of ``raw`` is its serialization and the mirror of that: no
    content blocks, no bytes, no Prefab app."""
    kind = type(raw)
    if kind is dict or kind is str or kind is int or kind is float or kind is bool or raw is None:
        return True
    if kind is list or kind is tuple:  # one check per type of item (isinstance of a union is slow)
        return not any(issubclass(k, _CONTENT) for k in set(map(type, raw)))
    if isinstance(raw, BaseModel):
        return not (
            isinstance(raw, (ToolResult, CallToolResult, ContentBlock))
            or is_prefab_app(raw)
            or is_prefab_component(raw)
        )
    return dataclasses.is_dataclass(raw) and not isinstance(raw, type) and not is_prefab_component(raw)


def _convert(self: Any, raw_value: Any) -> Any:
    assert stock_convert_result is not None
    if not _plain(raw_value):
        return stock_convert_result(self, raw_value)
    try:
        structured = _serialized(raw_value, self.return_type)
        # Stock's _convert_to_content of the serialized value: no block for None and [], a
        # string as it is, anything else pydantic-core's compact JSON.
        if structured is None or structured == []:
            texts = []
        else:
            texts = [structured if type(structured) is str else pydantic_json_text(structured, None)]
    except Exception:  # stock's errors, or not JSON-native: the stock conversion says what it does
        return stock_convert_result(self, raw_value)
    result = fastmcp_tool_result(ToolResult, texts, structured, self.output_schema)
    # None: no structured object (stock's refusal, or no structured content) or no block to mark.
    return stock_convert_result(self, raw_value) if result is None else result


def _serialized(raw: Any, annotation: Any) -> Any:
    """``_serialize_to_jsonable(raw, annotation)``: a native copy of ``raw`` where the
    annotation's core schema proves that its JSON serialization, parsed back, is ``raw``
    (``adapters._engines.outputs``), else stock's."""
    if isinstance(annotation, type) and isinstance(raw, dict):  # a typed dict's value
        try:
            owner = get_cached_typeadapter(annotation)
        except Exception:  # stock's serializer falls back to Any's, which is not walked
            owner = None
        copied = None if owner is None else exact_copy(owner, raw, serialized=True)
        if copied is not None:
            return copied
    return _serialize_to_jsonable(raw, annotation)
