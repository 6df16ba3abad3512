"""Output validation on the low-level ``Server`` (``adapters.mcp2.lowlevel``): the example server
(``examples/lowlevel_app.py``) as a subprocess, stock and adapted in each mode, answering raw
JSON-RPC lines (what the server sends, unseen by any client's checks) and the SDK's stdio
client; calls that come before any listing, over stdio and stateless Streamable HTTP (uvicorn on
127.0.0.1); then the wrapped handlers in process."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

from fastmcp import FastMCP
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from mcp_native import Validator, adapters
from mcp_native.adapters._engines import validation as _validation
from mcp_native.adapters.mcp2 import lowlevel as mcp_lowlevel

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "examples" / "lowlevel_app.py"
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

BROKEN = {"city": "Oslo", "temperature": 22.5, "conditions": "Sunny", "humidity": "65%", "wind_speed": 3.5}
PROBLEM = (
    "Output validation error: the result of tool 'broken_weather' does not match its output schema: "
    "'65%' is not of type 'integer' at /humidity"
)


def command(mode: str | None, app: Path = APP) -> list[str]:
    """The example server (or ``app``), stock (``None``) or adapted with ``output_validation=mode``."""
    ours = [] if mode is None else ["-m", "mcp_native", "run", "--quiet", "--output-validation", mode]
    return [sys.executable, *ours, str(app)]


def request(id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, **({} if params is None else {"params": params})}


def call(id: int, name: str) -> dict[str, Any]:
    return request(id, "tools/call", {"name": name, "arguments": {"city": "Oslo"}})


def exchange(
    mode: str | None, messages: list[dict[str, Any]], app: Path = APP, env: dict[str, str] | None = None
) -> tuple[dict[Any, dict[str, Any]], str]:
    """The results the server (the example, or ``app`` with ``env`` added to the environment)
    sends for ``messages`` (after the handshake), by id, and its stderr. Stdin is closed once
    every request is answered (the server answers them concurrently)."""
    init = request(
        0,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    )
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *messages]
    ids = {m["id"] for m in messages}
    proc = subprocess.Popen(
        command(mode, app),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=None if env is None else {**os.environ, **env},
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
        proc.stdin.flush()
        answers: dict[Any, dict[str, Any]] = {}
        while not ids <= answers.keys():
            line = proc.stdout.readline()
            assert line, f"the server ended without answering; answers: {answers}"
            message = json.loads(line)
            answers[message["id"]] = message.get("result", message)
        proc.stdin.close()
        stderr = proc.stderr.read().decode()
        proc.wait()
        return answers, stderr
    finally:
        watchdog.cancel()
        proc.kill()


LISTED_CALLS = [request(1, "tools/list"), call(2, "get_weather"), call(3, "broken_weather"), call(4, "no_schema")]


@cache
def listed_calls(mode: str | None) -> tuple[dict[Any, dict[str, Any]], str]:
    """``exchange(mode, LISTED_CALLS)``, once per mode."""
    return exchange(mode, LISTED_CALLS)


def sent_as_is(result: dict[str, Any], structured: dict[str, Any]) -> bool:
    return result.get("isError") is False and result["structuredContent"] == structured


@pytest.mark.parametrize("mode", [None, "error", "warn", "off"])
def test_valid_results_and_tools_without_a_schema_are_sent_as_stock_sends_them(mode: str | None) -> None:
    answers, _ = listed_calls(mode)
    stock, _ = listed_calls(None)
    assert answers[2] == stock[2] and sent_as_is(answers[2], answers[2]["structuredContent"])
    assert answers[4] == stock[4] and sent_as_is(answers[4], BROKEN)


def test_stock_sends_a_result_that_violates_its_output_schema() -> None:
    answers, _ = listed_calls(None)
    assert sent_as_is(answers[3], BROKEN)


def test_error_mode_sends_an_error_result_naming_the_value_and_its_pointer() -> None:
    answers, _ = listed_calls("error")
    assert answers[3] == {"content": [{"type": "text", "text": PROBLEM}], "isError": True}


def test_warn_mode_logs_and_sends() -> None:
    answers, stderr = listed_calls("warn")
    assert sent_as_is(answers[3], BROKEN)
    assert PROBLEM in stderr


def test_off_sends_and_says_nothing() -> None:
    answers, stderr = listed_calls("off")
    assert sent_as_is(answers[3], BROKEN)
    assert "Output validation error" not in stderr


def test_a_tool_called_before_any_listing_is_checked() -> None:
    answers, _ = exchange("error", [call(1, "broken_weather")])
    assert answers[1] == {"content": [{"type": "text", "text": PROBLEM}], "isError": True}


@pytest.mark.parametrize("adapted", [False, True])
async def test_the_sdk_client_gets_the_error_result(adapted: bool) -> None:
    cmd = command("error" if adapted else None)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], cwd=str(ROOT))
    with open("/dev/null", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()
            ok = await s.call_tool("get_weather", {"city": "Oslo"})
            assert ok.structured_content is not None and ok.structured_content["city"] == "Oslo"
            if adapted:
                result = await s.call_tool("broken_weather", {"city": "Oslo"})
                assert result.is_error and result.content == [types.TextContent(type="text", text=PROBLEM)]
            else:  # only the client's own check stands between the invalid result and its user
                with pytest.raises(RuntimeError, match="Invalid structured content"):
                    await s.call_tool("broken_weather", {"city": "Oslo"})


# -- calls before any listing -------------------------------------------------------------------

# A low-level server over stdio (run as a script) or stateless Streamable HTTP (``app``). Its
# tools/list handler takes a moment (a catalog fetched), says on stderr what it was given, and is
# missing (LISTING=none) or raises (LISTING=raises) if asked; the ``listings`` tool answers what
# it was given each time.
STATIONS = """
import json, os, sys

