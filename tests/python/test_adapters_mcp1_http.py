"""Streamable HTTP on the mcp 1.x line (groups ``http-responses-1x``, ``http-sse-1x``): a
FastMCP 1.x server under uvicorn on 127.0.0.1, stock and adapted (``MCP_NATIVE_ADAPTERS=1``), as
JSON responses and as SSE, stateless and with a session. Every answer must be the same bytes:
status, content type and body (JSON), or each event's data (SSE); an SSE answer that comes first
is written at once. Group ``http-stateless-1x``: the initialization options
the stateless path builds per request are stock's, the mcp version looked up once.

These need ``mcp<2``: ``scripts/sdk-pairs`` runs them in its venvs of the 1.x line; with mcp 2.x
installed they are skipped."""

from __future__ import annotations

import http.client
import importlib
import importlib.metadata
import inspect
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

if not importlib.metadata.version("mcp").startswith("1."):
    pytest.skip("needs the mcp 1.x line (scripts/sdk-pairs runs it on mcp 1.30.0 and 1.26.0)", allow_module_level=True)

from http_pair import STREAM_COUNTER, TRANSPORT_LOG, exchange, json_body
from mcp_native import adapters

ROOT = Path(__file__).resolve().parents[2]

APP = (
    TRANSPORT_LOG.format(level="INFO")
    + STREAM_COUNTER
    + """
import asyncio, contextlib, contextvars, os, sys
from typing import Any
sys.path.insert(0, os.environ["EXAMPLES"])

import mcp.types as types
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from payloads import TOOLS
from starlette.responses import JSONResponse

caller = contextvars.ContextVar("caller", default="unset")  # set by the app's middleware
JSON, STATELESS = os.environ["KIND"] == "json", os.environ["STATE"] == "stateless"
if os.environ["FRAMEWORK"] == "fastmcp":  # fastmcp 3.x, whose run is its own
    import fastmcp

    from fastmcp.server.middleware import PingMiddleware

    server = fastmcp.FastMCP("weather")
    # A loop in the session's task group from the first request on, until a ping fails: in a
    # stateless session, once the request is over and the next ping is due (here, 10 minutes).
    server.add_middleware(PingMiddleware(interval_ms=600_000))
else:
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("weather", json_response=JSON, stateless_http=STATELESS)
if os.environ["FRAMEWORK"] == "fastmcp":
    from fastmcp import Context
else:
    from mcp.server.fastmcp import Context
for tool in TOOLS:
    server.tool()(tool)


@server.tool()
async def progress(ctx: Context) -> str:
    # Notifications that relate to the request: streamed before the answer with SSE responses.
    await ctx.report_progress(1, 2)
    await ctx.info("half way")
    await ctx.report_progress(2, 2)
    return "done"


@server.tool()
def text(value: str) -> str:
    return value


@server.tool()
def numbers() -> dict[str, Any]:
    return {"int": 123456789012345678, "big": 1.5e300, "tiny": 5e-324, "third": 1 / 3, "none": None}


@server.tool()
def fails() -> str:
    raise ValueError("no such city: Zürich")


@server.tool()
async def buffers() -> str:
    # What each request stream of the live transports holds (the POST's answer goes through it).
    import gc
    kind = StreamableHTTPServerTransport
    streams = [s for o in gc.get_objects() if isinstance(o, kind) for s in o._request_streams.values()]
    return ",".join(sorted({str(s[1].statistics().max_buffer_size) for s in streams}))


@server.tool()
async def context() -> str:
    # What the handler sees: the middleware's context variable, and the coroutine its task runs.
    return f"{caller.get()} {asyncio.current_task().get_coro().__qualname__}"


# The low-level server's lifespan, entered per stateless request (stock enters it in its run),
# counted; and a notification's handler, which says what task it ran in.
low = server._mcp_server
seen = {"lifespans": 0, "roots changed": [], "posts done": 0}
server_lifespan = low.lifespan


@contextlib.asynccontextmanager
async def counted(app):
    seen["lifespans"] += 1
    async with server_lifespan(app) as state:
        yield state


async def roots_changed(notification):
    seen["roots changed"].append(f"{caller.get()} {asyncio.current_task().get_coro().__qualname__}")


low.lifespan = counted
low.notification_handlers[types.RootsListChangedNotification] = roots_changed


@server.custom_route("/probe", methods=["GET"])
async def probe(request):
    writer = StreamableHTTPServerTransport._create_json_response
    options = Server.create_initialization_options
    stateless = StreamableHTTPSessionManager._handle_stateless_request
    return JSONResponse(
        {
            "writer": writer.__module__,
            "options": options.__module__,
            "stateless": stateless.__module__,
            "run": type(low).run.__module__,
            "streamed": streamed,
            **seen,
        }
    )


starlette_app = (
    server.http_app(json_response=JSON, stateless_http=STATELESS)
    if os.environ["FRAMEWORK"] == "fastmcp"
    else server.streamable_http_app()
)


async def app(scope, receive, send):
    caller.set("the request's")
    await starlette_app(scope, receive, send)
    if scope["type"] == "http" and scope["method"] == "POST":
        seen["posts done"] += 1
"""
)

