"""mcp_native.dumps/loads against the standard library and the nst/JSONTestSuite."""

from __future__ import annotations

import collections
import dataclasses
import enum
import json
import math
import sys
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import pytest

import mcp_native
from mcp_native import JSONDecodeError, dumps, loads


def ref_dumps(obj: Any, **kw: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False, **kw).encode()


def same(a: object, b: object) -> bool:
    """Equal including types, float bits and -0.0 (== says 1 == 1.0 == True and nan != nan)."""
    return repr(a) == repr(b) and type(a) is type(b)


# --- nst/JSONTestSuite -------------------------------------------------------------------------


def suite_files(shared: Path, prefix: str) -> list[Path]:
    files = sorted((shared / "json-test-suite" / "test_parsing").glob(prefix + "*.json"))
    assert files, "JSONTestSuite not found"
    return files


def test_suite_y_parse_like_stdlib(shared: Path) -> None:
    files = suite_files(shared, "y_")
    assert len(files) == 95
    for f in files:
        data = f.read_bytes()
        assert same(loads(data), json.loads(data)), f.name


def test_suite_n_rejected(shared: Path) -> None:
    files = suite_files(shared, "n_")
    assert len(files) == 188
    for f in files:
        with pytest.raises(JSONDecodeError):
            loads(f.read_bytes())
            pytest.fail(f"accepted {f.name}")


def test_suite_i_clean(shared: Path) -> None:
    files = suite_files(shared, "i_")
    assert len(files) == 35
    for f in files:
        data = f.read_bytes()
        try:
            got = loads(data)
        except JSONDecodeError:
            continue
        # What we accept, we read like json.loads does.
        assert same(got, json.loads(data)), f.name


def test_suite_str_input_matches_bytes(shared: Path) -> None:
    for f in suite_files(shared, "y_"):
        try:
            text = f.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert same(loads(text), json.loads(text)), f.name


# --- loads ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        "0",
        "-0",
        "-0.0",
        "1.0",
        "1e16",
        "1E+2",
        "123456789012345678901234567890",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "1e400",
        "-1e400",
        "1e-400",
        "0.1",
        "2.2250738585072014e-308",
        "4.9e-324",
        "1.7976931348623157e308",
        "3.141592653589793238462643383279",
        '"a\\u0000b"',
        '"\\ud83d\\ude00"',
        '"\\ud800"',
        '"é😀"',
        '{"a":1,"a":2}',
        '{"a":{"b":[1,{"c":null}]}}',
        "[true,false,null]",
        " \t\r\n[ 1 , 2 ]\n",
        '{"":0}',
        "[[[[[]]]]]",
    ],
)
def test_loads_like_stdlib(doc: str) -> None:
    assert same(loads(doc), json.loads(doc))
    assert same(loads(doc.encode()), json.loads(doc))


