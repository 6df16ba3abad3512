"""Coverage-guided Python harnesses (atheris) against the built extension. Each checks
invariants, not only that nothing crashes; a violated one raises, which atheris reports (with the
input saved as crash-*) as a finding.

    python tests/fuzz/py_fuzz.py TARGET [libFuzzer flags] [corpus dirs]

TARGET is one of TARGETS below. scripts/fuzz runs them with the corpus of make_corpus.py.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import sys
from typing import Any

import atheris

with atheris.instrument_imports():
    from mcp_native import JSONDecodeError, SchemaError, Tool, ValidationError, Validator, dumps, jsonrpc, loads, sse

import jsonschema  # the reference verdict; not instrumented (its coverage is not ours)

sys.setrecursionlimit(5000)


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values with their Python types (1 is not 1.0 or True; -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and a == b
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def fuzz_loads(data: bytes) -> None:
    try:
        ours: Any = loads(data)
    except JSONDecodeError as e:
        ours = e
    except ValueError as e:  # CPython's int digit limit, as json raises it
        ours = e
    try:
        ref: Any = json.loads(data.decode("utf-8"), parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        ref = e
    if isinstance(ours, Exception) or isinstance(ref, Exception):
        if "nesting" in str(ours) or isinstance(ref, RecursionError):
            return  # 1024 levels against the interpreter's recursion limit
        if isinstance(ours, Exception) != isinstance(ref, Exception):
            raise AssertionError(f"loads: {ours!r} but json.loads: {ref!r}")
        return
    if not same(ours, ref):
        raise AssertionError(f"loads {data!r}: {ours!r} != {ref!r}")


class Str(str):
    pass


class Int(int):
    pass


class Float(float):
    pass


class Dict(dict):  # type: ignore[type-arg]
    pass


class List(list):  # type: ignore[type-arg]
    pass


def build(fdp: atheris.FuzzedDataProvider, depth: int) -> Any:
    """A Python value from the fuzz input: JSON types, subclasses, odd keys, big ints, NaN."""
    kind = fdp.ConsumeIntInRange(0, 13 if depth < 6 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 80))
    if kind == 3:
        return fdp.ConsumeRegularFloat()
    if kind == 4:
        return fdp.PickValueInList([math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.7976931348623157e308])
    if kind in (5, 6):
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 20))
    if kind == 7:
        return Str(fdp.ConsumeUnicodeNoSurrogates(5))
    if kind == 8:
        return fdp.PickValueInList([Int(fdp.ConsumeInt(4)), Float(fdp.ConsumeRegularFloat())])
    n = fdp.ConsumeIntInRange(0, 4)
    if kind in (9, 10):
        items = [build(fdp, depth + 1) for _ in range(n)]
        return fdp.PickValueInList([items, tuple(items), List(items)])
    d: dict[Any, Any] = Dict() if fdp.ConsumeBool() else {}
    for _ in range(n):
        key = build(fdp, 6) if kind == 11 else fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 8))
        with contextlib.suppress(TypeError):  # an unhashable key
            d[key] = build(fdp, depth + 1)
    if kind == 13 and fdp.ConsumeBool():
        d["self"] = d  # a cycle
    return d


def fuzz_dumps(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    obj = build(fdp, 0)
    try:
        ours: Any = dumps(obj)
    except (TypeError, ValueError) as e:
        ours = e
    try:
        ref: Any = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    except (TypeError, ValueError, RecursionError) as e:
        ref = e
    if isinstance(ours, Exception) or isinstance(ref, Exception):
        if type(ours) is not type(ref) and not (isinstance(ours, ValueError) and isinstance(ref, ValueError)):
            raise AssertionError(f"dumps {obj!r}: {ours!r} but json.dumps: {ref!r}")
        return
    if ours != ref:
        raise AssertionError(f"dumps {obj!r}: {ours!r} != {ref!r}")


DIALECTS = ["2020-12", "2019-09", "draft-07", "draft-06", "draft-04"]
REFERENCE = {"2020-12": jsonschema.Draft202012Validator, "draft-07": jsonschema.Draft7Validator}
# Not compared: regexes (Python's in python-jsonschema, ECMA-262's here), formats, references,
# $schema (its Draft*Validator classes ignore it; we follow it), draft-07's `dependencies` in
# 2020-12 (python-jsonschema ignores it; we apply it, as the official suite's optional
# dependencies-compatibility tests ask) and multipleOf (it divides in floats: 1e308 / 5.5 has
# no fraction, though neither 10**308 nor the double's exact value is a multiple of 5.5).
NOT_COMPARED = (
    '"pattern',
    '"format',
    "$ref",
    "$dynamic",
    "$recursive",
    "$id",
    "$schema",
    '"dependencies"',
    '"multipleOf"',
)


def json_list(data: bytes) -> list[Any] | None:
    """The input as a JSON list of at least two items, or None."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, list) and len(doc) >= 2 else None