ACCEPT = "application/json, text/event-stream"
INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "0"},
}
CALLS: dict[str, dict[str, Any]] = {
    "list": {"method": "tools/list"},
    "weather": {"method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": "Zürich"}}},
    "records": {"method": "tools/call", "params": {"name": "list_records", "arguments": {"count": 200}}},
    "violation": {"method": "tools/call", "params": {"name": "broken_weather", "arguments": {"city": "Oslo"}}},
    "bad arguments": {"method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": 5}}},
    "text": {"method": "tools/call", "params": {"name": "text", "arguments": {"value": 'é\U0001f600\n"\\\u2028'}}},
    "numbers": {"method": "tools/call", "params": {"name": "numbers"}},
    "tool error": {"method": "tools/call", "params": {"name": "fails"}},
    "unknown tool": {"method": "tools/call", "params": {"name": "nowhere"}},
    "unknown method": {"method": "nowhere/call"},
    "progress": {"method": "tools/call", "params": {"name": "progress", "_meta": {"progressToken": "p"}}},
}

Served = Callable[[Callable[[int], list[str]], Path, dict[str, str]], AbstractContextManager[int]]
Answer = tuple[int, str | None, bytes | list[bytes]]


class Client:
    """One HTTP client of the server on ``port``, with the session it is given."""

    def __init__(self, port: int, log: Path | None = None, mode: str = "") -> None:
        self.port = port
        self.log = log  # the transport's log lines (INFO)
        self.mode = mode  # the fixture's: "json stateless", ...
        self.session: str | None = None

    def post(self, message: dict[str, Any]) -> Answer:
        """Status, content type, and the body (JSON) or each event's data (SSE)."""
        headers = {"Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": "2025-06-18"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("POST", "/mcp", body=json.dumps(message).encode(), headers=headers)
            response = conn.getresponse()
            body = response.read()
            self.session = response.getheader("mcp-session-id") or self.session
            kind = response.getheader("content-type")
        finally:
            conn.close()
        if kind == "text/event-stream":
            events = body.replace(b"\r\n", b"\n").split(b"\n\n")
            return (
                response.status,
                kind,
                [line[6:] for e in events for line in e.split(b"\n") if line.startswith(b"data: ")],
            )
        return response.status, kind, body

    def handshake(self) -> None:
        status, _, _ = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        assert status == 200
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})[0] == 202


def probe(port: int) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/probe")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def _fastmcp_line() -> str:
    try:
        return importlib.metadata.version("fastmcp").split(".")[0]
    except importlib.metadata.PackageNotFoundError:
        return ""


