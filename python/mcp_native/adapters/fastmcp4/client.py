"""fastmcp's ``Client.call_tool``: ``CallToolResult.data`` built from ``structuredContent`` by
the tool's output-schema type without fastmcp's per-object Python hook.

fastmcp turns a tool's output schema into Python types (``fastmcp.utilities.json_schema_type``:
a dataclass per object schema with properties, a pydantic model where ``additionalProperties``
is allowed) and validates ``structuredContent`` with a ``TypeAdapter`` of them, cached by the
schema's content. Each of those dataclasses carries a ``mode="before"`` validator,
``_apply_defaults``, that calls ``_merge_defaults`` on every object of that type in the value:
for 200 records, 401 Python calls, three quarters of the validation (0.7 of 0.9 ms here).

``_merge_defaults`` (with ``apply_property_defaults=False``, as fastmcp 4.2's hook calls it)
only does something where a schema it walks has an object ``default``: it fills an empty object
from it, or merges it under an object's own keys (fastmcp 4.0 and 4.1 also fill in each missing
property's ``default``, so there any ``default`` counts). Otherwise it returns a shallow copy of
the object, and a copy of each nested object held by a property whose schema is ``"type":
"object"``. The validation consumes those copies: a dataclass or model reads its fields out of the object, a
``dict[str, T]`` builds a new dict. So where every schema such a hook walks has no such
``default`` (anywhere in it, conservatively), well-formed ``properties`` (a dict of dict or
bool schemas), and each nested ``"type": "object"`` property schema holds only keywords that
convert it to a dataclass, a model or a dict (no ``$ref``, ``enum``, ``const``, ``anyOf``,
which could hand the object itself on), the hook changes nothing in the result: the same
validation without it builds the same instances of the same classes from the same values.

:func:`json_schema_to_type_adapter` stands in for fastmcp's function of that name in
``fastmcp.client.mixins.tools`` (only ``_parse_call_tool_result`` calls it there). It calls
fastmcp's function, which returns the cached adapter (or raises) exactly as stock does, then
returns a stand-in whose ``validate_python`` runs a validator compiled once from that adapter's
core schema with those hooks taken out, when every hook in it is proven to change nothing (and
no pydantic plugin observes the adapter); anything that validator refuses is validated again
by the stock adapter, which returns or raises what it does stock. Any other adapter is returned
as it is.
"""

from __future__ import annotations

import threading
import types
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from fastmcp.utilities import json_schema_type
from pydantic_core import SchemaValidator

stock_json_schema_to_type_adapter: Callable[[Any], Any] | None = None  # set by install()

# The code of the hook fastmcp's _build_dataclass attaches to every dataclass it builds.
_HOOK_CODE: types.CodeType | None = next(
    (
        c
        for c in json_schema_type._build_dataclass.__code__.co_consts
        if isinstance(c, types.CodeType) and c.co_name == "_apply_defaults"
    ),
    None,
)
# Whether the hook merges object defaults only (fastmcp 4.2: ``apply_property_defaults=False``),
# or also fills in the missing properties' defaults (4.0, 4.1).
_OBJECT_DEFAULTS_ONLY = _HOOK_CODE is not None and (
    ("apply_property_defaults",) in _HOOK_CODE.co_consts and any(c is False for c in _HOOK_CODE.co_consts)
)
# The keywords of a nested "type": "object" property schema under which fastmcp converts it to a
# dataclass, a model or a dict[str, T] (so that the object validated there is consumed, never
# kept): none of the keywords _convert_schema reads before the type ($ref, const, enum, anyOf).
_OBJECT_KEYWORDS = frozenset(
    ("type", "properties", "required", "additionalProperties", "title", "description", "default", "examples")
)


class _Validated:
    """What ``_parse_call_tool_result`` gets in place of the stock ``TypeAdapter``: its
    ``validate_python`` without the proven no-op hooks."""

    __slots__ = ("adapter", "validator")

    def __init__(self, adapter: Any, validator: SchemaValidator) -> None:
        self.adapter = adapter
        self.validator = validator

    def validate_python(self, value: Any) -> Any:
        try:
            return self.validator.validate_python(value)
        except Exception:  # the stock adapter says what it does with it (its own error)
            return self.adapter.validate_python(value)


