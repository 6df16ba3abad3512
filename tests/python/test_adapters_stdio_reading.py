"""What the adapted stdio transports hand the session for the lines the native decoder reads but
the SDK's own pydantic parser reads otherwise (adapters._engines.reading): an error response
without an id, a lone surrogate escape, nesting deeper than pydantic's limit, and (mcp 1.x,
whose message models keep unknown members) extra envelope members. Each line goes through the
stock transport and the adapted one, client and server, in real processes; what the session
receives must be the same: the same model, or the same exception type and message. Runs on
mcp 2.x and, under scripts/sdk-pairs, on mcp 1.x."""

from __future__ import annotations

import importlib.metadata
import json
import logging
import subprocess
import sys
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import mcp.client.stdio
from mcp import StdioServerParameters

from mcp_native import adapters

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

MCP1 = importlib.metadata.version("mcp").startswith("1.")
DEEP = 250  # beyond pydantic-core's ~200 levels

LINES = {
    "error without id": b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom"}}',
    "error with id": b'{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"boom","data":[1]}}',
    "lone surrogate": b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a\\ud800"}}',
    "lone low surrogate": b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\\uDC00"}}',
    "surrogate pair": b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\\ud83d\\ude00"}}',
    "deep": b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":' + b"[" * DEEP + b"]" * DEEP + b"}}",
    "deep result": b'{"jsonrpc":"2.0","id":5,"result":{"a":' + b"[" * DEEP + b"]" * DEEP + b"}}",
    "shallow": b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":'
    + b"[" * 150
    + b"]" * 150
    + b"}}",
    "extra member": b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1},"x":1}',
}
# mcp 1.x's models keep unknown members, which the native decoder does not read: a known difference.
EXTRA_1X = pytest.mark.xfail(MCP1, reason="mcp 1.x keeps extra envelope members; the decoder drops them", strict=True)
CASES = [pytest.param(name, marks=EXTRA_1X) if name == "extra member" else name for name in LINES]


def seen(item: Any) -> Any:
    """What the session received, comparable across processes: the model's dump, or the
    exception's type and message."""
    if isinstance(item, Exception):
        return [type(item).__name__, str(item)]
    return item.message.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def client_reads(data: bytes, adapted: bool) -> tuple[list[Any], list[str]]:
    """What the session of a stdio client reads from a server that writes ``data`` (one byte at
    a time for the first 64 bytes, so that an escape is split over reads), and what it logs."""
    if adapted:
        adapters.install(server=False)
    script = (
        "import sys, time\nout = sys.stdout.buffer\ndata = " + repr(data) + "\n"
        "for b in data[:64]:\n    out.write(bytes([b])); out.flush()\n"
        "out.write(data[64:]); out.flush()\n"
    )
    server = StdioServerParameters(command=sys.executable, args=["-c", script])
    received: list[Any] = []
    handler = _Records()
    logger = logging.getLogger("mcp.client.stdio")
    logger.addHandler(handler)
    try:
        with anyio.fail_after(20), open("/dev/null", "w") as errlog:
            async with mcp.client.stdio.stdio_client(server, errlog=errlog) as (read, _):
                async for item in read:
                    received.append(seen(item))
    finally:
        logger.removeHandler(handler)
        adapters.uninstall()
    return received, handler.messages


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.parametrize("name", CASES)
async def test_the_client_hands_over_what_stock_does(name: str) -> None:
    data = LINES[name] + b"\n" + LINES["shallow"] + b"\n"
    stock = await client_reads(data, adapted=False)
    ours = await client_reads(data, adapted=True)
    assert len(stock[0]) == 2
    assert ours == stock


async def test_the_client_reads_them_all_in_one_stream() -> None:
    data = b"".join(line + b"\n" for name, line in LINES.items() if not (MCP1 and name == "extra member"))
    assert await client_reads(data, adapted=True) == await client_reads(data, adapted=False)


SERVER = """
import json, sys
import anyio
import mcp.server.stdio

def seen(item):
    if isinstance(item, Exception):
        return [type(item).__name__, str(item)]
    return item.message.model_dump(mode="json", by_alias=True, exclude_unset=True)

async def main():
    received = []
    async with mcp.server.stdio.stdio_server() as (read, write):
        async for item in read:
            received.append(seen(item))
        await write.aclose()
    sys.stderr.write(json.dumps(received))

anyio.run(main)
"""


def server_reads(data: bytes, adapted: bool) -> tuple[list[Any], bytes]:
    """What the session of a stdio server reads from ``data`` on its stdin, and what the
    transport writes to stdout."""
    ours = ["-m", "mcp_native", "run", "--quiet"] if adapted else []
    script = ["-c", SERVER] if not adapted else []
    if adapted:
        path = _server_file()
        cmd = [sys.executable, *ours, path]
    else:
        cmd = [sys.executable, *script]
    proc = subprocess.run(cmd, input=data, capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stderr), proc.stdout


_SERVER_PATH: list[str] = []


def _server_file() -> str:
    if not _SERVER_PATH:
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(SERVER)
        _SERVER_PATH.append(f.name)
    return _SERVER_PATH[0]


@pytest.mark.parametrize("name", CASES)
def test_the_server_hands_over_what_stock_does(name: str) -> None:
    data = LINES[name] + b"\n" + LINES["shallow"] + b"\n"
    stock = server_reads(data, adapted=False)
    ours = server_reads(data, adapted=True)
    assert len(stock[0]) == 2
    assert ours[0] == stock[0]
    assert ours[1] == stock[1] == b""  # nothing answered: none of these is a request it reads
