"""mcp_native.adapters: install/uninstall, version refusal, and real servers over stdio (the
example MCPServer and fastmcp apps as subprocesses, stock and adapted, driven by the SDK's
own client)."""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, Protocol

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

import mcp.client.session
import mcp.client.stdio
import mcp.server.stdio
from mcp import ClientSession, StdioServerParameters
from mcp.types import TextContent

from mcp_native import adapters
from mcp_native.adapters._patching.patch import Patch, PatchOnImport

# azure-functions, where installed, is imported like the SDKs above: its group is then applied by
# install() rather than waiting for the import (ALL_GROUPS patched, none waiting).
with contextlib.suppress(ImportError):
    importlib.import_module("azure.functions.decorators.function_app")

ROOT = Path(__file__).resolve().parents[2]
APPS = {"mcpserver": ROOT / "examples" / "mcpserver_app.py", "fastmcp": ROOT / "examples" / "fastmcp_app.py"}
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]


def server_command(app: str, adapted: bool) -> list[str]:
    return [sys.executable, *(["-m", "mcp_native", "run"] if adapted else []), str(APPS[app])]


class Session(Protocol):
    def __call__(
        self, app: str, adapted_server: bool, adapted_client: bool = False
    ) -> AbstractAsyncContextManager[ClientSession]: ...


@pytest.fixture
def session(sanitizer_env: dict[str, str]) -> Session:
    """An initialized client session of the SDK's stdio client with the app's server; with
    ``adapted_client``, the client's adapters are installed first (its transport too)."""

    @asynccontextmanager
    async def open_session(
        app: str, adapted_server: bool, adapted_client: bool = False
    ) -> AsyncIterator[ClientSession]:
        cmd = server_command(app, adapted_server)
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], cwd=str(ROOT), env=sanitizer_env)
        if adapted_client:
            adapters.install(server=False)
        with open("/dev/null", "w") as errlog:
            # Through the module: the transport installed now, stock or adapted.
            transport = mcp.client.stdio.stdio_client(params, errlog=errlog)
            async with transport as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                yield s

    return open_session


# -- install / uninstall ----------------------------------------------------------------------


def _targets() -> list[Any]:
    import fastmcp.client.transports.stdio
    import fastmcp.server.mixins.transport
    import fastmcp.server.server
    import fastmcp.tools.base
    import mcp
    import mcp.client.client
    import mcp.server.lowlevel.server
    import mcp.server.mcpserver.utilities.func_metadata
    import mcp.server.runner

    return [
        mcp.server.stdio.stdio_server,
        mcp.stdio_server,
        vars(fastmcp.server.mixins.transport)["stdio_server"],  # imported there, not exported
        mcp.client.session.ClientSession.validate_tool_result,
        fastmcp.tools.base.Tool.convert_result,
        fastmcp.server.server.FastMCP._run_middleware,
        mcp.server.mcpserver.utilities.func_metadata.FuncMetadata.convert_result,
        mcp.server.runner.ServerRunner._serialize,
        mcp.server.lowlevel.server.Server.get_request_handler,
        mcp.server.runner.aclose_shielded,
        vars(importlib.import_module("mcp.server._streamable_http_modern"))["validate_mcp_param_headers"],
        mcp.client.stdio.stdio_client,
        mcp.stdio_client,
        # mcp 2.0's Client imports no stdio transport: its module has no binding to patch.
        *([vars(mcp.client.client)["stdio_client"]] if "stdio_client" in vars(mcp.client.client) else []),
        vars(fastmcp.client.transports.stdio)["stdio_client"],
    ]


ALL_GROUPS = [g.spec.name for g in adapters.check().groups]  # those of the installed lines