@pytest.fixture(
    scope="module",
    params=[
        "json stateless",
        "sse stateless",
        "json session",
        "sse session",
        "fastmcp json stateless",
        "fastmcp sse stateless",
    ],
)
def servers(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, served: Served
) -> Iterator[tuple[Client, Client]]:
    *framework, kind, state = request.param.split()
    if framework and _fastmcp_line() != "3":  # the fastmcp line whose run the one pass serves
        pytest.skip("needs fastmcp 3.x")
    tmp_path = tmp_path_factory.mktemp("http1")
    (tmp_path / "http1_app.py").write_text(APP)
    env = {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}
    env.update(EXAMPLES=str(ROOT / "examples"), KIND=kind, STATE=state, FRAMEWORK="".join(framework))
    stock_run = "fastmcp.server.low_level" if framework else "mcp.server.lowlevel.server"

    def uvicorn(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "http1_app:app", "--port", str(port), "--log-level", "warning"]

    logs = tmp_path / "stock.log", tmp_path / "adapted.log"
    with (
        served(uvicorn, tmp_path, {**env, "LOG_FILE": str(logs[0])}) as stock,
        served(uvicorn, tmp_path, {**env, "LOG_FILE": str(logs[1]), adapters.ENVIRONMENT: "1"}) as adapted,
    ):
        assert probe(stock) == {
            "writer": "mcp.server.streamable_http",
            "options": "mcp.server.lowlevel.server",
            "stateless": "mcp.server.streamable_http_manager",
            "run": stock_run,
            "streamed": 0,
            "lifespans": 0,
            "roots changed": [],
            "posts done": 0,
        }
        assert probe(adapted) == {
            "writer": "mcp_native.adapters._engines.http",
            "options": "mcp_native.adapters.mcp1.init_options",
            "stateless": "mcp_native.adapters.mcp1.http_one_pass",
            "run": "mcp_native.adapters.fastmcp3.http_one_pass" if framework else stock_run,
            "streamed": 0,
            "lifespans": 0,
            "roots changed": [],
            "posts done": 0,
        }
        clients = Client(stock, logs[0], request.param), Client(adapted, logs[1], request.param)
        if state == "session":
            for client in clients:
                client.handshake()
        yield clients


@pytest.mark.parametrize("name", list(CALLS))
def test_stock_and_adapted_send_the_same_bytes(servers: tuple[Client, Client], name: str) -> None:
    stock, adapted = servers
    message = {"jsonrpc": "2.0", "id": 7, **CALLS[name]}
    answer = stock.post(message)
    got = adapted.post(message)
    fastmcp = stock.mode.startswith("fastmcp")
    if name == "violation" and fastmcp:
        # fastmcp 3.x's results are checked by the low-level server's output validation, whose
        # adapted message names where the value failed (docs/mcp-1x.md).
        where = b"'integer' at /humidity", b"'integer'"
        body = got[2]
        got = (got[0], got[1], body.replace(*where) if isinstance(body, bytes) else [e.replace(*where) for e in body])
    assert got == answer
    status, _, body = answer
    data = body if isinstance(body, bytes) else body[-1]
    if name in ("weather", "records", "numbers"):  # the fixture serves what these are compared on
        assert status == 200
        result = json.loads(data)["result"]
        assert not result.get("isError") and "structuredContent" in result
    if name == "violation":
        wording = "is not of type 'integer'" if fastmcp else "validation error for Weather"
        assert wording in json.loads(data)["result"]["content"][0]["text"]


def test_an_sse_answer_that_comes_first_is_written_at_once(servers: tuple[Client, Client]) -> None:
    """Group ``http-sse-1x``: with SSE responses stock streams every answer through
    sse-starlette's EventSourceResponse; adapted, an answer that is its request's first message
    is written at once, without it (on mcp 1.26's writer closure as on 1.30's method)."""
    streamed, kinds = [], []
    for client in servers:
        before = probe(client.port)["streamed"]
        kinds.append(client.post({"jsonrpc": "2.0", "id": 8, **CALLS["weather"]})[1])
        streamed.append(probe(client.port)["streamed"] - before)
    assert streamed == [1 if kinds[0] == "text/event-stream" else 0, 0]


def test_the_initialize_answers_match(servers: tuple[Client, Client]) -> None:
    stock, adapted = servers
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}
    a, b = Client(stock.port).post(message), Client(adapted.port).post(message)
    assert a == b and a[0] == 200


