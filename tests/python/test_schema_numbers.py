"""Numbers beyond 64 and 128 bits, long enums and uniqueItems: verdicts equal python-jsonschema's
(Python compares int and float exactly), in both modes."""

from __future__ import annotations

import enum
import json
from typing import Any

import jsonschema
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mcp_native import Tool, Validator

HUGE = 2**400

big_ints = st.integers(min_value=-HUGE, max_value=HUGE) | st.sampled_from(
    [2**64, 2**64 + 1, 2**127 - 1, 2**127, 2**127 + 1, 2**128, 2**200, 2**200 + 1, -(2**200), 3**150, 10**50, 0]
)
# Floats that are exact integers beyond 2^53, so int/float comparisons are decided by exactness.
big_floats = st.sampled_from([2.0**64, 2.0**100, 2.0**127, 2.0**128, 2.0**200, -(2.0**200), 1e300, 0.5, -0.0])
numbers = big_ints | big_floats | st.builds(float, big_ints.filter(lambda n: abs(n) < 2**1000))


def schemas() -> st.SearchStrategy[dict[str, Any]]:
    int_or_float = big_ints | big_floats
    return st.one_of(
        st.builds(lambda c: {"const": c}, int_or_float),
        st.builds(lambda c: {"enum": c}, st.lists(int_or_float, min_size=1, max_size=20)),
        st.builds(
            lambda k, c: {k: c},
            st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
            int_or_float,
        ),
        st.builds(lambda m: {"multipleOf": m}, big_ints.filter(lambda n: n > 0)),
        st.just({"uniqueItems": True}),
    )


@settings(max_examples=600, deadline=None)
@given(schemas(), numbers, st.lists(numbers, max_size=12))
def test_big_numbers_match_python_jsonschema(schema: dict[str, Any], x: Any, items: list[Any]) -> None:
    instance = [*items, x] if "uniqueItems" in schema else x
    # python-jsonschema computes float % int in floats, rounding a divisor beyond 2^53: not a reference there.
    assume(
        not (isinstance(x, float) and "multipleOf" in schema and float(schema["multipleOf"]) != schema["multipleOf"])
    )
    want = jsonschema.Draft202012Validator(schema).is_valid(instance)
    v = Validator(schema)
    assert v.is_valid(instance) == want
    assert v.is_valid_json(json.dumps(instance)) == want


def test_exact_cases() -> None:
    big = 2**200
    assert not Validator({"const": big}).is_valid(big + 1)
    assert Validator({"const": big}).is_valid(float(big))  # 2.0**200 is exactly 2**200
    assert not Validator({"const": big + 1}).is_valid_json(json.dumps(float(big)))
    assert not Validator({"minimum": big}).is_valid(big - 1)
    assert Validator({"multipleOf": big}).is_valid(3 * big) and not Validator({"multipleOf": big}).is_valid(3 * big + 1)
    assert Validator({"multipleOf": 0.25}).is_valid(big + 1)  # decimal semantics: every integer is
    assert not Validator({"multipleOf": 10**40}).is_valid(10**50 + 10**39)
    assert Validator({"uniqueItems": True}).is_valid([big, big + 1])
    assert not Validator({"uniqueItems": True}).is_valid_json(json.dumps([big, 1, big]))
    assert Validator({"maxLength": 2**200}).is_valid("any")  # a count beyond 64 bits is no limit at all


def test_long_enum_and_unique_items_use_json_equality() -> None:
    v = Validator({"enum": [str(i) for i in range(30)] + [{"a": [1, 2]}, 7, True, None]})
    for ok in ("7", {"a": [1.0, 2]}, 7.0, True, None):
        assert v.is_valid(ok) and v.is_valid_json(json.dumps(ok))
    for bad in ("x", {"a": [2, 1]}, 1, False, 8, [7]):
        assert not v.is_valid(bad) and not v.is_valid_json(json.dumps(bad))
    u = Validator({"uniqueItems": True})
    assert not u.is_valid([*range(2000), 1999.0])
    assert u.is_valid([*range(2000), "1999"])
    assert not u.is_valid([{"a": 1, "b": [0.0]}, {"b": [-0.0], "a": 1}])
    assert u.is_valid([[1], [True], [1, 1], 1, True, "1"])


class Level(enum.IntEnum):
    LOW = 1


# Bounds where the int64 fast path of bounded leaves ({"type": "integer", "minimum": 0}) turns:
# one-digit CPython ints end at 2^30, exclusive bounds are moved by one, int64 ends.
EDGE_INTS = [0, 1, -1, 2**30 - 1, 2**30, -(2**30), 2**31, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64]
edge_ints = st.sampled_from(EDGE_INTS) | st.integers(-5, 5) | st.integers(-(2**64), 2**64)


@st.composite
def bounded_leaves(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    t = draw(
        st.sampled_from(
            [
                None,
                "integer",
                "number",
                "string",
                "boolean",
                "null",
                ["integer", "string"],
                ["number", "null"],
                ["boolean", "integer"],
            ]
        )
    )
    if t is not None:
        schema["type"] = t
    for k in draw(st.sets(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), max_size=2)):
        schema[k] = draw(edge_ints | st.sampled_from([0.5, -1.5, 1e19]))
    for k in draw(st.sets(st.sampled_from(["minLength", "maxLength"]), max_size=2)):
        schema[k] = draw(st.integers(0, 4))
    return schema


class Text(str):
    pass


leaf_values: st.SearchStrategy[Any] = (
    edge_ints
    | st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0**63, -1.5, True, False, None, Level.LOW, [], {}, Text("ab")])
    | st.text("a😀é\n", max_size=5)
)


@settings(max_examples=1500, deadline=None)
@given(bounded_leaves(), leaf_values)
def test_bounded_leaves_match_python_jsonschema(schema: dict[str, Any], x: Any) -> None:
    want = jsonschema.Draft202012Validator(schema).is_valid(x)
    v = Validator(schema)
    assert v.is_valid(x) == want
    assert Validator({"items": schema}).is_valid([x, x]) == want
    assert Validator({"properties": {"a": schema}}).is_valid({"a": x}) == want
    assert v.is_valid_json(json.dumps(x)) == want
    # Under the output schema of a tool: validated while written.
    # Under the output schema of a tool, as a member and as list items (written after a comma):
    # validated while written, with the bytes of an unchecked write when valid.
    tool = Tool(
        "t",
        output_schema={"type": "object", "properties": {"x": schema, "xs": {"items": schema}}},
        on_invalid="error_result",
    )
    for payload in ({"x": x}, {"xs": [x, x]}):
        line = tool.encode_response(1, payload)
        assert (b'"isError":true' not in line) == want
        if want:
            assert line == Tool("t").encode_response(1, payload)