def test_install_patches_named_points_and_uninstall_restores_them_exactly(
    sdk_versions: dict[str, str], proven_summary: str
) -> None:
    before = _targets()
    report = adapters.install()
    assert report.versions == sdk_versions
    assert report.patched == ALL_GROUPS and report.stock == [] and report.waiting == []
    text = str(report)
    assert "stdio server transport" in text and "validate_tool_result" in text
    assert f"the source of mcp {sdk_versions['mcp']})" in text
    assert report.summary() == proven_summary
    after = _targets()
    assert all(a is not b for a, b in zip(after, before, strict=True))
    assert adapters.report() is report
    again = adapters.install()  # idempotent: the same patches, applied once
    assert again.patched == ALL_GROUPS and _targets() == after
    adapters.uninstall()
    assert _targets() == before
    assert adapters.report() is None


def test_options_choose_the_parts() -> None:
    before = _targets()
    report = adapters.install(server=False, transport=False)
    assert report.patched == ["client-results", "client-validation", "fastmcp-client-data"]
    assert "off       server-results" in str(report) and "(server=False)" in str(report)
    after = _targets()
    assert after[0] is before[0] and after[4] is before[4] and after[3] is not before[3]
    assert after[9:] == before[9:]  # the client transport goes with transport=
    report = adapters.install(server=False)
    assert all(a is not b for a, b in zip(_targets()[9:], before[9:], strict=True))
    with pytest.raises(ValueError, match="output_validation"):
        adapters.install(output_validation="strict")


def _tested_with(
    monkeypatch: pytest.MonkeyPatch, installed: dict[str, str], dist: str, name: str, version: str = "9.9.9"
) -> None:
    """The fingerprint data as if ``dist`` were a release nobody tested, whose source differs
    from every tested release in ``name`` (the other SDK stays the ``installed`` release)."""
    real = adapters._patching.proof.tested()
    module = name.partition(":")[0]
    releases = {
        release: {"files": {**entry["files"], module: "0"}, "names": {**entry["names"], name: "0"}}
        for release, entry in real[dist].items()
    }
    versions = {**installed, dist: version}
    monkeypatch.setattr(adapters._patching.proof, "tested", lambda: {**real, dist: releases})
    monkeypatch.setattr(adapters._patching.installer, "_installed_versions", lambda: versions)


def test_a_group_whose_source_changed_stays_stock_alone(
    monkeypatch: pytest.MonkeyPatch, sdk_versions: dict[str, str]
) -> None:
    before = _targets()
    _tested_with(monkeypatch, sdk_versions, "mcp", "mcp.client.stdio:_drain_stdout")
    with pytest.warns(
        RuntimeWarning, match=r"mcp 9\.9\.9: 20 of 21 groups \(stock: stdio-client; see python -m mcp_native doctor\)"
    ):
        report = adapters.install()
    assert report.stock == ["stdio-client"]
    assert report.patched == [g for g in ALL_GROUPS if g != "stdio-client"]
    why = next(g.why for g in report.groups if g.spec.name == "stdio-client")
    assert (
        why
        == "mcp 9.9.9 is not a tested release (2.0.1, 2.1.1, 2.2.0, 2.3.0) and its source differs in mcp.client.stdio:_drain_stdout"
    )
    after = _targets()
    assert after[11:] == before[11:] and after[0] is not before[0]  # the client transport alone is stock
    with pytest.raises(adapters.UnsupportedVersion, match=r"stdio-client: mcp 9\.9\.9 is not a tested release"):
        adapters.install(strict=True)
    assert _targets() == before


def test_an_untested_fastmcp_leaves_mcp_patched(monkeypatch: pytest.MonkeyPatch, sdk_versions: dict[str, str]) -> None:
    _tested_with(monkeypatch, sdk_versions, "fastmcp", "fastmcp.tools.base:_serialize_to_jsonable", "4.9.0")
    line = f"mcp {sdk_versions['mcp']}: 21 of 21 groups; fastmcp 4.9.0: 5 of 6 groups"
    with pytest.warns(RuntimeWarning, match=re.escape(line)):
        report = adapters.install()
    assert report.stock == ["fastmcp-results"]
    assert sorted(report.patched + report.waiting) == sorted(g for g in ALL_GROUPS if g != "fastmcp-results")
    import fastmcp.server.mixins.transport

    # fastmcp's binding of mcp's transport is mcp's to patch: proven by identity.
    assert vars(fastmcp.server.mixins.transport)["stdio_server"] is mcp.server.stdio.stdio_server


