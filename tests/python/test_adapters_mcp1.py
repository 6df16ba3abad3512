"""The mcp 1.x line (``adapters/mcp1_*.py``): the example servers of that line as a user writes
them (``examples/lowlevel1_app.py``, ``examples/fastmcp1_app.py``, and with fastmcp 2.x/3.x
installed ``examples/fastmcp_app.py``) run as subprocesses, stock and adapted (``run`` and
``install()``), answering raw JSON-RPC lines; the SDK's own client against them.

These need ``mcp<2``: ``scripts/sdk-pairs`` runs them in its venvs of mcp 1.30.0, 1.26.0 and
fastmcp 3.4.11 (on mcp 1.30.0); with mcp 2.x installed they are skipped."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import json
import math
import runpy
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pydantic_core
import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup  # anyio's backport on 3.10

if not importlib.metadata.version("mcp").startswith("1."):
    pytest.skip("needs the mcp 1.x line (scripts/sdk-pairs runs it on mcp 1.30.0 and 1.26.0)", allow_module_level=True)

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.lowlevel.server import Server

from mcp_native import adapters
from mcp_native.adapters.mcp1 import client as mcp1_client
from mcp_native.adapters.mcp1 import lowlevel as mcp1_lowlevel
from mcp_native.adapters.mcp1 import server as mcp1_server

# mcp 1.x's models (mypy checks the tests against mcp 2.x, whose mcp.types differ).
mcp_types: Any = importlib.import_module("mcp.types")
CallToolResult = mcp_types.CallToolResult
TextContent = mcp_types.TextContent
BaseSession = importlib.import_module("mcp.shared.session").BaseSession

ROOT = Path(__file__).resolve().parents[2]
LOWLEVEL = ROOT / "examples" / "lowlevel1_app.py"
FASTMCP1 = ROOT / "examples" / "fastmcp1_app.py"
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

BROKEN = {"city": "Oslo", "temperature": 22.5, "conditions": "Sunny", "humidity": "65%", "wind_speed": 3.5}
# python-jsonschema's wording, which stock sends; adapted, the value's JSON Pointer follows it.
STOCK_PROBLEM = "Output validation error: '65%' is not of type 'integer'"
PROBLEM = STOCK_PROBLEM + " at /humidity"


def command(app: Path, mode: str | None) -> list[str]:
    """The example server, stock (``None``) or adapted with ``output_validation=mode``."""
    ours = [] if mode is None else ["-m", "mcp_native", "run", "--quiet", "--output-validation", mode]
    return [sys.executable, *ours, str(app)]


def request(id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, **({} if params is None else {"params": params})}


def call(id: int, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return request(id, "tools/call", {"name": name, "arguments": arguments or {"city": "Oslo"}})


def exchange(
    app: Path, mode: str | None, messages: list[dict[str, Any]], version: str = "2025-06-18"
) -> tuple[dict[Any, Any], str]:
    """The results the server sends for ``messages`` (after the handshake at protocol
    ``version``), by id, and its stderr. Stdin is closed once every request is answered (the server answers them in any
    order: it handles requests concurrently)."""
    init = request(
        0,
        "initialize",
        {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    )
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *messages]
    ids = {m["id"] for m in messages if "id" in m}
    proc = subprocess.Popen(
        command(app, mode), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
        proc.stdin.flush()
        answers: dict[Any, Any] = {}
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


CALLS = [
    request(1, "tools/list"),
    call(2, "get_weather"),
    call(3, "broken_weather"),
    call(4, "no_schema"),
    call(5, "list_records", {"count": 200}),
    call(6, "get_weather", {"city": 5}),
    call(7, "get_weather", {"city": "Zürich"}),  # json.dumps escapes the ü in the text mirror
]


@cache
def lowlevel_calls(mode: str | None) -> tuple[dict[Any, Any], str]:
    return exchange(LOWLEVEL, mode, CALLS)


def error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def test_the_adapted_run_patches_every_group_of_the_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_native", "doctor"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(stock:" not in proc.stdout
    assert "lowlevel-validation-1x" in proc.stdout and "client-validation-1x" in proc.stdout
    # The groups of the mcp 2.x line are not considered on 1.x.
    assert "server-runner" not in proc.stdout


@pytest.mark.parametrize("mode", [None, "error", "warn", "off"])
def test_valid_results_are_sent_as_stock_sends_them(mode: str | None) -> None:
    answers, _ = lowlevel_calls(mode)
    stock, _ = lowlevel_calls(None)
    for id in (2, 4, 5, 7):
        assert answers[id] == stock[id]
        assert answers[id]["isError"] is False
    assert stock[4]["structuredContent"] == BROKEN
    assert len(stock[5]["structuredContent"]["records"]) == 200
    assert "Z\\u00fcrich" in stock[7]["content"][0]["text"]


def test_stock_refuses_a_violating_result_with_python_jsonschemas_words() -> None:
    answers, _ = lowlevel_calls(None)
    assert answers[3] == error_result(STOCK_PROBLEM)
    assert answers[6] == error_result("Input validation error: 5 is not of type 'string'")


def test_adapted_refuses_it_with_the_same_words_and_the_pointer() -> None:
    answers, _ = lowlevel_calls("error")
    assert answers[3] == error_result(PROBLEM)
    assert answers[6] == error_result("Input validation error: 5 is not of type 'string' at /city")


def test_warn_mode_logs_and_sends() -> None:
    answers, stderr = lowlevel_calls("warn")
    assert answers[3]["isError"] is False and answers[3]["structuredContent"] == BROKEN
    assert PROBLEM in stderr


def test_off_sends_unchecked_results_but_still_checks_arguments() -> None:
    answers, stderr = lowlevel_calls("off")
    assert answers[3]["isError"] is False and answers[3]["structuredContent"] == BROKEN
    assert "Output validation error" not in stderr
    assert answers[6]["isError"] is True


@pytest.mark.parametrize(("mode", "version"), [("error", "2024-11-05"), ("off", mcp_types.LATEST_PROTOCOL_VERSION)])
def test_fastmcp1_answers_as_stock_does(mode: str, version: str) -> None:
    """The oldest and the newest protocol version (mcp 1.x's session writes one layout for all)."""
    messages = [request(1, "tools/list"), call(2, "get_weather"), call(3, "list_records", {"count": 200})]
    stock, _ = exchange(FASTMCP1, None, messages, version)
    answers, _ = exchange(FASTMCP1, mode, messages, version)
    assert answers.keys() == stock.keys()
    for id in stock:  # key order included (the answers may come in any order)
        assert json.dumps(answers[id]) == json.dumps(stock[id])
    assert answers[3]["structuredContent"]["total"] == 200


async def client_call(adapted_client: str | None, name: str) -> Any:
    """``name`` called through the SDK's client on the stock low-level example; with
    ``adapted_client``, the client side adapted in that output-validation mode."""
    if adapted_client is not None:
        adapters.install(server=False, transport=False, output_validation=adapted_client)
    params = StdioServerParameters(command=sys.executable, args=[str(LOWLEVEL)], cwd=str(ROOT))
    with open("/dev/null", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return await s.call_tool(name, {"city": "Oslo"})


@pytest.mark.parametrize("adapted", [False, True])
async def test_the_client_refuses_a_violating_result(adapted: bool) -> None:
    with pytest.raises(BaseException) as caught:
        await client_call("error" if adapted else None, "raw_broken")
    error: BaseException = caught.value
    while isinstance(error, BaseExceptionGroup):  # raised inside the transport's task group
        (error,) = error.exceptions
    assert isinstance(error, RuntimeError)
    message = str(error)
    assert message.startswith("Invalid structured content returned by tool raw_broken: '65%' is not of type 'integer'")
    if adapted:
        assert message.endswith(" at /humidity")


async def test_the_client_in_warn_mode_accepts_it() -> None:
    result = await client_call("warn", "raw_broken")
    assert result.structuredContent == BROKEN


async def test_the_client_accepts_a_valid_result() -> None:
    result = await client_call("error", "get_weather")
    assert result.structuredContent["humidity"] == 65


def test_install_patches_and_uninstall_restores_exactly() -> None:
    # Typed as Any: mypy checks the tests against mcp 2.x, which has neither name.
    server: Any = Server
    session: Any = ClientSession
    stock = (server.call_tool, session._validate_tool_result)
    rep = adapters.install()
    # (and the groups of the modules this process has imported: FastMCP's, fastmcp's)
    assert {"lowlevel-validation-1x", "client-validation-1x", "stdio-server-1x", "stdio-client-1x"} <= set(rep.patched)
    assert server.call_tool is mcp1_lowlevel.call_tool
    assert session._validate_tool_result is mcp1_client.validate_tool_result
    adapters.uninstall()
    assert (server.call_tool, session._validate_tool_result) == stock


def test_install_in_the_program_adapts_its_server(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    body = LOWLEVEL.read_text()
    assert "\nimport mcp.server.stdio\n" in body
    body = body.replace(
        "\nimport mcp.server.stdio\n",
        "\nimport mcp_native.adapters\n\nmcp_native.adapters.install()\nimport mcp.server.stdio\n",
    )
    script.write_text(body.replace("os.path.dirname(os.path.abspath(__file__))", repr(str(LOWLEVEL.parent))))
    answers, _ = exchange(script, None, [request(1, "tools/list"), call(2, "broken_weather")])
    assert answers[2] == error_result(PROBLEM)


@pytest.mark.parametrize("how", ["run", "install"])
def test_a_fastmcp_server_on_mcp1_is_adapted(how: str, tmp_path: Path) -> None:
    """fastmcp 2.x/3.x registers mcp 1.x's low-level handler: its results are checked by it."""
    pytest.importorskip("fastmcp")
    app = ROOT / "examples" / "fastmcp_app.py"
    messages = [call(1, "get_weather"), call(2, "broken_weather"), call(3, "list_records", {"count": 200})]
    if how == "run":
        answers, _ = exchange(app, "error", messages)
    else:  # install() as the program's first lines, then the unchanged server
        script = tmp_path / "server.py"
        script.write_text(
            "import runpy, sys\nimport mcp_native.adapters\n\nmcp_native.adapters.install()\n"
            f"sys.argv = [{str(app)!r}]\nrunpy.run_path({str(app)!r}, run_name='__main__')\n"
        )
        answers, _ = exchange(script, None, messages)
    stock, _ = exchange(app, None, messages)
    assert stock[2] == error_result(STOCK_PROBLEM)
    assert answers[2] == error_result(PROBLEM)
    assert answers[1] == stock[1] and answers[3] == stock[3]
    assert answers[3]["structuredContent"]["total"] == 200


# -- results: FastMCP 1.x and fastmcp 3.x, in process -------------------------------------------


class Point(TypedDict):
    x: float
    label: str


class Where(BaseModel):
    lat: float
    lon: float = 0.0


class Station(BaseModel):  # nested, aliased, Optional and defaults
    station_id: int = Field(alias="stationId")
    where: Where | None = None
    tags: list[str] = []
    note: str | None = Field(default=None, alias="Note")


@dataclasses.dataclass
class Reading:
    at: str
    value: float
    flags: list[int] = dataclasses.field(default_factory=list)


def weather(city: str) -> Point:
    return {"x": 22.5, "label": city}


def records(n: int) -> dict[str, list[dict[str, Any]]]:  # None inside: exclude_none leaves it
    return {"rows": [{"id": i, "score": i * 1.37 % 100, "tags": ["a"] * (i % 3), "none": None} for i in range(n)]}


def tiny_floats() -> dict[str, float]:
    return {"a": 1e-05, "b": -2.5e-07, "c": 1e16, "d": 0.1}


def coerced() -> Point:  # an int where the model wants a float, and a key it does not have
    return {"x": 1, "label": 'é\n"', "extra": True}  # type: ignore[typeddict-unknown-key]


def station() -> Station:
    return Station(stationId=7, where=Where(lat=46.5), tags=["a", "é"], Note='q"')


def stations() -> list[Station]:
    return [Station(stationId=i, where=None if i % 2 else Where(lat=i, lon=-i)) for i in range(5)]


def reading() -> Reading:
    return Reading(at="2026-01-01T00:00:00Z", value=1.25, flags=[1, 2])


def mixed() -> list[Any]:
    return [1, "a", None, {"k": 1.5}, [2, "b"]]


def listing() -> list[int]:
    return [1, 2]


def plain(x: int) -> str:
    return str(x)


def int_as_float() -> float:
    return 1


def nothing() -> None:
    return None


def empty() -> list[int]:
    return []


def not_json() -> dict[str, float]:
    return {"a": math.nan}


def invalid() -> Point:  # the output model refuses it: stock's error, word for word
    return {"x": "not a number", "label": "a"}  # type: ignore[typeddict-item]


def block() -> TextContent:  # type: ignore[valid-type]
    return TextContent(type="text", text="hi")  # type: ignore[no-any-return]


def built() -> CallToolResult:  # type: ignore[valid-type]
    built = CallToolResult(content=[TextContent(type="text", text="x")], structuredContent={"k": 1})
    return built  # type: ignore[no-any-return]


_RESULT_TOOLS: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (weather, {"city": "Zürich"}),
    (records, {"n": 20}),
    (tiny_floats, {}),
    (coerced, {}),
    (station, {}),
    (stations, {}),
    (reading, {}),
    (mixed, {}),
    (listing, {}),
    (plain, {"x": 3}),
    (int_as_float, {}),
    (nothing, {}),
    (empty, {}),
    (not_json, {}),
    (invalid, {}),
    (block, {}),
    (built, {}),
]
RESULT_TOOLS = {f.__name__: (f, args) for f, args in _RESULT_TOOLS}
# Sent by the session without its dump (a marked mirror); the others take the stock path.
FASTMCP1_NATIVE = set(RESULT_TOOLS) - {"nothing", "empty", "not_json", "invalid", "block", "built"}
# Where the mirror shows structuredContent and stock's the raw value (as on mcp 2.x: README).
MIRROR_FOLLOWS_MODEL = {"coerced", "int_as_float"}


class Sent:
    """The session's write stream: what ``_send_response`` sends."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def send(self, message: Any) -> None:
        self.messages.append(message)


async def handled(server: Any, name: str, arguments: dict[str, Any]) -> Any:
    """The ``ServerResult`` of the low-level ``tools/call`` handler ``server`` registered."""
    handler = server.request_handlers[mcp_types.CallToolRequest]
    params = mcp_types.CallToolRequestParams(name=name, arguments=arguments)
    return await handler(mcp_types.CallToolRequest(method="tools/call", params=params))


async def sent(response: Any) -> str:
    """The line the stock stdio transport writes for ``response``, as the session sends it."""
    session: Any = SimpleNamespace(_write_stream=Sent())
    await BaseSession._send_response(session, 7, response)  # the installed one, adapted or stock
    (message,) = session._write_stream.messages
    return str(message.message.model_dump_json(by_alias=True, exclude_none=True))


def fastmcp1_app() -> Any:
    app = importlib.import_module("mcp.server.fastmcp").FastMCP("t")
    for fn, _ in RESULT_TOOLS.values():
        app.tool()(fn)
    return app


@pytest.mark.parametrize("name", list(RESULT_TOOLS))
async def test_fastmcp1_results_go_out_as_stock_sends_them(name: str) -> None:
    _, args = RESULT_TOOLS[name]
    stock = await handled(fastmcp1_app()._mcp_server, name, args)
    stock_line = await sent(stock)
    adapters.install(strict=True)
    assert set(adapters.report().patched) >= {"server-results-1x", "lowlevel-validation-1x"}  # type: ignore[union-attr]
    adapted = await handled(fastmcp1_app()._mcp_server, name, args)
    assert (mcp1_server._wire(adapted) is not None) == (name in FASTMCP1_NATIVE)
    ours, theirs = adapted.root, stock.root
    assert json.dumps(ours.structuredContent) == json.dumps(theirs.structuredContent)
    assert (ours.isError, ours.model_fields_set) == (theirs.isError, theirs.model_fields_set)
    if name == "invalid":
        assert ours.isError and ours.content == theirs.content  # stock's error text
        assert "Error executing tool invalid" in ours.content[0].text
    if name in MIRROR_FOLLOWS_MODEL:
        assert ours.content != theirs.content
        assert [c.text for c in ours.content] == [
            pydantic_core.to_json(
                ours.structuredContent["result"] if name == "int_as_float" else ours.structuredContent, indent=2
            ).decode()
        ]
        adapters.uninstall()
        stock_line = await sent(adapted)  # stock's dump of the same result
        adapters.install(strict=True)
    else:  # byte for byte, every block
        assert ours.content == theirs.content
    assert await sent(adapted) == stock_line  # key order and exclude_none included


def fastmcp3_app() -> Any:
    fastmcp = pytest.importorskip("fastmcp")
    app = fastmcp.FastMCP("t")
    for fn, _ in RESULT_TOOLS.values():
        app.tool(fn)
    return app


# fastmcp 3.x writes its mirror from the serialized value: every text is stock's byte for byte (a
# CallToolResult the tool returns is serialized like any model on 3.x). Its tools have no output
# model: mcp's handler refuses a result their schema does not accept, naming its pointer. fastmcp
# 2.x converts results inside FunctionTool.run, stock; mcp's handler checks and sends them.
FASTMCP3_NATIVE = set(RESULT_TOOLS) - {"nothing", "empty", "not_json", "invalid", "block"}


@pytest.mark.parametrize("name", list(RESULT_TOOLS))
async def test_fastmcp_results_go_out_as_stock_sends_them(name: str) -> None:
    _, args = RESULT_TOOLS[name]
    stock = await handled(fastmcp3_app()._mcp_server, name, args)
    stock_line = await sent(stock)
    adapters.install(strict=True)
    adapted = await handled(fastmcp3_app()._mcp_server, name, args)
    if importlib.metadata.version("fastmcp").startswith("3."):
        assert "fastmcp-results-3x" in adapters.report().patched  # type: ignore[union-attr]
        assert (mcp1_server._wire(adapted) is not None) == (name in FASTMCP3_NATIVE)
    if name == "invalid":
        (block,), (stock_block,) = adapted.root.content, stock.root.content
        assert block.text == stock_block.text + " at /x"
        assert stock_block.text == "Output validation error: 'not a number' is not of type 'number'"
        return
    assert adapted.root.content == stock.root.content
    assert await sent(adapted) == stock_line


async def test_a_changed_result_takes_the_stock_path() -> None:
    adapters.install(strict=True)
    changes: list[Callable[[Any], Any]] = [
        lambda r: setattr(r, "isError", True),
        lambda r: r.content.append(TextContent(type="text", text="more")),
        lambda r: r.content.__setitem__(0, TextContent(type="text", text="x", _meta={"k": 1})),
        lambda r: setattr(r, "structuredContent", None),
        lambda r: r.structuredContent.__setitem__("x", 5),
        lambda r: r.structuredContent.__setitem__("more", 5),
        lambda r: setattr(r, "meta", {"other": 1}),
    ]
    for change in changes:
        response = await handled(fastmcp1_app()._mcp_server, "weather", {"city": "Oslo"})
        assert mcp1_server._wire(response) is not None
        change(response.root)
        assert mcp1_server._wire(response) is None
        line = await sent(response)
        adapters.uninstall()
        assert await sent(response) == line
        adapters.install(strict=True)
    # A result built anywhere else, even of the same shape, is not trusted.
    other = CallToolResult(content=[TextContent(type="text", text="{}")], structuredContent={"a": 1})
    assert mcp1_server._wire(mcp_types.ServerResult(other)) is None


async def test_the_result_path_is_patched_and_restored_exactly() -> None:
    func_metadata: Any = importlib.import_module("mcp.server.fastmcp.utilities.func_metadata").FuncMetadata
    stock = (func_metadata.convert_result, BaseSession._send_response)
    adapters.install(strict=True)
    assert func_metadata.convert_result is mcp1_server.convert_result
    assert BaseSession._send_response is mcp1_server.send_response
    adapters.uninstall()
    assert (func_metadata.convert_result, BaseSession._send_response) == stock


async def test_compact_mirror_on_request() -> None:
    adapters.install(strict=True, mirror="compact")
    response = await handled(fastmcp1_app()._mcp_server, "records", {"n": 3})
    (block,) = response.root.content
    assert block.text == pydantic_core.to_json(response.root.structuredContent).decode()
    assert mcp1_server._wire(response) is not None


@pytest.mark.parametrize("name", ["get_weather", "list_records", "no_schema", "raw_broken"])
async def test_lowlevel_dict_results_go_out_as_stock_sends_them(name: str) -> None:
    """The low-level example's handler, in process: a dict result's marked mirror is sent
    without the session's dump, in stock's bytes; a CallToolResult the handler built is not."""
    args = {"count": 50} if name == "list_records" else {"city": "Zürich" if name == "no_schema" else "Oslo"}
    server = runpy.run_path(str(LOWLEVEL))["server"]
    stock = await handled(server, name, args)
    stock_line = await sent(stock)
    adapters.install(strict=True)
    server = runpy.run_path(str(LOWLEVEL))["server"]
    adapted = await handled(server, name, args)
    # The mirror of non-ASCII text is json.dumps' (escaped), not marked; so is a built result.
    assert (mcp1_server._wire(adapted) is not None) == (name in ("get_weather", "list_records"))
    assert await sent(adapted) == stock_line
