"""A session's SSE answer written at once when it is the first message of its request
(``http-sse``): a stock and an adapted uvicorn server with sessions and SSE responses (the SDKs'
defaults) on 127.0.0.1 give the same bytes to every exchange of a session (initialize, the
notification, quick calls, calls that notify first, a call quiet for longer than the wait, errors,
tools/list, DELETE), the headers at once; the adapted server writes at once exactly where it
should (the answer first), streams with the stock response otherwise (a notification first,
nothing within a second, DEBUG on sse-starlette's logger), and a client gone before its answer
leaves nothing behind and no error logged."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("mcp.server.runner", reason="the mcp 2.x line")

from http_pair import HEADERS, STREAM_COUNTER, TOOLS, TRANSPORT_LOG, Served, body, call, exchange, pair

APP = (
    TRANSPORT_LOG.format(level="WARNING")
    + STREAM_COUNTER
    + """
from mcp.server.mcpserver import MCPServer

server = MCPServer("sessions", log_level="WARNING")


@server.tool()
def weather(city: str) -> dict:
    return {"city": city, "temperature": 21.5}


"""
    + TOOLS
    + """

@server.custom_route("/stats", methods=["GET"])
async def stats(request):
    return JSONResponse({"streamed": streamed, "tasks": len(asyncio.all_tasks())})


@server.custom_route("/debug", methods=["POST"])
async def debug(request):
    on = request.query_params["on"] == "1"
    logging.getLogger("sse_starlette.sse").setLevel(logging.DEBUG if on else logging.NOTSET)
    return JSONResponse({})


app = server.streamable_http_app()
"""
)

VERSION = "2025-11-25"

INITIALIZE = body(
    "initialize", {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
)
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()


def _request(
    port: int, method: str, data: bytes | None = None, session: str | None = None, path: str = "/mcp"
) -> tuple[int, str | None, str | None, bytes]:
    """Status, content type, session header and the raw body."""
    headers = dict(HEADERS)
    if session is not None:
        headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION})
    return exchange(port, method, path, data, headers)


def _session(port: int) -> tuple[str, bytes]:
    """A session opened as a client opens it: its id and initialize's answer."""
    status, kind, session, raw = _request(port, "POST", INITIALIZE)
    assert (status, kind) == (200, "text/event-stream") and session is not None, raw
    assert _request(port, "POST", INITIALIZED, session)[0] == 202
    return session, raw


