"""The adapted stdio server transport (mcp_native.adapters._engines.stdio_server) at the edges of a session:
requests piped in just before the end of input, a request cancelled or still running then, a
client that dies during a large write, and senders waiting behind a slow reader. Real server
processes (MCPServer and fastmcp) and real pipes; the long, timed version of these scenarios is
``scripts/stdio-campaign``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio import wait_all_tasks_blocked
from anyio.abc import TaskStatus

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

import mcp_types

from mcp_native.adapters._engines import stdio_server as _stdio_server
from mcp_native.adapters._engines import wire as _wire

pytestmark = [pytest.mark.usefixtures("adapters_restored")]

# Two tools in each framework: `echo` returns a dict, with a result of `size` bytes (and more in
# MCPServer's text mirror) after `sleep` seconds; `ask` sends the client a request.
APPS = {
    "mcpserver": """
import asyncio
from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("eof")


@app.tool()
async def echo(n: int, size: int = 0, sleep: float = 0) -> dict[str, object]:
    await asyncio.sleep(sleep)
    return {"n": n, "pad": "x" * size}


@app.tool()
async def ask(ctx: Context) -> str:
    try:
        await ctx.session.send_ping()  # a request to the client
    except Exception as e:
        return f"no answer: {e}"
    return "answered"


app.run("stdio")
""",
    "fastmcp": """
import asyncio
from fastmcp import Context, FastMCP

app = FastMCP("eof")


@app.tool()
async def echo(n: int, size: int = 0, sleep: float = 0) -> dict[str, object]:
    await asyncio.sleep(sleep)
    return {"n": n, "pad": "x" * size}


@app.tool()
async def ask(ctx: Context) -> str:
    try:
        await ctx.session.send_ping()  # a request to the client
    except Exception as e:
        return f"no answer: {e}"
    return "answered"


app.run("stdio", show_banner=False)
""",
}
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
BIG = 20 * 1024 * 1024
WATCHDOG = 120  # a hang guard only: a server that hangs fails the test instead of the run


def call(n: int, size: int = 0, sleep: float = 0) -> dict[str, Any]:
    arguments = {"n": n, "size": size, "sleep": sleep}
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "echo", "arguments": arguments}}


def lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in (INIT, INITIALIZED, *messages))


@pytest.fixture(params=list(APPS))
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / f"{request.param}_app.py"
    path.write_text(APPS[request.param])
    return path


def serve(app: Path, requests: bytes, stdout: Any = subprocess.PIPE) -> tuple[list[dict[str, Any]], str]:
    """Runs the adapted server on ``requests``, its stdin closed once they are written (and
    ``stdout`` a pipe, or a file); returns what it answered and what it logged."""
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_native", "run", str(app)],
        input=requests,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=WATCHDOG,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout if stdout is subprocess.PIPE else Path(stdout.name).read_bytes()
    return [json.loads(line) for line in out.splitlines()], proc.stderr.decode()


def by_id(messages: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """The server's answers (not its own requests) by id."""
    answers = [m for m in messages if "method" not in m]
    ids = [a["id"] for a in answers]
    assert len(ids) == len(set(ids)), f"answered twice: {ids}"
    return {a["id"]: a for a in answers}


@pytest.mark.parametrize("calls", [1, 20, "20 with a 20 MiB result"])
@pytest.mark.parametrize("out", ["pipe", "file"])
def test_every_request_piped_in_before_eof_is_answered_with_its_result(
    app: Path, calls: int | str, out: str, tmp_path: Path
) -> None:
    # The SDK cancels the handlers still running when its input ends: the transport holds the
    # end back until they have answered. Stdout a pipe: the relay-free path; a file: the
    # relayed one.
    sizes = [BIG if n == 10 and calls != 20 else 0 for n in range(1, 2 if calls == 1 else 21)]
    requests = lines(*(call(n, size) for n, size in enumerate(sizes, 1)))
    if out == "pipe":
        answers, log = serve(app, requests)
    else:
        with open(tmp_path / "out.jsonl", "wb") as file:
            answers, log = serve(app, requests, file)
    answered = by_id(answers)
    assert sorted(answered) == list(range(len(sizes) + 1))
    for n, size in enumerate(sizes, 1):
        assert answered[n]["result"]["structuredContent"] == {"n": n, "pad": "x" * size}
    assert "unanswered" not in log


def test_a_request_still_running_at_the_end_of_the_grace_gets_an_error(app: Path) -> None:
    answered = by_id(serve(app, lines(call(1), call(2, sleep=600)))[0])
    assert answered[1]["result"]["structuredContent"] == {"n": 1, "pad": ""}
    assert answered[2]["error"]["code"] == mcp_types.CONNECTION_CLOSED


def test_a_cancelled_request_is_not_waited_for_nor_answered(app: Path) -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "2"}}
    answers, log = serve(app, lines(call(1), call(2, sleep=600), cancel, call(3)))
    assert sorted(by_id(answers)) == [0, 1, 3]
    assert "unanswered" not in log  # the end of input did not wait for request 2


