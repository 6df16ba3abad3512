"""mcp 1.x: ``ClientSession._validate_tool_result`` (what ``call_tool`` runs on every result that
is not an error; fastmcp 2.x/3.x's ``Client`` goes through it too) with the output schema
compiled once natively.

Stock runs ``jsonschema.validate`` on every call: a metaschema check of the schema and a new
validator each time. Here the schema the session keeps from ``tools/list`` is compiled once (by
its identity: a new listing brings a new dict and a new compile). Same contract: the tool list
is refreshed when the tool is unknown, the same warning when it is not listed, the same
``RuntimeError`` messages, now naming the failing value's JSON Pointer; a ``$ref`` resolves only
inside the schema (nothing is fetched; 1.26 would fetch it, 1.30 refuses it as here).
``output_validation="warn"`` logs a violating result and accepts it, ``"off"`` checks nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from ...errors import SchemaError
from .._engines import validation as _validation

# The stock method's logger, for its own warning.
_session_logger = logging.getLogger("client")

mode = "error"  # set by install()


async def validate_tool_result(self: Any, name: str, result: Any) -> None:
    """Validate the structured content of a tool result against its output schema."""
    if mode == "off":
        return
    if name not in self._tool_output_schemas:
        await self.list_tools()
    if name not in self._tool_output_schemas:
        _session_logger.warning(f"Tool {name} not listed by server, cannot validate any structured content")
        return
    output_schema = self._tool_output_schemas.get(name)
    if output_schema is None:
        return
    if result.structuredContent is None:
        problem = f"Tool {name} has an output schema but did not return structured content"
    else:
        try:
            error = _validation.first_error(_validation.output_validator(output_schema), result.structuredContent)
        except SchemaError as e:
            raise RuntimeError(f"Invalid schema for tool {name}: {e}") from e
        if error is None:
            return
        problem = f"Invalid structured content returned by tool {name}: {error}"
    _validation.client_refuses(problem, mode)