def test_loads_input_types() -> None:
    doc = '{"k":["v",1]}'
    expected = {"k": ["v", 1]}
    for data in (
        doc,
        doc.encode(),
        bytearray(doc.encode()),
        memoryview(doc.encode()),
        memoryview(b"xx" + doc.encode())[2:],
    ):
        assert loads(data) == expected
    assert loads(data=doc) == expected
    # Wrong arguments, on purpose: the runtime's TypeErrors are what is tested.
    with pytest.raises(TypeError, match="not int"):
        loads(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        loads()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        loads(doc, doc)  # type: ignore[call-arg]


def test_loads_big_document_with_big_int() -> None:
    # The big-int fallback keeps everything else exact too.
    doc = {"n": 10**30, "f": [0.1, -0.0, 1e300], "s": "é\n", "l": [{"x": None}] * 3}
    text = json.dumps(doc)
    assert same(loads(text), json.loads(text))


def test_depth_limit() -> None:
    ok = "[" * 1024 + "]" * 1024
    assert dumps(loads(ok)) == ok.encode()
    # Integers beyond 64 bits go through json.loads, bounded by the interpreter's recursion
    # limit: deep documents holding them fail cleanly (a documented limitation).
    big = "[" * 500 + "1" * 30 + "]" * 500
    assert dumps(loads(big)) == big.encode()
    deep_big = "[" * 1020 + "1" * 30 + "]" * 1020
    if sys.version_info < (3, 12):
        with pytest.raises(JSONDecodeError, match="nested too deeply"):
            loads(deep_big)
    else:  # 3.12's json is bounded by the C stack instead, and reads it
        assert dumps(loads(deep_big)) == deep_big.encode()
    # Each value counts as a level: 1024 arrays can hold nothing more.
    for inner in ("1", "{}", "1" * 30):
        with pytest.raises(JSONDecodeError, match="depth") as info:
            loads("[" * 1024 + inner + "]" * 1024)
        assert info.value.pos == 1024
    with pytest.raises(JSONDecodeError, match="depth"):
        loads("[" * 1023 + '{"a":1}' + "]" * 1023)
    assert dumps(loads("[" * 1023 + "{}" + "]" * 1023)) == b"[" * 1023 + b"{}" + b"]" * 1023
    with pytest.raises(JSONDecodeError, match="depth") as info:
        loads("[" * 1025 + "]" * 1025)
    assert info.value.pos == 1024
    deep: list[Any] = [[]]
    for _ in range(1022):
        deep = [deep]
    assert dumps(deep) == b"[" * 1024 + b"]" * 1024
    with pytest.raises(ValueError, match="1024"):
        dumps([deep])


# A table of bad documents: (document, message fragment, position).
BAD_DOCS = [
    (b"", "Expecting value", 0),
    (b"   ", "Expecting value", 3),
    (b"[1,2", "Expecting ',' delimiter", 4),
    (b"[1,]", "Expecting value", 3),
    (b'{"a" 1}', "Expecting ':' delimiter", 5),
    (b"{'a': 1}", "Expecting property name", 1),
    (b'{"a":1,}', "Expecting property name", 7),
    (b"[1] x", "Extra data", 4),
    (b"{} {}", "Extra data", 3),
    (b"NaN", "NaN and Infinity", 0),
    (b"[-Infinity]", "NaN and Infinity", 1),
    (b'{"a": Infinity}', "NaN and Infinity", 6),
    (b"01", "Extra data", 1),
    (b"[1.]", "Invalid number", 1),
    (b"[1e+]", "Invalid number", 1),
    (b"[-]", "Expecting value", 1),
    (b"[+1]", "Expecting value", 1),
    (b'"abc', "Unterminated string", 0),
    (b'["a\tb"]', "Invalid control character", 3),
    (b'["\\x41"]', "Invalid \\escape", 2),
    (b'["\\u12G4"]', "Invalid \\uXXXX escape", 2),
    (b'["\xff"]', "Invalid UTF-8", 2),
    (b'["\xc0\xaf"]', "Invalid UTF-8", 2),
    (b'["\xed\xa0\x80"]', "Invalid UTF-8", 2),
    (b'["\xe9"]', "Invalid UTF-8", 2),
    (b"\xef\xbb\xbf{}", "Expecting value", 0),
    (b"[tru]", "Expecting value", 1),
    (b"[1 2]", "Expecting ',' delimiter", 3),
    (b"[\x00]", "Expecting value", 1),
    (b"[1]\x00", "Extra data", 3),
    (b'{"a":[1,{"b":2]}', "Expecting ',' delimiter", 14),
    (b"[123456789012345678901234567890", "Expecting ',' delimiter", 31),
    (b"[123456789012345678901234567890, nan]", "Expecting value", 33),
]


@pytest.mark.parametrize(("doc", "message", "pos"), BAD_DOCS)
def test_bad_documents(doc: bytes, message: str, pos: int) -> None:
    with pytest.raises(JSONDecodeError) as info:
        loads(doc)
    e = info.value
    assert isinstance(e, json.JSONDecodeError) and isinstance(e, ValueError)
    assert message in e.msg
    assert e.pos == pos
    assert f"(char {pos})" in str(e)


def test_bad_document_position_counts_characters() -> None:
    with pytest.raises(JSONDecodeError) as info:
        loads('{"é😀": x}'.encode())
    assert info.value.pos == 7
    assert (info.value.lineno, info.value.colno) == (1, 8)
    with pytest.raises(JSONDecodeError) as info:
        loads(b'{\n  "a": [1,\n  2,,]}')
    assert (info.value.lineno, info.value.colno) == (3, 5)


def test_loads_str_with_lone_surrogate() -> None:
    with pytest.raises(JSONDecodeError, match="surrogate") as info:
        loads('["ab\ud800"]')
    assert info.value.pos == 4


# --- dumps ------------------------------------------------------------------------------------


class Color(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float, enum.Enum):
    HALF = 0.5


Point = collections.namedtuple("Point", "x y")


class MyList(list[Any]):
    pass


class MyDict(dict[str, Any]):
    pass


class MyStr(str):
    pass


class MyInt(int):
    pass


SAMPLES = [
    None,
    True,
    False,
    0,
    -1,
    2**63 - 1,
    -(2**63),
    2**63,
    2**64,
    -(2**200),
    10**300,
    0.0,
    -0.0,
    1.0,
    0.1,
    1e16,
    1e15,
    123456789012345680.0,
    1e-4,
    1e-5,
    1.5e-7,
    5e-324,
    1.7976931348623157e308,
    -2.2250738585072014e-308,
    1 / 3,
    100.0,
    1e22,
    12345.678,
    "",
    "abc",
    "é",
    "😀",
    "\x00\x01\x1f\x7f",
    '"\\/',
    "\b\f\n\r\t",
    "\u2028\u2029",
    "a" * 100,
    "é\n" * 500,
    [],
    (),
    {},
    [1, [2, [3]]],
    (1, "a"),
    {"a": {"b": [None]}},
    {1: 1, 2.5: 2, True: 3, None: 4, -(10**30): 5, float("1e16"): 6},  # noqa: F601 - kept as written
    Color.RED,
    Level.HIGH,
    Ratio.HALF,
    Point(1, 2),
    MyList([1, 2]),
    MyDict(a=1),
    MyStr("s"),
    MyInt(7),
    collections.OrderedDict([("z", 1), ("a", 2)]),
    {Color.RED: 1, Level.HIGH: 2, MyStr("k"): 3},
]


@pytest.mark.parametrize("obj", SAMPLES, ids=repr)
def test_dumps_like_stdlib(obj: Any) -> None:
    assert dumps(obj) == ref_dumps(obj)
    try:
        expected = ref_dumps(obj, sort_keys=True)
    except TypeError:  # keys of mixed types do not sort
        with pytest.raises(TypeError, match="not supported between"):
            dumps(obj, sort_keys=True)
    else:
        assert dumps(obj, sort_keys=True) == expected


def test_dumps_sort_keys_by_code_point() -> None:
    obj = {"b": 1, "a": {"z": 0, "é": 1, "Z": 2, "😀": 3, "\uffff": 4}, "A": [{"y": 1, "x": 2}]}
    assert dumps(obj, sort_keys=True) == ref_dumps(obj, sort_keys=True)
    assert dumps(obj, sort_keys=False) == ref_dumps(obj)


def test_dumps_default() -> None:
    class Thing:
        pass

    def default(o: object) -> object:
        if isinstance(o, Thing):
            return {"thing": [1, Thing2()]}
        if isinstance(o, Thing2):
            return "two"
        raise TypeError("nope")

    class Thing2:
        pass

    obj = [Thing(), {"k": Thing()}]
    assert dumps(obj, default=default) == ref_dumps(obj, default=default)
    assert dumps(obj=obj, default=default) == ref_dumps(obj, default=default)
    assert dumps(1, default=None) == b"1"
    with pytest.raises(TypeError, match="nope"):
        dumps(object(), default=default)


def test_dumps_reentrant_from_default() -> None:
    # default() may itself call dumps: the inner call must not clobber the outer buffer.
    for obj in ({"a": [1, 2, {3}], "b": "x" * 1000}, {"b": "x" * 10_000, "a": [set(range(3000)), {5}]}):
        got = dumps(obj, default=lambda o: dumps(sorted(o)).decode())
        assert got == ref_dumps(obj, default=lambda o: json.dumps(sorted(o), separators=(",", ":")))


class Unknown:
    pass


def test_dumps_output_sizes_across_buffer_growth() -> None:
    # Outputs of every size around the first buffer sizes (a few KB: whole, then grown in
    # place), escapes and multi-byte text at the boundaries, then big and small outputs in turn
    # (each starts where the previous one ended).
    for n in [*range(4070, 4110), *range(8170, 8210), 16384, 100_000, 5, 3_000_000, 4500, 0]:
        for obj in ("x" * n, ["é" * (n // 2)], {"k": '"\\\n' * (n // 4)}, list(range(n // 6))):
            assert dumps(obj) == ref_dumps(obj)
            line = mcp_native.jsonrpc.encode_request(n, "m", {"p": obj})
            assert line == ref_dumps({"jsonrpc": "2.0", "id": n, "method": "m", "params": {"p": obj}}) + b"\n"
            # The tool response mirrors the text it has written so far into the text block.
            structured = {"p": obj}
            result = {
                "structuredContent": structured,
                "content": [{"type": "text", "text": ref_dumps(structured).decode()}],
            }
            line = mcp_native.Tool("t").encode_response(n, structured)
            assert (
                line == ref_dumps({"jsonrpc": "2.0", "id": n, "result": {**result, "resultType": "complete"}}) + b"\n"
            )


def test_failed_dumps_free_the_partial_output() -> None:
    # Each value fails after 100 KB of text is written: that text must be freed with the error.
    big = ["x" * 1000] * 100
    deep: list[Any] = []
    for _ in range(2000):
        deep = [deep]

    def refuse(o: object) -> object:
        raise TypeError("refused")

    cases: list[tuple[Callable[[], bytes], type[Exception]]] = [
        (lambda: dumps([*big, float("nan")]), ValueError),
        (lambda: dumps([*big, Unknown()]), TypeError),
        (lambda: dumps([*big, Unknown()], default=refuse), TypeError),
        (lambda: dumps([*big, deep]), ValueError),
        (lambda: mcp_native.jsonrpc.encode_request(1, "m", {"a": big, "b": Unknown()}), TypeError),
    ]
    for call, exc in cases:
        for _ in range(3):  # warm up caches
            with pytest.raises(exc):
                call()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(50):
                with pytest.raises(exc):
                    call()
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert grown < 100_000, grown


# A table of bad values: (object, keyword arguments, exception, message fragment).
BAD_VALUES = [
    (float("nan"), {}, ValueError, "Out of range"),
    ([float("inf")], {}, ValueError, "Out of range"),
    ({"a": -math.inf}, {}, ValueError, "Out of range"),
    ({float("nan"): 1}, {}, ValueError, "Out of range"),
    (Unknown(), {}, TypeError, "Object of type Unknown is not JSON serializable"),
    ({1, 2}, {}, TypeError, "Object of type set is not JSON serializable"),
    (b"bytes", {}, TypeError, "Object of type bytes"),
    ({(1, 2): 3}, {}, TypeError, "keys must be str, int, float, bool or None, not tuple"),
    ({b"k": 3}, {}, TypeError, "not bytes"),
    ({"a": 1, 2: 3}, {"sort_keys": True}, TypeError, "not supported between"),
    ("\ud800", {}, UnicodeEncodeError, "surrogate"),
    ({"\udfff": 1}, {}, UnicodeEncodeError, "surrogate"),
    (10**5000, {}, ValueError, "digits"),
    (Unknown(), {"default": lambda o: o}, ValueError, "Circular reference"),
]


@pytest.mark.parametrize(("obj", "kw", "exc", "message"), BAD_VALUES, ids=lambda v: type(v).__name__)
def test_dumps_bad_values(obj: Any, kw: dict[str, Any], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc, match=message):
        dumps(obj, **kw)
    # The standard library raises too (its depth limit aside).
    with pytest.raises((exc, RecursionError)):
        ref_dumps(obj, **kw).decode()


class _Model(pydantic.BaseModel):
    a: int


@dataclasses.dataclass
class _Record:
    a: int


def test_dumps_suggests_the_way_out_for_models_and_dataclasses() -> None:
    # The json module's message, then how to turn the value into JSON-native data.
    with pytest.raises(TypeError) as info:
        dumps({"rows": [_Model(a=1)]})
    assert str(info.value) == (
        "Object of type _Model is not JSON serializable (a pydantic model: pass "
        'model.model_dump(mode="json"), or default=lambda m: m.model_dump(mode="json"))'
    )
    assert dumps(_Model(a=1), default=lambda m: m.model_dump(mode="json")) == b'{"a":1}'
    with pytest.raises(TypeError) as info:
        dumps(_Record(1))
    assert str(info.value) == (
        "Object of type _Record is not JSON serializable (a dataclass: pass dataclasses.asdict(obj), "
        "or default=dataclasses.asdict)"
    )
    assert dumps([_Record(1)], default=dataclasses.asdict) == b'[{"a":1}]'
    # Other types (the dataclass's class itself among them) keep the plain message.
    for obj, name in ((_Record, "type"), (object(), "object")):
        with pytest.raises(TypeError) as info:
            dumps(obj)
        assert str(info.value) == f"Object of type {name} is not JSON serializable"


def test_dumps_circular() -> None:
    a: list[Any] = []
    a.append(a)
    d: dict[str, Any] = {}
    d["d"] = [d]
    for obj in (a, d, [1, {"x": a}]):
        with pytest.raises(ValueError, match="Circular reference"):
            dumps(obj)
        with pytest.raises(ValueError):
            ref_dumps(obj)


def test_dumps_bad_arguments() -> None:
    # Wrong arguments, on purpose: the runtime's TypeErrors are what is tested.
    with pytest.raises(TypeError, match="unexpected keyword argument 'separators'"):
        dumps(1, separators=(",", ":"))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing required argument"):
        dumps()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        dumps(1, None)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for argument 'obj'"):
        dumps(1, obj=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="multiple values for argument 'data'"):
        loads("1", data="2")  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'cls'"):
        loads("1", cls=None)  # type: ignore[call-arg]


def test_dumps_list_mutated_by_default() -> None:
    items: list[Any] = [Unknown(), "tail"]

    def default(o: object) -> str:
        items.clear()
        return "gone"

    assert dumps(items, default=default) == b'["gone"]'


def test_threads_share_nothing_visible() -> None:
    docs = [{"i": i, "s": "x" * i, "l": list(range(i))} for i in range(200)]

    def work(out: list[bool]) -> None:
        for d in docs:
            out.append(loads(dumps(d)) == d)

    results: list[bool] = []
    threads = [threading.Thread(target=work, args=(results,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 800 and all(results)


def test_exported() -> None:
    assert "dumps" in mcp_native.__all__ and "loads" in mcp_native.__all__
    assert mcp_native.dumps is dumps and mcp_native.loads is loads


def test_reentrant_loads_from_a_finalizer() -> None:
    # Building objects can start a garbage collection whose finalizers run Python code; a loads
    # there must not disturb the parser of the loads in progress.
    import gc

    seen = []

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            seen.append(loads(b'{"inner":[1,2,3],"k":"v"}'))

    doc = {"items": [{"id": i, "name": f"n{i}", "tags": ["a", "b"]} for i in range(300)]}
    data = dumps(doc)
    old = gc.get_threshold()
    gc.set_threshold(1)
    try:
        for _ in range(20):
            Cycle()
            assert loads(data) == doc
    finally:
        gc.set_threshold(*old)
        gc.collect()
    assert seen and all(s == {"inner": [1, 2, 3], "k": "v"} for s in seen)


def test_loads_text_at_the_end_of_a_mapping() -> None:
    # The text is parsed in place when simdjson's read-ahead stays within its page, else copied.
    import mmap

    doc = b'{"k":[1,2.5,"v"],"n":null}'
    with mmap.mmap(-1, mmap.PAGESIZE) as m:
        for end in (mmap.PAGESIZE, mmap.PAGESIZE - 1, mmap.PAGESIZE - 63, mmap.PAGESIZE - 64, mmap.PAGESIZE - 65, 200):
            m[end - len(doc) : end] = doc
            view = memoryview(m)[end - len(doc) : end]
            try:
                assert loads(view) == {"k": [1, 2.5, "v"], "n": None}
                m[end - 1 : end] = b"x"  # now invalid, and the error is found at the end
                with pytest.raises(JSONDecodeError) as info:
                    loads(view)
                assert info.value.pos == len(doc) - 1
            finally:
                view.release()
            m[end - len(doc) : end] = b" " * len(doc)


class Attrs:
    def __init__(self, n: int) -> None:
        self.a, self.b, self.c = n, str(n), [n]


def dict_kinds() -> list[dict[Any, Any]]:
    """Dicts of every table layout CPython has: str keys, other keys, split instance
    attributes, deleted members, tables grown past one-byte indices, emptied ones."""
    holes = {f"k{i}": i for i in range(20)}
    for i in range(0, 20, 3):
        del holes[f"k{i}"]
    mixed = {1: "a", 2.5: "b", None: "c", True: "d", "s": "e"}  # noqa: F601 - kept as written
    del mixed[2.5]
    big = {f"key{i}": [i] for i in range(70000)}
    for i in range(0, 70000, 7):
        del big[f"key{i}"]
    emptied = {"a": 1}
    emptied.clear()
    last_deleted = {"a": 1, "b": 2}
    del last_deleted["b"]
    attrs = vars(Attrs(1))
    grown = vars(Attrs(2))
    grown["extra"] = 1  # may turn the split table into a combined one
    return [holes, mixed, big, emptied, last_deleted, attrs, grown, {}, {"": None}]


@pytest.mark.parametrize(
    "d", dict_kinds(), ids=["holes", "mixed", "big", "emptied", "last_deleted", "attrs", "grown", "empty", "one"]
)
def test_dumps_every_dict_layout(d: dict[Any, Any]) -> None:
    expected = json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode()
    assert dumps(d) == expected
    assert dumps({"x": [d, d]}) == b'{"x":[' + expected + b"," + expected + b"]}"
    if all(isinstance(k, str) for k in d):
        v = mcp_native.Validator({"type": "object", "additionalProperties": {"not": {"type": "boolean"}}})
        assert v.is_valid(d) and not v.is_valid({**d, "zz": True})
        t = mcp_native.Tool(
            "t",
            output_schema={
                "type": "object",
                "properties": {"a": {}},
                "additionalProperties": {"type": ["integer", "string", "array", "null"]},
            },
        )
        line = t.encode_response(1, d)
        assert json.loads(line)["result"]["structuredContent"] == d


@pytest.mark.parametrize("grow", [0, 5, 5000])
def test_dumps_survives_default_that_mutates_the_dict(grow: int) -> None:
    # default() may change the dict being written (resize, delete, clear); the walk re-reads the
    # table at every member, as PyDict_Next does, and the output stays valid JSON.
    d = {"a": object(), "b": 1, "c": [object()]}

    def default(o: object) -> str:
        d.clear()
        d.update({f"x{i}": i for i in range(grow)})
        return "z"

    out = dumps(d, default=default)
    assert json.loads(out)["a"] == "z"
    attrs = vars(Attrs(3))
    attrs["b"] = object()

    def default_attrs(o: object) -> str:
        attrs.pop("a", None)
        attrs["new"] = 1
        return "q"

    assert json.loads(dumps(attrs, default=default_attrs))["b"] == "q"
