"""2026-07-28 requests on a server with SSE responses (``http-modern-sse``): a stock and an
adapted uvicorn server on 127.0.0.1 give the same answers (status, content type, the JSON body or
each event of the stream, pings included) to calls answered before any notification (JSON),
calls that notify first or stay quiet past the window (an event stream), errors, and requests
refused before any handler runs; the adapted server runs its handlers outside stock's task
group; a client gone mid-call cancels the handler and leaves no task behind on both. The
``Mcp-Param-*`` check (``http-modern-params``): a tool that declares a header is checked as stock
checks it, one that declares none answers without stock's walk, anything not plain JSON takes it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("mcp.server._streamable_http_modern", reason="the 2026-07-28 path of mcp 2.x")

from http_pair import TOOLS, TRANSPORT_LOG, Served, drop_mid_call, exchange, json_body, pair
from mcp_native import adapters

APP = (
    TRANSPORT_LOG.format(level="WARNING")
    + """
import logging

from typing import Annotated

import mcp.server._streamable_http_modern as modern
from mcp.server.mcpserver import MCPServer
from pydantic import Field

modern._SSE_PING_INTERVAL = 0.3  # the window and the pings, shortened for the test
server = MCPServer("modern", log_level="WARNING")


@server.tool()
def weather(city: str) -> dict:
    return {"city": city, "temperature": 21.5}


"""
    + TOOLS
    + """

@server.tool()
def routed(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], city: str) -> str:
    return f"{region}/{city}"


@server.tool()
async def path() -> str:
    # Which function runs the handler: stock's task group's, or the adapted one's task.
    return asyncio.current_task().get_coro().__qualname__


@server.custom_route("/debug", methods=["POST"])
async def debug(request):
    on = request.query_params["on"] == "1"
    modern.logger.setLevel(logging.DEBUG if on else logging.NOTSET)
    return JSONResponse({})


