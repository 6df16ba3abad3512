"""Tool definitions, argument checks, results, one-pass responses and client-side result checks,
each checked against the protocol version's schema with python-jsonschema and mcp_native.Validator."""

from __future__ import annotations

import copy
import gc
import inspect
import json
import pickle
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mcp_native
from mcp_native import Tool, ValidationError, Validator, _core
from mcp_native import content as c

Conforms = Callable[[str, str, Any], None]  # the assert_conforms fixture

# The example of the tools page of the specification.
WEATHER_INPUT = {
    "type": "object",
    "properties": {"location": {"type": "string", "description": "City name or zip code"}},
    "required": ["location"],
}
WEATHER_OUTPUT = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number", "description": "Temperature in celsius"},
        "conditions": {"type": "string", "description": "Weather conditions description"},
        "humidity": {"type": "number", "description": "Humidity percentage"},
    },
    "required": ["temperature", "conditions", "humidity"],
}
WEATHER = {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}


def weather(version: str, **kw: Any) -> Tool:
    return Tool(
        "get_weather_data",
        title="Weather Data Retriever",
        description="Get current weather data for a location",
        input_schema=WEATHER_INPUT,
        output_schema=WEATHER_OUTPUT,
        protocol_version=version,
        **kw,
    )


def response_def(version: str) -> str:
    return "JSONRPCResponse" if version == "2025-06-18" else "JSONRPCResultResponse"


def error_def(version: str) -> str:
    return "JSONRPCError" if version == "2025-06-18" else "JSONRPCErrorResponse"


def assert_result_conforms(assert_conforms: Conforms, version: str, result: Any, request_id: int | str = 7) -> None:
    assert_conforms(version, "CallToolResult", result)
    assert_conforms(version, response_def(version), {"jsonrpc": "2.0", "id": request_id, "result": result})


# -- definitions ----------------------------------------------------------------------------------


def test_definition_conforms(assert_conforms: Conforms, version: str) -> None:
    t = weather(version, annotations={"readOnlyHint": True, "title": "Weather"}, meta={"x": 1})
    assert t.definition == {
        "name": "get_weather_data",
        "title": "Weather Data Retriever",
        "description": "Get current weather data for a location",
        "inputSchema": WEATHER_INPUT,
        "outputSchema": WEATHER_OUTPUT,
        "annotations": {"readOnlyHint": True, "title": "Weather"},
        "_meta": {"x": 1},
    }
    assert_conforms(version, "Tool", t.definition)
    bare = Tool("ping", protocol_version=version).definition
    assert bare == {"name": "ping", "inputSchema": {"type": "object", "additionalProperties": False}}
    assert_conforms(version, "Tool", bare)
    if version >= "2025-11-25":
        with_icons = Tool(
            "p", icons=[{"src": "https://example.com/i.png", "sizes": ["48x48"]}], protocol_version=version
        )
        assert_conforms(version, "Tool", with_icons.definition)


@pytest.mark.parametrize("name", ["get weather", "a/b", "x" * 129, "naïve", "a,b"])
def test_tool_name_should_rules(name: str) -> None:
    for version in ("2025-11-25", "2026-07-28"):
        with pytest.warns(UserWarning, match="SHOULD be 1 to 128 characters"):
            Tool(name, protocol_version=version)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Tool(name, protocol_version="2025-06-18")  # no naming rule before 2025-11-25
        Tool("get_weather-v2.1", protocol_version="2025-11-25")
        Tool("x" * 128, protocol_version="2026-07-28")


def test_execution_2025_11_25(assert_conforms: Conforms) -> None:
    t = Tool("long_job", execution={"taskSupport": "optional"}, protocol_version="2025-11-25")
    assert t.definition["execution"] == {"taskSupport": "optional"}
    assert_conforms("2025-11-25", "Tool", t.definition)
    assert Tool.from_definition(t.definition, protocol_version="2025-11-25").definition == t.definition
    with pytest.raises(ValueError, match=r"execution\.taskSupport: 'sometimes'"):
        Tool("j", execution={"taskSupport": "sometimes"}, protocol_version="2025-11-25")
    with pytest.raises(TypeError, match="execution: expected a dict"):
        Tool("j", execution="optional", protocol_version="2025-11-25")  # type: ignore[arg-type]  # on purpose
    for version in ("2025-06-18", "2026-07-28"):
        with pytest.raises(ValueError, match=f"protocol version {version} has no Tool.execution"):
            Tool("j", execution={"taskSupport": "optional"}, protocol_version=version)