def test_an_unexpected_patch_point_leaves_its_group_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    async def someone_elses(self: Any, name: str, result: Any) -> None:
        pass

    monkeypatch.setattr(mcp.client.session.ClientSession, "validate_tool_result", someone_elses)
    with pytest.warns(RuntimeWarning, match="client-validation left stock: .*ClientSession.validate_tool_result"):
        report = adapters.install()
    assert report.stock == ["client-validation"] and len(report.patched) == len(ALL_GROUPS) - 1
    assert mcp.client.session.ClientSession.validate_tool_result is someone_elses
    adapters.uninstall()  # after a refusal, uninstall and install again work
    assert mcp.client.session.ClientSession.validate_tool_result is someone_elses
    with pytest.warns(RuntimeWarning):
        adapters.install()
    adapters.uninstall()


# -- real servers over stdio --------------------------------------------------------------------


def _plain(result: Any) -> dict[str, Any]:
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")  # type: ignore[no-any-return]


@pytest.mark.parametrize("app", list(APPS))
async def test_adapted_server_answers_as_stock_does(app: str, session: Session) -> None:
    answers = {}
    for adapted in (False, True):
        async with session(app, adapted, adapted_client=adapted) as s:
            tools = await s.list_tools()
            calls: list[tuple[str, dict[str, Any]]] = [
                ("get_weather", {"city": "Zürich"}),
                ("list_records", {"count": 200}),
                ("list_records", {"count": 3000}),
            ]
            answers[adapted] = ([t.name for t in tools.tools], [_plain(await s.call_tool(n, a)) for n, a in calls])
    assert answers[True] == answers[False]
    names, results = answers[True]
    assert names == ["get_weather", "list_records", "broken_weather"]
    assert results[0]["structuredContent"]["city"] == "Zürich"
    assert len(results[2]["structuredContent"]["records"]) == 3000  # a response far beyond the pipe's buffer


async def test_fastmcp_server_refuses_to_send_an_invalid_result(session: Session) -> None:
    async with session("fastmcp", adapted_server=True) as s:
        result = await s.call_tool("broken_weather", {"city": "Paris"})
    assert result.is_error and result.structured_content is None
    assert isinstance(result.content[0], TextContent)
    assert "'65%' is not of type 'integer' at /humidity" in result.content[0].text


async def test_stock_fastmcp_sends_it_and_the_adapted_client_names_the_path(session: Session) -> None:
    async with session("fastmcp", adapted_server=False) as s:
        with pytest.raises(RuntimeError, match="Invalid structured content returned by tool broken_weather"):
            await s.call_tool("broken_weather", {"city": "Paris"})  # the stock client's check
        adapters.install(server=False, transport=False)
        with pytest.raises(RuntimeError, match=r"broken_weather: '65%' is not of type 'integer' at /humidity"):
            await s.call_tool("broken_weather", {"city": "Paris"})
        adapters.install(server=False, transport=False, output_validation="warn")
        result = await s.call_tool("broken_weather", {"city": "Paris"})
        assert result.structured_content is not None and result.structured_content["humidity"] == "65%"
        adapters.install(server=False, transport=False, output_validation="off")
        assert (await s.call_tool("broken_weather", {"city": "Paris"})).structured_content is not None


