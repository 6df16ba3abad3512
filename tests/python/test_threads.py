"""Eight threads share one Validator and one Tool, each with its own Decoder, on valid and
invalid inputs (texts large enough that the *_json paths release the GIL): every result equals
the single-threaded one."""

from __future__ import annotations

import threading
from typing import Any

from mcp_native import Tool, ValidationError, Validator, dumps, jsonrpc, loads, sse

SCHEMA = {
    "type": "object",
    "properties": {
        "rows": {"type": "array", "items": {"$ref": "#/$defs/row"}},
        "tag": {"anyOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "null"}]},
    },
    "required": ["rows"],
    "$defs": {
        "row": {
            "type": "object",
            "properties": {"id": {"type": "integer", "minimum": 0}, "name": {"type": "string"}},
            "required": ["id"],
            "additionalProperties": False,
        }
    },
}


def payload(i: int) -> dict[str, Any]:
    rows: list[dict[str, Any]] = [{"id": j, "name": "n" * 40} for j in range(200)]  # ~10 KB of JSON
    if i % 3 == 1:
        rows[i % 200]["id"] = -1
    if i % 3 == 2:
        rows[i % 200]["extra"] = True
    return {"rows": rows, "tag": None if i % 2 else "abc"}


def run(v: Validator, tool: Tool, cases: list[tuple[int, dict[str, Any]]]) -> list[Any]:
    out: list[Any] = []
    dec = jsonrpc.Decoder()
    sdec = sse.Decoder()
    for i, inst in cases:
        text = dumps(inst)
        out.append(
            (
                v.is_valid(inst),
                v.is_valid_json(text),
                [e.instance_path for e in v.iter_errors_json(text)],
                [e.keyword for e in v.iter_errors(inst)],
            )
        )
        try:
            out.append(tool.encode_response(i, inst))
        except ValidationError as e:
            out.append(e.instance_path)
        line = jsonrpc.encode_request(i, "tools/call", {"name": "t", "arguments": inst})
        # The line fed in pieces, then a broken line: the decoder's state is its own.
        msgs = dec.feed(line[:5000]) + dec.feed(line[5000:] + b'{"jsonrpc":"2.0","id":\n')
        assert isinstance(msgs[0], jsonrpc.Request)
        out.append([type(m).__name__ for m in msgs] + [loads(line)["params"] == msgs[0].params])
        out.append(sdec.feed(sse.encode_event(text)))
    return out


def test_shared_validator_and_tool_in_eight_threads() -> None:
    v = Validator(SCHEMA)
    tool = Tool("t", output_schema=SCHEMA, protocol_version="2025-11-25")
    cases = [(i, payload(i)) for i in range(16)]
    expected = run(v, tool, cases)
    results: dict[int, list[Any]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(k: int) -> None:
        try:
            start.wait()
            for _ in range(2):
                results[k] = run(v, tool, cases[k:] + cases[:k])
                assert results[k] == expected[4 * k :] + expected[: 4 * k]
        except BaseException as e:  # reported below, with its thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(results) == 8


def released_gil_results(v: Validator, tool: Tool, texts: list[bytes], order: list[int]) -> list[Any]:
    """What the paths that release the GIL on large texts (and keep it on small ones) give."""
    out: list[Any] = []
    for i in order:
        text = texts[i]
        out.append(
            (
                i,
                v.is_valid_json(text),
                v.is_valid_json(bytearray(text)),
                v.is_valid_json(text.decode()),
                [(e.keyword, e.instance_path) for e in v.iter_errors_json(memoryview(text))],
                v.is_valid_json(b'{"rows": [{"id": %d}]}' % i),  # small: keeps the GIL
                dumps(loads(text)) == text,
            )
        )
        try:
            out.append(tool.encode_response(i, loads(text)))
        except ValidationError as e:
            out.append(e.instance_path)
        out.append(sse.encode_event(text[:100], id=str(i)))
    return out


def test_sixteen_threads_share_one_validator_tool_and_codec() -> None:
    """Sixteen threads on one Validator and one Tool, the GIL released while each large text is
    parsed and validated (every thread's own parser then): each thread's results, in its own
    order, equal the single-threaded ones."""
    n_threads = 16
    v = Validator(SCHEMA)
    tool = Tool("t", output_schema=SCHEMA, protocol_version="2025-11-25")
    texts = [dumps(payload(i)) for i in range(12)]
    assert all(len(t) > 8192 for t in texts)  # above the size from which the GIL is released
    single = released_gil_results(v, tool, texts, list(range(len(texts))))
    per_text = {single[3 * k][0]: single[3 * k : 3 * k + 3] for k in range(len(texts))}
    errors: list[BaseException] = []
    start = threading.Barrier(n_threads)

    def work(k: int) -> None:
        try:
            order = [(k + j) % len(texts) for j in range(len(texts))]
            start.wait()
            for _ in range(3):
                got = released_gil_results(v, tool, texts, order)
                assert got == [x for i in order for x in per_text[i]]
        except BaseException as e:  # reported below, with its thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # Valid and invalid texts both, or the test proves little.
    assert {single[3 * k][1] for k in range(len(texts))} == {True, False}
