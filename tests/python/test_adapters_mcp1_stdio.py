"""The mcp 1.x line's stdio transports (``adapters/mcp1/stdio.py`` and ``mcp1_stdio_client.py``
over the shared ``_stdio_server`` / ``_stdio_client``): real server processes of that line
(the low-level ``Server``, 1.x's FastMCP, and fastmcp 3.x where installed) fed raw lines on a
pipe, stock and adapted, and the SDK's own client adapted by ``install()``.

These need ``mcp<2``: ``scripts/sdk-pairs`` runs them in its venvs of mcp 1.30.0, 1.26.0 and
fastmcp 3.4.11 (on mcp 1.30.0); with mcp 2.x installed they are skipped."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

if not importlib.metadata.version("mcp").startswith("1."):
    pytest.skip("needs the mcp 1.x line (scripts/sdk-pairs runs it on mcp 1.30.0 and 1.26.0)", allow_module_level=True)

import mcp
import mcp.client.stdio
import mcp.server.stdio
from mcp import ClientSession, StdioServerParameters
from mcp.shared.message import SessionMessage

from mcp_native import adapters
from mcp_native.adapters.mcp1 import stdio as mcp1_stdio
from mcp_native.adapters.mcp1 import stdio_client as mcp1_stdio_client

# mcp 1.x's modules (mypy checks the tests against mcp 2.x, which has neither).
types1: Any = importlib.import_module("mcp.types")
fastmcp1_server: Any = importlib.import_module("mcp.server.fastmcp.server")
client_stdio: Any = importlib.import_module("mcp.client.stdio")

ROOT = Path(__file__).resolve().parents[2]
APPS = {"lowlevel": ROOT / "examples" / "lowlevel1_app.py", "fastmcp1": ROOT / "examples" / "fastmcp1_app.py"}
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(id: int, name: str = "get_weather", arguments: dict[str, Any] | None = None) -> bytes:
    params = {"name": name, "arguments": arguments or {"city": "Oslo"}}
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).encode()


def command(app: Path, adapted: bool) -> list[str]:
    return [sys.executable, *(["-m", "mcp_native", "run", "--quiet"] if adapted else []), str(app)]


HANDSHAKE = [json.dumps(INIT).encode(), json.dumps(INITIALIZED).encode()]


def piped(app: Path, adapted: bool, lines: list[bytes]) -> list[dict[str, Any]]:
    """Every line the server writes when ``lines`` follow the handshake on its stdin and stdin
    is closed at once (``printf ... | server``): it must answer and exit on its own."""
    proc = subprocess.run(
        command(app, adapted),
        input=b"\n".join(HANDSHAKE + lines) + b"\n",
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    return [json.loads(line) for line in proc.stdout.splitlines()]


def exchanged(app: Path, adapted: bool, lines: list[bytes], ids: set[int]) -> dict[Any, dict[str, Any]]:
    """The answers to ``ids``, with stdin closed only once they have all come (stock 1.x drops
    what is still running when its input ends)."""
    proc = subprocess.Popen(command(app, adapted), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"\n".join(HANDSHAKE + lines) + b"\n")
        proc.stdin.flush()
        got: dict[Any, dict[str, Any]] = {}
        while not ids <= got.keys():
            line = proc.stdout.readline()
            assert line, f"the server ended without answering; answers: {got}"
            got.update(answers([json.loads(line)]))
        proc.stdin.close()
        proc.wait(timeout=30)
        return got
    finally:
        proc.kill()


def answers(out: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {m["id"]: m for m in out if "id" in m and m["id"] != 0}


MALFORMED = [
    b"{not json",
    b'{"jsonrpc": "2.0", "id": 7}',  # neither a method nor a result: the id can be read
    b'{"jsonrpc": "1.0", "id": 8, "method": "ping"}',
    b"[]",
    b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"a": "\xff\xfe"}}',  # not UTF-8
]


@pytest.mark.parametrize("app", APPS)
def test_every_malformed_line_is_answered_and_the_session_goes_on(app: str) -> None:
    out = piped(APPS[app], True, [*MALFORMED, call(2)])
    errors = [m["error"] for m in out if "error" in m]
    assert [(e["code"], e["message"]) for e in errors] == [
        (-32700, "Parse error"),
        (-32600, "Invalid Request"),
        (-32600, "Invalid Request"),
        (-32600, "Invalid Request"),
        (-32700, "Parse error"),
    ]
    ids = [m["id"] for m in out if "error" in m]
    assert ids == [None, 7, 8, None, None]
    assert "UTF-8" in errors[-1]["data"]
    assert answers(out)[2]["result"]["structuredContent"]["city"] == "Oslo"


def test_stock_answers_none_of_them() -> None:
    out = piped(APPS["fastmcp1"], False, MALFORMED[:4])
    assert [m for m in out if "error" in m] == []


@pytest.mark.parametrize("app", APPS)
def test_requests_piped_in_before_the_end_of_input_are_all_answered(app: str) -> None:
    calls = [call(i) for i in range(1, 21)] + [call(21, "list_records", {"count": 200})]
    got = answers(piped(APPS[app], True, calls))
    assert sorted(got) == list(range(1, 22))
    assert all("result" in m for m in got.values()), [m for m in got.values() if "result" not in m]
    assert got[21]["result"]["structuredContent"]["total"] == 200


def test_the_fastmcp_line_on_mcp1_is_served_too() -> None:
    pytest.importorskip("fastmcp")
    got = answers(piped(ROOT / "examples" / "fastmcp_app.py", True, [MALFORMED[1], call(2), call(3)]))
    assert got[7]["error"]["code"] == -32600
    assert got[2]["result"] == got[3]["result"]


def test_results_are_the_lines_stock_writes() -> None:
    lines = [call(2), call(3, "list_records", {"count": 3}), call(4, "no_such_tool")]
    stock = exchanged(APPS["lowlevel"], False, lines, {2, 3, 4})
    assert exchanged(APPS["lowlevel"], True, lines, {2, 3, 4}) == stock
    assert stock[3]["result"]["structuredContent"]["total"] == 3


def test_install_patches_the_transports_and_uninstall_restores_exactly() -> None:
    bound = {
        (mcp.server.stdio, "stdio_server"),
        (mcp, "stdio_server"),
        (fastmcp1_server, "stdio_server"),
        (mcp.client.stdio, "stdio_client"),
        (mcp, "stdio_client"),
    }
    stock = {(m, a): getattr(m, a) for m, a in bound}
    rep = adapters.install()
    assert {"stdio-server-1x", "stdio-client-1x"} <= set(rep.patched)
    for m, a in bound:
        assert getattr(m, a) is (mcp1_stdio.stdio_server if a == "stdio_server" else mcp1_stdio_client.stdio_client)
    assert mcp1_stdio.stock_stdio_server is stock[(mcp.server.stdio, "stdio_server")]
    adapters.uninstall()
    assert {(m, a): getattr(m, a) for m, a in bound} == stock


async def test_the_adapted_client_talks_to_a_stock_and_an_adapted_server() -> None:
    adapters.install()
    results = []
    for ours in ([], ["-m", "mcp_native", "run", "--quiet"]):
        params = StdioServerParameters(command=sys.executable, args=[*ours, str(APPS["fastmcp1"])], cwd=str(ROOT))
        async with mcp.stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            weather = await session.call_tool("get_weather", {"city": "Oslo"})
            records = await session.call_tool("list_records", {"count": 200})
            results.append((weather.model_dump(), records.model_dump()))
    assert results[0] == results[1]
    assert results[0][1]["structuredContent"]["total"] == 200


async def test_the_adapted_client_hands_a_malformed_server_line_to_the_session(tmp_path: Path) -> None:
    """A server that writes a line that is not JSON-RPC, then answers: the session gets the
    error as an item and the answer after it."""
    server = tmp_path / "server.py"
    server.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    if 'id' in request:\n"
        "        sys.stdout.write('{oops\\n')\n"
        "        result = {'jsonrpc': '2.0', 'id': request['id'], 'result': {}}\n"
        "        sys.stdout.write(json.dumps(result) + '\\n')\n"
        "        sys.stdout.flush()\n"
    )
    adapters.install()
    params = StdioServerParameters(command=sys.executable, args=[str(server)])
    got: list[Any] = []
    async with mcp.client.stdio.stdio_client(params) as (read, write):
        request = types1.JSONRPCRequest(jsonrpc="2.0", id=1, method="ping")
        await write.send(SessionMessage(types1.JSONRPCMessage(request)))
        got.append(await read.receive())
        got.append(await read.receive())
    assert isinstance(got[0], ValueError) and "Parse error" in str(got[0])
    assert got[1].message.root == types1.JSONRPCResponse(jsonrpc="2.0", id=1, result={})


# A server that answers one request, then ends mid-session: it exits, or it is killed.
ENDS = {"exit": "sys.exit(0)", "crash": "os.kill(os.getpid(), signal.SIGKILL)"}


def answers_once(tmp_path: Path, end: str) -> Path:
    server = tmp_path / "server.py"
    server.write_text(
        "import json, os, signal, sys\n"
        "request = json.loads(sys.stdin.readline())\n"
        "print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': {}}), flush=True)\n"
        f"{ENDS[end]}\n"
    )
    return server


@pytest.mark.parametrize("end", sorted(ENDS))
async def test_the_client_streams_report_a_server_that_ended_as_stock_does(tmp_path: Path, end: str) -> None:
    """Stock and adapted: after the answer, the read stream ends, and its ``statistics()`` then
    report no open send side, as the stock memory stream's do once its reader task is done; the
    write stream's send side, once the session closes it. fastmcp 3.x's keep-alive stdio
    transport reads exactly that to tell a dead server from a live one."""
    params = StdioServerParameters(command=sys.executable, args=[str(answers_once(tmp_path, end))])
    request = SessionMessage(types1.JSONRPCMessage(types1.JSONRPCRequest(jsonrpc="2.0", id=1, method="ping")))
    seen = []
    for adapted in (False, True):
        if adapted:
            adapters.install()
        async with client_stdio.stdio_client(params) as (read, write):
            await write.send(request)
            answer = await read.receive()
            live = (read.statistics().open_send_streams, write.statistics().open_send_streams)
            with pytest.raises(anyio.EndOfStream):
                await read.receive()
            ended = read.statistics().open_send_streams
            await write.aclose()
            seen.append((answer.message.root.id, live, ended, write.statistics().open_send_streams))
    assert seen == [(1, (1, 1), 0, 0)] * 2


def test_a_fastmcp_client_starts_a_new_server_after_one_crashed(tmp_path: Path) -> None:
    """fastmcp 3.x's ``StdioTransport`` keeps its server between ``async with client`` blocks;
    once that server has crashed, a later block must start a new one (at most one attempt may
    still meet the old session, as stock: the end may not be read yet), not reuse the dead
    session for ever (as it did when the adapted streams had no ``statistics()``). fastmcp
    2.x's transport reuses it stock too: there the adapted client must do the same."""
    pytest.importorskip("fastmcp")
    server = tmp_path / "server.py"
    # Answers the handshake and tools/list; answers a tools/call with its pid, then is killed
    # once the client has listed the tools after it (mcp 1.x's session lists them to validate).
    server.write_text(
        "import json, os, signal, sys\n"
        "called = False\n"
        "tool = {'name': 'pid', 'inputSchema': {'type': 'object'}}\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    method = request.get('method')\n"
        "    if 'id' not in request:\n"
        "        continue\n"
        "    if method == 'initialize':\n"
        "        result = {'protocolVersion': request['params']['protocolVersion'], 'capabilities': {'tools': {}},\n"
        "                  'serverInfo': {'name': 's', 'version': '0'}}\n"
        "    elif method == 'tools/list':\n"
        "        result = {'tools': [tool]}\n"
        "    else:\n"
        "        result = {'content': [{'type': 'text', 'text': str(os.getpid())}]}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': result}), flush=True)\n"
        "    if method == 'tools/list' and called:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    called = called or method == 'tools/call'\n"
    )
    program = tmp_path / "client.py"
    program.write_text(
        "import asyncio, json, sys\nimport mcp_native.adapters\n\n"
        "if sys.argv[1] == 'adapted':\n    mcp_native.adapters.install()\n"
        "from fastmcp import Client\nfrom fastmcp.client.transports import PythonStdioTransport\n\n\n"
        "async def pid(client):\n"
        "    async with client:\n"
        "        return (await client.call_tool('pid')).content[0].text\n\n\n"
        "async def main():\n"
        f"    client = Client(transport=PythonStdioTransport(script_path={str(server)!r}))\n"
        "    pids = [await pid(client)]\n"
        "    for _ in range(2):\n"
        "        try:\n"
        "            pids.append(await pid(client))\n"
        "            break\n"
        "        except Exception as e:\n"
        "            print(type(e).__name__, e)\n"
        "    print(json.dumps(pids))\n"
        "\n\nasyncio.run(asyncio.wait_for(main(), 30))  # main() in a task of its own\n"
    )
    servers, outputs = {}, []
    for mode in ("stock", "adapted"):
        run = [sys.executable, str(program), mode]
        proc = subprocess.run(run, capture_output=True, text=True, timeout=60, check=False)
        outputs.append(proc.stdout + proc.stderr)
        servers[mode] = len(set(json.loads(proc.stdout.splitlines()[-1]))) if proc.stdout else 0
    new_server = not importlib.metadata.version("fastmcp").startswith("2.")
    assert servers == {"stock": 1 + new_server, "adapted": 1 + new_server}, outputs


def test_a_fastmcp_client_closes_the_adapted_transport_cleanly(tmp_path: Path) -> None:
    """fastmcp's ``Client`` closes its stdio transport by cancelling the task that holds it: the
    transport's shutdown then runs in a cancelled scope, where a task it starts only then (to
    drain the server's output) would be cancelled unstarted ("coroutine ... was never awaited")."""
    pytest.importorskip("fastmcp")
    program = tmp_path / "client.py"
    program.write_text(
        "import asyncio\nimport mcp_native.adapters\n\nmcp_native.adapters.install()\n"
        "from fastmcp import Client\nfrom fastmcp.client.transports import PythonStdioTransport\n\n\n"
        "async def main():\n"
        f"    client = Client(transport=PythonStdioTransport(script_path={str(APPS['fastmcp1'])!r}))\n"
        "    async with client:\n"
        "        print((await client.call_tool('get_weather', {'city': 'Oslo'})).structured_content['city'])\n"
        "\n\nasyncio.run(asyncio.wait_for(main(), 30))  # main() in a task of its own\n"
    )
    proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.stdout == "Oslo\n", proc.stderr
    assert "never awaited" not in proc.stderr, proc.stderr
