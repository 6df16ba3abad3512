"""A stateless Streamable HTTP request of the 2025 era served in one pass (``http-stateless``):
a stock and an adapted uvicorn server on 127.0.0.1 give the same answers (status, content type,
the JSON, the session header's absence) to plain calls, to what a handler does on this path
(notifications, a request to the client, errors, the request's own headers), to ``initialize``,
notifications and ``DELETE`` (a session-per-call client's flow, also one pass), and to what takes
the stock path (batches, bad bodies, refused headers), on a server answering in JSON and one
answering in SSE; both write
the transport's INFO line once per request, run a notification's handler chain and finish the
same OpenTelemetry spans (the SDK's own middleware, a tracer provider configured); and the
adapted server takes the one pass exactly where it should: not with DEBUG on the SDK's loggers,
not once a function of the stock path is wrapped by someone else."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("mcp.server.runner", reason="the mcp 2.x line (the 1.x line has no dispatcher to run alone)")

from http_pair import (
    HEADERS,
    STREAM_COUNTER,
    TOOLS,
    TRANSPORT_LOG,
    Served,
    body,
    call,
    drop_mid_call,
    exchange,
    json_body,
    pair,
    post_raw,
    post_scope,
    read_until,
)
from mcp_native import adapters

# The transport's INFO lines, one per stateless request, counted in a file of their own.
APP = (
    TRANSPORT_LOG.format(level="INFO")
    + STREAM_COUNTER
    + """
import asyncio, functools, logging, os

import mcp.server.streamable_http as transport
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel
from starlette.responses import JSONResponse

# The SDK's own spans (its OpenTelemetry middleware) recorded in memory, for /spans.
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

server = MCPServer("stateless", log_level="WARNING")


class Weather(BaseModel):
    city: str
    temperature: float


@server.tool()
def weather(city: str) -> Weather:
    return Weather(city=city, temperature=21.5)


@server.tool()
async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("name?", schema=Weather)
    return str(answer)


"""
    + TOOLS
    + """

@server.custom_route("/spans", methods=["POST"])
async def spans(request):
    finished = [
        {
            "name": s.name,
            "kind": s.kind.name,
            "attributes": dict(s.attributes),
            "status": s.status.status_code.name,
            "events": [e.name for e in s.events],
            "child": s.parent is not None,
        }
        for s in exporter.get_finished_spans()
    ]
    exporter.clear()
    return JSONResponse(finished)


@server.custom_route("/streamed", methods=["GET"])
async def streamed_responses(request):
    return JSONResponse(streamed)


@server.tool()
def header(ctx: Context) -> str:
    return ctx.request_context.request.headers.get("x-probe", "none")


@server.tool()
def path(ctx: Context) -> str:
    # The one pass hands the request to the dispatcher without its read loop.
    dispatcher = ctx.request_context.session._request_outbound._dispatcher
    return "one pass" if dispatcher._read_stream is None else "stock"


@server.tool()
def cleanup(ctx: Context) -> str:
    # A per-connection cleanup: unwound once the request is answered.
    ctx.request_context.session._connection.exit_stack.callback(log.warning, "unwound")
    return "registered"


@server.custom_route("/debug", methods=["POST"])
async def debug(request):
    on = request.query_params["on"] == "1"
    logging.getLogger("mcp.shared.jsonrpc_dispatcher").setLevel(logging.DEBUG if on else logging.NOTSET)
    return JSONResponse({})


stock_connect = transport.StreamableHTTPServerTransport.connect


@server.custom_route("/wrap", methods=["POST"])
async def wrap(request):
    if request.query_params["on"] == "1":
        @functools.wraps(stock_connect)
        def connect(*args, **kwargs):
            return stock_connect(*args, **kwargs)
        transport.StreamableHTTPServerTransport.connect = connect
    else:
        transport.StreamableHTTPServerTransport.connect = stock_connect
    return JSONResponse({})


# Every message's handler chain, and the path that ran it, in the log file.
class Seen:
    async def __call__(self, ctx, call_next):
        dispatcher = ctx.session._request_outbound._dispatcher
        log.warning("seen %s %s", ctx.method, "one pass" if dispatcher._read_stream is None else "stock")
        return await call_next(ctx)


