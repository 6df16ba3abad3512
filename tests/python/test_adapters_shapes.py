"""Every common return shape, in real server processes over stdio: the same server code run stock
and with ``python -m mcp_native run``, on MCPServer and on fastmcp, answers each ``tools/call``
with the same JSON-RPC response (values compared with their JSON types, ``1.0`` is not ``1``),
except the one documented difference: MCPServer's mirror of a value its model coerced shows
what ``structuredContent`` holds."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

SERVER = """
import dataclasses, sys
from typing import Any
from pydantic import BaseModel, Field
from typing_extensions import TypedDict


class Where(BaseModel):
    lat: float
    lon: float = 0.0


class Station(BaseModel):
    station_id: int = Field(alias="stationId")
    where: Where | None = None
    tags: list[str] = []
    note: str | None = Field(default=None, alias="Note")


@dataclasses.dataclass
class Reading:
    at: str
    value: float
    flags: list[int] = dataclasses.field(default_factory=list)


class Point(TypedDict):
    x: float
    label: str


def typed_dict() -> Point:
    return {"x": 1.5, "label": "é\\n"}


def model() -> Station:
    return Station(stationId=7, where=Where(lat=46.5), tags=["a"], Note="q")


def models() -> list[Station]:
    return [Station(stationId=i, where=None if i % 2 else Where(lat=i)) for i in range(3)]


def optional_model() -> Station | None:
    return model()


def dataclass_() -> Reading:
    return Reading(at="t", value=0.1, flags=[1])


def dataclasses_() -> list[Reading]:
    return [Reading(at=str(i), value=i / 3) for i in range(3)]


def rows() -> list[dict[str, Any]]:
    return [{"i": i, "v": [i, None]} for i in range(3)]


def pair() -> tuple[int, str]:
    return (1, "a")


def nested() -> list[list[int]]:
    return [[1, 2], [3]]


def text() -> str:
    return "plain text"


def number() -> float:
    return 2.5


def int_as_float() -> float:
    return 1


def flag() -> bool:
    return False


def nothing() -> None:
    return None


def precision() -> dict[str, float]:
    return {"d": 123456789012345678}


TOOLS = [typed_dict, model, models, optional_model, dataclass_, dataclasses_, rows, pair, nested, text,
         number, int_as_float, flag, nothing, precision]

if sys.argv[1] == "fastmcp":
    from fastmcp import FastMCP

    app = FastMCP("shapes")
    for tool in TOOLS:
        app.tool(tool)
    app.run("stdio", show_banner=False)
else:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("shapes")
    for tool in TOOLS:
        app.tool()(tool)
    app.run("stdio")
"""
TOOLS = [
    "typed_dict",
    "model",
    "models",
    "optional_model",
    "dataclass_",
    "dataclasses_",
    "rows",
    "pair",
    "nested",
    "text",
    "number",
    "int_as_float",
    "flag",
    "nothing",
    "precision",
]
# MCPServer's mirror shows structuredContent where the model coerced the value (README).
MIRROR_FOLLOWS_MODEL = {"int_as_float", "precision"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shapes") / "shapes_server.py"
    path.write_text(SERVER)
    return path


def exchange(server: Path, framework: str, adapted: bool, version: str) -> tuple[dict[str, Any], str]:
    """The result (or error) of a ``tools/call`` of every tool, by tool, and the server's stderr."""
    run = ["-m", "mcp_native", "run", "--report"] if adapted else []
    init = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *(
            {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": {}}}
            for i, name in enumerate(TOOLS, 1)
        ),
    ]
    proc = subprocess.Popen(
        [sys.executable, *run, str(server), framework],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
        proc.stdin.flush()
        answers: dict[Any, Any] = {}
        while len(answers) < len(TOOLS) + 1:
            line = proc.stdout.readline()
            assert line, f"the server ended without answering; answers: {answers}"
            message = json.loads(line)
            answers[message["id"]] = message.get("result", message)
        proc.stdin.close()
        stderr = proc.stderr.read().decode()
        proc.wait()
    finally:
        watchdog.cancel()
        proc.kill()
    return {name: answers[i] for i, name in enumerate(TOOLS, 1)}, stderr


def typed(value: Any) -> str:
    """The value as JSON with its types: 1.0 and 1 differ, key order does not."""
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
@pytest.mark.parametrize("framework", ["mcpserver", "fastmcp"])
def test_every_shape_answers_as_stock(server: Path, framework: str, version: str) -> None:
    stock, _ = exchange(server, framework, False, version)
    adapted, stderr = exchange(server, framework, True, version)
    group = "server-results" if framework == "mcpserver" else "fastmcp-results"
    assert f"patched   {group}" in stderr  # applied in the server process (--report at exit)
    for name in TOOLS:
        ours, theirs = adapted[name], stock[name]
        assert "content" in theirs and not theirs.get("isError"), (name, theirs)
        if framework == "mcpserver" and name in MIRROR_FOLLOWS_MODEL:
            structured = ours["structuredContent"]
            assert typed(structured) == typed(theirs["structuredContent"])
            (block,) = ours["content"]
            assert typed(json.loads(block["text"])) == typed(structured.get("result", structured))
            assert block["text"] != theirs["content"][0]["text"]
            continue
        assert typed(ours) == typed(theirs), name


def test_the_blocks_are_stock_s_byte_for_byte(server: Path) -> None:
    """The mirror's bytes, not only its values: pretty-printed per item on MCPServer (aliases,
    nested models, None skipped, nested lists flattened), compact on fastmcp."""
    for framework in ("mcpserver", "fastmcp"):
        stock, _ = exchange(server, framework, False, "2025-11-25")
        adapted, _ = exchange(server, framework, True, "2025-11-25")
        for name in set(TOOLS) - MIRROR_FOLLOWS_MODEL:
            assert [b["text"] for b in adapted[name]["content"]] == [b["text"] for b in stock[name]["content"]]
