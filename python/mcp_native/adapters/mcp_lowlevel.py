"""Output validation on the low-level ``Server`` (``mcp`` 2.x dropped it: "no built-in
replacement", its migration guide).

The server learns each tool's ``outputSchema`` from the ``tools/list`` results its own handler
returns, page by page and listing by listing: a tool listed again is checked against what it
lists now. A ``tools/call`` result of a tool listed with an output schema, unless it is an
``isError`` result, has its ``structuredContent`` checked by a native validator compiled once per
schema (an unchanged schema listed again keeps its validator). Any JSON value is checked as it
is (2026-07-28 allows any; the 2025 versions want an object, which the runner enforces after).

In mode "error" a violating result is never sent: the client gets an ``isError`` result naming
the value and its JSON Pointer (as fastmcp's tools do here); "warn" logs it and sends the result;
"off" checks nothing. A tool that is not listed yet, or has no output schema, costs a dict
look-up. The handlers of MCPServer (which validates through its output model) and of fastmcp
(``adapters.fastmcp_server``) are left as they are.

The runner finds a method's handler through ``Server.get_request_handler``; for ``tools/list``
and ``tools/call`` it gets the same handler wrapped, one wrapper per server and handler.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.lowlevel.server import HandlerEntry
from mcp.types import CallToolResult, ListToolsResult, TextContent

from ..errors import SchemaError
from . import _validation

logger = logging.getLogger("mcp_native.adapters")

mode = "error"  # set by install()
stock_get_request_handler: Callable[[Any, str], Any] | None = None  # set by install()

# Handlers of the frameworks that validate their own results (or are validated by their group).
_FRAMEWORKS = ("mcp.server.mcpserver.", "fastmcp.")


@dataclass
class _Server:
    """What one server's listings declared, and its wrapped handlers."""

    schemas: dict[str, Any] = field(default_factory=dict)  # tool name -> output schema or None
    entries: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # method -> (stock, wrapped)


_servers: weakref.WeakKeyDictionary[Any, _Server] = weakref.WeakKeyDictionary()


def get_request_handler(self: Any, method: str) -> Any:
    """``Server.get_request_handler``, with ``tools/list`` and ``tools/call`` wrapped."""
    assert stock_get_request_handler is not None
    entry = stock_get_request_handler(self, method)
    if entry is None or mode == "off" or method not in ("tools/call", "tools/list"):
        return entry
    state = _servers.get(self)
    if state is None:
        state = _servers[self] = _Server()
    cached = state.entries.get(method)
    if cached is not None and cached[0] is entry:
        return cached[1]
    wrapped = entry
    if not getattr(entry.handler, "__module__", "").startswith(_FRAMEWORKS):
        wrap = _listing if method == "tools/list" else _calling
        wrapped = HandlerEntry(entry.params_type, wrap(entry.handler, state.schemas))
    state.entries[method] = (entry, wrapped)
    return wrapped


def _listing(handler: Any, schemas: dict[str, Any]) -> Any:
    async def list_tools(ctx: Any, params: Any) -> Any:
        result = await handler(ctx, params)
        if isinstance(result, ListToolsResult):
            learn(schemas, result.tools)
        return result

    return list_tools


def _calling(handler: Any, schemas: dict[str, Any]) -> Any:
    async def call_tool(ctx: Any, params: Any) -> Any:
        result = await handler(ctx, params)
        schema = schemas.get(params.name)
        if schema is None or not isinstance(result, CallToolResult) or result.is_error:
            return result
        return check(params.name, schema, result)

    return call_tool


def learn(schemas: dict[str, Any], tools: list[Any]) -> None:
    """Remembers the output schema of each listed tool; an equal schema keeps the dict already
    held (the compiled validators are cached by its identity)."""
    for tool in tools:
        schema = tool.output_schema
        held = schemas.get(tool.name)
        schemas[tool.name] = held if held is not None and held == schema else schema


def check(name: str, schema: Any, result: Any) -> Any:
    """``result``, or in mode "error" the ``isError`` result that says how it violates ``schema``."""
    if result.structured_content is None and "structured_content" not in result.model_fields_set:
        problem = _validation.no_structured(name)
    else:
        try:
            error = _validation.first_error(_validation.output_validator(schema), result.structured_content)
        except SchemaError as e:
            problem = f"Tool {name!r} has an invalid output schema: {e}"
        else:
            if error is None:
                return result
            problem = _validation.mismatch(name, error)
    if mode == "warn":
        logger.warning("%s", problem)
        return result
    return CallToolResult(content=[TextContent(type="text", text=problem)], is_error=True)
