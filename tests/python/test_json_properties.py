"""Property tests: mcp_native.dumps/loads against the json module on generated values."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from typing import Any

import pydantic_core
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from mcp_native import JSONDecodeError, dumps, loads
from mcp_native._core import pydantic_json_text


def ref_dumps(obj: Any, **kw: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False, **kw).encode()


def same(a: object, b: object) -> bool:
    return repr(a) == repr(b)


# Text over the whole code space, lone surrogates included, with control and escape characters
# and astral characters made frequent.
chars = st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x1F),
    st.sampled_from('"\\/\x7f\u2028\ufeff'),
    st.characters(min_codepoint=0x10000),
    st.characters(),
)
text = st.text(chars, max_size=40)
valid_text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)

big_ints = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**64) - 5, max_value=2**64 + 5),
    st.integers(min_value=-(10**60), max_value=10**60),
    st.sampled_from([2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1]),
)
# Every finite double, including subnormals and extremes, by bit pattern as well.
finite_floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=0, max_value=2**64 - 1)
    .map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0])
    .filter(lambda f: f == f and abs(f) != float("inf")),
    st.sampled_from([0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16, 1e15, 1e-4, 1e-5]),
    # Values written with a few decimals (the writer's short path), around 2^32 where it stops,
    # and one ulp off them (which it must leave to the general path).
    st.builds(
        lambda m, decimals, ulps: (
            math.nextafter(float(f"{m}e-{decimals}"), math.inf * ulps) if ulps else float(f"{m}e-{decimals}")
        ),
        st.integers(-(2**53), 2**53),
        st.integers(0, 9),
        st.sampled_from([0, 1, -1]),
    ),
    st.floats(min_value=4294967295.0, max_value=4294967297.0),
)
keys = st.one_of(text, big_ints, finite_floats, st.booleans(), st.none())


def json_like(
    strings: st.SearchStrategy[str], floats: st.SearchStrategy[float], key_strategy: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), big_ints, floats, strings)
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=6),
            st.tuples(inner, inner),
            st.dictionaries(key_strategy, inner, max_size=6),
        ),
        max_leaves=30,
    )


any_values = json_like(
    text, st.one_of(finite_floats, st.sampled_from([float("nan"), float("inf"), -float("inf")])), keys
)
valid_values = json_like(valid_text, finite_floats, valid_text)


def outcome(fn: Callable[[], object]) -> tuple[str, object]:
    try:
        return ("ok", fn())
    except (ValueError, TypeError) as e:  # UnicodeEncodeError is a ValueError
        return ("raise", type(e))


@settings(max_examples=1500, deadline=None)
@given(any_values)
@example("\ud800")
@example({"\udfff": 1})
@example([float("nan")])
@example({1e16: 1, -0.0: 2})
def test_dumps_matches_stdlib(obj: Any) -> None:
    ours = outcome(lambda: dumps(obj))
    ref = outcome(lambda: ref_dumps(obj))
    assert ours[0] == ref[0], (ours, ref)
    if ours[0] == "ok":
        assert ours[1] == ref[1]


@settings(max_examples=500, deadline=None)
@given(any_values)
def test_dumps_sorted_matches_stdlib(obj: Any) -> None:
    ours = outcome(lambda: dumps(obj, sort_keys=True))
    ref = outcome(lambda: ref_dumps(obj, sort_keys=True))
    assert ours[0] == ref[0], (ours, ref)
    if ours[0] == "ok":
        assert ours[1] == ref[1]


@settings(max_examples=1000, deadline=None)
@given(any_values, st.sampled_from([0, 1, 2, 4]), st.booleans())
@example({"a": [], "b": {}, "c": [{}]}, 2, False)
@example([1e-05, -2.5e-05, 1e-07, 1e16], 2, False)
def test_dumps_indent_matches_stdlib(obj: Any, indent: int, sort_keys: bool) -> None:
    ours = outcome(lambda: dumps(obj, indent=indent, sort_keys=sort_keys))
    ref = outcome(
        lambda: json.dumps(obj, indent=indent, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False).encode()
    )
    assert ours[0] == ref[0], (ours, ref)
    if ours[0] == "ok":
        assert ours[1] == ref[1]


# pydantic-core's text for the JSON-native values it and dumps both take (str keys, no NaN).
@settings(max_examples=1000, deadline=None)
@given(json_like(valid_text, finite_floats, valid_text), st.sampled_from([None, 0, 2, 3]))
@example([1e-05, -2.5e-05, 1.5e-05, 9.999e-05, 1e-04, 1e-07, -1.2345e-300, 1e16, 1.5e300, 0.0, -0.0], 2)
@example({"a": [], "b": {}, "c": 'é\u2028"\\\x00\x1f\x7f'}, 2)
@example({"a": [[], [{}], {"b": [[], {}]}], "n": 2**70, "m": -(2**64), "u": "\U0001f600"}, 2)
def test_pydantic_json_text_matches_pydantic(obj: Any, indent: int | None) -> None:
    assert pydantic_json_text(obj, indent) == pydantic_core.to_json(obj, indent=indent).decode()


@pytest.mark.parametrize("indent", ["2", 2.0, True, -1, 65, 2**70])
def test_dumps_indent_rejects(indent: object) -> None:
    # Some of these are of the wrong type on purpose: the runtime's TypeError is what is tested.
    with pytest.raises(TypeError if isinstance(indent, (str, float, bool)) else ValueError, match="indent"):
        dumps({"a": 1}, indent=indent)  # type: ignore[arg-type]
    with pytest.raises(TypeError if isinstance(indent, (str, float, bool)) else ValueError, match="indent"):
        pydantic_json_text({"a": 1}, indent)  # type: ignore[arg-type]


@settings(max_examples=1500, deadline=None)
@given(valid_values)
def test_round_trip(obj: Any) -> None:
    data = dumps(obj)
    back = loads(data)
    assert same(back, json.loads(data))
    # Tuples come back as lists; everything else as it went in.
    assert dumps(back) == data


@settings(max_examples=1000, deadline=None)
@given(st.one_of(finite_floats, big_ints))
def test_numbers_exact(x: float) -> None:
    data = dumps(x)
    assert data == repr(x).encode()
    assert same(loads(data), x)
    assert same(loads(b"[" + data + b"]"), [x])


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=30) | st.text(max_size=30).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_loads_arbitrary_bytes_is_clean(data: bytes) -> None:
    try:
        got = loads(data)
    except JSONDecodeError as e:
        assert e.pos is not None and 0 <= e.pos <= len(data)
        return
    # Accepted: then it is valid JSON for the stdlib too, with the same value.
    assert same(got, json.loads(data.decode("utf-8")))


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "[",
                "]",
                "{",
                "}",
                ",",
                ":",
                '"a"',
                "1",
                "-",
                ".5",
                "e3",
                " ",
                "null",
                "tru",
                '"\\u',
                "NaN",
                "12345678901234567890123",
            ]
        ),
        max_size=20,
    )
)
def test_loads_token_soup_agrees_with_stdlib(tokens: list[str]) -> None:
    doc = "".join(tokens)
    assume(not any(t in doc for t in ("NaN", "Infinity")))  # json.loads accepts these; we reject
    try:
        expected = ("ok", json.loads(doc))
    except json.JSONDecodeError:
        expected = ("raise", None)
    try:
        got = ("ok", loads(doc))
    except JSONDecodeError:
        got = ("raise", None)
    assert got[0] == expected[0], doc
    assert same(got[1], expected[1])
