"""mcp_native.sse: one test per rule of the WHATWG event stream interpretation, chunk-split
properties and the round trip with encode_event."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_native.sse import Decoder, Event, encode_event


def parse(stream: bytes) -> list[Event]:
    d = Decoder()
    return d.feed(stream) + d.close()


def datas(stream: bytes) -> list[str]:
    return [e.data for e in parse(stream)]


# --- one test per rule ---------------------------------------------------------------------------


def test_blank_line_dispatches_and_type_defaults_to_message() -> None:
    assert parse(b"data: hello\n\n") == [Event("message", "hello", "", None)]


def test_event_field_sets_the_type_for_one_event_only() -> None:
    assert [e.event for e in parse(b"event: ping\ndata: 1\n\ndata: 2\n\n")] == ["ping", "message"]


def test_empty_event_field_means_message() -> None:
    assert parse(b"event:\ndata: x\n\n")[0].event == "message"


def test_multiple_data_lines_join_with_lf() -> None:
    assert datas(b"data: a\ndata:\ndata: b\n\n") == ["a\n\nb"]


def test_only_the_last_trailing_lf_is_removed() -> None:
    assert datas(b"data: a\ndata\n\n") == ["a\n"]
    assert datas(b"data\ndata\n\n") == ["\n"]


def test_no_dispatch_without_data() -> None:
    assert parse(b"event: x\n\n") == []
    assert parse(b"id: 5\n\n") == []
    assert parse(b"\n\n\n") == []
    # The type buffer is reset even though nothing was dispatched.
    assert parse(b"event: x\n\ndata: y\n\n") == [Event("message", "y", "", None)]


def test_empty_data_is_still_an_event() -> None:
    assert parse(b"data\n\n") == [Event("message", "", "", None)]
    assert parse(b"data:\n\n") == [Event("message", "", "", None)]
    assert parse(b"data: \n\n") == [Event("message", "", "", None)]


def test_one_leading_space_after_the_colon_is_stripped() -> None:
    assert datas(b"data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\n") == ["x", "x", " x", "\tx"]


def test_only_the_first_colon_separates() -> None:
    assert datas(b"data: a:b: c\n\n") == ["a:b: c"]


def test_line_without_colon_is_a_field_with_empty_value() -> None:
    assert datas(b"data\ndata\ndata: x\n\n") == ["\n\nx"]
    assert parse(b"event\ndata: x\n\n")[0].event == "message"


def test_comments_are_ignored() -> None:
    assert parse(b": keep-alive\n:\n:data: no\ndata: yes\n: more\n\n") == [Event("message", "yes", "", None)]


def test_comment_does_not_dispatch() -> None:
    assert parse(b"data: a\n: c\ndata: b\n\n") == [Event("message", "a\nb", "", None)]


def test_unknown_fields_and_wrong_case_are_ignored() -> None:
    assert parse(b"foo: bar\nData: x\nDATA: y\n data: z\ndata: w\n\n") == [Event("message", "w", "", None)]


@pytest.mark.parametrize("eol", [b"\n", b"\r", b"\r\n"])
def test_all_three_line_endings(eol: bytes) -> None:
    stream = eol.join([b"event: e", b"data: a", b"data: b", b"", b"data: c", b"", b""])
    assert parse(stream) == [Event("e", "a\nb", "", None), Event("message", "c", "", None)]


def test_mixed_line_endings_and_cr_cr_is_two_lines() -> None:
    assert parse(b"data: a\r\rdata: b\n\r\n") == [Event("message", "a", "", None), Event("message", "b", "", None)]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    d = Decoder()
    assert d.feed(b"data: a\r") == []
    assert d.feed(b"\n") == []  # the pair of the "\r", not a blank line
    assert d.feed(b"data: b\r") == []
    assert d.feed(b"\r") == [Event("message", "a\nb", "", None)]
    d = Decoder()
    assert d.feed(b"data: a\r\n\r") == [Event("message", "a", "", None)]
    assert d.feed(b"\ndata: b\n\n") == [Event("message", "b", "", None)]


def test_id_sets_the_last_event_id_which_persists() -> None:
    events = parse(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n")
    assert [e.id for e in events] == ["1", "1", "2"]


def test_id_persists_through_undispatched_blocks() -> None:
    d = Decoder()
    assert d.feed(b"id: 7\n\n") == []
    assert d.last_event_id == "7"
    assert d.feed(b"data: x\n\n")[0].id == "7"


def test_empty_id_resets_the_last_event_id() -> None:
    assert [e.id for e in parse(b"id: 1\ndata: a\n\nid\ndata: b\n\nid:\ndata: c\n\n")] == ["1", "", ""]


def test_id_with_nul_is_ignored() -> None:
    events = parse(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n")
    assert [e.id for e in events] == ["1", "1"]


def test_id_keeps_spaces_after_the_first() -> None:
    assert parse(b"id:  a b \ndata: x\n\n")[0].id == " a b "


def test_retry_with_ascii_digits_sets_the_reconnection_time() -> None:
    d = Decoder()
    events = d.feed(b"retry: 3000\ndata: a\n\ndata: b\n\n")
    assert [e.retry for e in events] == [3000, 3000]
    assert d.retry == 3000
    assert d.feed(b"retry: 0\n\n") == [] and d.retry == 0


@pytest.mark.parametrize("value", [b"", b" ", b"10 ", b"-1", b"+1", b"1.5", b"1e3", b"abc", b"\xd9\xa1", b"\xc2\xb2"])
def test_retry_other_than_ascii_digits_is_ignored(value: bytes) -> None:
    d = Decoder()
    d.feed(b"retry: 100\n\n")
    assert d.feed(b"retry: " + value + b"\ndata: x\n\n")[0].retry == 100


def test_bom_at_stream_start_is_ignored_once() -> None:
    assert datas(b"\xef\xbb\xbfdata: a\n\n") == ["a"]
    # A second BOM is part of the first line, making an unknown field name.
    assert datas(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n") == ["b"]
    # A BOM split across chunks is still the stream's first character.
    d = Decoder()
    assert d.feed(b"\xef") == [] and d.feed(b"\xbb") == []
    assert d.feed(b"\xbfdata: a\n\n") == [Event("message", "a", "", None)]
    # Not at the start: kept.
    assert datas(b"data: \xef\xbb\xbfa\n\n") == ["\ufeffa"]


def test_utf8_is_decoded_with_replacement_even_across_chunks() -> None:
    assert datas(b"data: caf\xc3\xa9 \xff\xfe \xe2\x82\n\n") == ["café \ufffd\ufffd \ufffd"]
    d = Decoder()
    assert d.feed(b"data: \xe2\x82") == []
    assert d.feed(b"\xac\n\n") == [Event("message", "€", "", None)]


def test_nul_and_other_characters_in_data_are_kept() -> None:
    assert datas(b"data: a\x00b\x0bc\x0cd\xc2\x85e\xe2\x80\xa8f\n\n") == ["a\x00b\x0bc\x0cd\x85e\u2028f"]


def test_unfinished_event_at_end_of_stream_is_discarded() -> None:
    assert parse(b"data: a\n") == []
    assert parse(b"data: a") == []
    assert parse(b"data: a\n\ndata: b\n") == [Event("message", "a", "", None)]
    d = Decoder()
    assert d.feed(b"data: a\n") == [] and d.close() == []
    assert d.feed(b"data: b\n\n") == [Event("message", "b", "", None)]  # a fresh stream after close()


def test_events_split_across_chunks() -> None:
    d = Decoder()
    out = []
    for piece in [b"ev", b"ent: x\nda", b"ta: 1", b"\ndata: 2\n", b"\n"]:
        out += d.feed(piece)
    assert out == [Event("x", "1\n2", "", None)]


def test_feed_type_is_checked() -> None:
    with pytest.raises(TypeError, match="bytes"):
        Decoder().feed("data: x\n\n")  # type: ignore[arg-type]


# --- encode_event --------------------------------------------------------------------------------


def test_encode_event_layout() -> None:
    assert encode_event(b'{"a":1}') == b'event: message\ndata: {"a":1}\n\n'
    assert encode_event(b"a\nb\r\nc\rd", event="e", id="42", retry=1000) == (
        b"event: e\nid: 42\nretry: 1000\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
    )
    assert encode_event(b"") == b"event: message\ndata: \n\n"
    assert encode_event(bytearray(b"x")) == encode_event(memoryview(b"x")) == encode_event(b"x")


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"data": "text"}, TypeError, "data"),
        ({"data": b"\xff"}, ValueError, "(?i)data: .*utf-8.*position 0"),
        ({"data": b"ok\n\xed\xa0\x80"}, ValueError, "position 3"),
        ({"data": b"x", "event": "\ud800"}, ValueError, "event"),
        ({"data": b"x", "event": "a\nb"}, ValueError, "event"),
        ({"data": b"x", "event": "a\rb"}, ValueError, "event"),
        ({"data": b"x", "event": 1}, TypeError, "event"),
        ({"data": b"x", "id": "1\n"}, ValueError, "id"),
        ({"data": b"x", "id": "1\r"}, ValueError, "id"),
        ({"data": b"x", "id": "1\x00"}, ValueError, "id"),
        ({"data": b"x", "id": 1}, TypeError, "id"),
        ({"data": b"x", "retry": -1}, ValueError, "retry"),
        ({"data": b"x", "retry": True}, ValueError, "retry"),
        ({"data": b"x", "retry": "5"}, ValueError, "retry"),
    ],
)
def test_encode_event_rejects_bad_arguments(kwargs: dict[str, Any], exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        encode_event(**kwargs)


# --- properties ----------------------------------------------------------------------------------

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
field_values = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n\x00"), max_size=10)


@st.composite
def event_args(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "data": draw(texts).encode(),
        "event": draw(field_values),
        "id": draw(st.none() | field_values),
        "retry": draw(st.none() | st.integers(0, 10**12)),
    }


@settings(max_examples=300, deadline=None)
@given(st.lists(event_args(), max_size=6), st.data())
def test_round_trip_through_any_chunking(events: list[dict[str, Any]], data: st.DataObject) -> None:
    stream = b"".join(encode_event(**e) for e in events)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    d = Decoder()
    got: list[Event] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        got += d.feed(stream[a:b])
    got += d.close()
    last_id, retry, expected = "", None, []
    for e in events:
        last_id = e["id"] if e["id"] is not None else last_id
        retry = e["retry"] if e["retry"] is not None else retry
        data_text = e["data"].decode().replace("\r\n", "\n").replace("\r", "\n")
        expected.append(Event(e["event"] or "message", data_text, last_id, retry))
    assert got == expected


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=120), st.lists(st.integers(0, 120), max_size=5))
def test_any_bytes_split_anywhere_give_the_same_events(stream: bytes, cuts: list[int]) -> None:
    whole = parse(stream)
    d = Decoder()
    got = []
    bounds = sorted(min(c, len(stream)) for c in cuts)
    for a, b in zip([0, *bounds], [*bounds, len(stream)], strict=True):
        got += d.feed(stream[a:b])
    assert got + d.close() == whole


def test_every_split_of_a_tricky_stream() -> None:
    stream = (
        b"\xef\xbb\xbf: hi\r\nretry: 50\rid: a\x00b\nid: 9\r\nevent: e\r\ndata: \xe2\x82\xac1\r\rdata\n\n"
        b"data: x\r\ndata:  y\r\n\r\nevent: z\n\ndata: last\n"
    )
    whole = parse(stream)
    assert whole == [Event("e", "€1", "9", 50), Event("message", "", "9", 50), Event("message", "x\n y", "9", 50)]
    for i in range(len(stream) + 1):
        for j in range(i, len(stream) + 1):
            d = Decoder()
            assert d.feed(stream[:i]) + d.feed(stream[i:j]) + d.feed(stream[j:]) + d.close() == whole, (i, j)


def test_large_retry_values_are_exact() -> None:
    assert parse(b"retry: 000123\ndata: x\n\n")[0].retry == 123
    assert parse(b"retry: " + b"9" * 40 + b"\ndata: x\n\n")[0].retry == 10**40 - 1
    assert encode_event(b"x", retry=2**64 - 1).startswith(b"event: message\nretry: 18446744073709551615\n")
    with pytest.raises(ValueError, match="retry"):
        encode_event(b"x", retry=2**64)


def test_encode_event_takes_only_data_by_position() -> None:
    with pytest.raises(TypeError):
        encode_event(b"x", "ping")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword"):
        encode_event(b"x", name="ping")  # type: ignore[call-arg]
    assert encode_event(data=b"x", event="ping", id="") == b"event: ping\nid: \ndata: x\n\n"


def test_decoder_state_is_visible() -> None:
    d = Decoder()
    d.feed(b"id: abc\nretry: 5\n\n")
    assert (d.last_event_id, d.retry) == ("abc", 5)
    assert repr(d) == "Decoder(last_event_id='abc', retry=5)"
    d.close()
    assert (d.last_event_id, d.retry) == ("abc", 5)  # they persist across reconnections


# --- differential test against a whole-stream reference written from the spec text ----------------


def reference_parse(stream: bytes) -> list[Event]:
    """The WHATWG algorithm applied literally to a complete stream: decode UTF-8 with
    replacement, drop one leading BOM, split lines on CRLF/CR/LF (the text after the last line
    end is an unfinished line and is discarded with any pending event), interpret fields."""
    text = stream.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    events: list[Event] = []
    data, event_type, last_id, retry = "", "", "", None
    for line in re.split(r"\r\n|\r|\n", text)[:-1]:
        if line == "":
            if data == "":
                event_type = ""
                continue
            events.append(Event(event_type or "message", data[:-1], last_id, retry))
            data, event_type = "", ""
            continue
        if line.startswith(":"):
            continue
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            event_type = value
        elif name == "data":
            data += value + "\n"
        elif name == "id":
            if "\0" not in value:
                last_id = value
        elif name == "retry" and value and all(c in "0123456789" for c in value):
            retry = int(value)
    return events


TOKENS = [
    b"data",
    b"event",
    b"id",
    b"retry",
    b"Data",
    b"foo",
    b":",
    b": ",
    b" ",
    b"  ",
    b"\r",
    b"\n",
    b"\r\n",
    b"\n\n",
    b"x",
    b"12",
    b"0",
    b"-1",
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xc3\xa9",
    b"\xe2\x82",
    b"\xac",
    b"\xff",
    b"\xed\xa0\x80",
    b"\t",
    b"message",
    b'{"a":1}',
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=60), st.lists(st.integers(0, 400), max_size=6))
def test_decoder_matches_the_reference_for_any_chunking(tokens: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(tokens)
    bounds = sorted(min(c, len(stream)) for c in cuts)
    d = Decoder()
    got = []
    for a, b in zip([0, *bounds], [*bounds, len(stream)], strict=True):
        got += d.feed(stream[a:b])
    assert got + d.close() == reference_parse(stream)