def test_output_schema_any_in_2026(assert_conforms: Conforms) -> None:
    t = Tool("nums", output_schema={"type": "array", "items": {"type": "number"}})
    assert_conforms("2026-07-28", "Tool", t.definition)
    r = t.result([1, 2.5])
    assert r == {
        "structuredContent": [1, 2.5],
        "content": [{"type": "text", "text": "[1,2.5]"}],
        "resultType": "complete",
    }
    assert_result_conforms(assert_conforms, "2026-07-28", r)
    for s in ("hello", None, 3, True):
        anything = Tool("any", output_schema={})
        assert_result_conforms(assert_conforms, "2026-07-28", anything.result(s))
    for version in ("2025-06-18", "2025-11-25"):
        with pytest.raises(ValueError, match=r"output_schema.*object"):
            Tool("nums", output_schema={"type": "array"}, protocol_version=version)


@pytest.mark.parametrize(
    ("exc", "field", "kw"),
    [
        (TypeError, "name", {"name": 5}),
        (ValueError, "name", {"name": ""}),
        (ValueError, "protocol_version", {"protocol_version": "2024-11-05"}),
        (ValueError, "on_invalid", {"on_invalid": "ignore"}),
        (TypeError, "input_schema", {"input_schema": True}),
        (ValueError, "input_schema", {"input_schema": {"type": "array"}}),
        (ValueError, "input_schema", {"input_schema": {"properties": {}}}),
        (TypeError, "output_schema", {"output_schema": True}),
        (TypeError, "output_schema", {"output_schema": ["type", "object"]}),
        (
            TypeError,
            "input_schema.properties.a",
            {"input_schema": {"type": "object", "properties": {"a": True}}, "protocol_version": "2025-11-25"},
        ),
        (
            TypeError,
            "input_schema.properties",
            {"input_schema": {"type": "object", "properties": []}, "protocol_version": "2025-06-18"},
        ),
        (
            TypeError,
            "input_schema.required",
            {"input_schema": {"type": "object", "required": "a"}, "protocol_version": "2025-06-18"},
        ),
        (TypeError, "$schema", {"input_schema": {"type": "object", "$schema": 7}}),
        (TypeError, "title", {"title": 1}),
        (TypeError, "description", {"description": b"x"}),
        (TypeError, "annotations", {"annotations": "ro"}),
        (ValueError, "annotations", {"annotations": {"readOnly": True}}),
        (TypeError, "annotations.readOnlyHint", {"annotations": {"readOnlyHint": 1}}),
        (TypeError, "annotations.title", {"annotations": {"title": None}}),
        (ValueError, "icons", {"icons": [], "protocol_version": "2025-06-18"}),
        (ValueError, "icons[0].src", {"icons": [{"src": "nope"}]}),
        (TypeError, "meta", {"meta": [1]}),
        (
            mcp_native.SchemaError,
            "input_schema",
            {"input_schema": {"type": "object", "properties": {"a": {"type": "nonsense"}}}},
        ),
        (mcp_native.SchemaError, "output_schema", {"output_schema": {"type": "object", "minProperties": -1}}),
    ],
)
def test_bad_definitions_name_the_field(exc: type[Exception], field: str, kw: dict[str, Any]) -> None:
    kw = {"name": "t", **kw}
    with pytest.raises(exc) as info:
        Tool(kw.pop("name"), **kw)
    assert field in str(info.value), str(info.value)


# -- arguments ------------------------------------------------------------------------------------


def test_check_arguments(assert_conforms: Conforms, version: str) -> None:
    t = weather(version)
    assert t.check_arguments({"location": "Paris"}) is None
    bad = t.check_arguments({"location": 75001, "unit": "C"})
    assert bad is not None
    if version == "2025-06-18":
        assert bad["error"]["code"] == -32602
        assert bad["error"]["data"]["errors"] == [
            {"path": "/location", "message": bad["error"]["data"]["errors"][0]["message"]}
        ]
        assert "string" in bad["error"]["data"]["errors"][0]["message"]
        assert_conforms(version, error_def(version), {"jsonrpc": "2.0", "id": 1, **bad})
    else:
        result = bad["result"]
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert "get_weather_data" in text and "/location" in text and "string" in text
        assert_result_conforms(assert_conforms, version, result)
        assert ("resultType" in result) == (version == "2026-07-28")
    missing = t.check_arguments({})
    msg = json.dumps(missing)
    assert "location" in msg and "(root)" in msg
    # Not an object at all: a malformed request in every version.
    for args in ([1], "x", 3):
        err = t.check_arguments(args)
        assert err is not None
        assert err["error"]["code"] == -32602 and "object" in err["error"]["message"]
        assert_conforms(version, error_def(version), {"jsonrpc": "2.0", "id": "a", **err})
    # No arguments at all count as {}.
    assert Tool("ping", protocol_version=version).check_arguments(None) is None
    assert Tool("ping", protocol_version=version).check_arguments({"x": 1}) is not None