server._lowlevel_server.middleware.append(Seen())
app = server.streamable_http_app(json_response=os.environ.get("SSE") != "1", stateless_http=True)
"""
)

INITIALIZE = body(
    "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
)
# name: (body, extra headers, HTTP method)
EXCHANGES: dict[str, tuple[bytes | None, dict[str, str], str]] = {
    "call": (call("weather", {"city": "Oslo"}), {}, "POST"),
    "call, string id": (call("weather", {"city": "Oslo"}, id="a"), {}, "POST"),
    "call, 2025-06-18": (call("weather", {"city": "Oslo"}), {"MCP-Protocol-Version": "2025-06-18"}, "POST"),
    "call, 2025-11-25": (call("weather", {"city": "Oslo"}), {"MCP-Protocol-Version": "2025-11-25"}, "POST"),
    "call, 2024-11-05": (call("weather", {"city": "Oslo"}), {"MCP-Protocol-Version": "2024-11-05"}, "POST"),
    "call, bad arguments": (call("weather", {"city": 5}), {}, "POST"),
    "call, unknown tool": (call("nothing"), {}, "POST"),
    "call, no name": (body("tools/call", {"arguments": {}}), {}, "POST"),
    "notifications and progress": (call("chatty", meta={"progressToken": 7}), {}, "POST"),
    # A notification first: with SSE responses, streamed by the SDK's EventSourceResponse (an
    # answer that comes first is written at once).
    "a slow call with progress": (call("slow", {"steps": 4}, meta={"progressToken": 8}), {}, "POST"),
    "a request to the client": (call("ask"), {}, "POST"),
    "a tool that raises": (call("fails"), {}, "POST"),
    "the request's headers": (call("header"), {"X-Probe": "here"}, "POST"),
    "tools/list": (body("tools/list"), {}, "POST"),
    "ping": (body("ping"), {}, "POST"),
    "unknown method": (body("no/such"), {}, "POST"),
    "params not an object": (body("tools/list", [1]), {}, "POST"),
    "initialize": (INITIALIZE, {}, "POST"),
    "notification": (json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(), {}, "POST"),
    "response": (b'{"jsonrpc": "2.0", "id": 1, "result": {}}', {}, "POST"),
    "batch": (b"[" + body("ping") + b"]", {}, "POST"),
    "not JSON": (b'{"jsonrpc": "2.0", "id": 1,', {}, "POST"),
    "NaN": (call("weather", {"city": "x", "n": float("nan")}), {}, "POST"),
    "empty": (b"", {}, "POST"),
    "extra members": (body("ping")[:-1] + b', "x": 1}', {}, "POST"),
    "JSON-RPC 1.0": (body("ping").replace(b'"2.0"', b'"1.0"'), {}, "POST"),
    "Accept: text/html": (body("ping"), {"Accept": "text/html"}, "POST"),
    "Accept: */*": (body("ping"), {"Accept": "*/*"}, "POST"),
    "Content-Type: text/plain": (body("ping"), {"Content-Type": "text/plain"}, "POST"),
    "unsupported protocol version": (body("ping"), {"MCP-Protocol-Version": "1999-01-01"}, "POST"),
    "DELETE": (None, {}, "DELETE"),
    "PUT": (body("ping"), {}, "PUT"),
}


def _request(
    port: int, method: str, path: str, data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str | None, str | None, object]:
    """Status, content type, session header, and the body's JSON (its bytes if it has none)."""
    status, kind, session, raw = exchange(port, method, path, data, {**HEADERS, **(headers or {})})
    return status, kind, session, json_body(kind, raw)


def _path(port: int) -> str:
    answer = _request(port, "POST", "/mcp", call("path"))[3]
    return answer["result"]["content"][0]["text"]  # type: ignore[index,no-any-return]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, served: Served) -> Iterator[tuple[int, int, Path, Path]]:
    yield from pair(tmp_path_factory.mktemp("stateless"), served, "stateless_app", APP, {})


@pytest.fixture(scope="module")
def sse_servers(tmp_path_factory: pytest.TempPathFactory, served: Served) -> Iterator[tuple[int, int, Path, Path]]:
    yield from pair(tmp_path_factory.mktemp("stateless-sse"), served, "stateless_app", APP, {"SSE": "1"})


def _seen(log: Path) -> list[str]:
    return [line.split(" seen ", 1)[1] for line in log.read_text().splitlines() if " seen " in line]


def _flow(port: int, i: int) -> list[tuple[int, str | None, str | None, object]]:
    """A session-per-call client's four requests (as a public cross-language benchmark sends them)."""
    version = {"MCP-Protocol-Version": "2025-11-25"}
    return [
        _request(port, "POST", "/mcp", INITIALIZE),
        _request(
            port,
            "POST",
            "/mcp",
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
            version,
        ),
        _request(port, "POST", "/mcp", call("weather", {"city": f"c{i}"}, id=i), version),
        _request(port, "DELETE", "/mcp", None, version),
    ]