def test_a_stateless_json_request_is_served_in_one_pass(servers: tuple[Client, Client]) -> None:
    """Group ``http-one-pass-1x``: the handler runs in the adapted server's task (in JSON mode,
    stateless), from the request's context as stock's; the lifespan is entered and the transport
    terminated (its log line) once per request, as stock does."""
    seen, counts = [], []
    for client in servers:
        assert client.log is not None
        before = probe(client.port)["lifespans"], client.log.read_text().count("Terminating session: None")
        status, _, body = client.post(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "context"}}
        )
        assert status == 200
        data = body if isinstance(body, bytes) else body[-1]
        seen.append(json.loads(data)["result"]["content"][0]["text"])
        after = probe(client.port)["lifespans"], client.log.read_text().count("Terminating session: None")
        counts.append((after[0] - before[0], after[1] - before[1]))
    assert seen[0].startswith("the request's ") and not seen[0].endswith("_serve")  # a task group's task
    assert seen[1] == ("the request's _serve" if _one_pass(servers[0].mode) else seen[0])
    assert counts[0] == counts[1]
    if servers[0].mode.endswith("stateless"):  # a lifespan and a transport per request
        assert counts[0] == (1, 1)


def test_an_sse_request_stream_holds_what_stocks_holds(servers: tuple[Client, Client]) -> None:
    """With SSE responses the request's stream (what the router hands the request's messages to)
    holds what stock's POST makes it hold: nothing on 1.26, whose router's send waits for the
    writer's read; ``REQUEST_STREAM_BUFFER_SIZE`` on 1.30. (In JSON mode the one pass keeps the
    answer without a stream.)"""
    if servers[0].mode.split()[-2] != "sse":
        pytest.skip("JSON responses")
    from mcp.server import streamable_http

    seen = []
    for client in servers:
        status, _, body = client.post(
            {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "buffers"}}
        )
        assert status == 200 and isinstance(body, list)
        seen.append(json.loads(body[-1])["result"]["content"][0]["text"])
    assert seen == [str(getattr(streamable_http, "REQUEST_STREAM_BUFFER_SIZE", 0))] * 2


def _one_pass(mode: str) -> bool:
    """Whether the adapted server serves the fixture's POSTs in one pass: stateless ones, with
    JSON or SSE responses (on 1.26's writer closure as on 1.30's method)."""
    return mode.endswith("stateless")


def test_notifications_before_the_answer_are_streamed_as_stock_streams_them(servers: tuple[Client, Client]) -> None:
    """With SSE responses, what the handler notifies for the request (progress, a log message)
    goes out before its answer, in stock's order; in JSON mode it goes nowhere, on both."""
    answers = [client.post({"jsonrpc": "2.0", "id": 5, **CALLS["progress"]}) for client in servers]
    assert answers[0] == answers[1]
    status, kind, body = answers[0]
    assert status == 200
    if kind == "text/event-stream":
        assert isinstance(body, list)
        methods = [json.loads(data).get("method") for data in body]
        # fastmcp relates its progress to the request, and FastMCP 1.x in 1.30; 1.26.0's goes where
        # an unrelated notification goes (nowhere: a stateless transport has no GET stream).
        context: Any = importlib.import_module("mcp.server.fastmcp").Context
        if servers[0].mode.startswith("fastmcp") or "related_request_id" in inspect.getsource(context.report_progress):
            assert methods == ["notifications/progress", "notifications/message", "notifications/progress", None]
        else:
            assert methods == ["notifications/message", None]
    else:
        assert isinstance(body, bytes)
        assert json.loads(body)["result"]["content"][0]["text"] == "done"


def _settled(client: Client, before: dict[str, Any]) -> tuple[int, int, list[str]]:
    """What one more request left behind on a stateless server, once it has: lifespans entered,
    transports terminated (their log line), notification handlers run. Stock's run may still be
    finishing after its answer went out: waited for, up to 10 seconds."""
    assert client.log is not None
    deadline = time.monotonic() + 10
    while True:
        now = probe(client.port)
        lines = client.log.read_text().count("Terminating session: None") - before["terminated"]
        got = now["lifespans"] - before["lifespans"], lines, now["roots changed"][len(before["roots changed"]) :]
        if (got[:2] == (1, 1) and (got[2] or not before["notified"])) or time.monotonic() > deadline:
            return got
        time.sleep(0.02)