async def test_adapted_client_transport_carries_large_results(session: Session) -> None:
    async with session("fastmcp", adapted_server=True, adapted_client=True) as s:
        assert mcp.client.stdio.stdio_client.__module__ == "mcp_native.adapters.mcp2.stdio_client"
        result = await s.call_tool("list_records", {"count": 3000})
        tools = await s.list_tools()
    assert result.structured_content is not None and len(result.structured_content["records"]) == 3000
    assert [t.name for t in tools.tools] == ["get_weather", "list_records", "broken_weather"]


def test_validate_server_result_keeps_the_stock_verdicts() -> None:
    import pydantic
    from mcp_types import methods

    results: list[dict[str, Any]] = [
        {"content": [{"type": "text", "text": "1"}], "structuredContent": {"a": [1, None]}, "isError": False},
        {"content": [{"type": "text", "text": "1", "annotations": {"priority": 0.5}}]},  # not the simple shape
        {"content": [{"type": "text"}]},  # invalid: no text
        {"content": [{"type": "text", "text": 1}]},  # invalid: text not a string
        {"content": "x"},
        {"content": [], "structuredContent": [1]},  # invalid before 2026-07-28
    ]

    def verdicts() -> list[bool]:
        out = []
        for r in results:
            try:
                methods.validate_server_result("tools/call", "2025-11-25", r)
                out.append(True)
            except pydantic.ValidationError:
                out.append(False)
        return out

    stock = verdicts()
    adapters.install(server=False)
    assert methods.validate_server_result.__module__ == "mcp_native.adapters.mcp2.client"
    assert verdicts() == stock == [True, True, False, False, False, False]


def _parsed(adapter: Any, raw: Any) -> Any:
    """What ``adapter.validate_python(raw, by_name=False)`` gives, as comparable data: the
    models' types, fields, the fields each one had set, or the errors."""
    import pydantic

    def shape(value: Any) -> Any:
        if isinstance(value, pydantic.BaseModel):
            fields = {k: shape(getattr(value, k)) for k in type(value).model_fields}
            return type(value), fields, value.model_fields_set, value.model_extra
        if isinstance(value, list):
            return [shape(v) for v in value]
        return value

    try:
        return shape(adapter.validate_python(raw, by_name=False))
    except pydantic.ValidationError as e:
        return e.errors(include_url=False, include_context=False)


def test_call_tool_results_parse_as_stock_parses_them() -> None:
    import mcp.client.session as client_session
    import pydantic
    from mcp.types import CallToolResult

    text = {"type": "text", "text": "é\n"}
    results: list[Any] = [
        {"content": [text] * 200, "structuredContent": {"result": [1, None]}, "isError": False},
        {"content": []},
        {"content": [text], "_meta": {"k": 1}},
        {"content": [text], "structuredContent": {}, "isError": True},
        {"content": [{"type": "text", "text": ""}, text], "structuredContent": {"a": {"b": [1.5]}}},
        {"content": [text], "resultType": "complete"},
        {"content": [text], "resultType": "input_required"},
        {"resultType": "input_required", "requestState": "s"},
        {"content": [{**text, "annotations": {"priority": 0.5}}]},
        {"content": [{**text, "_meta": {}}]},
        {"content": [text, {"type": "image", "data": "AA==", "mimeType": "image/png"}]},
        {"content": [text], "extra": 1},
        {"content": [{"type": "text"}]},
        {"content": [{"type": "text", "text": 1}]},
        {"content": "x"},
        {"content": [text], "isError": "no"},
        {"content": [text], "structuredContent": [1]},
        {},
        [],
        None,
    ]
    stock = [_parsed(client_session._CallToolResultAdapter, r) for r in results]
    adapters.install(server=False, transport=False)
    assert type(client_session._CallToolResultAdapter).__module__ == "mcp_native.adapters.mcp2.client"
    assert isinstance(client_session._CallToolResultAdapter, pydantic.TypeAdapter)  # as send_request checks
    assert [_parsed(client_session._CallToolResultAdapter, r) for r in results] == stock
    assert stock[0][0] is CallToolResult and stock[7][0] is not CallToolResult  # the fixture has both arms
    adapters.uninstall()
    assert type(client_session._CallToolResultAdapter) is pydantic.TypeAdapter