app = server.streamable_http_app(json_response=False, stateless_http=True)
"""
)

VERSION = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {}}
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
}


def _call(tool: str, arguments: object = None, id: object = 1, meta: dict[str, Any] | None = None) -> bytes:
    params = {"name": tool, "arguments": arguments or {}, "_meta": {**META, **(meta or {})}}
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).encode()


def _body(method: str, params: dict[str, Any] | None = None, id: object = 1) -> bytes:
    message = {"jsonrpc": "2.0", "id": id, "method": method, "params": {**(params or {}), "_meta": META}}
    return json.dumps(message).encode()


def _tool_headers(tool: str) -> dict[str, str]:
    return {"Mcp-Method": "tools/call", "Mcp-Name": tool}


# name: (body, extra headers, HTTP method)
EXCHANGES: dict[str, tuple[bytes | None, dict[str, str], str]] = {
    "call": (_call("weather", {"city": "Oslo"}), _tool_headers("weather"), "POST"),
    "call, string id": (_call("weather", {"city": "Oslo"}, id="a"), _tool_headers("weather"), "POST"),
    "call, bad arguments": (_call("weather", {"city": 5}), _tool_headers("weather"), "POST"),
    "call, unknown tool": (_call("nothing"), _tool_headers("nothing"), "POST"),
    "a tool that raises": (_call("fails"), _tool_headers("fails"), "POST"),
    "notifications first": (_call("chatty", meta={"progressToken": 7}), _tool_headers("chatty"), "POST"),
    "quiet past the window": (_call("quiet", {"seconds": 0.5}), _tool_headers("quiet"), "POST"),
    "tools/list": (_body("tools/list"), {"Mcp-Method": "tools/list"}, "POST"),
    "unknown method": (_body("no/such"), {"Mcp-Method": "no/such"}, "POST"),
    "a declared header": (
        _call("routed", {"region": "eu", "city": "Oslo"}),
        {**_tool_headers("routed"), "Mcp-Param-Region": "eu"},
        "POST",
    ),
    "a declared header, missing": (_call("routed", {"region": "eu", "city": "Oslo"}), _tool_headers("routed"), "POST"),
    "a declared header, another value": (
        _call("routed", {"region": "eu", "city": "Oslo"}),
        {**_tool_headers("routed"), "Mcp-Param-Region": "us"},
        "POST",
    ),
    "a header no tool declares": (
        _call("weather", {"city": "Oslo"}),
        {**_tool_headers("weather"), "Mcp-Param-City": "Paris"},
        "POST",
    ),
    "the header names another tool": (_call("weather", {"city": "x"}), _tool_headers("fails"), "POST"),
    "no _meta": (_call("weather").replace(b'"_meta"', b'"meta"'), _tool_headers("weather"), "POST"),
    "not JSON": (b'{"jsonrpc": "2.0", "id": 1,', {}, "POST"),
    "a batch": (b"[" + _body("tools/list") + b"]", {}, "POST"),
    "a notification": (json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled"}).encode(), {}, "POST"),
    "Accept: application/json": (_call("weather", {"city": "x"}), {"Accept": "application/json"}, "POST"),
    "GET": (None, {}, "GET"),
}


def _request(
    port: int, method: str, path: str = "/mcp", data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str | None, object]:
    """Status, content type, and the body: its JSON, the events of a stream (each one's JSON, or
    "ping"), or its bytes."""
    status, kind, _, raw = exchange(port, method, path, data, {**HEADERS, **(headers or {})})
    if kind == "text/event-stream":
        events = [
            "ping" if event.startswith(b": ping") else json.loads(event.split(b"data: ", 1)[1])
            for event in raw.split(b"\r\n\r\n")
            if event
        ]
        return status, kind, events
    return status, kind, json_body(kind, raw)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, served: Served) -> Iterator[tuple[int, int, Path, Path]]:
    yield from pair(tmp_path_factory.mktemp("modern-sse"), served, "modern_app", APP, {})


@pytest.mark.parametrize("name", list(EXCHANGES))
def test_stock_and_adapted_answer_alike(servers: tuple[int, int, Path, Path], name: str) -> None:
    data, headers, method = EXCHANGES[name]
    answers = [_request(port, method, data=data, headers=headers) for port in servers[:2]]
    assert answers[0] == answers[1], answers
    if name == "notifications first":
        events = answers[0][2]
        assert answers[0][1] == "text/event-stream" and isinstance(events, list)
        assert [e["method"] for e in events[:-1]] == ["notifications/progress"]  # a log line needs a level set
        assert events[-1]["result"]["content"][0]["text"] == "done"
    if name == "quiet past the window":
        assert answers[0][1] == "text/event-stream" and answers[0][2][0] == "ping"  # type: ignore[index]
    if name == "call":
        assert answers[0][:2] == (200, "application/json")
    if name.startswith("a declared header"):
        status, _, answer = answers[0]
        assert isinstance(answer, dict)
        if name == "a declared header":
            assert status == 200 and answer["result"]["content"][0]["text"] == "eu/Oslo", answer
        else:
            assert status == 400 and "Mcp-Param-Region header" in answer["error"]["message"], answer


def _path(port: int) -> str:
    status, _, answer = _request(port, "POST", data=_call("path"), headers=_tool_headers("path"))
    assert status == 200 and isinstance(answer, dict), answer
    return str(answer["result"]["content"][0]["text"])


def test_the_adapted_server_runs_the_handler_outside_stocks_task_group(servers: tuple[int, int, Path, Path]) -> None:
    assert _path(servers[1]) == "_respond.<locals>.run_handler"
    assert _path(servers[0]) != _path(servers[1])


def test_debug_on_the_modules_logger_takes_the_stock_function(servers: tuple[int, int, Path, Path]) -> None:
    adapted = servers[1]
    assert _request(adapted, "POST", "/debug?on=1")[0] == 200
    try:
        assert _path(adapted) == _path(servers[0])
    finally:
        assert _request(adapted, "POST", "/debug?on=0")[0] == 200
    assert _path(adapted) == "_respond.<locals>.run_handler"


def test_a_client_gone_mid_call_cancels_the_handler(servers: tuple[int, int, Path, Path]) -> None:
    for port, log in (servers[0], servers[2]), (servers[1], servers[3]):
        data = _call("slow", meta={"progressToken": 1})
        drop_mid_call(port, log, data, {**HEADERS, **_tool_headers("slow")})


def test_many_calls_at_once_are_each_answered_once(servers: tuple[int, int, Path, Path]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> tuple[int, object]:
        status, _, answer = _request(
            servers[1], "POST", data=_call("weather", {"city": f"c{i}"}, id=i), headers=_tool_headers("weather")
        )
        return status, answer

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(one, range(200)))
    for i, (status, answer) in enumerate(answers):
        assert status == 200 and isinstance(answer, dict), answer
        assert answer["id"] == i and f'"city": "c{i}"' in answer["result"]["content"][0]["text"], answer


@pytest.mark.usefixtures("adapters_restored")
def test_install_patches_the_managers_name_and_uninstall_restores_it() -> None:
    import importlib

    modern = importlib.import_module("mcp.server._streamable_http_modern")
    manager = importlib.import_module("mcp.server.streamable_http_manager")
    stock = modern.handle_modern_request
    assert manager.handle_modern_request is stock
    adapters.install()
    assert manager.handle_modern_request is not stock
    assert manager.handle_modern_request.__module__ == "mcp_native.adapters.mcp2.http_modern"
    adapters.uninstall()
    assert manager.handle_modern_request is stock


@pytest.mark.usefixtures("adapters_restored")
def test_the_param_check_skips_stocks_walk_only_for_a_plain_schema_that_declares_no_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    adapters.install()
    modern = importlib.import_module("mcp.server._streamable_http_modern")
    inbound = importlib.import_module("mcp.shared.inbound")
    from mcp_native.adapters.mcp2 import http_modern

    assert modern.validate_mcp_param_headers is http_modern.validate_mcp_param_headers
    stock = inbound.validate_mcp_param_headers
    walked: list[object] = []

    def spy(schema: object, arguments: object, headers: object) -> object:
        walked.append(schema)
        return stock(schema, arguments, headers)

    monkeypatch.setattr(http_modern, "stock_validate_mcp_param_headers", spy)

    class Schema(dict):  # type: ignore[type-arg]
        pass

    city: dict[str, Any] = {
        "type": "object",
        "properties": {"city": {"type": "string", "default": None}},
        "required": ["city"],
    }
    deep: dict[str, object] = {"type": "string"}
    for _ in range(3_000):
        deep = {"allOf": [deep]}
    cyclic: dict[str, object] = {"type": "object"}
    cyclic["examples"] = [cyclic]  # (instance data: stock's walk does not enter it)
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5_000)}}
    declared = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}
    nested = {"type": "object", "$defs": {"a": {"properties": {"b": {"x-mcp-header": "B", "type": "string"}}}}}
    headers = {"mcp-param-region": "us", "mcp-param-city": "Paris"}
    cases: list[tuple[object, bool]] = [
        (city, False),  # plain, nothing declared: answered at once
        ({"type": "object", "properties": {"n": {"enum": [1, 2.5, True, None]}}}, False),
        (declared, True),  # a declaration, wherever it is: stock's check
        (nested, True),
        ({"type": "object", "properties": {"city": {"enum": ("a", "b")}}}, True),  # a tuple: not plain JSON
        (Schema(city), True),  # a dict subclass
        ({"type": "object", "properties": Schema(city["properties"])}, True),
        (deep, False),  # 3,000 levels, nothing declared: no recursion to run out of
        (wide, True),  # more than 10,000 nodes: stock's walk
    ]
    for schema, takes_stock in cases:
        walked.clear()
        got = http_modern.validate_mcp_param_headers(schema, {"region": "eu", "city": "Oslo"}, headers)
        assert got == stock(schema, {"region": "eu", "city": "Oslo"}, headers)
        assert walked == ([schema] if takes_stock else []), schema
    walked.clear()  # a schema that holds itself: stock's walk, which ends on it
    assert http_modern.validate_mcp_param_headers(cyclic, {}, headers) is None and walked == [cyclic]
    # A declared header that disagrees is still refused, with stock's code.
    refused = http_modern.validate_mcp_param_headers(declared, {"region": "eu"}, headers)
    assert refused is not None and "Mcp-Param-Region header does not match" in refused.message
