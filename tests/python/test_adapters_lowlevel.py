"""Output validation on the low-level ``Server`` (``adapters.mcp_lowlevel``): the example server
(``examples/lowlevel_app.py``) as a subprocess, stock and adapted in each mode, answering raw
JSON-RPC lines (what the server sends, unseen by any client's checks) and the SDK's stdio
client; then the wrapped handlers in process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from functools import cache
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

from fastmcp import FastMCP
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from mcp_native import Validator, adapters
from mcp_native.adapters import _validation, mcp_lowlevel

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "examples" / "lowlevel_app.py"
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

BROKEN = {"city": "Oslo", "temperature": 22.5, "conditions": "Sunny", "humidity": "65%", "wind_speed": 3.5}
PROBLEM = (
    "Output validation error: the result of tool 'broken_weather' does not match its output schema: "
    "'65%' is not of type 'integer' at /humidity"
)


def command(mode: str | None) -> list[str]:
    """The example server, stock (``None``) or adapted with ``output_validation=mode``."""
    ours = [] if mode is None else ["-m", "mcp_native", "run", "--quiet", "--output-validation", mode]
    return [sys.executable, *ours, str(APP)]


def request(id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, **({} if params is None else {"params": params})}


def call(id: int, name: str) -> dict[str, Any]:
    return request(id, "tools/call", {"name": name, "arguments": {"city": "Oslo"}})


def exchange(mode: str | None, messages: list[dict[str, Any]]) -> tuple[dict[Any, dict[str, Any]], str]:
    """The results the server sends for ``messages`` (after the handshake), by id, and its
    stderr. Stdin is closed once the last request is answered."""
    init = request(
        0,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    )
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *messages]
    last = messages[-1]["id"]
    proc = subprocess.Popen(
        command(mode), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
        proc.stdin.flush()
        answers: dict[Any, dict[str, Any]] = {}
        while last not in answers:
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


def test_a_tool_is_checked_once_listed() -> None:
    answers, _ = exchange("error", [call(1, "broken_weather"), request(2, "tools/list"), call(3, "broken_weather")])
    assert sent_as_is(answers[1], BROKEN)
    assert answers[3]["isError"] is True


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
