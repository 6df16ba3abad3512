"""What a client POSTs to an open session (groups ``http-sessions`` and, without an event
store, ``http-session-tasks``, mcp 2.x): handed to the session's dispatcher by the POST, without
the session's read loop, the answer put on its request's stream without the transport's router
(with its tasks, in JSON mode only). Each case runs on a stock and
an adapted MCPServer in process (its lifespan run, requests through its ASGI app) and compares
what the client gets (answers, statuses, what the tools saw) and the SDK's log lines, and counts
what the adapted session skipped."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import mcp.server.streamable_http as transport_module
import mcp.server.streamable_http_manager as manager_module
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from http_pair import HEADERS, body, call, post_scope, stock_then_adapted
from mcp_native.adapters.mcp2 import http_sessions

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]
GROUP = "http-sessions"
INITIALIZE = body(
    "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}, 0
)
# Set by the app's ASGI middleware for each request: what a tool's task inherits from its sender.
caller: contextvars.ContextVar[str] = contextvars.ContextVar("caller", default="none")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server() -> MCPServer:
    mcp = MCPServer("sessions", log_level="WARNING")
    gate = asyncio.Event()

    @mcp.tool()
    def weather(city: str) -> dict[str, Any]:
        return {"city": city, "caller": caller.get()}

    @mcp.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.info("working")
        await ctx.report_progress(1, 2, "half")
        return "done"

    @mcp.tool()
    def fails() -> str:
        raise ToolError("it failed")

    @mcp.tool()
    async def gated() -> str:
        await gate.wait()
        return "released"

    mcp.gate = gate  # type: ignore[attr-defined]
    return mcp


class Session:
    """A client of one session, through the ASGI app in process (each request stays until its
    answer, as an HTTP client does)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = dict(HEADERS)

    async def request(
        self, method: str, data: bytes, who: str, extra: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        fields = {"Host": "127.0.0.1:8000", **self.headers, "X-Caller": who, **(extra or {})}
        scope = {
            **post_scope(fields, data),
            "method": method,
            "headers": [(k.lower().encode(), v.encode()) for k, v in fields.items()],
        }
        pending = [{"type": "http.request", "body": data, "more_body": False}]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if pending:
                return pending.pop()
            await asyncio.Event().wait()
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await self.app(scope, receive, send)
        headers = {k.decode(): v.decode() for k, v in sent[0].get("headers", ())}
        return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])

    async def post(self, data: bytes, who: str = "alice", extra: dict[str, str] | None = None) -> tuple[int, Any]:
        status, headers, content = await self.request("POST", data, who, extra)
        if "mcp-session-id" in headers:
            self.headers["Mcp-Session-Id"] = headers["mcp-session-id"]
            self.headers["Mcp-Protocol-Version"] = "2025-11-25"
        if headers.get("content-type", "").startswith("text/event-stream"):  # each event's data
            lines = content.decode().splitlines()
            return status, [json.loads(line[6:]) for line in lines if line.startswith("data: ") and line[6:]]
        answer: Any
        try:
            answer = json.loads(content) if content else None
        except ValueError:
            answer = content
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
            answer["error"].pop("data", None)  # a validation error's text names pydantic's version
        return status, answer

    async def delete(self) -> int:
        return (await self.request("DELETE", b"", "alice"))[0]


Run = Callable[[MCPServer, Session], Awaitable[Any]]


class Lines(logging.Handler):
    """The SDK's log lines at INFO and above, session ids masked."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(re.sub(r"[0-9a-f]{32}", "<id>", f"{record.name} {record.levelname} {record.getMessage()}"))


class Counts:
    """What the adapted session skipped: messages handed to its dispatcher without the read
    loop, answers put on their request's stream without the router."""

    def __init__(self) -> None:
        self.handed_over = self.delivered = 0