async def test_adapted_client_keeps_the_stock_errors(session: Session) -> None:
    adapters.install(server=False, transport=False)
    async with session("mcpserver", adapted_server=True) as s:
        await s.list_tools()
        s._tool_output_schemas["get_weather"] = {"type": "object", "properties": {"humidity": {"type": "nope"}}}
        with pytest.raises(RuntimeError, match="Invalid schema for tool get_weather"):
            await s.call_tool("get_weather", {"city": "Paris"})
        s._tool_output_schemas["get_weather"] = {"$ref": "http://example.com/remote.json"}
        with pytest.raises(RuntimeError, match="Invalid schema for tool get_weather"):
            await s.call_tool("get_weather", {"city": "Paris"})  # never fetched
        s._tool_output_schemas["get_weather"] = {"type": "object", "required": ["pressure"]}
        with pytest.raises(RuntimeError, match="tool get_weather: 'pressure' is a required property"):
            await s.call_tool("get_weather", {"city": "Paris"})


# -- malformed lines, raw pipes --------------------------------------------------------------

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
PING = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
BAD_LINES = [
    (b"{not json", -32700, None),
    (b'{"jsonrpc":"2.0","id":"x","method":"a"\xff}', -32700, None),  # invalid UTF-8, not U+FFFD
    (b'{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7),
    (b'{"jsonrpc":"2.0","id":8,"method":5}', -32600, 8),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None),
    (b"[]", -32600, None),
]