def test_check_arguments_lists_every_error() -> None:
    t = Tool(
        "t",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["c"],
        },
        protocol_version="2025-11-25",
    )
    bad = t.check_arguments({"a": "1", "b": 2})
    assert bad is not None
    text = bad["result"]["content"][0]["text"]
    assert "/a" in text and "/b" in text and "'c'" in text and text.count("\n- at ") == 3


# -- results --------------------------------------------------------------------------------------


def test_result_shapes(assert_conforms: Conforms, version: str) -> None:
    t = weather(version)
    r = t.result(WEATHER)
    expected = {
        "structuredContent": WEATHER,
        "content": [{"type": "text", "text": '{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}'}],
    }
    if version == "2026-07-28":
        expected["resultType"] = "complete"
    assert r == expected
    assert_result_conforms(assert_conforms, version, r)
    # A text block in content is kept as the mirror; other blocks get the mirror added first.
    own = t.result(WEATHER, [c.text("22.5 C, partly cloudy")], meta={"m": 1})
    assert own["content"] == [c.text("22.5 C, partly cloudy")] and own["_meta"] == {"m": 1}
    img = c.image(b"\x00", "image/png")
    mixed = t.result(WEATHER, [img])
    assert mixed["content"][1] == img and json.loads(mixed["content"][0]["text"]) == WEATHER
    for res in (own, mixed):
        assert_result_conforms(assert_conforms, version, res)
    # An error result is not checked against the output schema and needs no structured content.
    err = t.result(content=[c.text("upstream timeout")], is_error=True)
    assert err["isError"] is True and "structuredContent" not in err
    assert_result_conforms(assert_conforms, version, err)
    assert t.result({"partial": True}, is_error=True)["structuredContent"] == {"partial": True}
    # A tool without an output schema may return only content.
    assert Tool("echo", protocol_version=version).result(content=[c.text("hi")])["content"] == [c.text("hi")]


def test_result_violating_output_schema(assert_conforms: Conforms, version: str) -> None:
    t = weather(version)
    bad = {"temperature": "warm", "conditions": "Partly cloudy"}
    with pytest.raises(ValidationError) as info:
        t.result(bad)
    paths = {e.instance_path for e in info.value.errors}
    assert ("temperature",) in paths and () in paths  # type error, and 'humidity' missing
    with pytest.raises(ValidationError):
        t.encode_response(1, bad)
    lenient = weather(version, on_invalid="error_result")
    r = lenient.result(bad)
    assert r["isError"] is True and "structuredContent" not in r and "/temperature" in r["content"][0]["text"]
    assert_result_conforms(assert_conforms, version, r)
    line = lenient.encode_response(3, bad)
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 3, "result": r}


@pytest.mark.parametrize("version", ("2025-06-18", "2025-11-25"))
def test_structured_must_be_object_before_2026(version: str) -> None:
    t = Tool("t", protocol_version=version)
    for s in ([1], "x", None, 1.5):
        with pytest.raises(TypeError, match="structured"):
            t.result(s)
        with pytest.raises(TypeError, match="structured"):
            t.encode_response(1, s)


def test_result_signature_is_readable() -> None:
    # help(Tool.result) shows the default of `structured` (it may be given as None, so it has a
    # sentinel): a readable name, not "<object object at 0x...>".
    sig = str(inspect.signature(Tool.result))
    assert "structured: 'Any' = <not given>" in sig, sig
    assert " at 0x" not in sig
    default = inspect.signature(Tool.result).parameters["structured"].default
    assert copy.copy(default) is default and copy.deepcopy(default) is default
    assert pickle.loads(pickle.dumps(default)) is default
    t = weather("2026-07-28")
    assert t.result(default, is_error=True) == t.result(is_error=True)