@pytest.mark.parametrize("step", ["notification", "DELETE"])
def test_a_stateless_notification_and_delete_are_served_in_one_pass(servers: tuple[Client, Client], step: str) -> None:
    """Group ``http-one-pass-1x``: a notification (JSON mode) and a DELETE get stock's answer (202,
    405: no session to end), and as on stock, each enters the server's lifespan and terminates its
    transport once; the notification's handler runs from the request's context, in the adapted
    server's task (stock: in its run's task group)."""
    if not servers[0].mode.endswith("stateless"):
        pytest.skip("a session's notifications and DELETE are the session's")
    answers, left = [], []
    headers = {"Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": "2025-06-18"}
    notification = b'{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}'
    for client in servers:
        assert client.log is not None
        before = {
            **probe(client.port),
            "terminated": client.log.read_text().count("Terminating session: None"),
            "notified": step == "notification",
        }
        if step == "notification":
            status, kind, _, raw = exchange(client.port, "POST", "/mcp", notification, headers)
        else:
            status, kind, _, raw = exchange(client.port, "DELETE", "/mcp", None, headers)
        answers.append((status, kind, json_body(kind, raw)))
        left.append(_settled(client, before))
    assert answers[0] == answers[1]
    assert answers[0][0] == (202 if step == "notification" else 405)
    stock, adapted = left
    assert stock[:2] == adapted[:2] == (1, 1)
    if step == "notification":
        assert len(stock[2]) == 1 and stock[2][0].startswith("the request's ")  # a task group's task
        assert not stock[2][0].endswith("_serve")
        assert adapted[2] == (["the request's _serve"] if _one_pass(servers[0].mode) else stock[2])
    else:
        assert stock[2] == adapted[2] == []


def test_what_the_run_leaves_running_outlives_the_request(servers: tuple[Client, Client]) -> None:
    """fastmcp's ping middleware starts a loop in the session's task group that a stateless
    session keeps until its next ping (10 minutes here): stock's request ends with its answer, the
    loop going on in the session manager's task group with the rest of its run; so does the one
    pass's."""
    if not servers[0].mode.startswith("fastmcp"):
        pytest.skip("fastmcp 3.x's run")
    for client in servers:
        before = probe(client.port)["posts done"]
        assert client.post({"jsonrpc": "2.0", "id": 9, **CALLS["weather"]})[0] == 200
        deadline = time.monotonic() + 10
        while probe(client.port)["posts done"] == before and time.monotonic() < deadline:
            time.sleep(0.02)
        assert probe(client.port)["posts done"] == before + 1


# What the one pass leaves to the stock path (and a ping it serves): (body, headers, method).
RAW: dict[str, tuple[bytes | None, dict[str, str], str]] = {
    "malformed JSON": (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"', {}, "POST"),
    "a batch": (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', {}, "POST"),
    "a notification the session refuses": (
        b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}',
        {},
        "POST",
    ),
    "a ping, string id": (b'{"jsonrpc": "2.0", "id": "a", "method": "ping"}', {}, "POST"),
    "unsupported protocol version": (
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        {"MCP-Protocol-Version": "1999-01-01"},
        "POST",
    ),
    "Accept: text/plain": (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}', {"Accept": "text/plain"}, "POST"),
    "Content-Type: text/plain": (
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        {"Content-Type": "text/plain"},
        "POST",
    ),
    "PUT": (b"{}", {}, "PUT"),
    "params the session refuses": (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}}',
        {},
        "POST",
    ),
}


@pytest.mark.parametrize("name", list(RAW))
def test_what_the_one_pass_leaves_to_stock_is_answered_as_stock(servers: tuple[Client, Client], name: str) -> None:
    data, extra, method = RAW[name]
    headers = {"Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": "2025-06-18", **extra}
    answers = []
    for client in servers:
        status, kind, _, raw = exchange(client.port, method, "/mcp", data, headers)
        answers.append((status, kind, json_body(kind, raw)))
    assert answers[0] == answers[1]