def exchange(app: str, adapted: bool, lines: list[bytes]) -> list[dict[str, Any]]:
    """Writes the lines (the last one a ping) and reads the responses up to the ping's answer,
    then closes stdin: closing it at once could end the session before the server answers. A
    malformed line's answer is written as soon as the line is read, so it cannot come after
    the answer to a later ping."""
    proc = subprocess.Popen(
        server_command(app, adapted), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(b"".join(line + b"\n" for line in lines))
        proc.stdin.flush()
        responses: list[dict[str, Any]] = []
        while not responses or responses[-1].get("id") != PING["id"]:
            line = proc.stdout.readline()
            assert line, f"the server ended without answering the ping; answers: {responses}"
            responses.append(json.loads(line))
        proc.stdin.close()
        responses += [json.loads(line) for line in proc.stdout.read().splitlines()]
        proc.wait()
        return responses
    finally:
        watchdog.cancel()
        proc.kill()


@pytest.mark.parametrize("app", list(APPS))
def test_every_malformed_line_is_answered(app: str) -> None:
    lines = [json.dumps(INIT).encode()] + [line for line, _, _ in BAD_LINES] + [json.dumps(PING).encode()]
    adapted = exchange(app, True, lines)

    # Errors are written as soon as a line is read, results when the server has them: compare
    # the answers, not their order.
    def answers(responses: list[dict[str, Any]]) -> list[tuple[str, int]]:
        return sorted((repr(r["id"]), r["error"]["code"] if "error" in r else 0) for r in responses)

    expected = [(repr(0), 0), (repr(99), 0)] + [(repr(i), code) for _, code, i in BAD_LINES]
    assert answers(adapted) == sorted(expected)
    assert all("id" in r for r in adapted)  # unknown ids are null, as JSON-RPC 2.0 and the SDKs expect
    assert [r["result"] for r in adapted if r["id"] == 99] == [{}]
    # Stock drops them all: only initialize and ping are answered.
    assert answers(exchange(app, False, lines)) == [(repr(0), 0), (repr(99), 0)]


def run_cli(cwd: Path, *args: str) -> str:
    """What `python -m mcp_native run ARGS` prints, run in `cwd`."""
    out = subprocess.run(
        [sys.executable, "-m", "mcp_native", "run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout.strip()


def test_python_m_run_module(tmp_path: Path) -> None:
    (tmp_path / "probe_mod.py").write_text(
        "import sys\nfrom mcp_native import adapters\nr = adapters.report()\nprint(sys.argv[1:], bool(r and r.waiting and not r.stock))\n"
    )
    assert run_cli(tmp_path, "-m", "probe_mod", "a", "--b") == "['a', '--b'] True"


def test_python_m_run_script_imports_its_siblings(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "helper.py").write_text("VALUE = 42\n")
    (tmp_path / "app" / "server.py").write_text("import sys, helper\nprint(helper.VALUE, sys.argv[1:])\n")
    assert run_cli(tmp_path, "app/server.py", "x") == "42 ['x']"


def test_parts_not_imported_yet_are_patched_when_imported() -> None:
    # install() itself imports no SDK module: a server does not pay for the client's imports.
    probe = f"""
import sys
from mcp_native import adapters
from mcp_native.adapters._patching.patch import Patch, PatchOnImport
report = adapters.install()
assert "mcp" not in sys.modules and "fastmcp" not in sys.modules, sorted(m for m in sys.modules if "mcp" in m)
assert report.patched == [] and len(report.waiting) == {len(ALL_GROUPS)}
import mcp.server.stdio, mcp.client.session
from mcp_native.adapters.mcp2 import stdio, client as mcp_client, stdio_client as mcp_stdio_client
assert mcp.server.stdio.stdio_server is stdio.stdio_server and mcp.stdio_server is stdio.stdio_server
assert mcp.stdio_client is mcp.client.stdio.stdio_client is mcp_stdio_client.stdio_client
assert mcp.client.session.ClientSession.validate_tool_result is mcp_client.validate_tool_result
from fastmcp.server.mixins import transport
from fastmcp.client.transports import stdio as client_transport
assert transport.stdio_server is stdio.stdio_server
assert client_transport.stdio_client is mcp_stdio_client.stdio_client
import fastmcp.tools.base, fastmcp.server.providers.aggregate
from mcp_native.adapters.fastmcp4 import server as fastmcp_server
from mcp_native.adapters._engines import lookup
assert fastmcp.tools.base.Tool.convert_result is fastmcp_server.convert_result
assert fastmcp.server.providers.aggregate.AggregateProvider._get_tool is lookup.get_tool
adapters.uninstall()
assert transport.stdio_server is mcp.server.stdio.stdio_server is stdio.stock_stdio_server
assert client_transport.stdio_client is mcp.client.stdio.stdio_client is mcp_stdio_client.stock_stdio_client
print(len(report.patched))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["0"]  # restored: none applied any more


def test_a_replacement_that_fails_to_load_leaves_its_patch_stock_and_says_why() -> None:
    # Raised into the import it hooks, the error would fail the program's import of the SDK, or
    # vanish where the SDK guards an optional import, the group then reported as patched.
    errors: list[str] = []
    patch = Patch("colorsys", "rgb_to_hsv", "mcp_native_no_such_module:x", "a test")
    hook = PatchOnImport([patch], lambda p, e: errors.append(str(e)), lambda p: errors.append("applied"))
    sys.modules.pop("colorsys", None)
    sys.meta_path.insert(0, hook)
    try:
        import colorsys
    finally:
        sys.meta_path.remove(hook)
    assert colorsys.rgb_to_hsv.__module__ == "colorsys" and not patch.applied
    assert errors == ["mcp_native_no_such_module:x: ModuleNotFoundError: No module named 'mcp_native_no_such_module'"]


# -- Streamable HTTP, a real server on the loopback ------------------------------------------

HTTP_SERVER = """
import sys
sys.path.insert(0, "examples")
if sys.argv[2] == "adapted":
    from mcp_native import adapters
    adapters.install()
import mcpserver_app
mcpserver_app.app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]), json_response=sys.argv[3] == "json")
"""


@contextmanager
def http_server(adapted: bool, body: str) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", HTTP_SERVER, str(port), "adapted" if adapted else "stock", body],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):  # up to 30 s to start
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, "the server exited"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize("body", ["json", "sse"])
async def test_streamable_http_answers_as_stock_does(body: str) -> None:
    from mcp.client.streamable_http import streamable_http_client

    answers = {}
    calls: list[tuple[str, dict[str, Any]]] = [("get_weather", {"city": "Zürich"}), ("list_records", {"count": 500})]
    for adapted in (False, True):
        with http_server(adapted, body) as url:
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                answers[adapted] = [_plain(await s.call_tool(n, a)) for n, a in calls]
    assert answers[True] == answers[False]
    assert answers[True][0]["structuredContent"]["city"] == "Zürich"


def test_streamable_http_answers_a_malformed_envelope_with_invalid_request() -> None:
    import httpx2

    codes = {}
    for adapted in (False, True):
        with http_server(adapted, "json") as url:
            r = httpx2.post(url, json={"foo": "bar"}, headers={"Accept": "application/json, text/event-stream"})
            assert r.status_code == 400
            codes[adapted] = r.json()["error"]["code"]
    assert codes == {False: -32602, True: -32600}


@pytest.mark.parametrize("app", ["mcpserver", "fastmcp"])
def test_pipelined_calls_on_a_full_pipe_are_each_answered_once_in_whole_lines(app: str) -> None:
    # Requests sent at once, large results and malformed lines among them, and a client that
    # starts reading only once the server has filled the pipe: a line the pipe does not take at
    # once is finished by the transport while its sender goes on, and later lines wait for it.
    calls = {}
    lines = [json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
    for i in range(1, 61):
        tool, args = ("list_records", {"count": 2000}) if i % 3 == 0 else ("get_weather", {"city": f"c{i}"})
        calls[i] = tool
        call = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": args}}
        lines.append(json.dumps(call).encode())
        if i % 10 == 0:
            lines.append(b"{not json")
    proc = subprocess.Popen(
        server_command(app, True),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(line + b"\n" for line in lines))
    proc.stdin.flush()
    time.sleep(3)  # the server answers into a pipe nobody reads yet
    answers = []
    for line in proc.stdout:
        answers.append(json.loads(line))
        if len(answers) == 1 + len(calls) + 6:
            break
    proc.stdin.close()
    proc.wait(timeout=60)
    by_id: dict[Any, list[dict[str, Any]]] = {}
    for a in answers:
        by_id.setdefault(a.get("id"), []).append(a)
    assert len(by_id.pop(None)) == 6 and len(by_id.pop(0)) == 1
    assert sorted(by_id) == sorted(calls) and all(len(v) == 1 for v in by_id.values())
    for i, (answer,) in by_id.items():
        content = answer["result"]["structuredContent"]
        assert len(content["records"]) == 2000 if calls[i] == "list_records" else content["city"] == f"c{i}"


def test_files_and_a_shared_stderr_take_the_threaded_path(tmp_path: Path) -> None:
    # stdin a regular file (epoll refuses it) and stdout a file that stderr writes to as well
    # (no non-blocking flag for it): the transport reads and writes through a worker thread.
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(
        b"".join(line + b"\n" for line in [json.dumps(INIT).encode(), b"{not json", json.dumps(PING).encode()])
    )
    out = tmp_path / "out.txt"
    with open(requests, "rb") as stdin, open(out, "wb") as stdout:
        subprocess.run(
            server_command("mcpserver", True),
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            timeout=60,
            check=False,
        )
    answers = [json.loads(line) for line in out.read_bytes().splitlines() if line.startswith(b'{"jsonrpc"')]
    assert {a["id"] for a in answers} >= {0, None}  # initialize answered; the bad line answered with id null
    assert any(a.get("error", {}).get("code") == -32700 for a in answers)
