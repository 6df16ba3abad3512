"""A tool's return value that its output model would give back unchanged, copied natively.

MCPServer and FastMCP 1.x validate a tool's return value with its output model and dump the
result in JSON mode for ``structuredContent``; fastmcp serializes it to JSON with its return
annotation's core schema and parses that back (``serialized``): for a table of 200 records
about a third of an adapted call. Where the model can only give back what it was given, that
round trip is a copy, and :class:`mcp_native._core.OutputShape` makes it in one native walk.

The shape is proven from the model's pydantic core schema, node by node, and only from nodes
whose validation and JSON-mode dump of an exact builtin value is that value: ``str``, ``int``,
``float``, ``bool``, ``nullable``, ``list`` with an item schema, typed dicts and models with
plain fields (a field's default, which a present value makes moot, included), definitions
without cycles. Any other key on a node (a constraint, strictness, an alias, a validator or
serializer, a config beyond the title, computed fields, a custom ``__init__`` or post-init) or
any other node type, and the model takes the stock path. Per call, the walk copies the value
only if each part is exactly its builtin type (pydantic would turn 1 into 1.0 under a float, a
tuple into a list), each float finite, and each dict's keys are its fields in the model's order
(pydantic reorders them) with the required ones present (a model's fields all: its dump adds
the defaults) and nothing else (pydantic drops extras); otherwise stock validates and dumps it,
errors included. Serialized, two more rules: no model (a dict where a model is expected is
serialized with a warning), and each str one UTF-8 can encode (a lone surrogate fails the
serialization).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..._core import OutputShape

_LEAVES = {"str", "int", "float", "bool"}
# Keys that describe a node without changing what it validates or dumps: the JSON Schema's
# metadata, the definition name, a typed dict's or model's class.
_NAMING = {"type", "metadata", "ref", "cls"}

# (id(owner), serialized) -> (owner, its shape or None): the owner (a TypeAdapter or model
# class) is held so its id is not reused; one entry per output model and use.
_shapes: dict[tuple[int, bool], tuple[Any, OutputShape | None]] = {}


def _plain(node: dict[str, Any], *allowed: str) -> bool:
    return node.keys() <= _NAMING.union(allowed)


def _encodes(name: str) -> bool:
    """Whether UTF-8 can encode ``name`` (a lone surrogate fails the serialization)."""
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def _config_is_default(node: dict[str, Any]) -> bool:
    config: dict[str, Any] = node.get("config", {})
    return config.keys() <= {"title"}


def _spec(node: Any, defs: dict[str, Any], open_refs: frozenset[str], serialized: bool) -> tuple[Any, ...] | None:
    """The OutputShape spec of a core schema node, or None where it could change a value."""
    kind = node.get("type") if isinstance(node, dict) else None
    if kind in _LEAVES and _plain(node):
        return ("text",) if serialized and kind == "str" else (kind,)
    if kind == "nullable" and _plain(node, "schema"):
        inner = _spec(node["schema"], defs, open_refs, serialized)
        return None if inner is None else ("nullable", inner)
    if kind == "list" and _plain(node, "items_schema") and "items_schema" in node:
        inner = _spec(node["items_schema"], defs, open_refs, serialized)
        return None if inner is None else ("list", inner)
    if kind == "definitions" and _plain(node, "schema", "definitions"):
        named = {d["ref"]: d for d in node["definitions"] if isinstance(d, dict) and "ref" in d}
        return _spec(node["schema"], {**defs, **named}, open_refs, serialized)
    if kind == "definition-ref" and _plain(node, "schema_ref"):
        ref = node["schema_ref"]
        if ref in open_refs or ref not in defs:  # a recursive model: not walked
            return None
        return _spec(defs[ref], defs, open_refs | {ref}, serialized)
    if kind == "typed-dict" and _plain(node, "fields", "computed_fields", "extra_behavior", "config"):
        if node.get("computed_fields") or not _config_is_default(node):
            return None
        fields = []
        for name, field in node["fields"].items():
            if serialized and not _encodes(name):
                return None
            if not (
                isinstance(field, dict)
                and field.get("type") == "typed-dict-field"
                and _plain(field, "schema", "required")
            ):
                return None
            inner = _spec(field["schema"], defs, open_refs, serialized)
            if inner is None:
                return None
            fields.append((name, bool(field.get("required", node.get("total", True))), inner))
        return ("dict", tuple(fields))
    if kind == "model" and not serialized and _plain(node, "schema", "config", "custom_init", "root_model"):
        cls = node.get("cls")
        stock_methods = (
            isinstance(cls, type)
            and issubclass(cls, BaseModel)
            and cls.model_validate.__func__ is BaseModel.model_validate.__func__  # type: ignore[attr-defined]
            and cls.model_dump is BaseModel.model_dump
        )
        if node.get("custom_init") or node.get("root_model") or not stock_methods or not _config_is_default(node):
            return None
        body = node["schema"]
        if not (isinstance(body, dict) and body.get("type") == "model-fields"):
            return None
        if not _plain(body, "fields", "model_name", "computed_fields") or body.get("computed_fields"):
            return None
        fields = []
        for name, field in body["fields"].items():
            if not (isinstance(field, dict) and field.get("type") == "model-field" and _plain(field, "schema")):
                return None
            schema = field["schema"]
            if isinstance(schema, dict) and schema.get("type") == "default" and _plain(schema, "schema", "default"):
                schema = schema["schema"]  # a value present makes the default moot; the dump adds absent ones
            inner = _spec(schema, defs, open_refs, serialized)
            if inner is None:
                return None
            fields.append((name, True, inner))
        return ("dict", tuple(fields))
    return None


def output_shape(owner: Any, serialized: bool = False) -> OutputShape | None:
    """The exact shape of what ``owner`` (a TypeAdapter, or a BaseModel class) gives back
    unchanged (validated and dumped; ``serialized``: serialized to JSON and parsed), or None
    where its core schema does not prove one."""
    held = _shapes.get((id(owner), serialized))
    if held is not None and held[0] is owner:
        return held[1]
    core = getattr(owner, "core_schema", None) if not isinstance(owner, type) else None
    if core is None:
        core = getattr(owner, "__pydantic_core_schema__", None)
    try:
        spec = _spec(core, {}, frozenset(), serialized)
        # A typed dict or model at the top, as structuredContent is: a copy is never None.
        shape = OutputShape(spec) if spec is not None and spec[0] == "dict" else None
    except (TypeError, ValueError, KeyError, AttributeError):  # a schema of a shape not foreseen
        shape = None
    _shapes[id(owner), serialized] = (owner, shape)
    return shape


def exact_copy(owner: Any, value: Any, serialized: bool = False) -> Any | None:
    """A copy of ``value`` if it is what ``owner``'s validation and JSON-mode dump (or its JSON
    serialization parsed back) give back, else None (the caller does what stock does)."""
    shape = output_shape(owner, serialized)
    return None if shape is None else shape.copy(value)
