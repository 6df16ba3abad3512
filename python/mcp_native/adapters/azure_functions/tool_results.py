"""Azure Functions' MCP tool trigger (package ``azure-functions``): tool results written natively,
mirrored and validated.

With ``use_result_schema=True`` (or a return annotation it detects as an MCP type), the worker
owns a tool's result: ``FunctionApp.mcp_tool`` wraps the user's function in one that converts
the return value into the ``McpToolResult`` text the host's MCP extension reads (``type``,
``content`` and ``structuredContent``, the last two JSON texts held as strings). Here that
wrapper is replaced, for those tools only, by one that binds the arguments as stock does and
writes the text with :func:`mcp_native._core.mcp_tool_result`, in ``json.dumps``'s layout:

- dicts, TypedDicts, dataclasses, ``@mcp_content`` classes and pydantic models (dumped as MCPServer
  dumps them: JSON mode, by alias) become structured content with its ``TextContent`` mirror;
  stock's bytes wherever stock's result is right;
- a dataclass (``@mcp_content`` or not) is converted as ``dataclasses.asdict`` converts it, in its
  bytes, by a function built once per class from its fields, without asdict's deep copy of
  every leaf: JSON scalars, lists, tuples and str-keyed dicts pass as they are; a value of any
  other type anywhere in it (an enum, a datetime, a UUID, a subclass) leaves the whole result
  to asdict;
- the structured content is checked against an output schema derived from the return annotation
  as MCPServer derives one (pydantic's JSON Schema of the annotation; a list or a scalar is
  wrapped as ``{"result": ...}``): the Python programming model declares none. The annotation
  is read when the decorator runs, so a class it names must be defined above the tool. In mode
  "error" a violating result becomes an ``isError`` result naming the value and its JSON
  Pointer, and so does a result without structured content (a ``str`` or content blocks from
  a tool with a schema, which a client refuses); "warn" logs it and sends the result; "off"
  checks nothing;
- that schema is published as the trigger binding's ``outputSchema`` (a JSON text, as the .NET
  worker writes it), which the host's MCP extension lists in ``tools/list`` from its release
  1.5.0 (older ones do not read it). Neither azure-functions line's ``mcp_tool`` takes a
  schema of its own, so there is none to keep;
- a ``str`` is a text block; it keeps stock's structured content only when it is a JSON object;
- mcp SDK content blocks, lists (or tuples) of them and ``CallToolResult`` are dumped with the
  schema's field names (``structuredContent``, ``isError``), and a ``CallToolResult`` whose
  structured content has no text block gets the mirror first. A return annotation of content (a
  block type, a list, tuple or sequence of blocks, a union with a block arm, ``CallToolResult``)
  declares content, not structured output, as MCPServer reads it: no schema is derived, so the
  blocks go out as stock writes them (2.x's bytes for a list; one block without 2.x's copy of
  it as structured content). A list mixing blocks with dicts is a
  ``CallToolResult`` whose dicts are taken as blocks, as azure-functions 2.x takes them, once each
  has a content ``type`` (2.x passes any dict on; stock reads a list by its first item and
  returns an empty result when that is a dict, and 1.x for any mcp 2.x block);
- a return annotation of an mcp 2.x type turns ``use_result_schema`` on, as azure-functions 2.x
  detects it (1.x looks for the module ``mcp.types``, where mcp 2.x types no longer live).

Tools without ``use_result_schema`` keep their stock wrapper.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import json
import keyword
import logging
import sys
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from azure.functions.mcp import MCPToolContext

from ... import _core
from ...content import check_block
from ...errors import SchemaError
from ...tools import mcp_tool_result
from .._engines import validation as _validation

logger = logging.getLogger("mcp_native.adapters")

mode = "error"  # set by install()
stock_mcp_tool: Callable[..., Any] | None = None  # set by install()

# What the host's clients negotiate is not known to the worker: structured content is kept to
# an object, which every protocol version accepts.
_PROTOCOL = "2025-11-25"


def mcp_tool(self: Any, metadata: str | None = None, use_result_schema: bool | None = False) -> Any:
    """``FunctionApp.mcp_tool``: stock's decorator, then, for a tool whose result the worker owns,
    the native result wrapper in place of stock's."""
    assert stock_mcp_tool is not None
    register = stock_mcp_tool(self, metadata, use_result_schema)

    def decorator(func: Any) -> Any:
        builder = register(func)
        function = builder._function
        trigger = function._trigger
        stock_wrapper = function._func
        user = stock_wrapper.__wrapped__
        signature = inspect.signature(user)
        annotation = _return_annotation(user)
        if not trigger.use_result_schema and _is_mcp_type(annotation):
            trigger.use_result_schema = True
        if trigger.use_result_schema:
            schema = output_schema(annotation)
            if schema is not None:
                # The binding's fields are its init_params, camel-cased by get_dict_repr (as a
                # generic binding's extra keywords are): "outputSchema".
                trigger.output_schema = _core.dumps(schema).decode()
                trigger.init_params.append("output_schema")
            function._func = _wrapper(user, signature, stock_wrapper.__signature__, schema)
        return builder

    return decorator


