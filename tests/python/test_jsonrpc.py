"""mcp_native.jsonrpc: the NDJSON decoder (everything a peer can send) and the encoders."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcp_native
from mcp_native import jsonrpc
from mcp_native.jsonrpc import (
    INVALID_REQUEST,
    PARSE_ERROR,
    Decoder,
    ErrorResponse,
    Invalid,
    Message,
    Notification,
    Request,
    Response,
)

GOOD = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
GOOD_MSG = Notification("notifications/initialized", None)


# The decoded items are Any to the tests: each test knows which kind of message its line gives
# and reads that kind's fields (check_invalid asserts the kind where it matters).
def decode(data: bytes | bytearray, **kw: Any) -> list[Any]:
    d = Decoder(**kw)
    return d.feed(data) + d.close()


def decode_one(line: bytes, **kw: Any) -> Any:
    out = decode(line + b"\n", **kw)
    assert len(out) == 1, out
    return out[0]


def check_invalid(item: object, code: int, id: object = None, version: str = "2025-11-25") -> None:
    """An Invalid whose response line is exactly the error response it describes."""
    assert isinstance(item, Invalid), item
    assert item.code == code
    assert item.message == {PARSE_ERROR: "Parse error", INVALID_REQUEST: "Invalid Request"}[code]
    assert item.id == id
    assert isinstance(item.error["data"], str) and item.error["data"]
    assert item.response.endswith(b"\n") and item.response.count(b"\n") == 1
    expected: dict[str, Any] = {"jsonrpc": "2.0", "error": item.error}
    if id is not None:
        expected["id"] = id
    elif version in ("2024-11-05", "2025-06-18"):  # the versions whose error responses need an id
        expected["id"] = None
    assert json.loads(item.response) == expected
    assert list(json.loads(item.response)) == [k for k in ("jsonrpc", "id", "error") if k in expected]


# --- classification --------------------------------------------------------------------------


def test_the_four_message_kinds() -> None:
    stream = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":0.5}}\n'
        b'{"jsonrpc":"2.0","id":"req-1","result":{"content":[]}}\n'
        b'{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":[1]}}\n'
        b'{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}\n'
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'
    )
    assert decode(stream) == [
        Request(1, "tools/call", {"name": "add", "arguments": {"a": 1}}),
        Notification("notifications/progress", {"progress": 0.5}),
        Response("req-1", {"content": []}),
        ErrorResponse(2, {"code": -32601, "message": "Method not found", "data": [1]}),
        ErrorResponse(None, {"code": -32700, "message": "Parse error"}),
        ErrorResponse(None, {"code": -32700, "message": "Parse error"}),
    ]


def test_ids_keep_their_type_and_size() -> None:
    assert decode_one(b'{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}').id == -(2**63)
    assert decode_one(b'{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}').id == 2**64 - 1
    assert decode_one(b'{"jsonrpc":"2.0","id":"","method":"m"}').id == ""
    assert decode_one(b'{"jsonrpc":"2.0","id":"\\u00e9\\n","method":"m"}').id == "\xe9\n"
    assert decode_one(b'{"jsonrpc":"2.0","id":0,"result":{}}') == Response(0, {})


def test_unknown_members_are_ignored_and_last_duplicate_wins() -> None:
    assert decode_one(b'{"jsonrpc":"2.0","x":1,"method":"a","method":"b"}') == Notification("b", None)


def test_message_types_are_small_immutable_and_compare_by_type() -> None:
    r = Request(1, "m", {"a": 1})
    assert r == Request(1, "m", {"a": 1}) and r != Request(2, "m", {"a": 1})
    assert repr(r) == "Request(id=1, method='m', params={'a': 1})"
    assert Notification("x", None) != Response("x", None)  # type: ignore[arg-type]
    assert not (Notification("x", None) == Response("x", None))  # type: ignore[arg-type]  # noqa: SIM201 - tests __eq__
    assert Notification("x", None) != ("x", None)
    assert hash(Notification("x", None)) == hash(Notification("x"))
    with pytest.raises(AttributeError):
        r.id = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        r.extra = 1  # type: ignore[attr-defined]
    match decode_one(b'{"jsonrpc":"2.0","id":7,"method":"ping"}'):
        case Request(id=7, method="ping", params=None):
            pass
        case other:
            pytest.fail(f"no match: {other!r}")


# --- everything a peer can send ----------------------------------------------------------------


@pytest.mark.parametrize("version", jsonrpc.SUPPORTED_PROTOCOL_VERSIONS)
def test_bad_json_is_a_parse_error_and_decoding_goes_on(parse_error: bytes, version: str) -> None:
    out = decode(parse_error + b"\n" + GOOD + b"\n", protocol_version=version)
    assert len(out) == 2, out
    check_invalid(out[0], PARSE_ERROR, None, version)
    assert out[1] == GOOD_MSG


@pytest.mark.parametrize("version", jsonrpc.SUPPORTED_PROTOCOL_VERSIONS)
def test_wrong_envelope_is_an_invalid_request_and_decoding_goes_on(
    invalid_request: tuple[bytes, int | str | None], version: str
) -> None:
    line, id = invalid_request
    out = decode(line + b"\n" + GOOD + b"\n", protocol_version=version)
    assert len(out) == 2, out
    check_invalid(out[0], INVALID_REQUEST, id, version)
    assert out[1] == GOOD_MSG


def test_invalid_says_what_is_wrong() -> None:
    assert "batch" in decode_one(b"[]").error["data"]
    assert "boolean" in decode_one(b'{"jsonrpc":"2.0","id":true,"method":"m"}').error["data"]
    assert "null" in decode_one(b'{"jsonrpc":"2.0","id":null,"method":"m"}').error["data"]
    assert '"params"' in decode_one(b'{"jsonrpc":"2.0","method":"m","params":[]}').error["data"]
    assert "UTF-8" in decode_one(b'{"jsonrpc":"2.0","method":"\xff"}').error["data"]
    assert '"jsonrpc"' in decode_one(b'{"method":"m"}').error["data"]


def test_string_id_of_an_invalid_message_is_escaped_in_the_response() -> None:
    item = decode_one(b'{"jsonrpc":"1.0","id":"a\\"b\\\\c\\n\\u0000\xc3\xa9","method":"m"}')
    check_invalid(item, INVALID_REQUEST, 'a"b\\c\n\x00\xe9')


def test_deep_nesting_is_rejected_without_crashing() -> None:
    deep = b'{"jsonrpc":"2.0","method":"m","params":{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    out = decode(deep + b"\n" + GOOD + b"\n" + b"{" * 100_000 + b"\n")
    check_invalid(out[0], PARSE_ERROR)
    assert "deep" in out[0].error["data"]
    assert out[1] == GOOD_MSG
    check_invalid(out[2], PARSE_ERROR)
    # Nesting within simdjson's limit decodes.
    ok = b'{"jsonrpc":"2.0","method":"m","params":{"a":' + b"[" * 1000 + b"]" * 1000 + b"}}"
    params = decode_one(ok).params
    depth = 0
    node = params["a"]
    while node:
        node, depth = node[0], depth + 1
    assert depth == 999


def big_line(n: int) -> bytes:
    """A notification line of exactly n bytes."""
    head = b'{"jsonrpc":"2.0","method":"m","params":{"s":"'
    tail = b'"}}'
    return head + b"x" * (n - len(head) - len(tail)) + tail


def test_ten_megabyte_lines_under_and_over_the_limit() -> None:
    ten_mb = big_line(10 * 1024 * 1024)
    ok = decode(ten_mb + b"\n" + GOOD + b"\n", max_message_bytes=len(ten_mb))
    assert len(ok) == 2 and ok[0].params["s"] == "x" * ten_mb.count(b"x") and ok[1] == GOOD_MSG
    over = decode(ten_mb + b"\r\n" + GOOD + b"\n", max_message_bytes=len(ten_mb) - 1)
    assert len(over) == 2
    check_invalid(over[0], INVALID_REQUEST)
    assert str(len(ten_mb) - 1) in over[0].error["data"]
    assert over[1] == GOOD_MSG


def test_an_oversized_line_is_reported_early_and_never_buffered() -> None:
    d = Decoder(max_message_bytes=1000)
    first = d.feed(b'{"jsonrpc":"2.0","method":"m","params":{"s":"' + b"y" * 900)
    assert first == [] and d.pending_bytes > 900
    reported = d.feed(b"y" * 200)
    assert len(reported) == 1
    check_invalid(reported[0], INVALID_REQUEST)
    for _ in range(2000):  # 64 MB more of the same line: skipped, not held
        assert d.feed(b"z" * 32768) == []
        assert d.pending_bytes == 0
    assert d.feed(b'"}}\n' + GOOD + b"\n") == [GOOD_MSG]
    assert d.close() == []


def test_limit_counts_the_line_without_its_line_ending() -> None:
    line = big_line(100)
    for ending in (b"\n", b"\r\n"):
        assert decode(line + ending, max_message_bytes=100)[0].params is not None
        check_invalid(decode(line + ending, max_message_bytes=99)[0], INVALID_REQUEST)
    # "\r" and "\n" in separate chunks, the line exactly at the limit.
    d = Decoder(max_message_bytes=100)
    assert d.feed(line + b"\r") == []
    assert d.feed(b"\n") == decode(line + b"\n") and d.close() == []


def test_line_endings_blank_lines_and_last_line_at_close() -> None:
    stream = b"\n\r\n \t \r\n" + GOOD + b"\r\n\r\n\n" + GOOD + b"\n\n" + GOOD
    d = Decoder()
    assert d.feed(stream) == [GOOD_MSG, GOOD_MSG]
    assert d.pending_bytes == len(GOOD)
    assert d.close() == [GOOD_MSG]
    assert d.close() == []
    # The decoder is reusable after close().
    assert d.feed(GOOD + b"\n") == [GOOD_MSG]
    # A last line that is broken is answered at close() too; a blank one is not.
    assert decode(b"\r\n   ") == []
    check_invalid(decode(GOOD + b"\n{")[1], PARSE_ERROR)


STREAM = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t\\u00e9","arguments":{"x":[1,2.5e3,null]}}}\r\n'
    b"\n"
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n'
    b"{oops\n"
    b'[{"jsonrpc":"2.0","id":9,"method":"m"}]\n'
    b'{"jsonrpc":"2.0","id":"r\xc3\xa9","result":{"ok":true}}\r\n'
    b'{"jsonrpc":"2.0","id":true,"method":"m"}\n'
    b'{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad \\"x\\""}}'
)


def test_every_split_in_two_and_three_gives_the_single_feed_output() -> None:
    whole = decode(STREAM)
    assert [type(m).__name__ for m in whole] == [
        "Request", "Notification", "Invalid", "Invalid", "Response", "Invalid", "ErrorResponse",
    ]  # fmt: skip
    n = len(STREAM)
    for i in range(n + 1):
        d = Decoder()
        assert d.feed(STREAM[:i]) + d.feed(STREAM[i:]) + d.close() == whole, i
    for i in range(0, n + 1, 3):
        for j in range(i, n + 1):
            d = Decoder()
            got = d.feed(STREAM[:i]) + d.feed(STREAM[i:j]) + d.feed(STREAM[j:]) + d.close()
            assert got == whole, (i, j)


def test_byte_at_a_time() -> None:
    d = Decoder()
    out = []
    for i in range(len(STREAM)):
        out += d.feed(STREAM[i : i + 1])
    assert out + d.close() == decode(STREAM)


def test_feed_takes_any_bytes_like_object_but_not_str() -> None:
    assert decode(bytearray(GOOD + b"\n")) == [GOOD_MSG]
    d = Decoder()
    assert d.feed(memoryview(GOOD + b"\n")) == [GOOD_MSG]
    with pytest.raises(TypeError, match="bytes"):
        d.feed(GOOD.decode() + "\n")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        d.feed(123)  # type: ignore[arg-type]


def test_constructor_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="max_message_bytes"):
        Decoder(max_message_bytes=0)
    with pytest.raises(TypeError, match="max_message_bytes"):
        Decoder(max_message_bytes=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="protocol_version"):
        Decoder(protocol_version="2024-11-04")
    with pytest.raises(ValueError, match="batches"):  # 2025-03-26 has them; the decoder reads lines
        Decoder(protocol_version="2025-03-26")
    with pytest.raises(TypeError):
        Decoder(1000)  # type: ignore[call-arg]
    d = Decoder(max_message_bytes=5000, protocol_version="2025-06-18")
    assert (d.max_message_bytes, d.protocol_version) == (5000, "2025-06-18")
    assert repr(d) == "Decoder(max_message_bytes=5000, protocol_version='2025-06-18')"


def test_error_codes() -> None:
    assert (jsonrpc.PARSE_ERROR, jsonrpc.INVALID_REQUEST, jsonrpc.METHOD_NOT_FOUND) == (-32700, -32600, -32601)
    assert (jsonrpc.INVALID_PARAMS, jsonrpc.INTERNAL_ERROR, jsonrpc.URL_ELICITATION_REQUIRED) == (
        -32602,
        -32603,
        -32042,
    )


# --- property tests against the standard library ------------------------------------------------

# Integers within 64 bits and text without lone surrogates: what simdjson represents (see the
# known limitation in the module docs); everything else of JSON.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]))
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"]), max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)
ids = st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.text(st.characters(exclude_categories=["Cs"]))
objects = st.dictionaries(st.text(st.characters(exclude_categories=["Cs"]), max_size=10), json_values, max_size=6)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    kind = draw(st.sampled_from(["request", "notification", "response", "error"]))
    method = draw(st.text(st.characters(exclude_categories=["Cs"]), max_size=20))
    params = draw(st.none() | objects)
    if kind == "request":
        return Request(draw(ids), method, params)
    if kind == "notification":
        return Notification(method, params)
    if kind == "response":
        return Response(draw(ids), draw(objects))
    error = {
        "code": draw(st.integers(-(2**63), 2**63 - 1)),
        "message": draw(st.text(max_size=10).filter(lambda s: s.isprintable())),
    }
    return ErrorResponse(draw(ids | st.none()), error)


def stdlib_line(m: Message) -> bytes:
    """The reference encoding: json.dumps with the envelope, in a random-ish member order."""
    if isinstance(m, Request):
        obj: dict[str, Any] = {"method": m.method, "jsonrpc": "2.0", "id": m.id}
    elif isinstance(m, Notification):
        obj = {"jsonrpc": "2.0", "method": m.method}
    elif isinstance(m, Response):
        obj = {"result": m.result, "id": m.id, "jsonrpc": "2.0"}
    else:
        obj = {"jsonrpc": "2.0", "error": m.error, "id": m.id}
    if isinstance(m, (Request, Notification)) and m.params is not None:
        obj["params"] = m.params
    return json.dumps(obj, ensure_ascii=False).encode()


def our_line(m: Message) -> bytes:
    if isinstance(m, Request):
        return jsonrpc.encode_request(m.id, m.method, m.params)
    if isinstance(m, Notification):
        return jsonrpc.encode_notification(m.method, m.params)
    if isinstance(m, Response):
        return jsonrpc.encode_response(m.id, m.result)
    return jsonrpc.encode_error(m.id, m.error["code"], m.error["message"])


@settings(max_examples=300, deadline=None)
@given(st.lists(messages(), min_size=1, max_size=6), st.data())
def test_decoded_messages_equal_the_stdlib_reference(msgs: list[Message], data: st.DataObject) -> None:
    stream = b"".join(stdlib_line(m) + data.draw(st.sampled_from([b"\n", b"\r\n", b"\n\n"])) for m in msgs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=4)))
    d = Decoder()
    out: list[Message] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        out += d.feed(stream[a:b])
    out += d.close()
    expected = [json.loads(stdlib_line(m)) for m in msgs]  # the stdlib's view of the same lines
    assert out == msgs
    for got, ref in zip(out, expected, strict=True):
        body = {Request: "params", Notification: "params", Response: "result", ErrorResponse: "error"}[type(got)]
        assert getattr(got, body) == ref.get(body)


@settings(max_examples=300, deadline=None)
@given(messages())
def test_encoders_match_the_stdlib_and_round_trip(m: Message) -> None:
    line = our_line(m)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    ref = json.loads(stdlib_line(m))
    if isinstance(m, ErrorResponse) and m.id is None:
        del ref["id"]  # an unknown id is left out
    assert json.loads(line) == ref
    assert line == json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
    assert decode(line) == [m]


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 200))
def test_arbitrary_bytes_never_raise_and_split_anywhere(blob: bytes, cut: int) -> None:
    whole = decode(blob)
    d = Decoder()
    assert d.feed(blob[:cut]) + d.feed(blob[cut:]) + d.close() == whole
    for item in whole:
        assert isinstance(item, (Request, Notification, Response, ErrorResponse, Invalid))
        if isinstance(item, Invalid):
            assert json.loads(item.response)["error"] == item.error


# --- encoders ----------------------------------------------------------------------------------


def test_encoders_write_compact_lines_in_envelope_order() -> None:
    assert jsonrpc.encode_request(1, "tools/call", {"name": "x"}) == (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}\n'
    )
    assert jsonrpc.encode_request("a", "ping") == b'{"jsonrpc":"2.0","id":"a","method":"ping"}\n'
    assert jsonrpc.encode_notification("n", params={"x": "\n\u2028"}) == (
        b'{"jsonrpc":"2.0","method":"n","params":{"x":"\\n\xe2\x80\xa8"}}\n'
    )
    assert jsonrpc.encode_response(2**70, {}) == b'{"jsonrpc":"2.0","id":1180591620717411303424,"result":{}}\n'
    assert jsonrpc.encode_error(7, -32601, "Method not found") == (
        b'{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}\n'
    )
    assert jsonrpc.encode_error(None, -32700, "Parse error", data={"at": 3}) == (
        b'{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":{"at":3}}}\n'
    )
    assert jsonrpc.encode_error(id=1, code=1, message="m", data=[None]).endswith(b'"data":[null]}}\n')


@pytest.mark.parametrize(
    ("call", "exc", "field"),
    # Wrong arguments, on purpose: the runtime's errors are what is tested.
    [
        (lambda: jsonrpc.encode_request(True, "m"), TypeError, "id"),
        (lambda: jsonrpc.encode_request(1.0, "m"), TypeError, "id"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_request(None, "m"), TypeError, "id"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_request([1], "m"), TypeError, "id"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_response(False, {}), TypeError, "id"),
        (lambda: jsonrpc.encode_error(True, 1, "m"), TypeError, "id"),
        (lambda: jsonrpc.encode_request(1, b"m"), TypeError, "method"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_notification(None), TypeError, "method"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_request(1, "m", [1]), TypeError, "params"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_notification("m", "x"), TypeError, "params"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_request(1, "m", {"a": object()}), TypeError, "params"),
        (lambda: jsonrpc.encode_request(1, "m", {1: 2} | {"a": {"b": {2j: 1}}}), TypeError, "params"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_notification("m", {"a": float("inf")}), ValueError, "params"),
        (lambda: jsonrpc.encode_notification("m", {"a": "\ud800"}), ValueError, "params"),
        (lambda: jsonrpc.encode_response(1, None), TypeError, "result"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_response(1, {"a": {1, 2}}), TypeError, "result"),
        (lambda: jsonrpc.encode_error(1, True, "m"), TypeError, "code"),
        (lambda: jsonrpc.encode_error(1, -32600.0, "m"), TypeError, "code"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_error(1, 1, None), TypeError, "message"),  # type: ignore[arg-type]
        (lambda: jsonrpc.encode_error(1, 1, "m", data=float("nan")), ValueError, "data"),
        (lambda: jsonrpc.encode_request(1), TypeError, "method"),  # type: ignore[call-arg]
        (lambda: jsonrpc.encode_request(1, "m", params={}, extra=1), TypeError, "extra"),  # type: ignore[call-arg]
        (lambda: jsonrpc.encode_request(1, "m", {}, 4), TypeError, "takes 3 positional arguments but 4 were given"),  # type: ignore[call-arg]
        (lambda: jsonrpc.encode_response(1, {}, id=2), TypeError, "multiple values"),  # type: ignore[misc]
    ],
)
def test_encoder_arguments_are_checked(call: Callable[[], bytes], exc: type[Exception], field: str) -> None:
    with pytest.raises(exc, match=field):
        call()


def test_encoders_reject_circular_and_too_deep_values() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="params"):
        jsonrpc.encode_request(1, "m", loop)
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ValueError, match="result"):
        jsonrpc.encode_response(1, {"d": deep})


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b'{"jsonrpc":"2.0","method":"m","params":{"a":"\\q"}}', "escape"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"a":"\\ud80"}}', "escape"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"a":"\x01"}}', "control character"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"a":"x}}', "unterminated"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"a":1e}}', "number"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"a":"\\ud800","b":01}}', "delimiter at byte 58"),
    ],
)
def test_bad_strings_and_numbers_are_parse_errors_that_say_why(line: bytes, says: str) -> None:
    out = decode(line + b"\n" + GOOD + b"\n")
    check_invalid(out[0], PARSE_ERROR)
    assert says in out[0].error["data"]
    assert out[1] == GOOD_MSG


# Valid JSON that simdjson cannot represent: the lines decode as loads/json.loads read them.
BEYOND_SIMDJSON = [
    b'{"jsonrpc":"2.0","method":"m","params":{"a":"\\ud800"}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":"x\\udc00\\ud83d\\ude00\\ud83d"}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":123456789012345678901234567890,"b":-18446744073709551617}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":1e400,"b":[-1E+400,1e-400,0.5]}}',
    b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m\\udfff"}',
    b'{"jsonrpc":"2.0" , "id" : "r\\ud800" , "method" : "tools/call" , "params" : {"n":1e999} }',
    b'{"jsonrpc":"2.0","id":18446744073709551616,"result":{"\\ud800":2e308}}',
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-99999999999999999999,"message":"\\udbff"}}',
    b'{"id":"\\ud800","jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":"b\\udc00"}',
]


@pytest.mark.parametrize("line", BEYOND_SIMDJSON)
@pytest.mark.parametrize("version", jsonrpc.SUPPORTED_PROTOCOL_VERSIONS)
def test_valid_json_simdjson_cannot_represent_is_decoded(line: bytes, version: str) -> None:
    out = decode(line + b"\n" + GOOD + b"\n", protocol_version=version)
    assert out == [reference_classify(json.loads(line)), GOOD_MSG]
    assert out[0] == reference_classify(mcp_native.loads(line))


@pytest.mark.parametrize(
    ("line", "id", "data"),
    [
        (b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":5}', 123456789012345678901234567890, "method"),
        (b'{"jsonrpc":"2.0","id":"a\\ud800","method":"m","params":[1e400]}', "a\ud800", "params"),
        (b'{"jsonrpc":"1.0","id":"\\udc00\\u0041","result":{}}', "\udc00A", "jsonrpc"),
        (b'{"jsonrpc":"2.0","id":1e400,"method":"m"}', None, "not a number with a fraction"),
        (b'{"jsonrpc":"2.0","id":-1,"result":{"a":"\\ud800"},"error":{}}', -1, "both"),
        (b'["\\ud800"]', None, "batches"),
        (b'"\\ud800"', None, "not a string"),
    ],
)
@pytest.mark.parametrize("version", jsonrpc.SUPPORTED_PROTOCOL_VERSIONS)
def test_invalid_messages_beyond_simdjson_answer_with_the_exact_id(
    line: bytes, id: int | str | None, data: str, version: str
) -> None:
    (got,) = decode(line + b"\n", protocol_version=version)
    check_invalid(got, INVALID_REQUEST, id, version)
    assert data in got.error["data"]
    if isinstance(id, str):  # the id is written back as the peer wrote it
        assert line.split(b'"id":')[1].split(b",")[0] in got.response


def test_lines_too_deep_for_the_fallback_parser_are_parse_errors() -> None:
    # Python's json before 3.12 nests less deeply than simdjson; such lines cannot be read
    # exactly there (3.12's json is bounded by the C stack instead, and reads this one).
    line = b'{"jsonrpc":"2.0","id":"x","method":"m","params":{"a":' + b"[" * 1020 + b'"\\ud800"' + b"]" * 1020 + b"}}"
    out = decode(line + b"\n" + GOOD + b"\n")
    if sys.version_info < (3, 12):
        check_invalid(out[0], PARSE_ERROR, "x")
    else:
        assert isinstance(out[0], jsonrpc.Request) and out[0].id == "x"
        assert out[0].params == json.loads(line)["params"]
    assert out[1] == GOOD_MSG


def _json_test_suite_lines(shared: Path) -> Iterator[tuple[str, bytes]]:
    folder = shared / "json-test-suite" / "test_parsing"
    for path in sorted(folder.glob("*.json")):
        # Newlines are whitespace outside strings and invalid inside: as spaces, one line each.
        doc = path.read_bytes().replace(b"\n", b" ")
        if doc.strip(b" \t\r"):  # a blank line is skipped, not a message
            yield path.name, doc


def test_the_decoder_agrees_with_loads_on_the_json_test_suite(shared: Path) -> None:
    """A line is a parse error exactly when loads rejects it, and otherwise decodes as the
    envelope rules classify what loads returns."""
    checked = 0
    for name, doc in _json_test_suite_lines(shared):
        (got,) = decode(doc + b"\n")
        try:
            value = mcp_native.loads(doc)
        except mcp_native.JSONDecodeError:
            assert isinstance(got, Invalid) and got.code == PARSE_ERROR, name
            continue
        expected = reference_classify(value)
        if isinstance(expected, tuple) and expected[:1] == ("invalid",) and not hasattr(expected, "_fields"):
            check_invalid(got, INVALID_REQUEST, expected[1])
        else:
            assert got == expected, name
        checked += 1
    assert checked > 90


# Every JSON value, including what simdjson cannot represent (sent as ensure_ascii JSON).
wide_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
wide_values = st.recursive(
    wide_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.sampled_from(["2.0", "2.0", "\ud800"]),
            "id": st.integers() | st.text(max_size=5) | st.none() | st.floats(allow_nan=False, allow_infinity=False),
            "method": st.text(max_size=5) | wide_scalars,
            "params": st.dictionaries(st.text(max_size=5), wide_values, max_size=4) | wide_values,
            "result": st.dictionaries(st.text(max_size=5), wide_values, max_size=4) | wide_values,
            "error": st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=5)}) | wide_values,
        },
    ),
    st.sampled_from(jsonrpc.SUPPORTED_PROTOCOL_VERSIONS),
    st.floats(0, 1),
)
def test_every_valid_line_decodes_as_the_reference_classifies_it(obj: Any, version: str, cut: float) -> None:
    line = json.dumps(obj).encode()  # big floats as 1e+300 etc., lone surrogates as \udXXX
    # Whole in one chunk (parsed in place), or split (gathered in the decoder's buffer).
    at = int(cut * len(line))
    d = Decoder(protocol_version=version)
    (got,) = d.feed(line[:at]) + d.feed(line[at:] + b"\n") + d.close()
    expected = reference_classify(json.loads(line))
    if isinstance(expected, tuple) and expected[:1] == ("invalid",) and not hasattr(expected, "_fields"):
        check_invalid(got, INVALID_REQUEST, expected[1], version)
    else:
        assert got == expected


# --- differential test of the envelope rules against a reference written in Python -------------


def _is_id(v: object) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, str)


def reference_classify(obj: object) -> tuple[Any, ...]:
    """The envelope rules: returns the expected message, or ("invalid", id it carries)."""
    if not isinstance(obj, dict):
        return ("invalid", None)
    rid = obj["id"] if "id" in obj and _is_id(obj["id"]) else None
    if not (isinstance(obj.get("jsonrpc"), str) and obj["jsonrpc"] == "2.0"):
        return ("invalid", rid)
    if "method" in obj:
        if not isinstance(obj["method"], str) or "result" in obj or "error" in obj:
            return ("invalid", rid)
        if "params" in obj and not isinstance(obj["params"], dict):
            return ("invalid", rid)
        if "id" not in obj:
            return Notification(obj["method"], obj.get("params"))
        return Request(rid, obj["method"], obj.get("params")) if rid is not None else ("invalid", None)
    if "result" in obj and "error" in obj:
        return ("invalid", rid)
    if "result" in obj:
        if rid is None:
            return ("invalid", None)
        return Response(rid, obj["result"]) if isinstance(obj["result"], dict) else ("invalid", rid)
    if "error" in obj:
        if "id" in obj and obj["id"] is not None and rid is None:
            return ("invalid", None)
        err = obj["error"]
        ok = (
            isinstance(err, dict)
            and isinstance(err.get("code"), int)
            and not isinstance(err["code"], bool)
            and isinstance(err.get("message"), str)
        )
        return ErrorResponse(rid, err) if ok else ("invalid", rid)
    return ("invalid", rid)


ENVELOPE_VALUES: dict[str, list[Any]] = {
    "jsonrpc": ["2.0", "1.0", 2.0, None, ["2.0"]],
    "id": [1, 0, -5, 2**63, 2**64 - 1, "a", "", True, False, 1.5, None, {}, [1]],
    "method": ["tools/call", "", 5, None, ["m"], {}],
    "params": [{}, {"a": [1, None]}, [], [1], None, "x", 3],
    "result": [{}, {"k": "v"}, [], None, 5, "r"],
    "error": [
        {"code": -32601, "message": "m"},
        {"code": 1, "message": "", "data": {"x": 1}},
        {"code": 1.5, "message": "m"},
        {"code": True, "message": "m"},
        {"code": "1", "message": "m"},
        {"message": "m"},
        {"code": 1},
        {"code": 1, "message": None},
        "e",
        None,
        [],
    ],
    "extra": [1, None],
}


@settings(max_examples=2000, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={k: st.sampled_from(v) for k, v in ENVELOPE_VALUES.items()},
    )
    | st.sampled_from([[], [{"jsonrpc": "2.0", "method": "m"}], "s", 1, None, True]),
    st.sampled_from(jsonrpc.SUPPORTED_PROTOCOL_VERSIONS),
)
def test_envelope_rules_match_the_reference(obj: Any, version: str) -> None:
    line = json.dumps(obj).encode()
    (got,) = decode(line + b"\n", protocol_version=version)
    expected = reference_classify(obj)
    if isinstance(expected, tuple) and expected[:1] == ("invalid",) and not hasattr(expected, "_fields"):
        check_invalid(got, INVALID_REQUEST, expected[1], version)
    else:
        assert got == expected


def test_method_names_repeated_and_alternating_across_feeds() -> None:
    # The decoder reuses the last method's str: each message must still get its own name.
    methods = [
        "tools/call",
        "tools/call",
        "tools/list",
        "tools",
        "tools/call",
        "",
        "tools/callx",
        "é/ü",
        "é/ü",
        "tools/call",
    ]
    d = Decoder()
    out = []
    for i, m in enumerate(methods):
        out += d.feed(jsonrpc.encode_request(i, m))
        out += d.feed(jsonrpc.encode_notification(m))
    assert out == [x for i, m in enumerate(methods) for x in (Request(i, m, None), Notification(m, None))]


def test_feed_leaves_the_collector_as_it_found_it() -> None:
    import gc

    line = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":"\\ud800"}]}}\n'
    assert gc.isenabled()
    d = Decoder()
    assert len(d.feed(line * 3)) == 3 and gc.isenabled()
    gc.disable()
    try:
        assert len(d.feed(line) + d.feed(b"{") + d.close()) == 2
        assert not gc.isenabled()
    finally:
        gc.enable()