def test_result_bad_arguments() -> None:
    t = weather("2026-07-28")
    with pytest.raises(ValueError, match="structured"):
        t.result()
    with pytest.raises(ValueError, match="structured"):
        t.result(content=[c.text("x")])
    # Wrong types, on purpose: the runtime's TypeErrors are what is tested.
    with pytest.raises(TypeError, match="content"):
        t.result(WEATHER, c.text("x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"content\[1\].type"):
        t.result(WEATHER, [c.text("x"), {"type": "video"}])
    with pytest.raises(TypeError, match=r"content\[0\]"):
        t.result(WEATHER, ["x"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="is_error"):
        t.result(WEATHER, is_error=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="meta"):
        t.result(WEATHER, meta=[1])  # type: ignore[arg-type]
    for rid in (1.5, None, True, b"1"):
        with pytest.raises(TypeError, match="request_id"):
            t.encode_response(rid, WEATHER)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"content\[0\].type"):
        t.encode_response(1, WEATHER, content=[{"text": "x"}])
    with pytest.raises(TypeError, match="meta"):
        t.encode_response(1, WEATHER, meta="m")  # type: ignore[arg-type]


# -- one-pass responses ---------------------------------------------------------------------------


def wrapped(request_id: int | str, result: dict[str, Any]) -> bytes:
    return mcp_native.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + b"\n"


def test_encode_response(assert_conforms: Conforms, version: str) -> None:
    t = weather(version)
    line = t.encode_response(42, WEATHER)
    assert line == wrapped(42, t.result(WEATHER))
    assert line.endswith(b"}\n") and line.count(b"\n") == 1
    assert_conforms(version, response_def(version), json.loads(line))
    meta = {"trace": 'a"b'}
    for content in ([c.text("own")], [c.image(b"\x01", "image/png"), c.text("t")], [c.audio(b"\x02", "audio/wav")], []):
        line = t.encode_response("req-1", WEATHER, content=content, meta=meta)
        assert line == wrapped("req-1", t.result(WEATHER, content, meta=meta))
        assert_conforms(version, response_def(version), json.loads(line))


def test_encode_response_escapes_the_mirror() -> None:
    t = Tool("t")
    s = {"s": 'quote " backslash \\ newline \n tab \t nul \x00 \u2028 é 😀', "n": [1e300, -0.0, 2**70, None, True]}
    line = t.encode_response(2**62, s)
    assert line == wrapped(2**62, t.result(s))
    doc = json.loads(line)
    assert json.loads(doc["result"]["content"][0]["text"]) == doc["result"]["structuredContent"] == s


def test_encode_response_rejects_what_json_cannot_hold() -> None:
    t = Tool("t")
    with pytest.raises((TypeError, ValueError)):
        t.encode_response(1, {"x": float("nan")})
    with pytest.raises(TypeError):
        t.encode_response(1, {"x": object()})
    with pytest.raises(TypeError):
        t.encode_response(1, {"x": 1}, content=[{"type": "text", "text": {1, 2}}])


# The output schema is applied while the payload is written; whatever stops that walk (an
# invalid value, a value JSON cannot hold, a limit) must end exactly as validating first would.
RECORDS_SCHEMA = {
    "$defs": {
        "Rec": {
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 0},
                "tags": {"type": "array", "items": {"type": "string"}},
                "parent": {"anyOf": [{"$ref": "#/$defs/Rec"}, {"type": "null"}]},
            },
            "required": ["id"],
            "additionalProperties": False,
        }
    },
    "type": "object",
    "properties": {"recs": {"type": "array", "items": {"$ref": "#/$defs/Rec"}}},
    "required": ["recs"],
}


class Mapping(dict[str, Any]):
    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]  # a list, not a view, on purpose  # what json.dumps and the writer see; validation sees the dict's own storage
        return [(k, v) for k, v in super().items()]


@pytest.mark.parametrize(
    ("structured", "valid"),
    [
        ({"recs": [{"id": 1, "tags": ["a"], "parent": {"id": 0, "parent": None}}]}, True),
        ({"recs": [{"tags": [], "id": 2}]}, True),  # members out of declaration order
        ({"recs": [{"id": 1, "parent": {"id": -1}}]}, False),  # deep in the recursion
        ({"recs": [{"id": 1, "tags": ["a", 2]}]}, False),
        ({"recs": [{"id": 1, "extra": 1}]}, False),  # additionalProperties: false
        ({"recs": [{"parent": None}]}, False),  # required
        ({"recs": ({"id": 1},)}, True),  # a tuple is an array
        ({"recs": [Mapping(id=3, tags=("x",))]}, True),
        ({"recs": [Mapping(id="3")]}, False),
        ({"recs": [{"id": 2**70, "tags": []}, {"id": 1.0}]}, True),  # a whole float is an integer
        ({"recs": [{"id": 1.5}]}, False),
        ({"recs": [{"id": True}]}, False),
        ({"recs": []}, True),
        ({}, False),
    ],
)
def test_encode_response_validates_while_writing(structured: Any, valid: bool) -> None:
    strict = Tool("t", output_schema=RECORDS_SCHEMA)
    lenient = Tool("t", output_schema=RECORDS_SCHEMA, on_invalid="error_result")
    # Member names built at run time are not the interned strs of the schema.
    rebuilt = json.loads(json.dumps(structured))
    for payload in (structured, rebuilt):
        assert lenient.encode_response(1, payload) == wrapped(1, lenient.result(payload))
        if valid:
            assert strict.encode_response(1, payload) == Tool("t").encode_response(1, payload)
        else:
            with pytest.raises(ValidationError):
                strict.encode_response(1, payload)