def _wrapper(
    user: Callable[..., Any], signature: inspect.Signature, wrapper_signature: Any, schema: dict[str, Any] | None
) -> Any:
    name = user.__name__

    @functools.wraps(user)
    async def wrapper(context: str, *args: Any, **kwargs: Any) -> str:
        # The arguments as stock binds them.
        request = json.loads(context)
        arguments = request.get("arguments", {})
        call_kwargs = {}
        for param_name, param in signature.parameters.items():
            if param.annotation is MCPToolContext:
                call_kwargs[param_name] = request
            elif param_name in arguments:
                call_kwargs[param_name] = arguments[param_name]
        call_kwargs.update(kwargs)
        result = user(**call_kwargs)
        if asyncio.iscoroutine(result):
            result = await result
        if result is None:
            return ""
        return convert(name, result, schema)

    wrapper.__signature__ = wrapper_signature  # type: ignore[attr-defined]
    return wrapper


def convert(name: str, result: Any, schema: dict[str, Any] | None) -> str:
    """The McpToolResult text of tool ``name``'s return value."""
    mcp_types = _mcp_types(result)
    if mcp_types is not None:
        if isinstance(result, mcp_types.CallToolResult):
            return _call_tool_result(result)
        blocks = _block_types(mcp_types)
        if isinstance(result, blocks):
            dumped = _dump_block(result)
            return _refused(name, schema, None) or _core.mcp_tool_result(dumped["type"], dumped, None, False)
        if type(result) in (list, tuple) and any(isinstance(b, blocks) for b in result):
            dumped_blocks = [
                _dump_block(b) if isinstance(b, blocks) else _given_block(i, b) for i, b in enumerate(result)
            ]
            return _refused(name, schema, None) or _core.mcp_tool_result(
                "call_tool_result", {"content": dumped_blocks}, None, False
            )
    if isinstance(result, str):
        structured = _json_object(result)
        return _refused(name, schema, structured) or _core.mcp_tool_result(
            "text", {"type": "text", "text": result}, structured, False
        )
    structured = _structured(result)
    return _refused(name, schema, structured) or _core.mcp_tool_result("text", None, structured, True)


def _refused(name: str, schema: dict[str, Any] | None, structured: Any) -> str | None:
    """In mode "error", the ``isError`` McpToolResult of a result that its tool's published
    output schema refuses (one without structured content, as a client refuses it, or one that
    violates the schema); None to send the result ("warn" logs the problem first)."""
    if schema is None or mode == "off":
        return None
    problem = _validation.no_structured(name) if structured is None else _check(name, schema, structured)
    if problem is None:
        return None
    if mode == "warn":
        logger.warning("%s", problem)
        return None
    return mcp_tool_result(content=[{"type": "text", "text": problem}], is_error=True, protocol_version=_PROTOCOL)


def _mcp_types(result: Any) -> Any:
    """``mcp.types`` when the result may be one of its types (or a list of them), else None."""
    mcp_types = sys.modules.get("mcp.types")
    if mcp_types is None:
        items = result if type(result) in (list, tuple) else (result,)
        if not any(type(item).__module__.startswith(("mcp.", "mcp_types")) for item in items):
            return None
        import mcp.types as mcp_types
    return mcp_types


def _check(name: str, schema: dict[str, Any], structured: Any) -> str | None:
    try:
        error = _validation.first_error(_validation.output_validator(schema), structured)
    except SchemaError as e:
        return f"Tool {name!r} has an invalid output schema: {e}"
    return None if error is None else _validation.mismatch(name, error)


