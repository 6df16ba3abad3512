"""fastmcp's ``Tool.convert_result``: one serialization, and output validation (fastmcp has
none: fastmcp #5030).

For a tool that returns a dict, the value is serialized for its return annotation as stock does,
once (stock does it three times, and writes the text mirror twice), and the mirror is written natively
with pydantic-core's compact layout and marked, so that the server runner sends the result
without a second validation and dump (``adapters.mcp_server``). Anything else takes the stock
conversion.

A tool's ``structuredContent`` is checked against its ``outputSchema`` by a native validator
compiled once per schema. In mode "error" a violating result is never sent: the call fails
with a ``ToolError`` naming the value and its JSON Pointer, which fastmcp turns into an
``isError`` result; "warn" logs it and sends the result; "off" checks nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult, _serialize_to_jsonable

from .._core import pydantic_json_text
from ..errors import SchemaError
from . import _validation
from .mcp_server import mirror

logger = logging.getLogger("mcp_native.adapters")

mode = "error"  # set by install()
stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()


def convert_result(self: Any, raw_value: Any) -> Any:
    """Convert a raw result to ToolResult, then check it against the tool's output schema."""
    result = _convert(self, raw_value)
    schema = self.output_schema
    if mode == "off" or schema is None or not isinstance(result, ToolResult) or result.structured_content is None:
        return result
    try:
        validator = _validation.output_validator(schema)
    except SchemaError as e:
        raise ToolError(f"Tool {self.name!r} has an invalid output schema: {e}") from None
    error = _validation.first_error(validator, result.structured_content)
    if error is None:
        return result
    problem = f"Output validation error: the result of tool {self.name!r} does not match its output schema: {error}"
    if mode == "warn":
        logger.warning("%s", problem)
        return result
    raise ToolError(problem)


def _convert(self: Any, raw_value: Any) -> Any:
    assert stock_convert_result is not None
    if type(raw_value) is not dict or (self.output_schema or {}).get("x-fastmcp-wrap-result"):
        return stock_convert_result(self, raw_value)
    try:
        structured = _serialize_to_jsonable(raw_value, self.return_type)
        text = pydantic_json_text(structured, None)
    except Exception:  # stock's errors, or not JSON-native: the stock conversion says what it does
        return stock_convert_result(self, raw_value)
    if type(structured) is not dict:
        return stock_convert_result(self, raw_value)
    # ToolResult() would serialize the JSON-native dict a third time; what it builds is this.
    return ToolResult.model_construct(
        content=[mirror(text, structured)], structured_content=structured, meta=None, is_error=False
    )