def test_encode_response_validation_errors_match_the_two_walk_way() -> None:
    t = Tool("t", output_schema=RECORDS_SCHEMA, on_invalid="error_result")
    # A value JSON cannot hold, before or after an invalid one: validation speaks first, as
    # when it ran before writing.
    nan_first = {"recs": [{"id": float("nan")}, {"id": -1}]}
    invalid_first = {"recs": [{"id": -1}, {"id": float("nan")}]}
    for payload in (nan_first, invalid_first, {"recs": [{"id": 1, "tags": [object()]}]}, {"recs": [{1: 2}]}):
        try:
            expected = wrapped(1, t.result(payload))
        except (TypeError, ValueError) as e:
            with pytest.raises(type(e), match="instance is not JSON"):
                t.encode_response(1, payload)
        else:
            assert t.encode_response(1, payload) == expected
    # Nesting beyond the validator's limit: the limit error of is_valid, not a partial line.
    deep: dict[str, Any] = {"id": 0}
    for i in range(600):
        deep = {"id": i, "parent": deep}
    with pytest.raises(ValidationError, match="max_instance_depth"):
        t.encode_response(1, {"recs": [deep]})
    with pytest.raises(ValidationError, match="max_instance_depth"):
        Validator(RECORDS_SCHEMA).is_valid({"recs": [deep]})


def outcome(fn: Callable[[], object]) -> object:
    try:
        return fn()
    except ValidationError as e:
        assert e.keyword == "limits"
        return "limit"


records: st.SearchStrategy[dict[str, Any]] = st.deferred(
    lambda: st.fixed_dictionaries(
        {"id": st.sampled_from([0, 1, -1, 2.0, "x"])},
        optional={"tags": st.lists(st.sampled_from(["a", 1])), "parent": st.none() | records},
    )
)


@settings(max_examples=300, deadline=None)
@given(
    payload=st.fixed_dictionaries({"recs": st.lists(records, max_size=4)}),
    max_steps=st.integers(1, 12),
    max_depth=st.integers(1, 6),
)
def test_encode_response_meets_limits_as_is_valid_does(payload: dict[str, Any], max_steps: int, max_depth: int) -> None:
    v = Validator(RECORDS_SCHEMA, limits={"max_steps": max_steps, "max_instance_depth": max_depth})
    expected = outcome(lambda: v.is_valid(payload))
    got = outcome(lambda: Verdict(v, "2026-07-28").encode_response(1, payload))
    assert (got if got in (False, "limit") else True) == expected


@pytest.mark.parametrize("cell", [float("nan"), float("inf"), -float("inf")])
def test_encode_response_table_cells_json_cannot_hold(cell: float) -> None:
    schema = {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {"type": "array", "items": {"type": ["number", "null"]}}}},
    }
    t = Tool("t", output_schema=schema)
    with pytest.raises(ValueError, match="instance is not JSON"):
        t.encode_response(1, {"rows": [[1.5, None], [2.5, cell]]})
    # A cell of the wrong type before it: the same answer as result() gives.
    payload = {"rows": [[1.5, "x"], [cell]]}
    with pytest.raises(ValueError) as by_result:
        t.result(payload)
    with pytest.raises(type(by_result.value), match=str(by_result.value)):
        t.encode_response(1, payload)
    assert t.encode_response(1, {"rows": [[1.5, None, 2, 0.1]]}) == Tool("t").encode_response(
        1, {"rows": [[1.5, None, 2, 0.1]]}
    )


class Verdict(_core.ResponseWriter):
    """Answers an invalid payload with False."""

    def _encode_invalid(self, *args: Any) -> bool:
        return False


def test_response_writer_bad_setup() -> None:
    with pytest.raises(TypeError, match="check: expected a Validator or None, got function"):
        _core.ResponseWriter(lambda s: True, "2025-11-25")  # type: ignore[arg-type]  # on purpose
    with pytest.raises(ValueError, match="protocol_version: '2025-13-01' is not one of"):
        _core.ResponseWriter(None, "2025-13-01")
    with pytest.raises(ValueError, match="protocol_version: '2025-03-26' has no structuredContent"):
        _core.ResponseWriter(None, "2025-03-26")
    with pytest.raises(TypeError):
        _core.ResponseWriter(None, 1)  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError, match="not initialized"):
        _core.ResponseWriter.__new__(_core.ResponseWriter).encode_response(1, {})
    # Without an answer for invalid payloads (Tool has one): the missing method is named.
    with pytest.raises(AttributeError, match="_encode_invalid"):
        _core.ResponseWriter(Validator({"type": "object", "required": ["x"]}), "2025-11-25").encode_response(1, {})
    assert _core.ResponseWriter(Validator({"type": "object"}), "2025-11-25").encode_response("a", {}) == (
        b'{"jsonrpc":"2.0","id":"a","result":{"structuredContent":{},"content":[{"type":"text","text":"{}"}]}}\n'
    )


