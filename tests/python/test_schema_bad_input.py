"""Bad schemas, bad instances, bombs and limits: each a clear exception or a correct verdict."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from mcp_native import JSONDecodeError, Limits, SchemaError, ValidationError, Validator


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"type": 12}, "/type"),
        ({"properties": {"a": {"minimum": "x"}}}, "/properties/a/minimum"),
        ({"required": "a"}, "/required"),
        ({"items": {"type": "strang"}}, "/items/type"),
        ({"$defs": {"x": {"pattern": "("}}}, "/$defs/x/pattern"),
        ({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "required": []}, "/required"),
        ({"$anchor": "1x"}, "/$anchor"),
        ([1], ""),
    ],
)
def test_invalid_schema_names_the_location(schema: Any, where: str) -> None:
    with pytest.raises(SchemaError) as info:
        Validator(schema)
    assert "".join(f"/{p}" for p in info.value.schema_path) == where
    if where:
        assert f"at {where}" in str(info.value) or f"at '{where}'" in str(info.value)


TYPES = "(expected one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string')"


@pytest.mark.parametrize(
    ("schema", "dialect", "message"),
    [
        ({"type": "strng"}, None, f"'strng' is not a JSON Schema type {TYPES} at /type"),
        (
            {"properties": {"a": {"type": "strng"}}},
            "draft-04",
            f"'strng' is not a JSON Schema type {TYPES} at /properties/a/type",
        ),
        ({"type": ["string", "nul"]}, "draft-07", f"'nul' is not a JSON Schema type {TYPES} at /type/1"),
        ({"type": ["string", "string"]}, None, "'type' lists 'string' more than once at /type/1"),
        ({"type": ["string", 3]}, None, "item 1 of 'type' must be a type name, not the integer 3 at /type/1"),
        ({"type": 3}, None, "'type' must be a type name or an array of type names, not the integer 3 at /type"),
        ({"type": []}, None, "'type' must name at least one type, not an empty array at /type"),
        (
            {"required": "name"},
            None,
            "'required' must be an array of property names, not the string 'name' at /required",
        ),
        ({"required": [1]}, None, "item 0 of 'required' must be a string, not the integer 1 at /required/0"),
        ({"required": ["a", "a"]}, None, "'required' lists 'a' more than once at /required"),
        ({"required": []}, "draft-04", "'required' must not be empty at /required"),
        (
            {"properties": []},
            None,
            "'properties' must be an object mapping property names to schemas, not an empty array at /properties",
        ),
        (
            {"properties": {"a": 3}},
            None,
            "the value of 'a' in 'properties' must be a schema (an object or a boolean), not the integer 3 at /properties/a",
        ),
        ({"minLength": -1}, None, "'minLength' must be a non-negative integer, not the integer -1 at /minLength"),
        (
            {"minLength": "1"},
            "draft-07",
            "'minLength' must be a non-negative integer, not the string '1' at /minLength",
        ),
        ({"maxItems": 1.5}, None, "'maxItems' must be a non-negative integer, not the number 1.5 at /maxItems"),
        ({"multipleOf": 0}, None, "'multipleOf' must be a number greater than 0, not the integer 0 at /multipleOf"),
        ({"enum": "a"}, None, "'enum' must be an array of the allowed values, not the string 'a' at /enum"),
        ({"enum": []}, "draft-04", "'enum' must not be empty at /enum"),
        ({"anyOf": {}}, None, "'anyOf' must be a non-empty array of schemas, not an empty object at /anyOf"),
        ({"anyOf": []}, None, "'anyOf' must not be empty at /anyOf"),
        ({"items": "x"}, None, "'items' must be a schema (an object or a boolean), not the string 'x' at /items"),
        ({"maximum": "3"}, None, "'maximum' must be a number, not the string '3' at /maximum"),
        ({"uniqueItems": "yes"}, None, "'uniqueItems' must be true or false, not the string 'yes' at /uniqueItems"),
        (
            {"dependentRequired": {"a": "b"}},
            None,
            "the value of 'a' in 'dependentRequired' must be an array, not the string 'b' at /dependentRequired/a",
        ),
        (3, None, "the schema must be an object or a boolean, not the integer 3"),
    ],
)
def test_invalid_schema_in_the_authors_words(schema: Any, dialect: str | None, message: str) -> None:
    # The common mistakes are said as the schema's author would say them, not as the
    # metaschema's walk ("... fails 'anyOf' [{"$ref":"#/$defs/simpleTypes"}, ...").
    with pytest.raises(SchemaError) as info:
        Validator(schema, dialect=dialect)
    assert str(info.value) == message


def test_invalid_schema_keeps_the_metaschema_detail_for_the_rest() -> None:
    with pytest.raises(SchemaError) as info:
        Validator({"$anchor": "1x"})
    assert str(info.value) == (
        "schema is invalid under the 2020-12 metaschema: \"1x\" fails 'pattern' "
        "\"^[A-Za-z_][-A-Za-z0-9._]*$\" at '/$anchor'"
    )
    assert info.value.schema_path == ("$anchor",)


@pytest.mark.parametrize("text", ['{"type": "string"', b"\xff", "{'a': 1}"])
def test_schema_text_must_be_json(text: Any) -> None:
    with pytest.raises(SchemaError, match="not valid JSON"):
        Validator(text)


def test_deeply_nested_schema_text_is_a_schema_error() -> None:
    # Beyond the parser's nesting bound: a SchemaError, not the stdlib parser's RecursionError.
    with pytest.raises(SchemaError, match="not valid JSON: Maximum nesting depth"):
        Validator('{"items":' * 3000 + "{}" + "}" * 3000)
    # Within the parser's bound, the schema depth limit speaks.
    with pytest.raises(SchemaError, match="max_schema_depth"):
        Validator(b'{"items":' * 600 + b"{}" + b"}" * 600)


def test_schema_as_text() -> None:
    assert Validator('{"type": "string"}').is_valid("x")
    assert not Validator(b'{"type": "string"}').is_valid(1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"schema": {"$schema": "http://example.com/my-dialect"}},
            "unsupported dialect 'http://example.com/my-dialect'",
        ),
        ({"schema": {}, "dialect": "draft-03"}, "unsupported dialect 'draft-03'"),
        ({"schema": {"$ref": "http://example.com/x"}}, "unresolvable reference 'http://example.com/x'"),
        ({"schema": {"$ref": "#/$defs/missing"}}, "unresolvable reference"),
        ({"schema": {"$ref": "#nowhere"}}, "no such anchor"),
        ({"schema": {"properties": {"a": {"$ref": "other.json"}}}}, "unresolvable reference 'other.json'"),
        ({"schema": {"$ref": "#"}}, "cycle"),
        (
            {
                "schema": {
                    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
                    "$ref": "#/$defs/a",
                }
            },
            "cycle",
        ),
        ({"schema": {"anyOf": [{"type": "string"}, {"$ref": "#"}]}}, "cycle"),
        ({"schema": {"$id": "http://[bad/x", "type": "string"}}, r"'http://\[bad/x' is not a URI reference at '/\$id'"),
        ({"schema": {"items": {"$ref": "http://[::1"}}}, r"is not a URI reference at '/items/\$ref'"),
    ],
)
def test_schema_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(SchemaError, match=match):
        Validator(**kwargs)


def test_registry_documents_resolve_without_network() -> None:
    v = Validator({"$ref": "http://example.com/x"}, registry={"http://example.com/x": {"type": "integer"}})
    assert v.is_valid(1) and not v.is_valid("1")
    v = Validator(
        {"$ref": "http://example.com/x#/$defs/s"},
        registry={"http://example.com/x": '{"$defs": {"s": {"type": "string"}}}'},
    )
    assert v.is_valid("1") and not v.is_valid_json("1")


@pytest.mark.parametrize("name", ["a b", "Model[int]", "café", "50%", 'q"uote', "x{y}|z^`<>", "~tilde/slash"])
def test_refs_name_definitions_a_uri_cannot_spell(name: str) -> None:
    # IRIs and lax references are mapped to URIs (RFC 3987) before resolution, as validators
    # built on lenient URL joining accept them.
    pointer = name.replace("~", "~0").replace("/", "~1")
    v = Validator({"$defs": {name: {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/" + pointer}}})
    assert v.is_valid({"x": 1}) and not v.is_valid({"x": "1"})


def test_relative_and_international_identifiers_resolve() -> None:
    # A base without a scheme still combines with relative references by RFC 3986's rules.
    v = Validator({"$id": "café/ü.json", "$defs": {"b": {"$id": "b ä.json", "type": "string"}}, "$ref": "b ä.json"})
    assert v.is_valid("s") and not v.is_valid(1)
    v = Validator(
        {"$id": "http://ex.com/r/a.json", "$defs": {"b": {"$id": "../b.json", "type": "string"}}, "$ref": "/b.json"}
    )
    assert v.is_valid("s") and not v.is_valid(1)
    v = Validator({"$ref": "http://ex.com/a b/./c.json"}, registry={"http://ex.com/a b/c.json": {"type": "null"}})
    assert v.is_valid(None) and not v.is_valid(0)


def test_a_repeated_id_resolves_to_its_first_declaration() -> None:
    # A registry document that declares its own URI again in a subschema: the URI is its root.
    doc = {"$id": "http://ex.com/a", "type": "object", "properties": {"p": {"$id": "http://ex.com/a", "const": 1}}}
    v = Validator(
        {"allOf": [{"$ref": "http://ex.com/a"}, {"$ref": "http://ex.com/a"}]}, registry={"http://ex.com/a": doc}
    )
    assert v.is_valid({}) and not v.is_valid(1) and not v.is_valid({"p": 2})


def test_dialects() -> None:
    sibling = {"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 1}
    sibling7 = {"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 1}
    assert not Validator(sibling).is_valid("ab")  # 2020-12: siblings apply
    assert Validator(sibling7, dialect="draft-07").is_valid("ab")  # draft-07: siblings ignored
    assert Validator(sibling7, dialect="http://json-schema.org/draft-07/schema#").is_valid("ab")
    assert Validator(
        {"$schema": "https://json-schema.org/draft/2019-09/schema#", "items": [{"type": "string"}]}
    ).is_valid(["a", 1])
    assert not Validator(
        {"$schema": "http://json-schema.org/draft-06/schema", "const": 1}, dialect="draft-04"
    ).is_valid(2)
    assert Validator({"const": 1}, dialect="draft-04").is_valid(2)  # no const in draft-04


def test_formats() -> None:
    assert Validator({"format": "email"}).is_valid("nope")
    assert not Validator({"format": "email"}, formats=True).is_valid("nope")
    assert not Validator({"format": "ipv4"}, formats=True, dialect="draft-04").is_valid_json('"1.2.3"')
    assert Validator({"format": "no-such-format"}, formats=True).is_valid("x")


def test_schema_bombs() -> None:
    deep: Any = {"type": "integer"}
    for _ in range(10_000):
        deep = {"allOf": [deep]}
    with pytest.raises(SchemaError, match="max_schema_depth"):
        Validator(deep)
    # Exponential anyOf: every level fails both branches only after trying the next level.
    defs: dict[str, Any] = {
        f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]} for i in range(60)
    }
    defs["l60"] = {"type": "string"}
    bomb = {"$defs": defs, "$ref": "#/$defs/l0"}
    v = Validator(bomb, limits={"max_steps": 100_000})
    calls: list[tuple[Any, Any]] = [(v.is_valid, 1), (v.is_valid_json, b"1"), (v.validate, 1)]
    for call, arg in calls:
        with pytest.raises(ValidationError, match="max_steps=100000") as info:
            call(arg)
        assert info.value.keyword == "limits"
    assert v.is_valid("x")
    many = {"properties": {str(i): {"type": "string"} for i in range(200)}}
    with pytest.raises(SchemaError, match="max_subschemas=100"):
        Validator(many, limits=Limits(max_subschemas=100))


def test_catastrophic_regex_ends() -> None:
    v = Validator({"pattern": "^(a+)+$"})
    subject = "a" * 5000 + "!"
    for call, arg in ((v.is_valid, subject), (v.is_valid_json, json.dumps(subject))):
        try:
            assert call(arg) is False
        except ValidationError as e:
            assert e.keyword == "limits" and "pattern" in str(e)


def nested(depth: int) -> Any:
    x: Any = []
    for _ in range(depth):
        x = [x]
    return x


def test_deep_instances() -> None:
    v = Validator({"items": {"$ref": "#"}})
    with pytest.raises(ValidationError, match="max_instance_depth=512"):
        v.is_valid(nested(100_000))
    with pytest.raises(ValidationError, match="max_instance_depth=512"):
        v.is_valid_json("[" * 100_000 + "]" * 100_000)
    assert v.is_valid(nested(500)) and v.is_valid_json(json.dumps(nested(500)))
    assert Validator({"items": {"$ref": "#"}}, limits={"max_instance_depth": 2000}).is_valid(nested(1500))
    deep_obj: Any = {}
    for _ in range(100_000):
        deep_obj = {"a": deep_obj}
    assert Validator({"const": {}}).is_valid(deep_obj) is False  # sizes differ: no descent
    with pytest.raises(ValidationError, match="max_instance_depth"):
        Validator({"uniqueItems": True}).is_valid([deep_obj, deep_obj])
    with pytest.raises(SchemaError, match="max_schema_depth=256"):
        Validator({"const": deep_obj})
    with pytest.raises(ValidationError, match="max_instance_depth"):
        Validator({"additionalProperties": {"$ref": "#"}}).validate(deep_obj)


def test_cyclic_python_objects() -> None:
    a: list[Any] = []
    a.append(a)
    d: dict[str, Any] = {}
    d["self"] = d
    for schema, inst in (
        ({"items": {"$ref": "#"}}, a),
        ({"uniqueItems": True}, [a, a]),
        ({"additionalProperties": {"$ref": "#"}}, d),
    ):
        with pytest.raises(ValidationError, match="max_instance_depth"):
            Validator(schema).is_valid(inst)
    assert Validator({"type": "array"}).is_valid(a)
    assert Validator({"enum": [[[]]]}).is_valid(a) is False


def test_bad_instances() -> None:
    v = Validator({"additionalProperties": False})
    with pytest.raises(TypeError, match="dict key of type 'int'"):
        v.is_valid({1: 2})
    with pytest.raises(TypeError, match="'set' is not a JSON value"):
        Validator({"type": "array"}).is_valid({1})
    with pytest.raises(ValueError, match="nan"):
        Validator({"type": "number"}).is_valid(float("nan"))
    with pytest.raises(ValueError, match="inf"):
        Validator({"minimum": 0}).validate(float("inf"))
    with pytest.raises(ValueError, match="surrogate"):
        Validator({"pattern": "a"}).is_valid("\ud800")
    for bad in (b"{", b"[1,]", "nul", b"\xff", b"", b"[1e]"):
        with pytest.raises(JSONDecodeError):
            v.is_valid_json(bad)
    with pytest.raises(TypeError):
        v.is_valid_json(12)  # type: ignore[arg-type]


def test_bad_instance_located() -> None:
    # The message names the value that is not JSON by its JSON Pointer, from every entry point.
    rows = {"properties": {"rows": {"items": {"properties": {"value": {"type": "number"}}}}}}
    v = Validator(rows)
    table = {"rows": [{"value": 1}, {"value": 2}, {"value": 3}, {"value": float("nan")}]}
    nan_at = r"^instance is not JSON: float nan is not a JSON number at /rows/3/value$"
    for call in (v.is_valid, v.validate, lambda x: list(v.iter_errors(x))):
        with pytest.raises(ValueError, match=nan_at):
            call(table)
    cases: list[tuple[Any, Any, type[Exception], str]] = [
        (
            {"items": {"items": {"additionalProperties": {"type": "number"}}}},
            [[], [2, {"a~b/c": object()}]],
            TypeError,
            "value of type 'object' is not a JSON value at /1/1/a~0b~1c",
        ),
        (
            {"additionalProperties": {"additionalProperties": False}},
            {"a": {1: 2}},
            TypeError,
            "dict key of type 'int' is not a string at /a",
        ),
        (
            {"items": {"pattern": "a"}},
            ["a", "\ud800"],
            ValueError,
            "string is not valid Unicode (lone surrogate) at /1",
        ),
        ({"minimum": 0}, float("-inf"), ValueError, "float inf is not a JSON number"),  # the root: no location
    ]
    for schema, instance, exc, message in cases:
        with pytest.raises(exc) as info:
            Validator(schema).is_valid(instance)
        assert str(info.value) == "instance is not JSON: " + message
    # A container met twice (shared, or a cycle) is looked into once.
    shared: list[Any] = [1]
    cycle: list[Any] = [shared, shared]
    cycle.append(cycle)
    cycle.append(float("nan"))
    with pytest.raises(ValueError, match=r"nan is not a JSON number at /3$"):
        Validator({"items": {"type": ["array", "number"]}}).is_valid(cycle)


def test_numbers() -> None:
    assert Validator({"type": "integer"}).is_valid(2**100)
    assert Validator({"type": "integer"}).is_valid_json(str(2**100))
    assert not Validator({"type": "integer"}).is_valid(True)
    assert not Validator({"maximum": 2**64}).is_valid(2**64 + 1)
    assert not Validator({"maximum": 2**64}).is_valid_json(str(2**70))
    assert Validator({"minimum": -(2**70)}).is_valid_json(str(-(2**69)))
    assert Validator({"multipleOf": 0.0001}).is_valid(0.0075)
    assert not Validator({"multipleOf": 0.0001}).is_valid(0.00751)
    assert Validator({"multipleOf": 0.1}).is_valid_json("0.3")
    assert not Validator({"multipleOf": 0.123456789}).is_valid(1e308)
    assert Validator({"multipleOf": 3}).is_valid(2**64 * 3)
    assert Validator({"const": 1}).is_valid(1.0) and not Validator({"const": 1}).is_valid(True)
    assert not Validator({"enum": [False]}).is_valid(0)
    assert not Validator({"uniqueItems": True}).is_valid([1, 1.0])
    assert Validator({"uniqueItems": True}).is_valid([1, True, {"a": 1}, {"a": True}])
    assert Validator({"maxLength": 2}).is_valid("\U0001f600\u00e9") and not Validator({"maxLength": 1}).is_valid_json(
        '"\\u00e9x"'
    )


def test_limits_argument() -> None:
    assert Limits().max_instance_depth == 512
    with pytest.raises(ValueError, match="unknown limits: max_nonsense"):
        Validator({}, limits={"max_nonsense": 1})
    with pytest.raises(ValueError, match="max_steps must be a positive integer"):
        Validator({}, limits=Limits(max_steps=0))


def test_one_validator_many_threads() -> None:
    v = Validator(
        {
            "type": "object",
            "properties": {"n": {"type": "integer", "multipleOf": 3}},
            "required": ["n"],
            "unevaluatedProperties": False,
        }
    )
    cases = [({"n": i}, i % 3 == 0) for i in range(300)] + [({"n": 3, "x": 1}, False)]
    failures: list[Any] = []

    def work() -> None:
        for _ in range(20):
            for inst, ok in cases:
                text = json.dumps(inst).encode()
                if (
                    v.is_valid(inst) is not ok
                    or v.is_valid_json(text) is not ok
                    or (not list(v.iter_errors_json(text))) is not ok
                ):
                    failures.append(inst)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_repeated_names_in_json_text() -> None:
    # JSON text may repeat a member name (a dict cannot): it counts once towards `required`,
    # and every occurrence is validated.
    v = Validator({"properties": {"a": {"type": "integer"}, "b": {}}, "required": ["a", "b"]})
    assert not v.is_valid_json(b'{"a":1,"a":2}')
    assert [e.keyword for e in v.iter_errors_json(b'{"a":1,"a":2}')] == ["required"]
    assert v.is_valid_json(b'{"b":1,"a":2,"b":3}')
    assert not v.is_valid_json(b'{"b":1,"a":2,"a":"x"}')