@pytest.mark.usefixtures("adapters_restored")
@pytest.mark.parametrize("headers", [{"Host": "evil.example:80"}, {"Origin": "http://evil.example"}])
def test_a_refused_host_or_origin_is_answered_and_logged_once_as_stock(headers: dict[str, str]) -> None:
    import asyncio
    import logging

    from http_pair import HEADERS, asgi_post, call, stock_then_adapted

    lines: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(f"{record.name} {record.getMessage()}")

    async def refused() -> tuple[Any, list[str]]:
        # mcp 1.x's FastMCP (mypy checks the tests against mcp 2.x, which has none).
        server: Any = importlib.import_module("mcp.server.fastmcp").FastMCP(
            "refused", stateless_http=True, json_response=True, log_level="WARNING"
        )
        server.tool(name="weather")(lambda city: city)
        app = server.streamable_http_app()  # guards 127.0.0.1
        del lines[:]
        async with app.router.lifespan_context(app):
            answer = await asgi_post(app, {**HEADERS, **headers}, call("weather", {"city": "Oslo"}))
        return answer, [line for line in lines if line.startswith("mcp.server")]

    handler, sdk_log = Lines(logging.INFO), logging.getLogger("mcp.server")
    sdk_log.addHandler(handler)
    try:
        stock, adapted = asyncio.run(stock_then_adapted(refused, "http-one-pass-1x"))
    finally:
        sdk_log.removeHandler(handler)
    assert adapted == stock
    assert stock[0][0] in (421, 403)
    assert len([line for line in stock[1] if "transport_security" in line]) == 1, stock[1]


# --- http-stateless-1x: Server.create_initialization_options ----------------------------------------


def _servers() -> list[tuple[str, Any]]:
    """Servers whose options are compared: FastMCP 1.x's low-level server (no version: the mcp
    version is looked up), low-level ones with and without their own fields, and fastmcp's (which
    overrides the method and calls stock's) where fastmcp 2.x/3.x is installed."""
    from mcp.server.lowlevel.server import Server

    # mcp 1.x's FastMCP (mypy checks the tests against mcp 2.x, which has none).
    fastmcp1: Any = importlib.import_module("mcp.server.fastmcp").FastMCP("weather", instructions="Ask for a city.")
    if str(ROOT / "examples") not in sys.path:
        sys.path.insert(0, str(ROOT / "examples"))
    for tool in importlib.import_module("payloads").TOOLS:
        fastmcp1.tool()(tool)
    bare: Any = Server("bare")
    full: Any = Server("full", version="9.9.9", instructions="hi", website_url="https://example.com")

    @full.list_tools()  # type: ignore[untyped-decorator]
    async def list_tools() -> list[Any]:
        return []

    servers = [("FastMCP 1.x", fastmcp1._mcp_server), ("Server(name)", bare), ("Server with fields", full)]
    try:
        fastmcp_version = importlib.metadata.version("fastmcp")
    except importlib.metadata.PackageNotFoundError:
        fastmcp_version = ""
    if fastmcp_version.startswith(("2.", "3.")):
        import fastmcp

        servers.append(("fastmcp", fastmcp.FastMCP("weather")._mcp_server))
    return servers


def _options(server: Any) -> list[Any]:
    """The options with the defaults, and with notification options and experimental capabilities."""
    from mcp.server.lowlevel.server import NotificationOptions

    return [
        server.create_initialization_options(),
        server.create_initialization_options(
            NotificationOptions(tools_changed=True, resources_changed=True), {"x": {"on": True}}
        ),
    ]


@pytest.mark.usefixtures("adapters_restored")
def test_initialization_options_are_stocks() -> None:
    from mcp.server.lowlevel.server import Server

    from mcp_native.adapters.mcp1 import init_options as mcp1_init_options

    server: Any = Server
    original = server.create_initialization_options
    servers = _servers()
    stock = {name: _options(s) for name, s in servers}
    rep = adapters.install(strict=True)
    assert "http-stateless-1x" in rep.patched
    assert server.create_initialization_options is mcp1_init_options.create_initialization_options
    for name, s in servers:
        adapted = _options(s)
        assert [type(o) for o in adapted] == [type(o) for o in stock[name]], name
        assert [o.model_dump() for o in adapted] == [o.model_dump() for o in stock[name]], name
        assert adapted[0] is not s.create_initialization_options()  # a new object each call, as stock
    version = importlib.metadata.version("mcp")
    assert stock["FastMCP 1.x"][0].server_version == version
    assert stock["Server with fields"][0].server_version == "9.9.9"
    adapters.uninstall()
    assert server.create_initialization_options is original


