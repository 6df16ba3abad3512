"""Server-Sent Events for MCP's Streamable HTTP transport.

``encode_event`` writes one event; ``Decoder`` parses an event stream incrementally following the
WHATWG HTML "event stream interpretation" rules exactly: UTF-8 decoding with replacement, one
leading BOM ignored, ``\\r\\n``/``\\r``/``\\n`` line ends (also split across chunks), comments,
one space after the colon stripped, multi-line ``data``, ``id`` ignored when it contains NUL and
kept across events, ``retry`` only when all ASCII digits, dispatch on a blank line, no dispatch
of an event without data, and an unfinished event at the end of the stream discarded.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

__all__ = ["Decoder", "Event", "encode_event"]

_EOL = re.compile(r"\r\n|\r|\n")
_EOL_BYTES = re.compile(rb"\r\n|\r|\n")
_DIGITS = re.compile(r"[0-9]+")


class Event(NamedTuple):
    """A dispatched event. ``id`` is the stream's last event ID at dispatch ("" if none was
    set); ``retry`` is the stream's reconnection time in milliseconds (None until a valid
    ``retry`` field arrives). Both persist across events, as in the WHATWG model."""

    event: str
    data: str
    id: str = ""
    retry: int | None = None


def encode_event(
    data: bytes | bytearray | memoryview,
    *,
    event: str = "message",
    id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """One event, ending in a blank line: ``event``, then ``id`` and ``retry`` if given, then one
    ``data:`` line per line of ``data`` (any of ``\\r\\n``, ``\\r``, ``\\n`` separates lines, so
    the decoded data has ``\\n`` where ``data`` had any line end). ``data`` must be UTF-8;
    ``event`` and ``id`` may not contain line ends (nor ``id`` a NUL, which makes readers ignore it).
    """
    if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    data = bytes(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"data is not valid UTF-8 at byte {e.start}") from e
    out = [b"event: ", _field("event", event), b"\n"]
    if id is not None:
        value = _field("id", id)
        if b"\0" in value:
            raise ValueError("id may not contain NUL characters (readers ignore such ids)")
        out += [b"id: ", value, b"\n"]
    if retry is not None:
        if not isinstance(retry, int) or isinstance(retry, bool) or retry < 0:
            raise ValueError(f"retry must be a non-negative int (milliseconds), not {retry!r}")
        out += [b"retry: ", str(retry).encode(), b"\n"]
    for line in _EOL_BYTES.split(data):
        out += [b"data: ", line, b"\n"]
    out.append(b"\n")
    return b"".join(out)


def _field(name: str, value: object) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if "\n" in value or "\r" in value:
        raise ValueError(f"{name} may not contain line breaks: {value!r}")
    return value.encode("utf-8")


class Decoder:
    """Incremental event stream parser: ``feed(chunk)`` returns the events that ``chunk``
    completes, ``close()`` ends the stream (an unfinished event is discarded, per the spec)."""

    __slots__ = ("_bom", "_data", "_event", "_last_id", "_pending", "_retry", "_skip_lf", "_utf8")

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._bom = True  # a leading U+FEFF is still to be dropped
        self._pending: list[str] = []  # the start of an incomplete line
        self._skip_lf = False  # the last chunk ended in "\r": a "\n" first is its pair
        self._data: list[str] = []
        self._event = ""
        self._last_id = ""
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str:
        """The last event ID seen (what a reconnection sends as ``Last-Event-ID``)."""
        return self._last_id

    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds, if the stream set one."""
        return self._retry

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Event]:
        if isinstance(chunk, str) or not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise TypeError(f"feed() takes bytes, not {type(chunk).__name__}")
        return self._lines(self._utf8.decode(chunk))

    def close(self) -> list[Event]:
        """Ends the stream. Returns no events: the spec discards an event not ended by a blank
        line. The last event ID and reconnection time are kept; the rest is reset."""
        self._utf8.reset()
        self._bom = True
        self._pending.clear()
        self._skip_lf = False
        self._data.clear()
        self._event = ""
        return []

    def _lines(self, text: str) -> list[Event]:
        if not text:
            return []
        if self._bom:
            self._bom = False
            if text[0] == "\ufeff":
                text = text[1:]
        if self._skip_lf:
            self._skip_lf = False
            if text[:1] == "\n":
                text = text[1:]
        parts = _EOL.split(text)
        if len(parts) == 1:
            if text:
                self._pending.append(text)
            return []
        if self._pending:
            self._pending.append(parts[0])
            parts[0] = "".join(self._pending)
            self._pending.clear()
        if parts[-1]:
            self._pending.append(parts[-1])
        elif text[-1] == "\r":
            self._skip_lf = True
        events: list[Event] = []
        for line in parts[:-1]:
            if not line:
                self._dispatch(events)
            elif line[0] != ":":  # else a comment
                name, colon, value = line.partition(":")
                if colon and value[:1] == " ":
                    value = value[1:]
                self._field(name, value)
        return events

    def _field(self, name: str, value: str) -> None:
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if _DIGITS.fullmatch(value):
                self._retry = int(value)
        # other field names are ignored

    def _dispatch(self, events: list[Event]) -> None:
        if self._data:
            events.append(Event(self._event or "message", "\n".join(self._data), self._last_id, self._retry))
            self._data.clear()
        self._event = ""