def test_cycles_through_tools_and_validators_are_collected() -> None:
    # Validators take attributes, which may refer back to the validator or to its tool.
    class Traced(Tool):
        __slots__ = ("__weakref__",)

    class Box:
        pass

    t = Traced("t", output_schema={"type": "object"})
    # Validators take attributes of their own: set here on purpose, to make the cycles.
    t._output.owner = t  # type: ignore[union-attr]
    v = Validator({"type": "object"})
    v.box = Box()  # type: ignore[attr-defined]
    v.box.validator = v  # type: ignore[attr-defined]
    refs = [weakref.ref(t), weakref.ref(v.box)]  # type: ignore[attr-defined]
    del t, v
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_encode_response_with_limits_on_the_validator() -> None:
    # The walk counts steps and depth like the evaluator; past them the evaluator decides.
    tight = Validator(RECORDS_SCHEMA, limits={"max_steps": 5})
    payload = {"recs": [{"id": i} for i in range(10)]}
    with pytest.raises(ValidationError, match="max_steps"):
        tight.is_valid(payload)
    with pytest.raises(ValidationError, match="max_steps"):
        Verdict(tight, "2026-07-28").encode_response(1, payload)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
blocks = st.lists(
    st.sampled_from(
        [
            c.text("t"),
            c.image(b"\x00\x01", "image/png"),
            c.resource_link("file:///a", "a"),
            c.embedded_resource("file:///b", text='b\n"'),
        ]
    ),
    max_size=3,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    request_id=st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text(),
    structured=json_values,
    content=st.none() | blocks,
    meta=st.none() | json_objects,
)
def test_encode_response_equals_wrapped_result(
    request_id: int | str, structured: Any, content: list[dict[str, Any]] | None, meta: dict[str, Any] | None
) -> None:
    # Any JSON value for 2026-07-28; the empty schema accepts it, so the native validation runs too.
    t = Tool("t", output_schema={})
    line = t.encode_response(request_id, structured, content=content, meta=meta)
    expected: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": t.result(structured, content, meta=meta)}
    assert json.loads(line) == json.loads(json.dumps(expected))
    assert line == wrapped(request_id, expected["result"])


@settings(max_examples=100)
@given(structured=json_objects)
def test_encode_response_equals_wrapped_result_2025(structured: dict[str, Any]) -> None:
    t = Tool("t", output_schema={"type": "object"}, protocol_version="2025-11-25")
    line = t.encode_response(5, structured)
    assert line == wrapped(5, t.result(structured))


# -- client side ----------------------------------------------------------------------------------


