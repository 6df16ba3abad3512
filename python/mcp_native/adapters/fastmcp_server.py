"""fastmcp's ``Tool.convert_result`` gains output validation (fastmcp has none: fastmcp #5030).

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
from fastmcp.tools.base import ToolResult

from ..errors import SchemaError
from . import _validation

logger = logging.getLogger("mcp_native.adapters")

mode = "error"  # set by install()
stock_convert_result: Callable[[Any, Any], Any] | None = None  # set by install()


def convert_result(self: Any, raw_value: Any) -> Any:
    """Convert a raw result to ToolResult, then check it against the tool's output schema."""
    assert stock_convert_result is not None
    result = stock_convert_result(self, raw_value)
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