def fuzz_validator(data: bytes) -> None:
    # The input is JSON text: [schema, instance, ...] (the corpus holds the official suite's).
    doc = json_list(data)
    if doc is None:
        return
    schema, instance = doc[0], doc[1]
    dialect = DIALECTS[len(data) % 5]
    limits = (
        {
            "max_steps": 1 + len(data) * 37 % 5000,
            "max_instance_depth": 1 + len(data) % 64,
            "max_schema_depth": 1 + len(data) % 300,
        }
        if len(data) % 7 == 0
        else None
    )
    try:
        v = Validator(schema, dialect=dialect, limits=limits, formats=len(data) % 3 == 0)
    except SchemaError:
        return
    try:
        text = dumps(instance)
    except ValueError:  # NaN or an infinity (json.loads reads 1e400 as inf): no JSON text
        text = None
    try:
        ok = v.is_valid(instance)
    except ValidationError as e:  # a limit
        assert e.keyword == "limits", e
        return
    except ValueError:  # a keyword met the non-JSON value
        assert text is None, "is_valid refused a JSON instance"
        return
    if text is None:  # no keyword looked at the non-JSON value: validation only reads what it checks
        return
    assert ok == v.is_valid_json(text), "is_valid and is_valid_json disagree"
    try:
        errors = list(v.iter_errors(instance))
    except ValidationError as e:  # a limit: error collection walks on where is_valid stopped
        assert e.keyword == "limits" and not ok, e
        return
    assert (not errors) == ok, f"is_valid {ok} but {len(errors)} errors"
    try:
        v.validate(instance)
        assert ok
    except ValidationError:
        assert not ok
    ref = REFERENCE.get(dialect)
    if ref is None or limits is not None or any(s in data.decode(errors="replace") for s in NOT_COMPARED):
        return
    try:
        ref.check_schema(schema)
        theirs = ref(schema).is_valid(instance)
    except Exception:  # a schema it cannot take (or a bug of its own): nothing to compare
        return
    if theirs != ok:
        raise AssertionError(f"{dialect}: ours {ok}, python-jsonschema {theirs} for {schema!r} on {instance!r}")


def messages(dec: jsonrpc.Decoder | sse.Decoder, chunks: list[bytes]) -> list[Any]:
    out: list[Any] = []
    for c in chunks:
        out += dec.feed(c)
    return out + dec.close()


def chunked(fdp: atheris.FuzzedDataProvider, data: bytes) -> list[bytes]:
    cuts = sorted(fdp.ConsumeIntInRange(0, len(data)) for _ in range(fdp.ConsumeIntInRange(0, 8)))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def fuzz_jsonrpc(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data[:4])
    limit = 1 + data[0] * 16 if data and data[0] > 200 else 1 << 24
    whole = messages(jsonrpc.Decoder(max_message_bytes=limit), [data])
    pieces = messages(jsonrpc.Decoder(max_message_bytes=limit), chunked(fdp, data))
    if whole != pieces:
        raise AssertionError(f"one chunk: {whole!r}, pieces: {pieces!r}")
    for m in whole:
        if isinstance(m, jsonrpc.Invalid):
            assert loads(m.response)["error"]["code"] == m.code
        elif isinstance(m, jsonrpc.Request):
            assert loads(jsonrpc.encode_request(m.id, m.method, m.params)) == {
                "jsonrpc": "2.0",
                "id": m.id,
                "method": m.method,
                **({} if m.params is None else {"params": m.params}),
            }


def fuzz_sse(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data[:4])
    whole = messages(sse.Decoder(), [data])
    pieces = messages(sse.Decoder(), chunked(fdp, data))
    if whole != pieces:
        raise AssertionError(f"one chunk: {whole!r}, pieces: {pieces!r}")
    for e in whole:  # an event written back reads back the same
        if "\n" not in e.event and "\r" not in e.event and "\0" not in e.id and "\n" not in e.id and "\r" not in e.id:
            again = sse.Decoder().feed(sse.encode_event(e.data.encode(), event=e.event, id=e.id or None))
            assert [(x.event, x.data) for x in again] == [(e.event, e.data)], (e, again)


VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28"]


def fuzz_tool(data: bytes) -> None:
    # JSON text: [definition, structured]
    doc = json_list(data)
    if doc is None:
        return
    version = VERSIONS[len(data) % 3]
    try:
        tool = Tool.from_definition(
            doc[0], protocol_version=version, on_invalid="error_result" if len(data) % 2 else "raise"
        )
    except (TypeError, ValueError):
        return
    structured = doc[1]
    try:
        expected = tool.result(structured)
    except (TypeError, ValueError) as e:
        try:
            tool.encode_response(1, structured)
        except type(e):
            return
        raise AssertionError(f"result raised {e!r}, encode_response did not") from None
    line = tool.encode_response(1, structured)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    back = loads(line)
    assert back["id"] == 1 and back["result"] == expected, (back, expected)
    if not expected.get("isError"):
        tool.check_result(line)
        tool.check_result(expected)


TARGETS = {
    "loads": fuzz_loads,
    "dumps": fuzz_dumps,
    "validator": fuzz_validator,
    "jsonrpc": fuzz_jsonrpc,
    "sse": fuzz_sse,
    "tool": fuzz_tool,
}

if __name__ == "__main__":
    name = sys.argv.pop(1)
    # The extension's C++ is not instrumented (a clang-built module would be): coverage comes
    # from the Python code on both sides, this harness's checks and the reference libraries'.
    atheris.instrument_all()
    atheris.Setup(sys.argv, TARGETS[name])
    atheris.Fuzz()
