"""Server-Sent Events for MCP's Streamable HTTP transport.

``encode_event`` writes one event; ``Decoder`` parses an event stream incrementally following the
WHATWG HTML "event stream interpretation" rules exactly: UTF-8 decoding with replacement, one
leading BOM ignored, ``\\r\\n``/``\\r``/``\\n`` line ends (also split across chunks), comments,
one space after the colon stripped, multi-line ``data``, ``id`` ignored when it contains NUL and
kept across events, ``retry`` only when all ASCII digits, dispatch on a blank line, no dispatch
of an event without data, and an unfinished event at the end of the stream discarded.
"""

from __future__ import annotations

from typing import NamedTuple

from . import _core

__all__ = ["Decoder", "Event", "encode_event"]


class Event(NamedTuple):
    """A dispatched event. ``id`` is the stream's last event ID at dispatch ("" if none was
    set); ``retry`` is the stream's reconnection time in milliseconds (None until a valid
    ``retry`` field arrives). Both persist across events, as in the WHATWG model."""

    event: str
    data: str
    id: str = ""
    retry: int | None = None


_core._sse_set_types(Event)

# encode_event(data, *, event="message", id=None, retry=None) -> bytes: "event: <event>", then
# "id: <id>" and "retry: <retry>" if given, then one "data: " line per line of data (any of
# "\r\n", "\r", "\n" ends a line, so readers see "\n" where data had any line end), then a blank
# line. data must be UTF-8 bytes; event and id may not contain line breaks (nor id a NUL, which
# makes readers ignore it); retry is a non-negative int. Bad arguments raise TypeError/ValueError.
encode_event = _core.sse_encode_event


class Decoder:
    """Incremental event stream parser: ``feed(chunk)`` returns the events that ``chunk``
    completes, ``close()`` ends the stream (an unfinished event is discarded, per the spec;
    the decoder can then read a new stream, keeping the last event ID and retry)."""

    __slots__ = ("_decoder",)

    def __init__(self) -> None:
        self._decoder = _core.SseDecoder()

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Event]:
        return self._decoder.feed(chunk)

    def close(self) -> list[Event]:
        return self._decoder.close()

    @property
    def last_event_id(self) -> str:
        """The last event ID seen (what a reconnection sends as ``Last-Event-ID``)."""
        return self._decoder.last_event_id

    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds, if the stream set one."""
        return self._decoder.retry

    def __repr__(self) -> str:
        return f"Decoder(last_event_id={self.last_event_id!r}, retry={self.retry!r})"