def _stats(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/stats")
        return json.loads(conn.getresponse().read())  # type: ignore[no-any-return]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, served: Served) -> Iterator[tuple[int, int, Path, Path]]:
    yield from pair(tmp_path_factory.mktemp("sessions-sse"), served, "sessions_app", APP, {})


# name: (body, written at once by the adapted server)
EXCHANGES: dict[str, tuple[bytes, bool]] = {
    "call": (call("weather", {"city": "Oslo"}), True),
    "call, string id": (call("weather", {"city": "Oslo"}, id="a"), True),
    "call, bad arguments": (call("weather", {"city": 5}), True),
    "call, unknown tool": (call("nothing"), True),
    "a tool that raises": (call("fails"), True),
    "tools/list": (body("tools/list"), True),
    "ping": (body("ping"), True),
    "unknown method": (body("no/such"), True),
    # Notifications before the answer: streamed as they come, by the stock response.
    "notifications and progress": (call("chatty", meta={"progressToken": 7}), False),
    # Nothing for longer than the wait (1 s): the stock response, its headers then.
    "a call quiet for 1.2 s": (call("quiet", {"seconds": 1.2}), False),
}


@pytest.mark.parametrize("name", list(EXCHANGES))
def test_stock_and_adapted_answer_alike_and_write_at_once_where_they_should(
    servers: tuple[int, int, Path, Path], name: str
) -> None:
    stock, adapted, _, _ = servers
    data, at_once = EXCHANGES[name]
    answers, streamed = [], []
    for port in (stock, adapted):
        session, _ = _session(port)
        before = _stats(port)["streamed"]
        status, kind, echoed, raw = _request(port, "POST", data, session)
        streamed.append(_stats(port)["streamed"] - before)
        answers.append((status, kind, echoed == session, raw))
        assert _request(port, "DELETE", None, session)[0] == 200
    assert answers[0] == answers[1]
    assert answers[0][:3] == (200, "text/event-stream", True)
    assert answers[0][3].startswith(b"event: message\r\ndata: {")
    assert streamed == [1, 0 if at_once else 1]


def test_initialize_and_a_whole_session_are_answered_alike(servers: tuple[int, int, Path, Path]) -> None:
    stock, adapted, _, _ = servers
    (_, stock_init), (_, adapted_init) = _session(stock), _session(adapted)
    assert stock_init == adapted_init and b'"protocolVersion":"2025-11-25"' in stock_init
    for port in (stock, adapted):  # one session, many calls, each answered with its own
        session, _ = _session(port)
        for i in range(20):
            raw = _request(port, "POST", call("weather", {"city": f"c{i}"}, id=i), session)[3]
            assert f'\\"city\\": \\"c{i}\\"'.encode() in raw and f'"id":{i},'.encode() in raw
        assert _request(port, "DELETE", None, session)[0] == 200
        assert _request(port, "POST", body("ping"), session)[0] == 404  # the session is gone


def test_with_debug_on_sse_starlette_the_stock_response_streams_it(servers: tuple[int, int, Path, Path]) -> None:
    _, adapted, _, _ = servers
    session, _ = _session(adapted)
    try:
        _request(adapted, "POST", b"", None, "/debug?on=1")
        before = _stats(adapted)["streamed"]
        _request(adapted, "POST", call("weather", {"city": "Oslo"}), session)
        assert _stats(adapted)["streamed"] == before + 1
    finally:
        _request(adapted, "POST", b"", None, "/debug?on=0")
    before = _stats(adapted)["streamed"]
    _request(adapted, "POST", call("weather", {"city": "Oslo"}), session)
    assert _stats(adapted)["streamed"] == before


def test_a_client_gone_before_its_answer_leaves_nothing_behind(servers: tuple[int, int, Path, Path]) -> None:
    """Gone while the adapted server waits for the first message: the handler runs on (as stock's
    does), its answer goes nowhere, the request's streams are cleaned, nothing is logged."""
    for port, log in ((servers[0], servers[2]), (servers[1], servers[3])):
        session, _ = _session(port)
        _request(port, "POST", call("weather", {"city": "before"}), session)
        time.sleep(0.2)
        baseline = _stats(port)["tasks"]
        for i in range(5):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            headers = {**HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
            conn.request("POST", "/mcp", body=call("quiet", {"seconds": 0.3}, id=i), headers=headers)
            time.sleep(0.05)
            conn.close()
        time.sleep(0.8)  # every handler has answered into the void
        assert _stats(port)["tasks"] == baseline
        raw = _request(port, "POST", call("weather", {"city": "after"}), session)[3]
        assert b'\\"city\\": \\"after\\"' in raw
        assert _request(port, "DELETE", None, session)[0] == 200
        assert "ERROR" not in log.read_text()


def test_the_headers_go_out_at_once_and_the_answer_after_them(servers: tuple[int, int, Path, Path]) -> None:
    """As stock's, the adapted response starts at once: a client reads its headers while the tool
    still waits (for the test to release it), then the answer, written at once (not streamed)."""
    answers, streamed = [], []
    for port in servers[:2]:
        session, _ = _session(port)
        before = _stats(port)["streamed"]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            headers = {**HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
            conn.request("POST", "/mcp", body=call("gated", id=9), headers=headers)
            response = conn.getresponse()  # the start: the tool has not answered yet
            kind = response.getheader("content-type")
            _request(port, "POST", b"", None, "/release")
            answers.append((response.status, kind, response.read()))
        finally:
            conn.close()
        streamed.append(_stats(port)["streamed"] - before)
    assert answers[0] == answers[1] and answers[0][:2] == (200, "text/event-stream")
    assert b'"text":"released"' in answers[0][2]
    assert streamed == [1, 0]