import anyio
from mcp import types
from mcp.server import Server

HUMIDITY = {"type": "object", "properties": {"humidity": {"type": "number"}}}
READINGS = {"type": "object", "properties": {"readings": {"type": "array", "items": HUMIDITY}}}
SCHEMA = {"type": "object", "properties": {"station": READINGS}}
TOOLS = [types.Tool(name=name, input_schema={"type": "object"}, output_schema=SCHEMA) for name in ("station", "calm")]
LISTING = os.environ.get("LISTING", "ok")
SEEN = []


async def list_tools(ctx, params):
    seen = {"method": ctx.method, "params": type(params).__name__, "cursor": params.cursor}
    SEEN.append({**seen, "meta": sorted(ctx.meta or {}), "http": ctx.request is not None})
    print("listed", json.dumps(SEEN[-1]), file=sys.stderr, flush=True)
    await anyio.sleep(0.1)
    if LISTING == "raises":
        raise RuntimeError("the catalog is down")
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    if params.name == "listings":
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(SEEN))])
    data = {"station": {"readings": [{"humidity": 40}, {"humidity": "high" if params.name == "station" else 71.5}]}}
    text = types.TextContent(type="text", text=json.dumps(data))
    return types.CallToolResult(content=[text], structured_content=data)


server = Server("stations", on_list_tools=None if LISTING == "none" else list_tools, on_call_tool=call_tool)
app = server.streamable_http_app(stateless_http=True, json_response=True)

if __name__ == "__main__":
    import mcp.server.stdio

    async def main():
        async with mcp.server.stdio.stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
"""
AT = "at /station/readings/1/humidity"


@pytest.fixture(scope="module")
def stations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stations") / "stations_app.py"
    path.write_text(STATIONS)
    return path


def listed(stderr: str) -> list[dict[str, Any]]:
    """What each run of the stations' tools/list handler was given."""
    return [json.loads(line.removeprefix("listed ")) for line in stderr.splitlines() if line.startswith("listed ")]


LISTING_SEEN = {"method": "tools/list", "params": "PaginatedRequestParams", "cursor": None}


