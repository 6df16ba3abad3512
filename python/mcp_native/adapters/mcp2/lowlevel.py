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
"off" checks nothing. A tool without an output schema costs a dict look-up. The handlers of
MCPServer (which validates through its output model) and of fastmcp (``adapters.fastmcp4.server``)
are left as they are.

A tool called before the server has listed it (a client that cached the list from an earlier
connection, a stateless HTTP server whose first request is a call) is looked up as mcp 1.x's
handler looks it up: the server's own ``tools/list`` handler runs, once per server, in the call's
context made a listing's (method ``tools/list``, no cursor, the call's ``_meta`` without its
progress token), and its result is learned as a listing's is. Only that first page is read: a
cursor is the client's to follow. Concurrent calls wait for that one listing. A server without a
``tools/list`` handler, or one whose handler raises (a warning is logged) or answers anything but
a ``ListToolsResult``, gets that call sent unchecked, as stock sends it, and the listing is not
tried again; its tools are checked once a ``tools/list`` request is answered.

The runner finds a method's handler through ``Server.get_request_handler``; for ``tools/list``
and ``tools/call`` it gets the same handler wrapped, one wrapper per server and handler.
"""

from __future__ import annotations

import dataclasses
import logging
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import HandlerEntry
from mcp.types import CallToolResult, ListToolsResult, TextContent

from ...errors import SchemaError
from .._engines import validation as _validation

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
    # The listing run for a tool called before it was listed: None until it starts, set once it
    # has ended.
    first_listing: anyio.Event | None = None


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
        if method == "tools/list":
            wrapped = HandlerEntry(entry.params_type, _listing(entry.handler, state.schemas))
        else:
            # A weak reference: the wrapper is held by the state of the server it refers to.
            wrapped = HandlerEntry(entry.params_type, _calling(entry.handler, weakref.ref(self), state))
    state.entries[method] = (entry, wrapped)
    return wrapped


def _listing(handler: Any, schemas: dict[str, Any]) -> Any:
    async def list_tools(ctx: Any, params: Any) -> Any:
        result = await handler(ctx, params)
        if isinstance(result, ListToolsResult):
            learn(schemas, result.tools)
        return result

    return list_tools


def _calling(handler: Any, server: weakref.ref[Any], state: _Server) -> Any:
    async def call_tool(ctx: Any, params: Any) -> Any:
        result = await handler(ctx, params)
        if not isinstance(result, CallToolResult) or result.is_error:
            return result
        if params.name not in state.schemas:
            await _list_first(server(), state, ctx)
        schema = state.schemas.get(params.name)
        if schema is None:
            return result
        return check(params.name, schema, result)

    return call_tool


async def _list_first(server: Any, state: _Server, ctx: Any) -> None:
    """Learns the tools from the server's own ``tools/list`` handler, for a tool called before any
    listing: once per server; a call that comes while it runs waits for it."""
    running = state.first_listing
    if running is not None:
        if not running.is_set():
            await running.wait()
        return
    if server is None or not isinstance(ctx, ServerRequestContext):
        return  # no context a handler could be given: checked once the server lists its tools
    stock = stock_get_request_handler(server, "tools/list") if stock_get_request_handler else None
    entry = get_request_handler(server, "tools/list")
    if stock is None or entry is stock:
        return  # no handler, or a framework's (not learned from when listing either)
    state.first_listing = done = anyio.Event()
    try:
        raw = ctx.params.get("_meta") if isinstance(ctx.params, Mapping) else None
        wire = None
        if isinstance(raw, Mapping):
            # The rest of _meta says who calls (2026-07-28 sends client info there); the progress token is the call's.
            wire = {"_meta": {k: v for k, v in raw.items() if k != "progressToken"}}
        params = entry.params_type.model_validate({} if wire is None else wire, by_name=False)
        listing = dataclasses.replace(ctx, method="tools/list", params=wire, meta=getattr(params, "meta", None))
        await entry.handler(listing, params)  # the wrapped handler learns its result
    except anyio.get_cancelled_exc_class():
        state.first_listing = None  # the call was cancelled, not the listing refused: a later call runs it
        raise
    except Exception:
        # Never the call's failure: it is sent unchecked, as stock sends it, and the listing not run again.
        logger.warning(
            "The tools/list handler failed on listing the tools for a tools/call that came first; "
            "results are not checked against output schemas until tools/list is answered",
            exc_info=True,
        )
    finally:
        done.set()


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