async def in_session(run: Run, json_response: bool = True, loop: bool = False, **kwargs: Any) -> tuple[Any, Counts]:
    """``run`` in a session opened on a fresh server: what it returns with the SDK's log lines,
    and what the session skipped. ``loop``: adapted, the session keeps its tasks (as where group
    http-session-tasks does not apply: mcp 2.0.1, 2.1.1)."""
    mcp = server()
    sdk_log, lines = logging.getLogger("mcp"), Lines()
    level = sdk_log.level
    sdk_log.setLevel(logging.INFO)
    sdk_log.addHandler(lines)
    app = mcp.streamable_http_app(json_response=json_response, **kwargs)
    route: Any = app.router.routes[0]
    stock_app = route.app  # the route's ASGI app, behind the middleware below

    async def with_caller(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers", ()))
        token = caller.set(headers.get(b"x-caller", b"none").decode())
        try:
            await stock_app(scope, receive, send)
        finally:
            caller.reset(token)

    route.app = with_caller
    counts = Counts()
    module: Any = http_sessions  # its private names
    hand_over, deliver = module._hand_over, module.deliver

    async def counted_hand_over(*args: Any) -> None:
        counts.handed_over += 1
        await hand_over(*args)

    async def counted_deliver(*args: Any) -> None:
        counts.delivered += 1
        await deliver(*args)

    module._hand_over, module.deliver = counted_hand_over, counted_deliver
    manager = manager_module.StreamableHTTPSessionManager
    opening = manager.__dict__["_serve_opening_request"]
    if loop:
        manager._serve_opening_request = module.stock_serve_opening_request or opening  # type: ignore[method-assign]
    try:
        async with app.router.lifespan_context(app):
            session = Session(app)
            assert (await session.post(INITIALIZE))[0] == 200
            assert (await session.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}'))[0] == 202
            result = await run(mcp, session)
    finally:
        manager._serve_opening_request = opening  # type: ignore[method-assign]
        module._hand_over, module.deliver = hand_over, deliver
        sdk_log.removeHandler(lines)
        sdk_log.setLevel(level)
    return (result, lines.lines), counts


async def both(run: Run, **kwargs: Any) -> tuple[Any, Any, Counts]:
    """``run`` stock, then adapted: both results, and what the adapted session skipped."""
    stock, adapted = await stock_then_adapted(lambda: in_session(run, **kwargs), GROUP)
    assert (stock[1].handed_over, stock[1].delivered) == (0, 0)
    (stock_result, stock_lines), (adapted_result, adapted_lines) = stock[0], adapted[0]
    assert adapted_lines == stock_lines
    assert any("Created new transport" in line for line in stock_lines)
    return stock_result, adapted_result, adapted[1]


def answer_of(exchange: tuple[int, Any]) -> Any:
    """The JSON-RPC answer of a POST: its JSON body, or its last SSE event."""
    return exchange[1][-1] if isinstance(exchange[1], list) else exchange[1]


@pytest.mark.parametrize("loop", [False, True], ids=["no tasks", "its tasks"])
@pytest.mark.parametrize("json_response", [True, False], ids=["JSON", "SSE"])
async def test_a_session_is_answered_alike_and_its_messages_skip_the_loop(json_response: bool, loop: bool) -> None:
    async def run(mcp: MCPServer, session: Session) -> list[Any]:
        answers: list[Any] = [
            await session.post(call("weather", {"city": "Paris"}, id=2)),
            await session.post(call("weather", {"city": "Rome"}, id="three"), who="bob"),
            await session.post(call("chatty", id=4)),  # its notifications have no wire in JSON mode
            await session.post(call("fails", id=5)),
            await session.post(call("weather", {}, id=6)),  # invalid arguments
            await session.post(call("nowhere", id=7)),
            await session.post(body("tools/list", id=8)),
            await session.post(body("ping", id=9)),
            await session.post(body("no/such/method", id=10)),
            await session.post(b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":'),  # not JSON
            await session.post(b"[" + call("weather", {"city": "Oslo"}, id=12) + b"]"),  # a batch
            await session.post(INITIALIZE),  # again, in the session
            await session.post(call("weather", {"city": "Oslo"}, id=14), extra={"Host": "evil.example:80"}),
            await session.post(call("weather", {"city": "Oslo"}, id=15), extra={"Origin": "http://evil.example"}),
            await session.post(call("weather", {"city": "Oslo"}, id=16), extra={"Accept": "text/html"}),
            await session.post(call("weather", {"city": "Oslo"}, id=17), extra={"Mcp-Session-Id": "nope"}),
        ]
        answers.append(await session.delete())
        answers.append(await session.post(call("weather", {"city": "Paris"}, id=13)))
        return answers

    stock, adapted, counts = await both(run, json_response=json_response, loop=loop)
    # The batch: the http-errors group's listed difference (-32600 for a malformed envelope).
    assert (stock[10][1]["error"]["code"], adapted[10][1]["error"]["code"]) == (-32602, -32600)
    assert adapted[:10] + adapted[11:] == stock[:10] + stock[11:]
    assert stock[0][0] == 200 and answer_of(stock[0])["id"] == 2
    assert answer_of(stock[0])["result"]["structuredContent"] == {"city": "Paris", "caller": "alice"}
    assert answer_of(stock[1])["result"]["structuredContent"] == {"city": "Rome", "caller": "bob"}
    assert answer_of(stock[3])["result"]["isError"] is True
    if not json_response:  # the log message before the answer, streamed on both
        assert [event.get("method") for event in stock[2][1]] == ["notifications/message", None]
    assert [a[0] for a in stock[12:16]] == [421, 403, 406, 404]
    assert stock[9][0] == 400 and stock[17][0] == 404
    # Handed over: notifications/initialized and the requests 2 to 10 (not the body that is no
    # JSON nor the batch, which the transport refuses). A session without its tasks (group
    # http-session-tasks) has no loop and no router: both initialize requests are handed over
    # too, and every answer is delivered by the task that writes it (with SSE the tool's log
    # message too). With its tasks, the loop runs initialize inline, and in JSON mode the
    # answers from the session's second request on are delivered without the router.
    if loop:
        assert (counts.handed_over, counts.delivered) == (10, 10 if json_response else 0)
    else:
        assert (counts.handed_over, counts.delivered) == (12, 11 if json_response else 12)


async def test_a_request_the_client_cancels_is_answered_as_stock_answers_it() -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        pending = asyncio.ensure_future(session.post(call("gated", id=21)))
        await asyncio.sleep(0.05)
        notice = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 21}}
        accepted = await session.post(json.dumps(notice).encode())
        return accepted, await asyncio.wait_for(pending, 5)

    stock, adapted, counts = await both(run)
    assert adapted == stock
    assert stock[0][0] == 202
    assert stock[1][1]["error"]["code"] == transport_module.REQUEST_CANCELLED
    # The cancellation handed over too, and (a session without its loop) initialize; the
    # transport's own answer to the cancelled request is delivered as the router delivers it.
    assert (counts.handed_over, counts.delivered) == (4, 2)