def test_the_tools_are_listed_once_for_the_calls_that_come_first(stations: Path) -> None:
    # Sent together: the server answers them concurrently, the later calls while the first lists.
    first = [call(1, "station"), call(2, "station"), call(3, "calm"), call(4, "station"), call(5, "unlisted")]
    answers, stderr = exchange("error", [*first, call(6, "listings"), call(7, "unlisted")], stations)
    for id in (1, 2, 4):
        assert answers[id]["isError"] is True
        assert answers[id]["content"][0]["text"].endswith(f"'high' is not of type 'number' {AT}")
    assert answers[3].get("isError") is False and answers[5].get("isError") is False
    assert listed(stderr) == [{**LISTING_SEEN, "meta": [], "http": False}]


def test_a_valid_first_call_is_sent_as_stock_sends_it(stations: Path) -> None:
    stock, _ = exchange(None, [call(1, "calm")], stations)
    answers, stderr = exchange("error", [call(1, "calm")], stations)
    assert answers == stock and sent_as_is(answers[1], answers[1]["structuredContent"])
    assert len(listed(stderr)) == 1


@pytest.mark.parametrize("listing", ["none", "raises"])
def test_without_a_listing_a_first_call_is_sent_as_stock_sends_it(stations: Path, listing: str) -> None:
    messages = [call(1, "station"), call(2, "station"), call(3, "calm")]
    stock, _ = exchange(None, messages, stations, {"LISTING": listing})
    answers, stderr = exchange("error", messages, stations, {"LISTING": listing})
    assert answers == stock and sent_as_is(answers[1], answers[1]["structuredContent"])
    assert len(listed(stderr)) == (1 if listing == "raises" else 0)  # not tried again
    assert stderr.count("The tools/list handler failed") == (1 if listing == "raises" else 0)
    assert stderr.count("RuntimeError: the catalog is down") == (1 if listing == "raises" else 0)