def test_the_adapted_server_serves_a_plain_request_in_one_pass(servers: tuple[int, int, Path, Path]) -> None:
    stock, adapted, _, _ = servers
    assert _path(stock) == "stock"
    assert _path(adapted) == "one pass"


@pytest.mark.parametrize("pair", ["servers", "sse_servers"])
@pytest.mark.parametrize("name", list(EXCHANGES))
def test_stock_and_adapted_answer_alike(request: pytest.FixtureRequest, pair: str, name: str) -> None:
    stock, adapted, _, _ = request.getfixturevalue(pair)
    data, headers, method = EXCHANGES[name]
    answer = _request(stock, method, "/mcp", data, headers)
    error = answer[3].get("error") if isinstance(answer[3], dict) else None
    if error is not None and error["code"] == -32602 and error["message"].startswith("Validation error:"):
        error["code"] = -32600  # http-errors: a malformed envelope is an Invalid Request
    assert _request(adapted, method, "/mcp", data, headers) == answer
    if name == "call" and pair == "servers":  # the fixture serves what the others are compared on
        assert answer[:3] == (200, "application/json", None)
        assert answer[3]["result"]["structuredContent"] == {"city": "Oslo", "temperature": 21.5}  # type: ignore[index]
    if name == "notifications and progress" and pair == "sse_servers":  # what the handler sent, in order
        assert answer[:3] == (200, "text/event-stream", None)
        assert isinstance(answer[3], bytes)
        events = [json.loads(line[6:]) for line in answer[3].decode().splitlines() if line.startswith("data: ")]
        assert [e.get("method") for e in events] == ["notifications/message", "notifications/progress", None]
        assert events[-1]["result"]["content"][0]["text"] == "done"


def test_both_log_the_transports_line_once_per_request(servers: tuple[int, int, Path, Path]) -> None:
    stock, adapted, stock_log, adapted_log = servers

    def lines(log: Path) -> list[str]:
        return [line for line in log.read_text().splitlines() if "Terminating session" in line]

    before = len(lines(stock_log)), len(lines(adapted_log))
    for port in (stock, adapted):
        for i in range(5):
            assert _request(port, "POST", "/mcp", call("weather", {"city": f"c{i}"}))[0] == 200
    deadline = time.monotonic() + 10  # both write it once the response is sent
    while (len(lines(stock_log)) - before[0], len(lines(adapted_log)) - before[1]) != (5, 5):
        assert time.monotonic() < deadline, (len(lines(stock_log)) - before[0], len(lines(adapted_log)) - before[1])
        time.sleep(0.01)
    after_stock, after_adapted = lines(stock_log), lines(adapted_log)
    assert after_adapted[-1] == after_stock[-1] == "mcp.server.streamable_http INFO Terminating session: None"


def test_the_connections_cleanup_runs_after_the_request(servers: tuple[int, int, Path, Path]) -> None:
    for port, log in (servers[0], servers[2]), (servers[1], servers[3]):
        before = log.read_text().count("unwound")
        assert _request(port, "POST", "/mcp", call("cleanup"))[0] == 200
        deadline = time.monotonic() + 10  # stock unwinds in its server task, after the response
        while log.read_text().count("unwound") == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert log.read_text().count("unwound") == before + 1


def test_debug_logging_on_the_sdk_takes_the_stock_path(servers: tuple[int, int, Path, Path]) -> None:
    _, adapted, _, _ = servers
    _request(adapted, "POST", "/debug?on=1")
    try:
        assert _path(adapted) == "stock"
    finally:
        _request(adapted, "POST", "/debug?on=0")
    assert _path(adapted) == "one pass"


def test_a_wrapped_function_of_the_stock_path_takes_the_stock_path(servers: tuple[int, int, Path, Path]) -> None:
    _, adapted, _, _ = servers
    _request(adapted, "POST", "/wrap?on=1")
    try:
        assert _path(adapted) == "stock"
        answer = _request(adapted, "POST", "/mcp", call("weather", {"city": "Oslo"}))
        assert answer[3]["result"]["structuredContent"]["city"] == "Oslo"  # type: ignore[index]
    finally:
        _request(adapted, "POST", "/wrap?on=0")
    assert _path(adapted) == "one pass"


