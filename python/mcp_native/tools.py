"""MCP tools: checked definitions, argument validation, results and one-pass JSON-RPC responses.

A :class:`Tool` is built for one protocol version ("2025-06-18", "2025-11-25" or "2026-07-28").
It checks its definition against that version's ``Tool`` schema, compiles its input and output
schemas once, and then

- ``check_arguments(arguments)`` tells how to answer a call with invalid arguments,
- ``result(...)`` builds a ``CallToolResult`` dict,
- ``encode_response(id, structured)`` writes the complete JSON-RPC response line natively,
- ``check_result(result)`` validates, on the client side, a received result (dict or raw bytes).

:func:`mcp_tool_result` writes the ``McpToolResult`` of Azure Functions' MCP extension, for code
that hands a tool's result to that host itself.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any

from . import _core
from ._core import dumps, loads
from .content import LATEST_PROTOCOL_VERSION, check_block, check_icons, check_version
from .errors import SchemaError, ValidationError
from .protocol import INVALID_PARAMS, ProtocolVersion, definitions_key, official_schema
from .schema import Validator

__all__ = ["Tool", "mcp_tool_result"]

_ON_INVALID = ("raise", "error_result")
_TOOL_ANNOTATIONS = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}
# Where a tool's output schema lives for the result checker (never fetched: it is in the registry).
_OUTPUT_URI = "urn:mcp-native:tool-output-schema"


class _NotGiven:
    """The default of an argument that may be given as None (``Tool.result``'s ``structured``):
    one instance, shown as ``<not given>`` in signatures and help()."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"

    def __reduce__(self) -> str:
        return "_MISSING"  # copies and pickles stay the one instance


_MISSING: Any = _NotGiven()


def _reject_error_response(message: Any) -> None:
    """Raise if ``message`` is a JSON-RPC error response: the schema alone would only say that
    'result' is missing, which hides the peer's code and message."""
    if not (isinstance(message, Mapping) and "jsonrpc" in message and "error" in message and "result" not in message):
        return
    error = message["error"]
    code, text = (error.get("code"), error.get("message")) if isinstance(error, Mapping) else (None, None)
    raise ValidationError(
        f"the response is a JSON-RPC error, not a result: code {code!r}, message {text!r}",
        keyword="required",
        instance=message,
    )


def _pointer(path: tuple[str | int, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "(root)"


def _check_schema_shape(field: str, schema: object, version: ProtocolVersion, object_root: bool) -> dict[str, Any]:
    """What the version's ``Tool`` definition says about inputSchema/outputSchema."""
    if not isinstance(schema, Mapping):
        raise TypeError(f"{field}: expected a JSON Schema dict, got {type(schema).__name__}")
    if object_root and schema.get("type") != "object":
        raise ValueError(
            f'{field}: protocol version {version} requires "type": "object" at the root, got {schema.get("type")!r}'
        )
    if "$schema" in schema and not isinstance(schema["$schema"], str):
        raise TypeError(f"{field}.$schema: expected str, got {type(schema['$schema']).__name__}")
    if object_root and not version.structured_content_any_json:
        props = schema.get("properties", {})
        if not isinstance(props, Mapping):
            raise TypeError(f"{field}.properties: expected a dict, got {type(props).__name__}")
        for k, v in props.items():
            if not isinstance(v, Mapping):
                raise TypeError(f"{field}.properties.{k}: expected a schema dict, got {type(v).__name__}")
        req = schema.get("required", [])
        if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
            raise TypeError(f"{field}.required: expected a list of str")
    return dict(schema)


def _compile(field: str, schema: dict[str, Any], **kw: Any) -> Any:
    try:
        return Validator(schema, **kw)
    except SchemaError as e:
        raise SchemaError(f"{field}: {e.message}", e.schema_path) from None


def _error_text(name: str, errors: list[ValidationError], what: str) -> str:
    lines = [f"{what} for tool {name!r}:"]
    lines += [f"- at {_pointer(e.instance_path)}: {e.message}" for e in errors]
    return "\n".join(lines)


def _result_definitions(version: ProtocolVersion) -> tuple[str, dict[str, Any]]:
    """The official schema of protocol ``version`` (formats are annotations there, as here) as
    a registry entry, with ``ContentBlock``'s ``anyOf`` of the block types turned into a
    choice by ``type``: the same blocks pass, and an error names the field of the block type
    given rather than saying the block is "not valid under any of the given schemas"."""
    doc = official_schema(version)
    key = definitions_key(doc)
    defs = doc[key]
    prefix = f"#/{key}/"
    by_type = {
        defs[ref["$ref"].removeprefix(prefix)]["properties"]["type"]["const"]: ref
        for ref in defs["ContentBlock"]["anyOf"]
    }
    defs["ContentBlock"] = {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": list(by_type)}},
        "allOf": [{"if": {"properties": {"type": {"const": k}}}, "then": ref} for k, ref in by_type.items()],
    }
    return f"urn:mcp-native:schema:{version}#{prefix[1:]}", doc


def _result_checker(version: ProtocolVersion, output_schema: dict[str, Any] | None) -> Any:
    """One validator for a received result: the whole ``CallToolResult`` of ``version`` (content
    blocks included), and unless ``isError`` is true, ``structuredContent`` against the output
    schema. It takes either the result itself or a JSON-RPC response carrying it, so raw
    response bytes are checked in one native pass without building Python objects."""
    definitions, doc = _result_definitions(version)
    registry: dict[str, Any] = {definitions.partition("#")[0]: doc}
    result: dict[str, Any] = {"$ref": definitions + "CallToolResult"}
    if output_schema is not None:
        registry[_OUTPUT_URI] = output_schema
        result["if"] = {"required": ["isError"], "properties": {"isError": {"const": True}}}
        result["else"] = {
            "required": ["structuredContent"],
            "properties": {"structuredContent": {"$ref": _OUTPUT_URI}},
        }
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "if": {"type": "object", "required": ["jsonrpc"]},
        "then": {"required": ["result"], "properties": {"result": result}},
        "else": result,
    }
    return _compile("output_schema", schema, registry=registry)


@cache
def _shared_result_checker(version: ProtocolVersion) -> Any:
    return _result_checker(version, None)


_TASK_SUPPORT = ("forbidden", "optional", "required")

# 2025-11-25, "Tool names": 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "." (a SHOULD).
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def _check_execution(execution: Any, version: ProtocolVersion) -> dict[str, Any]:
    """2025-11-25's ``ToolExecution``: ``{"taskSupport": "forbidden" | "optional" | "required"}``."""
    if not version.has_tool_execution:
        raise ValueError(f"execution: protocol version {version} has no Tool.execution (2025-11-25 has)")
    if not isinstance(execution, Mapping):
        raise TypeError(f"execution: expected a dict, got {type(execution).__name__}")
    support = execution.get("taskSupport", "forbidden")
    if support not in _TASK_SUPPORT:
        raise ValueError(f"execution.taskSupport: {support!r} is not one of {', '.join(_TASK_SUPPORT)}")
    return dict(execution)


class Tool(_core.ResponseWriter):
    """A tool definition for one protocol version.

    ``input_schema`` defaults to ``{"type": "object", "additionalProperties": false}`` (a tool
    without parameters). ``on_invalid`` says what :meth:`result`/:meth:`encode_response` do with a
    result that violates ``output_schema``: ``"raise"`` a :class:`ValidationError` (a server must
    not send it) or ``"error_result"``: send an ``isError`` result naming the violations instead.
    """

    __slots__ = (
        "_checker",
        "_input",
        "_output",
        "_version",
        "definition",
        "name",
        "on_invalid",
        "protocol_version",
    )

    def __init__(
        self,
        name: str,
        *,
        input_schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        icons: list[Mapping[str, Any]] | None = None,
        execution: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        on_invalid: str = "raise",
        protocol_version: str = LATEST_PROTOCOL_VERSION,
    ) -> None:
        version = check_version(protocol_version)
        if not isinstance(name, str):
            raise TypeError(f"name: expected str, got {type(name).__name__}")
        if not name:
            raise ValueError("name: must not be empty")
        if version.restricts_tool_names and not _TOOL_NAME.fullmatch(name):
            warnings.warn(
                f"tool name {name!r}: protocol version {version} says tool names SHOULD be 1 to 128 characters"
                " of A-Z, a-z, 0-9, '_', '-' and '.'; some clients reject other names",
                UserWarning,
                stacklevel=2,
            )
        if on_invalid not in _ON_INVALID:
            raise ValueError(f"on_invalid: {on_invalid!r} is not one of {', '.join(_ON_INVALID)}")
        if input_schema is None:
            input_schema = {"type": "object", "additionalProperties": False}
        inp = _check_schema_shape("input_schema", input_schema, version, True)
        out = (
            None
            if output_schema is None
            else _check_schema_shape("output_schema", output_schema, version, not version.structured_content_any_json)
        )

        d: dict[str, Any] = {"name": name}
        for field, value in (("title", title), ("description", description)):
            if value is not None:
                if not isinstance(value, str):
                    raise TypeError(f"{field}: expected str, got {type(value).__name__}")
                d[field] = value
        d["inputSchema"] = inp
        if out is not None:
            d["outputSchema"] = out
        if annotations is not None:
            if not isinstance(annotations, Mapping):
                raise TypeError(f"annotations: expected a dict, got {type(annotations).__name__}")
            for k, v in annotations.items():
                if k not in _TOOL_ANNOTATIONS:
                    raise ValueError(f"annotations: unknown field {k!r} (allowed: {', '.join(_TOOL_ANNOTATIONS)})")
                if type(v) is not _TOOL_ANNOTATIONS[k]:
                    raise TypeError(
                        f"annotations.{k}: expected {_TOOL_ANNOTATIONS[k].__name__}, got {type(v).__name__}"
                    )
            d["annotations"] = dict(annotations)
        if icons is not None:
            d["icons"] = check_icons("icons", icons, version)
        if execution is not None:
            d["execution"] = _check_execution(execution, version)
        if meta is not None:
            if not isinstance(meta, Mapping) or not all(isinstance(k, str) for k in meta):
                raise TypeError("meta: expected a dict with str keys")
            d["_meta"] = dict(meta)
        # A definition that JSON cannot hold (a lone surrogate in the name, a set in _meta)
        # could never be listed: refuse it here, naming the field, rather than at tools/list.
        # (The schemas are checked, with their locations, when compiled below.)
        for field, value in d.items():
            if field in ("inputSchema", "outputSchema"):
                continue
            try:
                dumps(value)
            except TypeError as e:
                raise TypeError(f"{field}: {e}") from None
            except ValueError as e:
                raise ValueError(f"{field}: {e}") from None

        self.name = name
        self.protocol_version = version.value
        self._version = version
        self.definition = d
        self.on_invalid = on_invalid
        self._input = _compile("input_schema", inp)
        self._output = None if out is None else _compile("output_schema", out)
        self._checker: Any = None  # compiled on first check_result (clients only)
        # encode_response(request_id, structured, *, content=None, meta=None) is native
        # (_core.ResponseWriter): it answers an invalid payload with _encode_invalid.
        super().__init__(self._output, version.value)

    @classmethod
    def from_definition(
        cls,
        definition: Mapping[str, Any],
        *,
        on_invalid: str = "raise",
        protocol_version: str = LATEST_PROTOCOL_VERSION,
    ) -> Tool:
        """A tool from its ``Tool`` definition dict, e.g. as a client receives it from
        ``tools/list`` (to check arguments before calling and results after). The fields the
        version defines are checked as by the constructor; others are left out."""
        if not isinstance(definition, Mapping):
            raise TypeError(f"definition: expected a dict, got {type(definition).__name__}")
        if "name" not in definition or "inputSchema" not in definition:
            raise ValueError("definition: 'name' and 'inputSchema' are required")
        return cls(
            definition["name"],
            input_schema=definition["inputSchema"],
            output_schema=definition.get("outputSchema"),
            title=definition.get("title"),
            description=definition.get("description"),
            annotations=definition.get("annotations"),
            icons=definition.get("icons"),
            # other versions define no execution: ignored there, as unknown fields are
            execution=definition.get("execution") if check_version(protocol_version).has_tool_execution else None,
            meta=definition.get("_meta"),
            on_invalid=on_invalid,
            protocol_version=protocol_version,
        )

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, protocol_version={self.protocol_version!r})"

    # -- server side: arguments ---------------------------------------------------------------

    def check_arguments(self, arguments: Any) -> dict[str, Any] | None:
        """Validate ``tools/call`` arguments (``None`` counts as ``{}``).

        Returns ``None`` when they are valid. Otherwise returns the body of the JSON-RPC response
        to send, without ``jsonrpc``/``id``: merge it as ``{"jsonrpc": "2.0", "id": id, **body}``.

        - 2025-11-25 and later, arguments violating the input schema: ``{"result": CallToolResult}``
          with ``isError: true`` and one text block listing each violation with its JSON Pointer
          (a tool execution error, which the model can read and correct).
        - 2025-06-18, or arguments that are not an object at all (a malformed request in every
          version): ``{"error": {"code": -32602, "message": ..., "data": {"errors": [...]}}}``,
          each error as ``{"path": pointer, "message": text}``.
        """
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return {
                "error": {
                    "code": INVALID_PARAMS,
                    "message": f"Invalid params: arguments of tool {self.name!r} must be an object, got {type(arguments).__name__}",
                }
            }
        if self._input.is_valid(arguments):
            return None
        errors = list(self._input.iter_errors(arguments))
        if not self._version.argument_errors_are_results:
            data = [{"path": _pointer(e.instance_path), "message": e.message} for e in errors]
            return {
                "error": {
                    "code": INVALID_PARAMS,
                    "message": f"Invalid params for tool {self.name!r}",
                    "data": {"errors": data},
                }
            }
        return {"result": self._error_result(_error_text(self.name, errors, "Invalid arguments"))}

    # -- server side: results -----------------------------------------------------------------

    def _error_result(self, message: str) -> dict[str, Any]:
        r: dict[str, Any] = {"content": [{"type": "text", "text": message}], "isError": True}
        if self._version.structured_content_any_json:
            r["resultType"] = "complete"
        return r

    def _check_structured(self, structured: Any) -> None:
        if not self._version.structured_content_any_json and not isinstance(structured, dict):
            raise TypeError(
                f"structured: protocol versions before 2026-07-28 require an object (dict), got {type(structured).__name__}"
            )

    def _check_content(self, content: Any) -> list[Any]:
        if not isinstance(content, list):
            raise TypeError(f"content: expected a list of content blocks, got {type(content).__name__}")
        for i, block in enumerate(content):
            check_block(f"content[{i}]", block)
        return content

    def _invalid(self, structured: Any) -> dict[str, Any]:
        """The output schema rejected ``structured``: raise, or the isError result to send."""
        assert self._output is not None
        errors = list(self._output.iter_errors(structured))
        if self.on_invalid == "raise":
            first = errors[0]
            raise ValidationError(
                f"result of tool {self.name!r} violates its output schema: {first.message}",
                first.instance_path,
                first.schema_path,
                first.keyword,
                first.instance,
                errors,
            )
        return self._error_result(_error_text(self.name, errors, "Invalid result"))

    def result(
        self,
        structured: Any = _MISSING,
        content: list[dict[str, Any]] | list[Mapping[str, Any]] | None = None,
        *,
        is_error: bool = False,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A ``CallToolResult`` dict.

        ``structured`` (any JSON value in 2026-07-28, an object before) is validated against the
        output schema, unless ``is_error``. A tool with an output schema must give it on success.
        Unless ``content`` already has a text block, a ``TextContent`` block holding the compact
        JSON of ``structured`` is added first (for clients that predate structured content).
        """
        if not isinstance(is_error, bool):
            raise TypeError(f"is_error: expected bool, got {type(is_error).__name__}")
        blocks = [] if content is None else list(self._check_content(content))
        r: dict[str, Any] = {}
        if structured is not _MISSING:
            self._check_structured(structured)
            if not is_error and self._output is not None and not self._output.is_valid(structured):
                return self._invalid(structured)
            r["structuredContent"] = structured
            if not any(b.get("type") == "text" for b in blocks):
                blocks.insert(0, {"type": "text", "text": dumps(structured).decode()})
        elif self._output is not None and not is_error:
            raise ValueError(
                f"structured: tool {self.name!r} declares an output schema, so a successful result must carry structured content"
            )
        r["content"] = blocks
        if is_error:
            r["isError"] = True
        if meta is not None:
            if not isinstance(meta, Mapping):
                raise TypeError(f"meta: expected a dict, got {type(meta).__name__}")
            r["_meta"] = dict(meta)
        if self._version.structured_content_any_json:
            r["resultType"] = "complete"
        return r

    def _encode_invalid(self, request_id: str | int, structured: Any, content: Any, meta: Any) -> bytes:
        """encode_response for a payload the output schema rejects: raise, or the isError line."""
        return dumps({"jsonrpc": "2.0", "id": request_id, "result": self._invalid(structured)}) + b"\n"

    # -- client side --------------------------------------------------------------------------

    def _compile_checker(self, output_schema: dict[str, Any] | None) -> Any:
        """One validator for a received result (see :func:`_result_checker`); tools without an
        output schema share the one of their protocol version."""
        if output_schema is None:
            return _shared_result_checker(self._version)
        return _result_checker(self._version, output_schema)

    def check_result(self, result: Mapping[str, Any] | bytes | bytearray | memoryview | str) -> None:
        """Validate a received ``CallToolResult`` against this tool (client side).

        The whole result is checked against this protocol version's ``CallToolResult``
        definition (every content block against the definition its ``type`` names, ``_meta``,
        ``isError``, ``resultType`` from 2026-07-28 on), then ``structuredContent`` against the
        output schema (not for results with ``isError: true``). The validator is compiled on
        first use and kept. ``result`` is the result dict, or raw JSON bytes/str of the result or
        of the whole JSON-RPC response line (validated natively from the bytes). Raises
        :class:`ValidationError` whose ``instance_path`` is relative to what was given (e.g.
        ``("result", "structuredContent", "temperature")``).
        """
        if self._checker is None:
            self._checker = self._compile_checker(self.definition.get("outputSchema"))
        if isinstance(result, str):
            result = result.encode()
        if isinstance(result, (bytes, bytearray, memoryview)):
            if not self._checker.is_valid_json(result):
                try:
                    message = loads(result)
                except ValueError:
                    message = None  # not JSON: validate_json says where
                _reject_error_response(message)
                self._checker.validate_json(result)
            return
        if not isinstance(result, Mapping):
            raise TypeError(f"result: expected a dict or JSON bytes, got {type(result).__name__}")
        if not self._checker.is_valid(result):
            _reject_error_response(result)
            self._checker.validate(result)


def mcp_tool_result(
    structured: Any = _MISSING,
    content: list[dict[str, Any]] | list[Mapping[str, Any]] | None = None,
    *,
    is_error: bool = False,
    schema: Mapping[str, Any] | Validator | None = None,
    protocol_version: str = LATEST_PROTOCOL_VERSION,
) -> str:
    """The ``McpToolResult`` text that Azure Functions' MCP extension reads a tool's result from
    when the worker owns the result (``use_result_schema=True``): ``{"type": ..., "content": ...,
    "structuredContent": ...}``, its ``content`` and ``structuredContent`` JSON texts held as
    strings, laid out as ``json.dumps`` lays it out. Written natively: ``structured`` is
    serialized once and its bytes escaped into the text mirror.

    - ``structured`` alone (any JSON value in 2026-07-28, an object before): ``type`` "text",
      its text mirror as ``content`` (the JSON of ``structured``, a ``TextContent`` for clients
      that predate structured content) and ``structuredContent``;
    - one content block (``content=[block]``, as the ``content`` module builds them), with or
      without ``structured``: ``type`` the block's type, the block as ``content``;
    - several blocks, ``is_error``, or blocks and ``structured`` without a text block among them
      (the mirror is added first, as :meth:`Tool.result` adds it): ``type`` "call_tool_result",
      the whole ``CallToolResult`` of ``protocol_version`` as ``content``.

    ``schema`` (a JSON Schema dict, compiled on each call, or a :class:`Validator`, compiled
    once) checks ``structured`` unless ``is_error``: a violation raises :class:`ValidationError`
    naming the JSON Pointer. Bad arguments raise ``TypeError``/``ValueError`` naming them.
    """
    version = check_version(protocol_version)
    if not isinstance(is_error, bool):
        raise TypeError(f"is_error: expected bool, got {type(is_error).__name__}")
    if schema is not None and not isinstance(schema, (Mapping, Validator)):
        raise TypeError(f"schema: expected a JSON Schema dict or a Validator, got {type(schema).__name__}")
    blocks: list[Any] = []
    if content is not None:
        if not isinstance(content, list):
            raise TypeError(f"content: expected a list of content blocks, got {type(content).__name__}")
        for i, block in enumerate(content):
            check_block(f"content[{i}]", block)
        blocks = list(content)
    given = structured is not _MISSING
    if not given and not blocks:
        raise ValueError("mcp_tool_result: give structured content, content blocks, or both")
    if given:
        if structured is None:
            raise ValueError("structured: None is not structured content (leave it out)")
        if not version.structured_content_any_json and not isinstance(structured, Mapping):
            raise TypeError(
                f"structured: protocol versions before 2026-07-28 require an object (dict), got {type(structured).__name__}"
            )
        if schema is not None and not is_error:
            validator = schema if isinstance(schema, Validator) else _compile("schema", dict(schema))
            if not validator.is_valid(structured):
                first = next(iter(validator.iter_errors(structured)))
                raise ValidationError(
                    f"structured content violates the schema: {first.message}",
                    first.instance_path,
                    first.schema_path,
                    first.keyword,
                    first.instance,
                )
    if given and not blocks and not is_error:
        return _core.mcp_tool_result("text", None, structured, True)
    if given and not any(b.get("type") == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": dumps(structured).decode()})
    payload = structured if given else None
    if len(blocks) == 1 and not is_error:
        return _core.mcp_tool_result(blocks[0]["type"], blocks[0], payload, False)
    result: dict[str, Any] = {"content": blocks}
    if given:
        result["structuredContent"] = structured
    if is_error:
        result["isError"] = True
    if version.structured_content_any_json:
        result["resultType"] = "complete"
    return _core.mcp_tool_result("call_tool_result", result, payload, False)
