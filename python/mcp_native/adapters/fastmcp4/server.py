"""fastmcp's ``Tool.convert_result``: one serialization, and output validation (fastmcp has
none: fastmcp #5030); and its tool lookup without a task (:func:`get_tool`).

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

import contextvars
import dataclasses
import functools
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
stock_get_tool: Callable[..., Any] | None = None  # set by install()
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


def _run_now(coro: Any) -> tuple[bool, Any]:
    """Runs ``coro`` to its end at once, in a copy of the context, as the task of stock's
    ``gather`` runs it: (True, its value or the exception it raised, which ``gather`` with
    ``return_exceptions`` returns as the result); (False, None), ``coro`` closed, if it would
    wait for anything."""
    try:
        contextvars.copy_context().run(coro.send, None)
    except StopIteration as stop:
        return True, stop.value
    except BaseException as e:
        return True, e
    coro.close()
    return False, None


@functools.cache
def _lookup_names() -> tuple[Callable[[Any], Any], tuple[type, ...]]:
    """fastmcp's ``hashed_lookup_target`` and the provider classes whose lookup is
    ``LocalProvider``'s own: ``LocalProvider``, and fastmcp 4.2's ``_SchemaCacheLocalProvider``,
    the one every ``FastMCP`` server registers its tools in, which overrides registration only
    (it mirrors each tool's input schema into a cache). Imported on first use: this module is
    loaded while fastmcp's package is still being imported (the patch of fastmcp.tools.base
    applies then), before its providers and its server are."""
    from fastmcp.server import server
    from fastmcp.server.providers.base import hashed_lookup_target
    from fastmcp.server.providers.local_provider import LocalProvider

    schema_cache = getattr(server, "_SchemaCacheLocalProvider", None)
    return hashed_lookup_target, (LocalProvider,) if schema_cache is None else (LocalProvider, schema_cache)


async def get_tool(self: Any, name: str, version: Any = None) -> Any:
    """``AggregateProvider._get_tool`` (the tool lookup of every ``tools/call``). Stock awaits
    each provider's lookup in a task of its own (``gather``'s task group), about 0.1 ms a call.
    A server whose one provider is its own ``LocalProvider``, with no transforms of its own and
    no lookup by hash under way, looks a tool up in fastmcp's code that reads a dict and never
    waits: that lookup runs here, in the calling task, in a copy of its context. The result,
    or the error, goes through stock's ``_get_highest_version_result`` as before. Any other
    server, or a lookup that would wait after all (it is closed, having only read), takes the
    stock path."""
    assert stock_get_tool is not None
    providers = self.providers
    if len(providers) == 1:
        provider = providers[0]
        hashed_lookup_target, own = _lookup_names()
        if type(provider) in own and not provider.transforms and hashed_lookup_target(provider) is None:
            done, result = _run_now(provider.get_tool(name, version))
            if done:
                return self._get_highest_version_result([result], f"get_tool({name!r})")
    return await stock_get_tool(self, name, version)