def test_check_result(version: str) -> None:
    t = weather(version)
    good = t.result(WEATHER)
    t.check_result(good)
    t.check_result(t.encode_response(9, WEATHER))
    t.check_result(mcp_native.dumps(good))
    t.check_result(mcp_native.dumps(good).decode())
    bad = dict(good, structuredContent={"temperature": 1, "conditions": "x", "humidity": "65"})
    with pytest.raises(ValidationError) as info:
        t.check_result(bad)
    assert info.value.instance_path == ("structuredContent", "humidity")
    line = json.dumps({"jsonrpc": "2.0", "id": 9, "result": bad}).encode() + b"\n"
    with pytest.raises(ValidationError) as info:
        t.check_result(line)
    assert info.value.instance_path == ("result", "structuredContent", "humidity")
    # Error results are not held to the output schema.
    t.check_result(dict(bad, isError=True))
    t.check_result(json.dumps({"jsonrpc": "2.0", "id": 9, "result": dict(bad, isError=True)}).encode())
    # A successful result must carry structured content; every result needs content.
    no_structured = {k: v for k, v in good.items() if k != "structuredContent"}
    with pytest.raises(ValidationError):
        t.check_result(no_structured)
    with pytest.raises(ValidationError) as info:
        t.check_result({k: v for k, v in good.items() if k != "content"})
    assert "content" in str(info.value)
    error = {"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "boom"}}
    for sent in (error, json.dumps(error).encode(), memoryview(json.dumps(error).encode())):
        with pytest.raises(ValidationError, match=r"JSON-RPC error, not a result: code -32603, message 'boom'"):
            t.check_result(sent)
    if version == "2026-07-28":
        with pytest.raises(ValidationError, match="resultType"):
            t.check_result({k: v for k, v in good.items() if k != "resultType"})
    else:
        with pytest.raises(ValidationError):
            t.check_result(dict(good, structuredContent=[1]))
    with pytest.raises(TypeError, match="result"):
        t.check_result(5)  # type: ignore[arg-type]  # on purpose
    with pytest.raises(ValueError):
        t.check_result(b"{not json")


def test_from_definition_round_trip(version: str) -> None:
    t = weather(version, annotations={"readOnlyHint": True})
    received = json.loads(json.dumps(t.definition))
    received["execution"] = {"taskSupport": "optional"}  # kept in 2025-11-25, ignored elsewhere
    client = Tool.from_definition(received, protocol_version=version)
    if version == "2025-11-25":
        assert client.definition == {**t.definition, "execution": {"taskSupport": "optional"}}
    else:
        assert client.definition == t.definition
    client.check_result(t.encode_response(1, WEATHER))
    with pytest.raises(ValidationError):
        client.check_result(dict(t.result(WEATHER), structuredContent={"temperature": 1}))
    assert client.check_arguments({"location": "Oslo"}) is None
    with pytest.raises(ValueError, match="inputSchema"):
        Tool.from_definition({"name": "x"}, protocol_version=version)
    with pytest.raises(TypeError, match="definition"):
        Tool.from_definition([("name", "x")], protocol_version=version)  # type: ignore[arg-type]  # on purpose
    with pytest.raises(ValueError, match="output_schema"):
        Tool.from_definition(
            {"name": "x", "inputSchema": {"type": "object"}, "outputSchema": {"type": "string"}},
            protocol_version="2025-06-18",
        )


@settings(max_examples=200)
@given(
    structured=st.dictionaries(
        st.sampled_from(["temperature", "conditions", "humidity", "x"]), json_values, max_size=4
    ),
    is_error=st.booleans(),
)
def test_check_result_agrees_with_reference(structured: dict[str, Any], is_error: bool) -> None:
    """Client check of a result: dict and raw-bytes paths agree with python-jsonschema on the
    structured content (error results are never held to the output schema)."""
    import jsonschema

    t = weather("2025-11-25")
    result = {"content": [], "structuredContent": structured, **({"isError": True} if is_error else {})}
    expected = is_error or jsonschema.Draft202012Validator(WEATHER_OUTPUT).is_valid(structured)
    for given_ in (result, json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()):
        try:
            t.check_result(given_)
            ok = True
        except ValidationError:
            ok = False
        assert ok == expected


# -- client side: the whole CallToolResult against the official definition ------------------------

ROLE_OK = {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}
BLOCK_FIELDS: dict[str, list[Any]] = {
    "type": ["text", "image", "audio", "resource_link", "resource", "video", 5],
    "text": ["hi", 5],
    "data": ["AAAA", 1],
    "mimeType": ["image/png", None],
    "uri": ["file:///x", 3],
    "name": ["n", None],
    "title": ["T", 1],
    "size": [1, 1.5, "1"],
    "resource": [
        {"uri": "file:///x", "text": "t"},
        {"uri": "file:///x", "blob": "AAAA", "mimeType": "a/b", "_meta": {}},
        {"uri": "file:///x"},
        {"uri": "file:///x", "text": "t", "blob": 5},
        {"text": "t"},
        {"uri": "file:///x", "text": "t", "_meta": []},
        5,
    ],
    "annotations": [ROLE_OK, {"priority": 2}, {"audience": ["robot"]}, {"lastModified": 1}, []],
    "_meta": [{}, {"k": [1]}, []],
    "icons": [
        [{"src": "https://x/i.png", "sizes": ["48x48"], "theme": "dark"}],
        [{}],
        [{"src": "x", "theme": "blue"}],
        5,
    ],
}
RESULT_FIELDS: dict[str, list[Any]] = {
    "isError": [True, False, "yes"],
    "structuredContent": [{}, {"a": 1}, [1], 5],
    "_meta": [
        {},
        {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1", "icons": [{"src": "x"}]}},
        {"io.modelcontextprotocol/serverInfo": {"name": "s"}},
        {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1", "icons": [{}]}},
        [],
    ],
    "resultType": ["complete", 5],
    "extra": [1],
}


@st.composite
def near_miss_results(draw: st.DrawFn, version: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """Valid results of the version's builders (blocks: every kind), then (mostly) one to three
    fields of the result or of its blocks set to values that may or may not be allowed there."""
    valid: list[object] = [*blocks]
    content = draw(st.lists(st.sampled_from(valid), max_size=3))
    for _ in range(draw(st.integers(0, 2))):
        if content and bool(draw(st.booleans())):  # bool(): the type checker reads `and` oddly here
            i = draw(st.integers(0, len(content) - 1))
            field = draw(st.sampled_from(sorted(BLOCK_FIELDS)))
            block = content[i]
            if isinstance(block, dict) and draw(st.integers(0, 4)) == 0:
                content[i] = {k: v for k, v in block.items() if k != field}  # a field left out
            elif isinstance(block, dict):
                content[i] = {**block, field: draw(st.sampled_from(BLOCK_FIELDS[field]))}
        else:
            content.append(draw(st.sampled_from([5, None, [], {}, {"type": "text"}])))
    result: dict[str, Any] = {"content": content}
    if version == "2026-07-28":
        result["resultType"] = "complete"
    for _ in range(draw(st.integers(0, 2))):
        field = draw(st.sampled_from([*sorted(RESULT_FIELDS), "content"]))
        if draw(st.integers(0, 3)) == 0:
            result.pop(field, None)
        elif field == "content":
            result["content"] = draw(st.sampled_from(["x", {}, None]))
        else:
            result[field] = draw(st.sampled_from(RESULT_FIELDS[field]))
    return result


def check_result_accepts(tool: Tool, result: object) -> bool:
    try:
        tool.check_result(result)  # type: ignore[arg-type]
    except ValidationError:
        return False
    return True


def test_check_result_accepts_every_valid_block_and_the_builders_results(
    assert_conforms: Conforms, version: str, all_blocks: Callable[[str], list[dict[str, Any]]]
) -> None:
    t = Tool("t", protocol_version=version)
    result = t.result(content=all_blocks(version), meta={"k": 1})
    assert_conforms(version, "CallToolResult", result)
    t.check_result(result)
    t.check_result(t.encode_response(3, {"a": [1]}))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_check_result_agrees_with_the_official_definition(
    spec_checkers: Callable[[str, str], tuple[Any, Any]],
    all_blocks: Callable[[str], list[dict[str, Any]]],
    version: str,
    data: st.DataObject,
) -> None:
    """check_result on a result dict, without an output schema, accepts exactly what the
    version's official CallToolResult accepts (python-jsonschema on the schema.json)."""
    result = data.draw(near_miss_results(version, all_blocks(version)))
    reference, _ = spec_checkers(version, "CallToolResult")
    t = Tool("t", protocol_version=version)
    expected = reference.is_valid(result)
    assert check_result_accepts(t, result) == expected
    assert check_result_accepts(t, json.dumps(result).encode()) == expected


def test_check_result_names_the_wrong_field_of_a_content_block(version: str) -> None:
    t = weather(version)
    good = t.result(WEATHER)
    cases = [
        ({"type": "text"}, ("content", 1), "text"),
        ({"type": "text", "text": 5}, ("content", 1, "text"), "string"),
        ({"type": "image", "data": "AAAA"}, ("content", 1), "mimeType"),
        ({"type": "video"}, ("content", 1, "type"), "video"),
        ({"type": "text", "text": "x", "annotations": {"priority": 3}}, ("content", 1, "annotations", "priority"), "3"),
        ({"type": "resource_link", "uri": "file:///a", "name": "a", "size": 1.5}, ("content", 1, "size"), "integer"),
    ]
    for block, path, says in cases:
        bad = dict(good, content=[*good["content"], block])
        with pytest.raises(ValidationError, match=says) as info:
            t.check_result(bad)
        assert info.value.instance_path == path, (block, info.value)
        with pytest.raises(ValidationError) as info:
            t.check_result(json.dumps({"jsonrpc": "2.0", "id": 1, "result": bad}))
        assert info.value.instance_path == ("result", *path)


def test_check_result_reaches_the_root_of_an_output_schema_that_repeats_its_id() -> None:
    # Found by fuzzing: the `$id` declared again inside must not redirect the checker's
    # reference to the output schema (the tool's own validator applies the root).
    output = {
        "$id": "httproot",
        "type": "object",
        "properties": {"other": {"$id": "httproot", "const": "paqa"}},
    }
    tool = Tool("t", input_schema={"type": "object"}, output_schema=output, protocol_version="2025-11-25")
    line = tool.encode_response(1, {"foo": "pass"})
    tool.check_result(line)
    tool.check_result(json.loads(line)["result"])
    with pytest.raises(ValidationError, match="'paqa' was expected"):
        tool.check_result({"content": [], "structuredContent": {"other": "x"}})