@pytest.mark.usefixtures("adapters_restored")
def test_the_version_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.server.lowlevel.server import Server

    from mcp_native.adapters.mcp1 import init_options as mcp1_init_options

    lookups: list[str] = []
    real = importlib.metadata.version

    def version(package: str) -> str:
        lookups.append(package)
        return real(package)

    adapters.install(strict=True)  # (which reads the SDKs' versions itself)
    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setattr(mcp1_init_options, "_versions", {})
    server: Any = Server("bare")
    for _ in range(50):
        assert server.create_initialization_options().server_version == real("mcp")
    assert lookups == ["mcp"]
    adapters.uninstall()
    lookups.clear()
    for _ in range(50):
        assert server.create_initialization_options().server_version == real("mcp")
    assert lookups == ["mcp"] * 50  # stock: once per call


def _changes(types: Any) -> list[tuple[str, Callable[[Any], object]]]:
    """Each thing stock builds a server's options of, changed (one after the other, on one server)."""

    async def handler(*_: Any) -> Any:
        return None

    def drop_tools(server: Any) -> None:
        server.request_handlers.pop(types.ListToolsRequest, None)

    icons: list[Any] = [types.Icon(src="https://example.com/a.png")]
    return [
        ("name", lambda server: setattr(server, "name", "renamed")),
        ("version", lambda server: setattr(server, "version", "1.2.3")),
        ("instructions", lambda server: setattr(server, "instructions", "other")),
        ("website", lambda server: setattr(server, "website_url", "https://other.example")),
        ("prompts", lambda server: server.list_prompts()(handler)),
        ("resources", lambda server: server.list_resources()(handler)),
        ("logging", lambda server: server.set_logging_level()(handler)),
        ("completions", lambda server: server.completion()(handler)),
        ("no tools", drop_tools),
        ("icons", lambda server: setattr(server, "icons", icons)),
        ("an icon more", lambda _: icons.append(types.Icon(src="https://example.com/b.png"))),
        ("no icons", lambda server: setattr(server, "icons", None)),
        ("experimental", lambda server: server.experimental.enable_tasks()),
    ]


@pytest.mark.usefixtures("adapters_restored")
@pytest.mark.filterwarnings("ignore:The experimental tasks API is deprecated:DeprecationWarning")  # 1.30's
def test_a_stateless_sessions_options_are_stocks_as_the_server_changes() -> None:
    """The one pass's options (built once per server) against stock's, built anew, after each
    change to what they are built of; the same object while nothing changed."""
    types: Any = importlib.import_module("mcp.types")
    from mcp.server.lowlevel.server import Server

    from mcp_native.adapters.mcp1.init_options import stateless_options

    stock: Any = Server.create_initialization_options
    adapters.install(strict=True)
    for name, server in _servers():
        built = stateless_options(server)
        assert (stateless_options(server) is built) is (name != "fastmcp"), name  # fastmcp's: its own build
        for change, apply in _changes(types):
            apply(server)
            # fastmcp's class builds its own (over the group's, stock's by the test above).
            expected = server.create_initialization_options() if name == "fastmcp" else stock(server)
            options = stateless_options(server)
            assert type(options) is type(expected), (name, change)
            assert options.model_dump() == expected.model_dump(), (name, change)


@pytest.mark.usefixtures("adapters_restored")
def test_a_failing_lookup_gives_stocks_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.server.lowlevel.server import Server

    from mcp_native.adapters.mcp1 import init_options as mcp1_init_options

    def version(package: str) -> str:
        raise importlib.metadata.PackageNotFoundError(package)

    adapters.install(strict=True)  # (which reads the SDKs' versions itself)
    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setattr(mcp1_init_options, "_versions", {})
    server: Any = Server("bare")
    adapted = server.create_initialization_options()
    adapters.uninstall()
    stock = server.create_initialization_options()
    assert stock.server_version == adapted.server_version == "unknown"
    assert adapted.model_dump() == stock.model_dump()