def test_a_client_dying_during_a_large_write_fails_the_waiting_answers_at_once(app: Path) -> None:
    # Five answers of 5 MiB: the first fills the pipe, the others wait for their turn. The
    # client then goes away (both pipes closed): the broken pipe must fail the waiting answers
    # at once, not leave each of the SDK's shutdown writes to wait out its timeout.
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_native", "run", str(app)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(WATCHDOG, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(lines(*(call(n, 5 << 20) for n in range(1, 6))))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        proc.stdout.read(1 << 16)  # the first large answer is being written
        proc.stdout.close()
        proc.stdin.close()
        log = proc.stderr.read().decode()
        proc.wait()
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode != -9, "killed by the watchdog"
    assert "transport write blocked" not in log


@pytest.mark.parametrize("out", ["pipe", "file"])
def test_a_request_to_a_client_whose_input_ended_fails_at_once(app: Path, out: str, tmp_path: Path) -> None:
    # The client cannot answer the server's ping once it has closed its end: the handler that
    # asked gets the SDK's "Connection closed" at once, and its request is answered in turn.
    ask = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}
    if out == "pipe":
        answers, log = serve(app, lines(ask, call(2)))
    else:
        with open(tmp_path / "out.jsonl", "wb") as file:
            answers, log = serve(app, lines(ask, call(2)), file)
    answered = by_id(answers)
    assert answered[1]["result"]["content"][0]["text"] == "no answer: Connection closed"
    assert answered[2]["result"]["structuredContent"] == {"n": 2, "pad": ""}
    assert "unanswered" not in log  # the end of input did not wait out the grace


def test_stdin_is_read_non_blocking_while_served_and_its_flags_restored_at_exit(app: Path) -> None:
    # The server reads stdin in the event loop once it is readable; should another reader take
    # the data first, a blocking descriptor would stall the loop. The flag lives in the pipe's
    # open file description, which this process shares through its own read end.
    r, w = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_native", "run", str(app)],
            stdin=r,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert os.get_blocking(r)
            os.write(w, lines())
            assert proc.stdout is not None
            assert json.loads(proc.stdout.readline())["id"] == 0  # initialized: it is serving
            assert not os.get_blocking(r)
            os.close(w)
            w = -1
            assert proc.wait(WATCHDOG) == 0
        finally:
            proc.kill()
            proc.wait()
        assert os.get_blocking(r)
    finally:
        os.close(r)
        if w != -1:
            os.close(w)


# -- the writer, in process, on a real pipe ---------------------------------------------------


def response(n: int, size: int) -> mcp_types.JSONRPCResponse:
    return mcp_types.JSONRPCResponse(jsonrpc="2.0", id=n, result={"pad": "x" * size})


def pipe_writer() -> tuple[int, _stdio_server._PipeWriter]:
    r, w = os.pipe()
    os.set_blocking(w, False)
    return r, _stdio_server._PipeWriter(w, _stdio_server._Unanswered())


@pytest.mark.anyio
async def test_a_broken_pipe_fails_the_senders_waiting_for_their_turn() -> None:
    r, writer = pipe_writer()
    outcome: list[str] = []

    async def run(*, task_status: TaskStatus[None]) -> None:
        task_status.started()
        try:
            await writer.run()
        except BrokenPipeError:
            outcome.append("run failed")

    async def waiting_sender() -> None:
        try:
            await writer.write_message(response(2, 10))
        except anyio.BrokenResourceError:
            outcome.append("refused")

    try:
        async with anyio.create_task_group() as tg:
            await tg.start(run)
            await writer.write_message(response(1, 1 << 20))  # more than the pipe takes
            tg.start_soon(waiting_sender)
            await wait_all_tasks_blocked()
            os.close(r)  # the client goes away
            with anyio.fail_after(WATCHDOG):  # a hang guard, not a timing
                while "run failed" not in outcome:
                    await anyio.sleep(0.01)
            await wait_all_tasks_blocked()
            assert writer.broken
            assert outcome == ["run failed", "refused"]  # not still waiting for a turn
            tg.cancel_scope.cancel()
    finally:
        os.close(writer.fd)


@pytest.mark.anyio
async def test_senders_waiting_behind_a_slow_reader_hold_no_encoded_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each waiting answer is encoded only when its turn comes, so the memory behind a slow
    # reader is the messages in flight (as stock's) and the one line being written.
    encoded: list[Any] = []

    def counting(message: mcp_types.JSONRPCMessage) -> bytes:
        encoded.append(message.id)  # type: ignore[union-attr]
        return real(message)

    real = _wire.encode
    monkeypatch.setattr(_wire, "encode", counting)
    monkeypatch.setattr(_stdio_server, "encode", counting)
    r, writer = pipe_writer()
    size = 1 << 20
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer.run)
            await writer.write_message(response(1, size))  # fills the pipe
            for n in range(2, 6):
                tg.start_soon(writer.write_message, response(n, size))
            await wait_all_tasks_blocked()
            assert encoded == [1]
            # The reader catches up: every line arrives whole and in order.
            data = bytearray()
            while data.count(b"\n") < 5:
                data += await anyio.to_thread.run_sync(os.read, r, 1 << 20)
            writer.close()
    finally:
        os.close(r)
        os.close(writer.fd)
    assert encoded == [1, 2, 3, 4, 5]
    assert [json.loads(line)["id"] for line in data.splitlines()] == [1, 2, 3, 4, 5]