def _structured(result: Any) -> Any:
    """The structured content of a value: an object, as stock builds it where stock can."""
    if type(result) is dict:
        return result
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return _dataclass_json(result)
    if _is_pydantic_model(result):
        return result.model_dump(mode="json", by_alias=True)
    if isinstance(result, (list, tuple, int, float)):  # bool is an int
        return {"result": result}
    if isinstance(result, dict):
        return result
    if hasattr(result, "__dict__"):  # @mcp_content and plain classes: stock's choice
        return result.__dict__
    raise TypeError(f"tool result of type {type(result).__name__} is not JSON serializable")


# Direct conversion of dataclasses: what dataclasses.asdict gives, for the values the native
# writer writes as they are (so the bytes are asdict's), without asdict's deep copy of each leaf.
_ATOMIC = frozenset({str, int, float, bool, type(None)})
_MAX_CONVERTERS = 4096


class _NotPlain(Exception):
    """A value the direct conversion leaves to ``dataclasses.asdict``."""


def _dataclass_json(obj: Any) -> Any:
    """``dataclasses.asdict(obj)`` as the native writer writes it: each dataclass a new dict of
    its fields in order, lists, tuples and str-keyed dicts of JSON scalars (exactly ``str``,
    ``int``, ``float``, ``bool``, ``None``) as they are, converted where they hold more. Any other
    value anywhere (an enum, a datetime, a UUID, a subclass of a scalar or container, a
    namedtuple) and any error hand the whole value to ``asdict``: its result or its error."""
    try:
        return _json_value(obj)
    except Exception:
        return dataclasses.asdict(obj)


def _json_value(value: Any) -> Any:
    t = type(value)
    if t in _ATOMIC:
        return value
    if t is list or t is tuple:
        for item in value:
            if type(item) not in _ATOMIC:
                converted = [_json_value(item) for item in value]
                return converted if t is list else tuple(converted)
        return value
    if t is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            if type(item) not in _ATOMIC:
                return {_json_key(k): _json_value(v) for k, v in value.items()}
        return value
    convert = _CONVERTERS.get(t)
    if convert is None:
        convert = _converter(t)
    return convert(value)


def _json_key(key: Any) -> str:
    if type(key) is not str:
        raise _NotPlain
    return key


_CONVERTERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _converter(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The converter of a dataclass: a function built once per class from its fields (those
    ``dataclasses.fields`` lists, in order), reading each attribute and passing JSON scalars on."""
    if not dataclasses.is_dataclass(cls):
        raise _NotPlain
    names = [f.name for f in dataclasses.fields(cls)]
    if not all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
        raise _NotPlain
    reads = "".join(f"    v{i} = o.{n}\n" for i, n in enumerate(names))
    items = ", ".join(f"{n!r}: v{i} if T(v{i}) in A else V(v{i})" for i, n in enumerate(names))
    namespace: dict[str, Any] = {"T": type, "A": _ATOMIC, "V": _json_value}
    exec(f"def convert(o):\n{reads}    return {{{items}}}\n", namespace)
    if len(_CONVERTERS) >= _MAX_CONVERTERS:  # classes made on the fly: no unbounded growth
        _CONVERTERS.clear()
    convert: Callable[[Any], dict[str, Any]] = namespace["convert"]
    _CONVERTERS[cls] = convert
    return convert


def _json_object(text: str) -> dict[str, Any] | None:
    """A str result's structured content: stock's, where the text is a JSON object (the text
    itself then, in stock's bytes when it is json.dumps's text of that object); else none."""
    if not text.startswith("{"):
        return None
    try:
        parsed = _core.loads(text)
    except ValueError:
        return None
    return parsed if type(parsed) is dict else None


def _call_tool_result(result: Any) -> str:
    dumped = result.model_dump(mode="json", exclude_none=True, by_alias=True)
    structured = dumped.get("structuredContent")
    content = dumped.get("content", [])
    if structured is not None and not any(b.get("type") == "text" for b in content):
        dumped["content"] = [{"type": "text", "text": _core.dumps(structured).decode()}, *content]
    return _core.mcp_tool_result("call_tool_result", dumped, structured, False)


def _dump_block(block: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = block.model_dump(mode="json", exclude_none=True, by_alias=True)
    return dumped


def _given_block(index: int, block: Any) -> Any:
    """A dict beside mcp blocks in a tool's list result: a content block as it is, once it has a
    content type (TypeError or ValueError naming its index otherwise)."""
    check_block(f"tool result[{index}]", block)
    return block


@functools.cache
def _block_types(mcp_types: Any) -> tuple[type, ...]:
    return (
        mcp_types.TextContent,
        mcp_types.ImageContent,
        mcp_types.AudioContent,
        mcp_types.ResourceLink,
        mcp_types.EmbeddedResource,
    )


def _is_pydantic_model(value: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


def _is_mcp_type(annotation: Any) -> bool:
    """Whether a return annotation names an mcp 2.x type (or a list or union of them), which
    azure-functions 2.x takes as asking for use_result_schema."""
    if isinstance(annotation, type):
        module = getattr(annotation, "__module__", "") or ""
        if not (module == "mcp_types" or module.startswith("mcp_types.")):
            return False
        mcp_types = sys.modules.get("mcp.types")
        return mcp_types is not None and any(v is annotation for v in vars(mcp_types).values())
    if typing.get_origin(annotation) in (list, typing.Union):
        return any(a is not type(None) and _is_mcp_type(a) for a in typing.get_args(annotation))
    return False


_UNION_ORIGINS = (typing.Union, types.UnionType)
# What a tool's list result may be at run time, and so what an annotation of blocks may name.
_SEQUENCE_ORIGINS = (list, tuple, Sequence)


def _declares_content(annotation: Any) -> bool:
    """Whether a return annotation declares content rather than structured output, as MCPServer
    reads one: an mcp content block type or ``CallToolResult``, bare, ``Annotated``, as the items
    of a list, tuple or sequence, or as any arm of a union (``X | Y`` as ``Union[X, Y]``).
    azure-functions has no helper types of its own (no Image, Audio or File) to add."""
    origin = typing.get_origin(annotation)
    if origin is None:
        return isinstance(annotation, type) and _is_content_class(annotation)
    if origin is typing.Annotated:
        return _declares_content(typing.get_args(annotation)[0])
    if origin in _UNION_ORIGINS or origin in _SEQUENCE_ORIGINS:
        return any(_declares_content(a) for a in typing.get_args(annotation))
    return False


def _is_content_class(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    if not module.startswith(("mcp.", "mcp_types")):
        return False
    try:
        import mcp.types as mcp_types
    except ImportError:
        return False
    return issubclass(cls, (*_block_types(mcp_types), mcp_types.CallToolResult))


def _return_annotation(user: Callable[..., Any]) -> Any:
    """The return annotation, evaluated where it is a string (``from __future__ import
    annotations``) and can be resolved in the function's module."""
    try:
        return typing.get_type_hints(user, include_extras=True).get("return", inspect.Signature.empty)
    except Exception:  # a name not defined (yet) at module level: as written
        return inspect.signature(user).return_annotation


def output_schema(annotation: Any) -> dict[str, Any] | None:
    """The output schema MCPServer would derive from a return annotation: pydantic's JSON Schema
    of a model, TypedDict, dataclass or ``dict[str, T]``; a list or scalar wrapped as the
    ``result`` member of an object. None where MCPServer has none (no annotation, ``str``, bare
    ``dict``, ``Any``, an annotation of content: see :func:`_declares_content`; classes pydantic
    cannot describe) or pydantic is absent."""
    if annotation is inspect.Signature.empty or annotation in (str, dict, Any, None, type(None)):
        return None
    if isinstance(annotation, str):  # a name not resolvable in the tool's module: no schema
        return None
    if _declares_content(annotation) or _is_mcp_type(annotation):
        return None
    if isinstance(annotation, type) and annotation.__module__.startswith("mcp."):
        return None
    try:
        from pydantic import TypeAdapter

        schema: dict[str, Any] = TypeAdapter(_readable(annotation)).json_schema(mode="serialization")
    except Exception:  # not describable by pydantic: no schema, as MCPServer has none then
        return None
    if schema.get("type") == "object":
        return schema
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if defs is not None:
        wrapped["$defs"] = defs
    return wrapped


def _readable(annotation: Any) -> Any:
    """pydantic refuses ``typing.TypedDict`` below Python 3.12: the same keys as a
    ``typing_extensions.TypedDict`` (as MCPServer rebuilds it)."""
    if sys.version_info >= (3, 12) or not typing.is_typeddict(annotation) or type(annotation).__module__ != "typing":
        return annotation
    import typing_extensions

    hints = typing.get_type_hints(annotation, include_extras=True)
    required = annotation.__required_keys__
    items = {k: v if k in required else typing_extensions.NotRequired[v] for k, v in hints.items()}
    return typing_extensions.TypedDict(annotation.__name__, items)  # type: ignore[operator]
