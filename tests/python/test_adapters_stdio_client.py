"""The adapted stdio client transport (mcp_native.adapters.mcp2.stdio_client) against real
server processes and pipes: the lines it hands to the session, the lines it writes, and the
shutdown behaviours the SDK's own tests pin with an in-memory fake process (a wedged write, a
server that must be drained to exit, a failed write to a live server, cancellation)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import mcp.client.stdio
from mcp import StdioServerParameters
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from mcp_native import adapters

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

# A line the server writes when it is ready for the test's next step.
READY = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ready"}}\n'
PING = JSONRPCRequest(jsonrpc="2.0", id=1, method="ping")


@asynccontextmanager
async def transport(script: str, **params: Any) -> AsyncIterator[tuple[Any, Any]]:
    """The adapted transport to ``python -c script``."""
    adapters.install(server=False)
    server = StdioServerParameters(command=sys.executable, args=["-c", script], **params)
    with open("/dev/null", "w") as errlog:
        async with mcp.client.stdio.stdio_client(server, errlog=errlog) as streams:
            yield streams


def server(body: str, marker: Path | None = None) -> str:
    """A server script: ``body`` with ``out`` (stdout's bytes) and ``READY`` defined; with a
    marker, the file is written when the body is done and stdin has ended (a clean exit)."""
    tail = f"sys.stdin.buffer.read()\nopen({str(marker)!r}, 'w').close()\n" if marker else ""
    return f"import os, sys, time\nout = sys.stdout.buffer\nREADY = {READY!r}\n{body}\n{tail}"


async def test_lines_are_framed_and_bad_ones_handed_over_as_errors(caplog: pytest.LogCaptureFixture) -> None:
    lines = (
        b'{"jsonrpc":"2.0","id":1,"result":{"a":1}}\n'
        b"{not json\n"
        b"\xff\xfe\n"  # invalid UTF-8: an error like any bad line (the stock transport fails whole)
        b'{"jsonrpc":"2.0","id":true,"result":{}}\r\n'
        b"\n"  # blank: skipped (stock hands the session a parse error for it)
        b'{"jsonrpc":"2.0","id":1,"result":[]}\n'
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n'
        b'{"jsonrpc":"2.0","id":2,"res'  # unterminated at the end: dropped, as stock drops it
    )
    body = "".join(f"out.write({bytes([b])!r}); out.flush()\n" for b in lines[:40])  # split mid-line
    body += f"out.write({lines[40:]!r}); out.flush()"
    received: list[Any] = []
    with anyio.fail_after(20):
        async with transport(server(body)) as (read, _):
            async for item in read:
                received.append(item)
    kinds = [type(x.message if isinstance(x, SessionMessage) else x) for x in received]
    assert kinds == [JSONRPCResponse, ValueError, ValueError, ValueError, ValueError, JSONRPCNotification]
    assert received[0].message.result == {"a": 1}
    assert "Parse error" in str(received[1]) and "UTF-8" in str(received[2])
    assert "Invalid Request" in str(received[3]) and "Invalid Request" in str(received[4])
    errors = [r for r in caplog.records if r.name == "mcp.client.stdio" and r.levelno == logging.ERROR]
    assert len(errors) == 4 and all("Failed to parse JSONRPC message from server" in r.getMessage() for r in errors)


async def test_a_line_of_any_size_is_delivered() -> None:
    # Beyond the server side's 16 MiB limit: the stock client sets none on its own server.
    head, tail = b'{"jsonrpc":"2.0","id":1,"result":{"a":"', b'"}}\n'
    body = f"out.write({head!r} + b'x' * (17 << 20) + {tail!r})"
    with anyio.fail_after(30):
        async with transport(server(body)) as (read, _):
            item = await read.receive()
    assert isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse)
    assert len(item.message.result["a"]) == 17 << 20


async def test_each_message_is_written_as_one_line(tmp_path: Path) -> None:
    got = tmp_path / "stdin"
    body = f"open({str(got)!r}, 'wb').write(sys.stdin.buffer.read())"
    messages: list[JSONRPCRequest | JSONRPCNotification | JSONRPCResponse] = [
        PING,
        JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"),
        JSONRPCResponse(jsonrpc="2.0", id="a", result={"content": [], "é": [1.5, None, "\u2028"]}),
    ]
    with anyio.fail_after(20):
        async with transport(server(body)) as (_, write):
            for m in messages:
                await write.send(SessionMessage(m))
    lines = got.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == len(messages) + 1
    assert [json.loads(line) for line in lines[:-1]] == [
        m.model_dump(by_alias=True, exclude_unset=True, mode="json") for m in messages
    ]


async def test_a_send_into_a_wedged_pipe_returns_once_handed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    # The server never reads stdin nor exits on its own: a 4 MiB request fills the pipe.
    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 0.2)
    big = JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/call", params={"name": "x" * (4 << 20)})
    with anyio.fail_after(30):
        async with transport(server("out.write(READY); out.flush(); time.sleep(60)")) as (read, write):
            assert isinstance(await read.receive(), SessionMessage)
            await write.send(SessionMessage(big))  # returns: a request's timeout starts now
            with anyio.move_on_after(0.5) as waiting:
                await write.send(SessionMessage(PING))  # waits its turn behind the wedged line
            assert waiting.cancelled_caught
        # Exit was bounded: the flush window ran out, the server was killed.


async def test_output_nobody_received_is_drained_so_the_server_exits(tmp_path: Path) -> None:
    # 1 MiB of output, invalid UTF-8 among it, that the session never receives: the server
    # blocks writing it until the shutdown drains it, then sees stdin end and exits cleanly.
    marker = tmp_path / "clean-exit"
    body = "out.write(READY)\nfor _ in range(1024): out.write(b'\\xff' * 1023 + b'\\n')\nout.flush()"
    with anyio.fail_after(30):
        async with transport(server(body, marker)) as (read, _):
            assert isinstance(await read.receive(), SessionMessage)
    assert marker.exists()  # not killed after the grace period


async def test_a_failed_write_to_a_live_server_ends_the_read_stream(tmp_path: Path) -> None:
    # The server closes its stdin and stays alive: the client's write fails (EPIPE); the
    # session must see the connection end, and what the server writes next is still drained.
    marker = tmp_path / "clean-exit"
    body = (
        "os.close(0)\nout.write(READY); out.flush()\ntime.sleep(0.5)\n"
        "for _ in range(1024): out.write(b'x' * 1023 + b'\\n')\nout.flush()\n"
        f"open({str(marker)!r}, 'w').close()"
    )
    with anyio.fail_after(30):
        async with transport(server(body)) as (read, write):
            assert isinstance(await read.receive(), SessionMessage)
            await write.send(SessionMessage(PING))
            with pytest.raises(anyio.EndOfStream):
                await read.receive()
            with pytest.raises(anyio.BrokenResourceError):
                await write.send(SessionMessage(PING))
            while not marker.exists():
                await anyio.sleep(0.05)


async def test_a_cancelled_client_still_shuts_the_server_down(tmp_path: Path) -> None:
    marker = tmp_path / "clean-exit"
    with anyio.fail_after(30):
        with anyio.CancelScope() as scope:
            async with transport(server("out.write(READY); out.flush()", marker)) as (read, _):
                assert isinstance(await read.receive(), SessionMessage)
                scope.cancel()
                await read.receive()  # cancelled while it waits for output
    assert scope.cancelled_caught
    assert marker.exists()  # its stdin was closed, and it exited on its own


async def test_other_encodings_keep_the_stock_transport() -> None:
    with anyio.fail_after(20):
        async with transport(server("out.write(READY); out.flush()"), encoding="latin-1") as (read, _):
            assert type(read).__module__.startswith("anyio")
            assert isinstance(await read.receive(), SessionMessage)