async def test_a_request_in_flight_when_the_session_ends_is_answered_as_stock_answers_it() -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        pending = asyncio.ensure_future(session.post(call("gated", id=31)))
        await asyncio.sleep(0.05)
        deleted = await session.delete()
        answer = await asyncio.wait_for(pending, 5)
        await asyncio.sleep(0.05)
        return deleted, answer, len([t for t in asyncio.all_tasks() if "gated" in repr(t.get_coro())])

    stock, adapted, counts = await both(run)
    assert adapted == stock
    assert stock[1] == (500, stock[1][1]) and "terminated" in stock[1][1]["error"]["message"]
    assert stock[2] == 0  # the tool's task went with the session, on both
    # initialize, notifications/initialized and the call; delivered: initialize's answer and the
    # call's CONNECTION_CLOSED error, which finds its request's stream gone, as stock's router.
    assert (counts.handed_over, counts.delivered) == (3, 2)


@pytest.mark.parametrize("json_response", [True, False], ids=["JSON", "SSE"])
async def test_calls_in_flight_together_are_each_answered_once(json_response: bool) -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        posts = [session.post(call("weather", {"city": f"c{i}"}, id=100 + i)) for i in range(40)]
        gated = asyncio.ensure_future(session.post(call("gated", id=99)))
        answers = await asyncio.gather(*posts)
        mcp.gate.set()  # type: ignore[attr-defined]
        return answers, await asyncio.wait_for(gated, 5)

    stock, adapted, counts = await both(run, json_response=json_response)
    assert adapted == stock
    assert [answer_of(a)["result"]["structuredContent"]["city"] for a in stock[0]] == [f"c{i}" for i in range(40)]
    assert answer_of(stock[1])["result"]["structuredContent"] == {"result": "released"}
    assert (counts.handed_over, counts.delivered) == (43, 42)


async def test_with_debug_on_the_transport_the_stock_path_serves() -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        return await session.post(call("weather", {"city": "Paris"}, id=2))

    log = logging.getLogger(transport_module.__name__)
    level = log.level
    log.setLevel(logging.DEBUG)
    try:
        stock, adapted, counts = await both(run)
    finally:
        log.setLevel(level)
    assert adapted == stock
    assert (counts.handed_over, counts.delivered) == (0, 0)


