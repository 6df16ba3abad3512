"""Error details of Validator against python-jsonschema, in both modes (Python objects and JSON)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import mcp_native
from mcp_native import ValidationError, Validator

CASES: list[tuple[Any, Any]] = [
    ({"type": "object", "properties": {"humidity": {"type": "number"}}, "required": ["a", "b"]}, {"humidity": "65"}),
    ({"$defs": {"n": {"type": "number", "minimum": 3}}, "properties": {"a": {"$ref": "#/$defs/n"}}}, {"a": 1}),
    ({"items": {"type": "string"}, "prefixItems": [{"type": "integer"}]}, ["x", 1, "y", 2]),
    ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2, "c": 3}),
    ({"additionalProperties": {"type": "string"}}, {"a": 1, "b": "x"}),
    ({"patternProperties": {"^x": {"maxLength": 2}}}, {"xa": "abc"}),
    ({"allOf": [{"minimum": 5}, {"multipleOf": 2}]}, 3),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 3),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3),
    ({"oneOf": [{"type": "string"}, {"type": "null"}]}, 3),
    ({"not": {"type": "integer"}}, 3),
    ({"enum": [1, 2], "const": 1}, 3),
    ({"if": {"type": "integer"}, "then": {"minimum": 10}, "else": {"type": "string"}}, 3),
    ({"if": {"type": "integer"}, "then": {"minimum": 10}, "else": {"type": "string"}}, 3.5),
    ({"contains": {"type": "string"}, "minItems": 3, "uniqueItems": True}, [1, 1]),
    ({"propertyNames": {"maxLength": 2}, "minProperties": 3}, {"abc": 1}),
    ({"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"required": ["c"]}}}, {"a": 1}),
    ({"unevaluatedProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}),
    ({"type": ["string", "null"], "maxLength": 1, "pattern": "^a"}, "bc"),
    ({"properties": {"a": {"items": {"properties": {"b": {"type": "integer"}}}}}}, {"a": [{"b": 1}, {"b": "x"}]}),
    ({"maxProperties": 1, "exclusiveMinimum": 4, "maxItems": 0}, {"a": 1, "b": 2}),
    ({"exclusiveMaximum": 4, "maximum": 3, "minLength": 1}, 4),
    (
        {
            "$defs": {"t": {"properties": {"next": {"$ref": "#/$defs/t"}, "v": {"type": "integer"}}}},
            "$ref": "#/$defs/t",
        },
        {"next": {"next": {"v": "deep"}}, "v": 1},
    ),
]


def reference(schema: Any, instance: Any) -> list[tuple[Any, ...]]:
    errors = jsonschema.Draft202012Validator(schema).iter_errors(instance)
    return sorted((tuple(e.path), tuple(e.relative_schema_path), e.validator, e.message) for e in errors)


def ours(errors: Any) -> list[tuple[Any, ...]]:
    return sorted((e.instance_path, e.schema_path, e.keyword, e.message) for e in errors)


@pytest.mark.parametrize(("schema", "instance"), CASES)
def test_same_errors_as_python_jsonschema(schema: Any, instance: Any) -> None:
    v = Validator(schema)
    expected = reference(schema, instance)
    assert expected, "each case must be invalid"
    assert ours(v.iter_errors(instance)) == expected
    assert ours(v.iter_errors_json(json.dumps(instance))) == expected
    assert not v.is_valid(instance)
    assert not v.is_valid_json(json.dumps(instance).encode())


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"maximum": 5, "exclusiveMaximum": True, "minimum": 1}, 5),
        ({"minimum": 1, "exclusiveMinimum": True}, 1),
        ({"maximum": 5, "exclusiveMaximum": False, "minimum": 1, "exclusiveMinimum": True}, 6),
    ],
)
def test_draft4_exclusive_bounds_worded_as_python_jsonschema(schema: Any, instance: Any) -> None:
    errors = jsonschema.Draft4Validator(schema).iter_errors(instance)
    expected = sorted((tuple(e.path), tuple(e.relative_schema_path), e.validator, e.message) for e in errors)
    v = Validator(schema, dialect="draft-04")
    assert expected
    assert ours(v.iter_errors(instance)) == expected
    assert ours(v.iter_errors_json(json.dumps(instance))) == expected


@pytest.mark.parametrize(("schema", "instance"), CASES)
def test_validate_raises_first_error_with_all(schema: Any, instance: Any) -> None:
    v = Validator(schema)
    for call, arg in ((v.validate, instance), (v.validate_json, json.dumps(instance).encode())):
        with pytest.raises(ValidationError) as info:
            call(arg)
        err = info.value
        assert isinstance(err, ValueError)
        assert err in err.errors
        assert ours(err.errors) == reference(schema, instance)


def test_message_and_attributes() -> None:
    v = Validator({"type": "object", "properties": {"humidity": {"type": "number"}}})
    with pytest.raises(ValidationError) as info:
        v.validate({"humidity": "65"})
    e = info.value
    assert str(e) == "'65' is not of type 'number' at /humidity"
    assert e.instance == "65" and e.keyword == "type"
    assert e.instance_path == ("humidity",) and e.schema_path == ("properties", "humidity", "type")
    with pytest.raises(ValidationError) as info:
        v.validate_json(b'{"humidity": "65"}')
    assert str(info.value) == "'65' is not of type 'number' at /humidity" and info.value.instance == "65"


def test_false_schema_errors_name_the_value() -> None:
    # python-jsonschema drops the property from the path here; we keep it.
    (e,) = Validator({"properties": {"a": False}}).iter_errors({"a": 1})
    assert (e.instance_path, e.schema_path, e.keyword, e.message) == (
        ("a",),
        ("properties", "a"),
        "false",
        "False schema does not allow 1",
    )
    (e,) = Validator(False).iter_errors_json("null")
    assert e.message == "False schema does not allow None" and e.instance is None


def test_valid_has_no_errors() -> None:
    v = Validator({"type": "integer"})
    assert list(v.iter_errors(3)) == [] and list(v.iter_errors_json("3")) == []
    assert v.validate(3) is None and v.validate_json(b"3") is None  # type: ignore[func-returns-value]  # the None is checked


def test_exports() -> None:
    assert mcp_native.Validator is Validator
    assert issubclass(mcp_native.SchemaError, ValueError) and issubclass(mcp_native.ValidationError, ValueError)
