"""mcp 1.x: the low-level ``Server.call_tool`` handler with its schemas compiled once.

Stock, the handler that ``Server.call_tool()`` registers (and that 1.x's FastMCP and fastmcp
2.x/3.x register too) runs ``jsonschema.validate`` on every call: the arguments against the
tool's ``inputSchema`` (unless ``validate_input=False``, as FastMCP asks) and the structured
result against its ``outputSchema``. Each call checks the schema against its metaschema and
builds a new validator, which costs more than the check itself (on a 200-record result, see
``benchmarks/bench_lowlevel_validation.py``). This is the same handler, line for line, but both
checks go through a native validator compiled once per schema (the tool cache holds the schema
dicts, so the identity cache of ``_engines.validation`` keeps them), and the text mirror of a dict result
is written natively (``_engines.mirror``).

What a caller sees is stock's: the same ``isError`` results with the same prefixes and
python-jsonschema's wording of the failing keyword (``Output validation error: '65%' is not of
type 'integer'``), now followed by the failing value's JSON Pointer. Where several values fail,
the first one found is named (jsonschema names the one its ``best_match`` ranks first). An
invalid schema is an ``isError`` result as stock, worded by ``mcp_native.SchemaError``.

``output_validation="warn"`` logs a result that violates its output schema and sends it;
``"off"`` sends it unchecked (for a server whose schema is wrong, python-sdk #2626). Arguments
are always checked as stock checks them.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable
from typing import Any

import jsonschema
from mcp.shared.exceptions import UrlElicitationRequiredError

from ... import dumps
from ...errors import SchemaError
from .._engines import validation as _validation
from .._engines.mirror import mirrors

# mcp 1.x's models (mypy checks this package against mcp 2.x, whose mcp.types differ).
types: Any = importlib.import_module("mcp.types")
logger = logging.getLogger("mcp_native.adapters")

mode = "error"  # set by install()


def _violation(schema: Any, instance: Any) -> str | None:
    """How ``instance`` violates ``schema`` (its first error and JSON Pointer), or None.
    Raises ``SchemaError`` for an invalid schema."""
    try:
        error = _validation.first_error(_validation.output_validator(schema), instance)
    except SchemaError:
        raise
    except (TypeError, ValueError):
        # Not JSON (a float inf, a Python object): python-jsonschema judges it, as stock does.
        try:
            jsonschema.validate(instance=instance, schema=schema)
        except jsonschema.ValidationError as e:
            return e.message
        return None
    return None if error is None else str(error)


def _mirror(results: dict[str, Any]) -> list[Any]:
    """The text block of ``json.dumps(results, indent=2)``, the text the stock handler mirrors a
    dict result in, written natively: the same text wherever it is ASCII (json.dumps escapes the
    rest) and every number finite. Anything else (non-ASCII text, NaN, keys that are not
    strings) is left to json.dumps. On 200 records, 4.8 ms become 0.4 ms (json.dumps' indented
    layout is pure Python). The native block is marked as the mirror of ``results``, which the
    encoder has just written as JSON, so that the session sends the result without its dump
    (``adapters.mcp1.server``)."""
    try:
        text = dumps(results, indent=2)
    except (TypeError, ValueError):
        text = b""
    if not text or not text.isascii():
        return [types.TextContent(type="text", text=json.dumps(results, indent=2))]
    return mirrors([text.decode()], results)


def call_tool(self: Any, *, validate_input: bool = True) -> Callable[[Any], Any]:
    """``Server.call_tool``: registers the ``tools/call`` handler (stock's, with native checks)."""

    def decorator(func: Any) -> Any:
        async def handler(req: Any) -> Any:
            try:
                tool_name = req.params.name
                arguments = req.params.arguments or {}
                tool = await self._get_cached_tool_definition(tool_name)

                if validate_input and tool:
                    problem = _violation(tool.inputSchema, arguments)
                    if problem is not None:
                        return self._make_error_result(f"Input validation error: {problem}")

                results = await func(tool_name, arguments)

                unstructured_content: Any
                maybe_structured_content: dict[str, Any] | None
                if isinstance(results, (types.CallToolResult, types.CreateTaskResult)):
                    return types.ServerResult(results)
                elif isinstance(results, tuple) and len(results) == 2:
                    unstructured_content, maybe_structured_content = results
                elif isinstance(results, dict):
                    maybe_structured_content = results
                    unstructured_content = _mirror(results)
                elif hasattr(results, "__iter__"):
                    unstructured_content = results
                    maybe_structured_content = None
                else:
                    return self._make_error_result(f"Unexpected return type from tool: {type(results).__name__}")

                if tool and tool.outputSchema is not None and mode != "off":
                    if maybe_structured_content is None:
                        problem = "Output validation error: outputSchema defined but no structured output returned"
                    else:
                        problem = _violation(tool.outputSchema, maybe_structured_content)
                        problem = None if problem is None else f"Output validation error: {problem}"
                    if problem is not None:
                        if mode != "warn":
                            return self._make_error_result(problem)
                        logger.warning("tool %r: %s", tool_name, problem)

                return types.ServerResult(
                    types.CallToolResult(
                        content=list(unstructured_content),
                        structuredContent=maybe_structured_content,
                        isError=False,
                    )
                )
            except UrlElicitationRequiredError:
                # Handled by the session, which answers with its own error code (-32042).
                raise
            except Exception as e:
                return self._make_error_result(str(e))

        self.request_handlers[types.CallToolRequest] = handler
        return func

    return decorator