# Per stock adapter (held weakly: fastmcp's bounded cache decides how long an adapter lives),
# the validator without its hooks, or None where it has none. The validator holds the adapter's
# classes, not the adapter.
_VALIDATORS: weakref.WeakKeyDictionary[Any, SchemaValidator | None] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def json_schema_to_type_adapter(schema: Any) -> Any:
    """fastmcp's ``json_schema_to_type_adapter(schema)`` for ``_parse_call_tool_result``: the
    adapter it returns (or its error), or a stand-in for that adapter (see the module)."""
    assert stock_json_schema_to_type_adapter is not None
    adapter = stock_json_schema_to_type_adapter(schema)
    try:
        seen = adapter in _VALIDATORS
    except TypeError:  # not weakly referable or not hashable: not a TypeAdapter of fastmcp's
        return adapter
    if seen:
        validator = _VALIDATORS.get(adapter)
    else:
        validator = _without_hooks(adapter)
        with _LOCK:
            _VALIDATORS[adapter] = validator
    return adapter if validator is None else _Validated(adapter, validator)


def _without_hooks(adapter: Any) -> SchemaValidator | None:
    if _HOOK_CODE is None or type(getattr(adapter, "validator", None)) is not SchemaValidator:
        return None  # a pydantic plugin wraps the validator, or the adapter is not built
    hooks = 0

    def strip(node: Any) -> Any:
        nonlocal hooks
        if type(node) is dict:
            if node.get("type") == "function-before":
                hook = _hook_schema(node)
                if hook is not None:
                    if not _no_op(hook):
                        raise _Keep
                    hooks += 1
                    return strip(node["schema"])
            return {k: strip(v) for k, v in node.items()}
        if type(node) is list:
            return [strip(v) for v in node]
        return node

    try:
        core_schema = strip(adapter.core_schema)
        if not hooks:
            return None
        from pydantic._internal._config import ConfigWrapper

        config = ConfigWrapper(adapter._config).core_config(None)
        return SchemaValidator(core_schema, config)
    except Exception:  # _Keep, or a core schema this module does not know: stock
        return None


class _Keep(Exception):
    """A hook that may change the result: the adapter stays as it is."""


def _hook_schema(node: dict[str, Any]) -> Mapping[str, Any] | None:
    """The schema a ``function-before`` node's ``_apply_defaults`` merges defaults from, or
    None if the node's function is not that hook."""
    function = node.get("function")
    bound = function.get("function") if type(function) is dict else None
    func = getattr(bound, "__func__", None)
    if _HOOK_CODE is None or func is None:
        return None
    names = _HOOK_CODE.co_freevars
    if getattr(func, "__code__", None) is not _HOOK_CODE:
        return None
    cell = func.__closure__[names.index("original_schema")]
    schema = cell.cell_contents
    if not isinstance(schema, Mapping):
        raise _Keep
    return schema


def _no_op(schema: Mapping[str, Any]) -> bool:
    """Whether ``_merge_defaults(data, schema, apply_property_defaults=False)`` returns a copy of
    ``data`` whose nested objects are copies the validation consumes (see the module)."""
    return not _has_default(schema, _OBJECT_DEFAULTS_ONLY) and _plain(schema)


def _has_default(node: Any, objects_only: bool) -> bool:
    """Whether any mapping in ``node`` has a ``default`` (an object one, if ``objects_only``)."""
    if isinstance(node, Mapping):
        if "default" in node and (not objects_only or isinstance(node["default"], Mapping)):
            return True
        return any(_has_default(v, objects_only) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_has_default(v, objects_only) for v in node)
    return False


def _plain(schema: Mapping[str, Any]) -> bool:
    """``schema``'s properties are a dict of dict or bool schemas, and each ``"type": "object"``
    one is converted to a dataclass, a model or a dict, and is plain too."""
    properties = schema.get("properties", {})
    if type(properties) is not dict:
        return False
    for prop in properties.values():
        if isinstance(prop, bool):
            continue
        if type(prop) is not dict:
            return False
        if prop.get("type") == "object" and (not _OBJECT_KEYWORDS.issuperset(prop) or not _plain(prop)):
            return False
    return True