@pytest.mark.usefixtures("adapters_restored")
def test_the_one_pass_takes_the_runs_it_serves_as() -> None:
    """The low-level ``Server.run`` (FastMCP 1.x's server, a bare ``Server``) and, with group
    ``http-one-pass-3x``, fastmcp 3.x's run take the one pass; fastmcp 2.x's run, a server with
    task support, and any server once the adapters are uninstalled keep stock's path."""
    import anyio

    from mcp_native.adapters.mcp1 import http_one_pass

    async def taken(server: Any) -> bool:
        return http_one_pass._session_opener(server) is not None

    adapters.install(strict=True)
    found = {name: anyio.run(taken, server) for name, server in _servers()}
    assert found.pop("fastmcp", False) is (_fastmcp_line() == "3")
    assert found == {"FastMCP 1.x": True, "Server(name)": True, "Server with fields": True}
    tasks: Any = importlib.import_module("mcp.server.lowlevel.server").Server("tasks")
    with warnings.catch_warnings():  # 1.30 deprecates the experimental tasks API
        warnings.simplefilter("ignore", DeprecationWarning)
        tasks.experimental.enable_tasks()
    assert anyio.run(taken, tasks) is False
    adapters.uninstall()
    assert not any(anyio.run(taken, server) for name, server in _servers() if name == "fastmcp")


# Params a client might send, valid for some method and not for others (a wrong type, a missing
# field, extra fields, a progress token, none at all).
_PARAMS: list[Any] = [
    None,
    {},
    {"name": "get_weather", "arguments": {"city": "x"}},
    {"name": 5},
    {"uri": "file:///x"},
    {"uri": 7},
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}},
    {"protocolVersion": "2025-06-18", "capabilities": {"roots": {"listChanged": True}}, "clientInfo": {"name": 1}},
    {"level": "info"},
    {"level": "loud"},
    {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}},
    {"cursor": "c2", "extra": [1, 2]},
    {"taskId": "t1"},
    {"requestId": 3, "reason": "gone"},
    {"progressToken": "p", "progress": 0.5, "total": 1},
    {"_meta": {"progressToken": 9}, "name": "n", "arguments": {}},
    {"name": "p", "arguments": {"a": "b"}},
]


def test_a_message_is_validated_as_the_sessions_union_validates_it() -> None:
    """The one pass validates a request or notification against the member of ``ClientRequest``
    or ``ClientNotification`` its method names, where stock tries the whole union: the same
    model, type and fields set for every method of both unions (and methods of neither) over
    params valid for some and not others; refused where the union refuses."""
    import typing

    from mcp_native.adapters.mcp1 import http_one_pass

    types: Any = importlib.import_module("mcp.types")  # 1.x's (the type checker sees 2.x's)
    headers = {"mcp-protocol-version": "2025-06-18"}
    kinds = {types.ClientRequest: '"id": 4, ', types.ClientNotification: ""}
    taken = 0
    for kind, request_id in kinds.items():
        members = typing.get_args(kind.model_fields["root"].annotation)
        assert len(http_one_pass._members(kind)) == len(members) > 4  # every member, by method
        methods = [m.model_fields["method"].default for m in members] + ["tools/unknown", "notifications/x"]
        for method in methods:
            for params in _PARAMS:
                body = f'{{"jsonrpc": "2.0", {request_id}"method": "{method}"'
                body += f', "params": {json.dumps(params)}}}' if params is not None else "}"
                root = types.JSONRPCMessage.model_validate(json.loads(body)).root
                try:
                    stock = kind.model_validate(root.model_dump(by_alias=True, mode="json", exclude_none=True))
                except ValueError:
                    stock = None
                got = http_one_pass._message(body.encode(), headers)
                if stock is None:
                    assert got is None, (method, params)
                    continue
                taken += 1
                assert got is not None and got[0] == root, (method, params)
                assert type(got[1]) is kind and type(got[1].root) is type(stock.root), (method, params)
                assert got[1] == stock and got[1].root == stock.root, (method, params)
                assert got[1].model_fields_set == stock.model_fields_set, (method, params)
                assert got[1].root.model_fields_set == stock.root.model_fields_set, (method, params)
                assert got[1].model_dump() == stock.model_dump(), (method, params)
    assert taken > 40  # most methods validated with some params