def test_many_requests_at_once_are_each_answered_once(servers: tuple[int, int, Path, Path]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    _, adapted, _, _ = servers

    def one(i: int) -> tuple[int, str]:
        answer = _request(adapted, "POST", "/mcp", call("weather", {"city": f"c{i}"}, id=i))
        return answer[3]["id"], answer[3]["result"]["structuredContent"]["city"]  # type: ignore[index]

    with ThreadPoolExecutor(16) as pool:
        assert sorted(pool.map(one, range(200))) == [(i, f"c{i}") for i in range(200)]


@pytest.mark.usefixtures("adapters_restored")
def test_install_patches_the_manager_and_uninstall_restores_it() -> None:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from mcp_native.adapters.mcp2 import http_stateless

    stock = vars(StreamableHTTPSessionManager)["_handle_stateless_request"]
    report = adapters.install()
    assert "http-stateless" in report.patched
    assert vars(StreamableHTTPSessionManager)["_handle_stateless_request"] is http_stateless.handle_stateless_request
    adapters.uninstall()
    assert vars(StreamableHTTPSessionManager)["_handle_stateless_request"] is stock


def test_a_session_per_call_flow_is_answered_alike_in_one_pass(servers: tuple[int, int, Path, Path]) -> None:
    stock, adapted, stock_log, adapted_log = servers
    before = len(_seen(stock_log)), len(_seen(adapted_log))
    for i in range(3):
        answers = _flow(stock, i)
        assert [a[0] for a in answers] == [200, 202, 200, 405]
        assert answers[2][3]["result"]["structuredContent"]["city"] == f"c{i}"  # type: ignore[index]
        assert _flow(adapted, i) == answers
    deadline = time.monotonic() + 10  # stock runs the notification's handler after its 202
    while len(_seen(stock_log)) < before[0] + 9 and time.monotonic() < deadline:
        time.sleep(0.01)
    methods = ["initialize", "notifications/initialized", "tools/call"] * 3
    assert _seen(stock_log)[before[0] :] == [f"{m} stock" for m in methods]
    assert _seen(adapted_log)[before[1] :] == [f"{m} one pass" for m in methods]


def test_with_sse_responses_every_message_takes_one_pass(sse_servers: tuple[int, int, Path, Path]) -> None:
    stock, adapted, stock_log, adapted_log = sse_servers
    before = len(_seen(stock_log)), len(_seen(adapted_log))
    for i in range(2):
        answers = _flow(stock, i)
        assert [a[0] for a in answers] == [200, 202, 200, 405]
        assert _flow(adapted, i) == answers
    deadline = time.monotonic() + 10
    while len(_seen(stock_log)) < before[0] + 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    methods = ["initialize", "notifications/initialized", "tools/call"] * 2
    assert _seen(stock_log)[before[0] :] == [f"{m} stock" for m in methods]
    assert _seen(adapted_log)[before[1] :] == [f"{m} one pass" for m in methods]


def test_with_sse_responses_a_client_gone_mid_call_cancels_it(sse_servers: tuple[int, int, Path, Path]) -> None:
    for port, log in (sse_servers[0], sse_servers[2]), (sse_servers[1], sse_servers[3]):
        # sse-starlette starts a watcher task with its first streamed response, kept for the
        # process: a call that notifies first is streamed (an answer that comes first is not).
        assert _request(port, "POST", "/mcp", call("slow", {"steps": 5}, meta={"progressToken": 0}))[0] == 200
        drop_mid_call(port, log, call("slow", meta={"progressToken": 1}), HEADERS)


@pytest.mark.parametrize("notify", [False, True], ids=["answer first", "notification first"])
def test_with_sse_responses_the_headers_come_at_once(sse_servers: tuple[int, int, Path, Path], notify: bool) -> None:
    """As stock's, the adapted response starts at once: a client reads its headers (and a
    notification, as it comes) while the tool still waits for the test to release it, then the
    answer: written at once by the adapted server when it is the first message, however long it
    took, streamed by sse-starlette's response otherwise."""
    bodies, streamed = [], []
    for port in sse_servers[:2]:
        before = _request(port, "GET", "/streamed")[3]
        with post_raw(port, call("gated", {"notify": notify}, meta={"progressToken": 3}, id=5), HEADERS) as sock:
            received = read_until(sock, lambda r: b"\r\n\r\n" in r and (not notify or b"notifications/progress" in r))
            assert received.startswith(b"HTTP/1.1 200") and b"text/event-stream" in received
            assert b"released" not in received
            assert _request(port, "POST", "/release")[0] == 200
            received = read_until(sock, lambda r: r.endswith(b"0\r\n\r\n"), received)
        events = [line for line in received.split(b"\r\n") if line.startswith(b"data: ")]
        bodies.append([json.loads(line[6:]) for line in events])
        after = _request(port, "GET", "/streamed")[3]
        assert isinstance(before, int) and isinstance(after, int)
        streamed.append(after - before)
    assert bodies[0] == bodies[1] and len(bodies[0]) == 1 + notify, bodies
    assert bodies[0][-1]["result"]["content"][0]["text"] == "released"
    assert streamed == ([1, 1] if notify else [1, 0])


@pytest.mark.parametrize("pair", ["servers", "sse_servers"])
def test_the_sdks_spans_are_stocks(request: pytest.FixtureRequest, pair: str) -> None:
    stock, adapted, _, _ = request.getfixturevalue(pair)
    for port in stock, adapted:
        _request(port, "POST", "/spans")
        _flow(port, 1)
        assert _request(port, "POST", "/mcp", call("fails"))[0] == 200

    def spans(port: int) -> list[str]:
        deadline = time.monotonic() + 10  # stock's notification span ends after its 202
        while True:
            finished = _request(port, "POST", "/spans")[3]
            assert isinstance(finished, list)
            collected.setdefault(port, []).extend(json.dumps(s, sort_keys=True) for s in finished)
            if len(collected[port]) >= 4 or time.monotonic() > deadline:
                return sorted(collected[port])
            time.sleep(0.02)

    collected: dict[int, list[str]] = {}
    stock_spans = spans(stock)
    assert len(stock_spans) == 4, stock_spans  # initialize, the notification, the call, the failing call
    assert spans(adapted) == stock_spans


@pytest.mark.usefixtures("adapters_restored")
@pytest.mark.parametrize("adapted", [False, True])
def test_a_response_the_server_cannot_send_is_logged_as_stocks_is(
    caplog: pytest.LogCaptureFixture, adapted: bool
) -> None:
    # In process: the ASGI server's send fails for the body (a connection gone under another
    # server than uvicorn, which drops such sends); adapted, on the SSE stream written at once.
    import anyio
    from mcp.server.mcpserver import MCPServer

    if adapted:
        adapters.install()
    server = MCPServer("failing send", log_level="WARNING")

    @server.tool()
    def weather(city: str) -> str:
        return city

    app = server.streamable_http_app(json_response=False, stateless_http=True)
    data = call("weather", {"city": "Oslo"})
    scope = post_scope(HEADERS, data)
    sent: list[Any] = []

    received: list[str] = []

    async def receive() -> dict[str, object]:
        received.append("once")  # the body, then nothing: the failed send is what tells
        if len(received) > 1:
            await anyio.sleep_forever()
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            raise OSError("connection gone")

    async def main() -> None:
        async with server.session_manager.run():
            await app(scope, receive, send)

    with caplog.at_level(logging.ERROR, logger="mcp.server.streamable_http"):
        anyio.run(main)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert [r.getMessage() for r in caplog.records if r.name == "mcp.server.streamable_http"] == ["SSE response error"]


@pytest.mark.parametrize("headers", [{"Host": "evil.example:80"}, {"Origin": "http://evil.example"}])
def test_a_refused_host_or_origin_is_answered_and_logged_once_as_stock(
    headers: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio

    from mcp.server.mcpserver import MCPServer

    from http_pair import asgi_post, stock_then_adapted

    async def refused() -> tuple[Any, list[str]]:
        server = MCPServer("refused", log_level="WARNING")
        server.add_tool(lambda city: city, name="weather")
        app = server.streamable_http_app(stateless_http=True, json_response=True)  # guards 127.0.0.1
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mcp.server"):
            async with app.router.lifespan_context(app):
                answer = await asgi_post(app, {**HEADERS, **headers}, call("weather", {"city": "Oslo"}))
        return answer, [f"{r.name} {r.getMessage()}" for r in caplog.records if r.name.startswith("mcp.server")]

    stock, adapted = asyncio.run(stock_then_adapted(refused, "http-stateless"))
    assert adapted == stock
    assert stock[0][0] in (421, 403)
    warnings = [line for line in stock[1] if "transport_security" in line]
    assert len(warnings) == 1, stock[1]
    assert "mcp.server.streamable_http Terminating session: None" in stock[1]