async def test_with_an_event_store_requests_and_answers_go_through_the_streams() -> None:
    from mcp.server.streamable_http import EventStore

    class Store(EventStore):
        def __init__(self) -> None:
            self.events: list[Any] = []

        async def store_event(self, stream_id: Any, message: Any) -> Any:
            self.events.append(message)
            return str(len(self.events))

        async def replay_events_after(self, last_event_id: Any, send_callback: Any) -> Any:
            return None

    async def run(mcp: MCPServer, session: Session) -> Any:
        return await session.post(call("weather", {"city": "Paris"}, id=2))

    stock, adapted, counts = await both(run, event_store=Store())
    assert adapted == stock
    # A request goes through the loop (its SSE response's priming event first, as stock); the
    # router stores each answer.
    assert (counts.handed_over, counts.delivered) == (1, 0)


async def test_a_session_idle_past_its_timeout_ends_as_stock_ends_it() -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        first = await session.post(call("weather", {"city": "Paris"}, id=2))
        kept = await session.post(call("weather", {"city": "Rome"}, id=3))  # within the timeout
        await asyncio.sleep(0.6)
        return first, kept, await session.post(call("weather", {"city": "Oslo"}, id=4))

    stock, adapted, counts = await both(run, session_idle_timeout=0.3)
    assert adapted == stock
    assert [a[0] for a in stock] == [200, 200, 404]
    assert (counts.handed_over, counts.delivered) == (4, 3)  # (the log lines, idle timeout included, alike)


@pytest.mark.parametrize("json_response", [True, False], ids=["JSON", "SSE"])
async def test_a_session_runs_no_task_of_its_own(json_response: bool) -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        await asyncio.sleep(0.05)  # what the first session's opening started is done
        before = len(asyncio.all_tasks())
        other = Session(session.app)
        assert (await other.post(INITIALIZE))[0] == 200
        opened = len(asyncio.all_tasks()) - before
        answer = await other.post(call("weather", {"city": "Paris"}, id=2))
        assert await other.delete() == 200
        await asyncio.sleep(0.05)
        return opened, answer, len(asyncio.all_tasks()) - before

    stock, adapted, _ = await both(run, json_response=json_response)
    assert adapted[1:] == stock[1:]
    assert stock[0] == 2  # the session's server task (its loop runs there) and its transport's router
    # Without an event store (group http-session-tasks) none: at most the task that ends idle
    # sessions, one per manager, started with the first.
    assert adapted[0] == 0
    assert stock[2] == adapted[2] == 0  # nothing left once the session ends, on both


async def test_sessions_never_closed_end_at_their_idle_timeout_and_leave_nothing() -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        await asyncio.sleep(0.5)  # the first session idle past its timeout
        before = len(asyncio.all_tasks())
        for i in range(50):  # opened, called, abandoned
            client = Session(session.app)
            assert (await client.post(INITIALIZE))[0] == 200
            assert (await client.post(call("weather", {"city": f"c{i}"}, id=2)))[0] == 200
        opened = len(mcp.session_manager._server_instances)
        await asyncio.sleep(1.2)  # past the last one's timeout, with room for a loaded machine
        return opened, len(mcp.session_manager._server_instances), len(asyncio.all_tasks()) - before

    stock, adapted, _ = await both(run, session_idle_timeout=0.3)
    assert stock == adapted == (50, 0, 0)  # (the log lines, 51 idle timeouts, alike)


async def test_a_session_manager_whose_seam_is_replaced_keeps_the_session_tasks() -> None:
    async def run(mcp: MCPServer, session: Session) -> Any:
        manager: Any = manager_module  # (its serve_loop is an import mypy does not see exported)
        seam, driven = manager.serve_loop, []

        async def wrapped(*args: Any, **kwargs: Any) -> None:  # someone's wrapper of the seam
            driven.append(kwargs["session_id"])
            await seam(*args, **kwargs)

        manager.serve_loop = wrapped
        try:
            other = Session(session.app)
            assert (await other.post(INITIALIZE))[0] == 200
            answer = await other.post(call("weather", {"city": "Paris"}, id=2))
            assert await other.delete() == 200
        finally:
            manager.serve_loop = seam
        return answer, len(driven)

    stock, adapted, _ = await both(run)
    assert adapted == stock
    assert stock[1] == 1  # the wrapper drives the session, adapted as stock