# conftest's ``served``: ``with served(lambda port: cmd, cwd, env) as port:``.
Served = Callable[[Callable[[int], list[str]], Path, dict[str, str]], AbstractContextManager[int]]
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def post(port: int, version: str, id: int, name: str) -> dict[str, Any]:
    """The result of a stateless ``tools/call`` of ``name`` at ``version``, without arguments
    (with arguments, the SDK's 2026-07-28 path lists the tools itself, for its Mcp-Param headers)."""
    params: dict[str, Any] = {"name": name}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    headers["MCP-Protocol-Version"] = version
    if version == "2026-07-28":
        params["_meta"] = MODERN_META
        headers.update({"Mcp-Method": "tools/call", "Mcp-Name": name})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/mcp", body=json.dumps(request(id, "tools/call", params)).encode(), headers=headers)
        response = conn.getresponse()
        body = json.loads(response.read())
    finally:
        conn.close()
    assert response.status == 200, body
    return body["result"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_stateless_http_checks_the_first_call_of_the_process(stations: Path, served: Served, version: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}

    def uvicorn(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "stations_app:app", "--port", str(port), "--log-level", "warning"]

    with served(uvicorn, stations.parent, {**env, adapters.ENVIRONMENT: "1"}) as port:
        first = post(port, version, 1, "station")
        assert first["isError"] is True and first["content"][0]["text"].endswith(AT)
        calm = post(port, version, 2, "calm")
        assert calm.get("isError") is False
        assert calm["structuredContent"] == {"station": {"readings": [{"humidity": 40}, {"humidity": 71.5}]}}
        assert post(port, version, 3, "station")["isError"] is True
        seen = json.loads(post(port, version, 4, "listings")["content"][0]["text"])
    meta = [] if version == "2025-11-25" else sorted(MODERN_META)
    assert seen == [{**LISTING_SEEN, "meta": meta, "http": True}]


# -- in process ---------------------------------------------------------------------------------

NO_CONTEXT: Any = None  # the handlers here do not read it


def lowlevel(listing: list[list[types.Tool]], results: dict[str, types.CallToolResult]) -> Server[Any]:
    """A server whose tools/list answers the pages of ``listing`` in turn (the last one from
    then on) and whose tools/call answers ``results[name]``."""
    pages = iter(listing)
    current: list[types.Tool] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        nonlocal current
        current = next(pages, current)
        return types.ListToolsResult(tools=current)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return results[params.name]

    return Server("t", on_list_tools=list_tools, on_call_tool=call_tool)


async def list_then_call(server: Server[Any], name: str, listings: int = 1) -> Any:
    for _ in range(listings):
        entry = server.get_request_handler("tools/list")
        assert entry is not None
        await entry.handler(NO_CONTEXT, None)
    entry = server.get_request_handler("tools/call")
    assert entry is not None
    return await entry.handler(NO_CONTEXT, types.CallToolRequestParams(name=name))


def tool(name: str, schema: dict[str, Any] | None) -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object"}, output_schema=schema)


def structured(value: Any) -> types.CallToolResult:
    return types.CallToolResult(content=[], structured_content=value)


ARRAY = {"type": "array", "items": {"type": "integer"}}
OBJECT = {"type": "object", "properties": {"n": {"type": "integer"}}}


def error_text(result: Any) -> str:
    assert isinstance(result, types.CallToolResult) and result.is_error and result.structured_content is None
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_any_json_value_is_checked_as_it_is() -> None:
    adapters.install()
    server = lowlevel([[tool("a", ARRAY)]], {"a": structured([1, "x"])})
    assert "'x' is not of type 'integer' at /1" in error_text(await list_then_call(server, "a"))


async def test_every_page_and_listing_counts() -> None:
    adapters.install()
    pages = [[tool("a", OBJECT)], [tool("b", OBJECT)], [tool("a", ARRAY), tool("b", None)]]
    results = {"a": structured({"n": 1}), "b": structured({"n": "one"})}
    server = lowlevel(pages, results)
    assert not (await list_then_call(server, "a")).is_error
    assert "at /n" in error_text(await list_then_call(server, "b"))  # learned from the second page
    # Listed again: a's schema changed, b has none any more.
    assert "is not of type 'array'" in error_text(await list_then_call(server, "a"))
    assert await list_then_call(server, "b") is results["b"]


async def test_an_equal_schema_listed_again_keeps_its_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    adapters.install()
    compiled: list[Any] = []

    def validator(schema: Any) -> Validator:
        compiled.append(schema)
        return Validator(schema)

    monkeypatch.setattr(_validation, "Validator", validator)
    server = lowlevel([[tool("a", dict(OBJECT))]], {"a": structured({"n": 1})})
    for _ in range(3):  # each listing builds new dicts
        assert not (await list_then_call(server, "a", listings=2)).is_error
    assert len(compiled) == 1


async def test_missing_structured_content_error_results_and_bad_schemas() -> None:
    adapters.install()
    bare = types.CallToolResult(content=[types.TextContent(type="text", text="hi")])
    failed = types.CallToolResult(content=[], is_error=True)
    server = lowlevel(
        [[tool("bare", OBJECT), tool("failed", OBJECT), tool("bad", {"type": 3})]],
        {"bare": bare, "failed": failed, "bad": structured({})},
    )
    assert "has an output schema but returned no structured content" in error_text(await list_then_call(server, "bare"))
    assert await list_then_call(server, "failed") is failed
    assert "has an invalid output schema" in error_text(await list_then_call(server, "bad"))


async def test_frameworks_handlers_are_not_wrapped() -> None:
    adapters.install()
    servers: list[Any] = [MCPServer("m")._lowlevel_server, FastMCP("f")._mcp_server]
    for server in servers:
        for method in ("tools/list", "tools/call"):
            assert server.get_request_handler(method) is server._request_handlers[method]


@pytest.mark.parametrize("mode", ["off", None])
def test_off_and_uninstall_leave_the_handlers_alone(mode: str | None) -> None:
    adapters.install(output_validation=mode or "error")
    if mode is None:
        adapters.uninstall()
    server = lowlevel([[tool("a", OBJECT)]], {})
    assert server.get_request_handler("tools/call") is server._request_handlers["tools/call"]
    assert (Server.get_request_handler is mcp_lowlevel.get_request_handler) == (mode == "off")


def context(params: dict[str, Any], **fields: Any) -> ServerRequestContext[Any]:
    """A tools/call's context, as the runner builds it."""
    session: Any = object()
    return ServerRequestContext(
        session=session,
        lifespan_context={},
        protocol_version="2025-11-25",
        method="tools/call",
        params=params,
        **fields,
    )


async def first_call(server: Server[Any], ctx: Any, name: str) -> Any:
    entry = server.get_request_handler("tools/call")
    assert entry is not None
    return await entry.handler(ctx, types.CallToolRequestParams(name=name))


def listing_server(answer: Callable[[Any, Any], Any], results: dict[str, types.CallToolResult]) -> Server[Any]:
    """A server whose tools/list answers ``answer(ctx, params)`` (each run recorded in ``.runs``)."""
    runs: list[tuple[Any, Any]] = []

    async def list_tools(ctx: Any, params: Any) -> Any:
        runs.append((ctx, params))
        return await answer(ctx, params)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return results[params.name]

    server = Server("t", on_list_tools=list_tools, on_call_tool=call_tool)
    server.runs = runs  # type: ignore[attr-defined]
    return server


async def test_the_first_listing_is_given_a_listings_context() -> None:
    adapters.install()

    async def answer(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool("a", OBJECT)])

    server = listing_server(answer, {"a": structured({"n": "one"})})
    request_context: Any = object()
    meta = {"progressToken": 7, "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}
    ctx = context({"name": "a", "_meta": meta}, request_id=3, meta={"progress_token": 7}, request=request_context)
    assert "at /n" in error_text(await first_call(server, ctx, "a"))
    assert "at /n" in error_text(await first_call(server, ctx, "a"))
    [(seen, params)] = server.runs  # type: ignore[attr-defined]
    client_info = {"io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}
    assert (seen.method, seen.params, seen.meta) == ("tools/list", {"_meta": client_info}, client_info)
    assert (seen.session, seen.request, seen.request_id) == (ctx.session, request_context, 3)
    assert params == types.PaginatedRequestParams.model_validate({"_meta": client_info})


async def test_the_first_listing_is_read_to_its_first_page() -> None:
    adapters.install()

    async def answer(ctx: Any, params: Any) -> types.ListToolsResult:
        if params.cursor is None:
            return types.ListToolsResult(tools=[tool("a", OBJECT)], next_cursor="2")
        return types.ListToolsResult(tools=[tool("b", OBJECT)])

    bad = structured({"n": "one"})
    server = listing_server(answer, {"a": bad, "b": bad})
    assert await first_call(server, context({"name": "b"}), "b") is bad  # on a page not read
    assert "at /n" in error_text(await first_call(server, context({"name": "a"}), "a"))
    assert len(server.runs) == 1  # type: ignore[attr-defined]


async def test_a_first_listing_that_answers_no_list_leaves_the_call_unchecked() -> None:
    adapters.install()

    async def answer(ctx: Any, params: Any) -> types.ErrorData:
        return types.ErrorData(code=-32603, message="no")

    bad = structured({"n": "one"})
    server = listing_server(answer, {"a": bad})
    assert await first_call(server, NO_CONTEXT, "a") is bad  # no context to give it: not run
    assert server.runs == []  # type: ignore[attr-defined]
    for _ in range(2):
        assert await first_call(server, context({"name": "a"}), "a") is bad
    assert len(server.runs) == 1  # type: ignore[attr-defined]


async def test_a_first_listing_cancelled_with_its_call_runs_again() -> None:
    adapters.install()
    started = anyio.Event()

    async def answer(ctx: Any, params: Any) -> types.ListToolsResult:
        started.set()
        if len(server.runs) == 1:  # type: ignore[attr-defined]
            await anyio.sleep_forever()
        return types.ListToolsResult(tools=[tool("a", OBJECT)])

    server = listing_server(answer, {"a": structured({"n": "one"})})
    async with anyio.create_task_group() as tg:
        tg.start_soon(first_call, server, context({"name": "a"}), "a")
        with anyio.fail_after(10):
            await started.wait()
        tg.cancel_scope.cancel()
    assert "at /n" in error_text(await first_call(server, context({"name": "a"}), "a"))
    assert len(server.runs) == 2  # type: ignore[attr-defined]
