"""Property tests: verdicts on generated instances equal python-jsonschema's, in both modes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_native import Validator

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 1, 1.0, 2.5, -3, 10, 0.0075, "a", "ab", "abc", "é", "x1", "x", "z"])
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c", "xa", "d"]), inner, max_size=4)
    ),
    max_leaves=12,
)

SCHEMAS: list[Any] = [
    {
        "type": "object",
        "properties": {"a": {"type": "integer", "minimum": 0}, "b": {"type": "string", "maxLength": 2}},
        "required": ["a"],
        "additionalProperties": False,
    },
    {"type": "array", "items": {"type": ["number", "string"]}, "uniqueItems": True, "maxItems": 3},
    {"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "number", "multipleOf": 0.5}], "not": {"const": "ab"}},
    {"oneOf": [{"properties": {"a": {"const": 1}}, "required": ["a"]}, {"properties": {"a": {"const": "a"}}}]},
    {"enum": [1, "a", [1], {"a": None}, None, False]},
    {"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False, "contains": {"type": "string"}},
    {"patternProperties": {"^x": {"type": "string"}}, "propertyNames": {"maxLength": 1}, "minProperties": 1},
    {
        "if": {"type": "object", "required": ["a"]},
        "then": {"properties": {"a": {"type": "array"}}},
        "else": {"type": "object"},
    },
    {"allOf": [{"properties": {"a": True}}, {"properties": {"b": True}}], "unevaluatedProperties": {"type": "null"}},
    {"prefixItems": [True], "contains": {"type": "number"}, "unevaluatedItems": False},
    {"$defs": {"t": {"type": ["array", "number"], "items": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t"},
    {"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"b": {"properties": {"a": {"type": "string"}}}}},
    {"exclusiveMaximum": 10, "minimum": -3, "type": "number"},
    # string discriminators (branches skipped by their pinned property)
    {
        "oneOf": [
            {"properties": {"a": {"enum": ["x", "y"]}, "b": {"type": "integer"}}, "required": ["a"]},
            {"properties": {"a": {"const": "z"}, "c": {"type": "array"}}},
            {"type": "array"},
        ]
    },
    {
        "anyOf": [
            {"properties": {"d": {"const": "x"}}, "required": ["d"], "minProperties": 2},
            {"properties": {"d": {"const": "z"}}},
        ],
        "unevaluatedProperties": {"type": "string"},
    },
    # Shapes that pydantic and hand-written tool schemas use (the walk that validates while it
    # writes a tool response applies them value by value).
    {
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                "required": ["a"],
            }
        },
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "b": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
        },
        "required": ["a"],
    },
    {
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"type": ["integer", "string"]}, "minItems": 1},
            "xa": {"enum": ["a", "ab", 1]},
        },
        "additionalProperties": {"type": ["string", "array"], "maxLength": 1},
    },
    {
        "prefixItems": [{"type": "number"}, {"type": "object", "required": ["b"]}],
        "items": {"type": "string", "minLength": 1},
    },
    {
        "oneOf": [
            {
                "type": "array",
                "items": {"type": "object", "properties": {"c": {"type": "boolean"}}, "additionalProperties": False},
            },
            {"type": "object", "properties": {"a": {"type": "number", "maximum": 1}}},
            {"type": "string"},
        ]
    },
    {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "null"}}}}},
            "d": False,
        },
    },
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_same_verdict_as_python_jsonschema(schema: Any, written_valid: Callable[[Validator, Any], bool]) -> None:
    ours = Validator(schema)
    reference = jsonschema.Draft202012Validator(schema)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(json_values)
    def check(instance: Any) -> None:
        expected = reference.is_valid(instance)
        assert ours.is_valid(instance) is expected
        assert ours.is_valid_json(json.dumps(instance).encode()) is expected
        assert (not list(ours.iter_errors(instance))) is expected
        assert written_valid(ours, instance) is expected
        # Member names that are not the interned strs the schema's names are
        assert written_valid(ours, json.loads(json.dumps(instance))) is expected

    check()
