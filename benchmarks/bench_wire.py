"""Tool results on the wire: the server writing the JSON-RPC response line of a tools/call with
structured content, and the client checking that line.

Server side, the complete line (structured content validated against the output schema, the
text mirror, the envelope):
- mcp-native: ``Tool.encode_response`` (validation while writing, one serialization, the
  mirror escaped from the bytes just written).
- mcp SDK server: the installed ``mcp`` 2.x, through its own functions, as its MCPServer runs a
  tools/call: ``FuncMetadata.convert_result`` (pydantic validation against the return type, the
  ``indent=2`` mirror), the runner's ``_serialize`` (the result validated and dumped again by
  the protocol version's models) and ``JSONRPCResponse.model_dump_json`` (the stdio writer).
- jsonschema-rs + orjson: a compiled validator, then two ``orjson.dumps`` (mirror, response).
- orjson.dumps of the payload alone: the floor, with no validation, mirror or envelope.

Client side, from the received line to a checked result:
- mcp-native: ``Tool.check_result`` on the bytes (the whole CallToolResult and the output
  schema), then ``mcp_native.loads`` for the data.
- mcp SDK ClientSession: what ``ClientSession.call_tool`` does with the line: the stdio
  reader's ``jsonrpc_message_adapter.validate_json``, ``validate_server_result`` and the
  CallToolResult adapter, then ``validate_tool_result`` (python-jsonschema, validator cached).
- orjson.loads + jsonschema-rs: the line parsed, ``structuredContent`` validated.

Every contender validates against the output schema the SDK derives from the tool's return
type (a TypedDict), protocol version 2025-11-25.

Goals (development notes, not output): encode_response at most 1.2x the orjson.dumps floor and
at least 2x faster than jsonschema-rs + orjson.
Run: ``.venv/bin/python benchmarks/bench_wire.py [--quick]``.
"""

from __future__ import annotations

import gc
import json
import random
import string
import sys
import timeit
from pathlib import Path
from typing import Annotated, Any, Callable


import anyio
import jsonschema_rs
import mcp_types
import orjson
from mcp import types as mt
from mcp.client.session import ClientSession
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata, func_metadata
from mcp.server.runner import ServerRunner
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs it below Python 3.12

import mcp_native

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import Table, print_table, result  # noqa: E402

VERSION = "2025-11-25"
OURS = "mcp-native"
SDK_SERVER = "mcp SDK server"
SDK_CLIENT = "mcp SDK ClientSession"
RS_ORJSON = "jsonschema-rs + orjson"
FLOOR = "orjson.dumps of the payload (no validation)"
ORJSON_RS = "orjson.loads + jsonschema-rs"


# -- payloads -------------------------------------------------------------------------------------


class Weather(TypedDict):
    temperature: Annotated[float, Field(description="Temperature in celsius")]
    conditions: Annotated[str, Field(description="Weather conditions description")]
    humidity: Annotated[float, Field(description="Humidity percentage")]


class Record(TypedDict):
    id: Annotated[int, Field(ge=0)]
    name: Annotated[str, Field(min_length=1)]
    email: str
    active: bool
    score: float
    tags: list[str]
    manager: int | None


class Records(TypedDict):
    records: list[Record]


class Rows(TypedDict):
    columns: list[str]
    rows: list[list[int | float | str | bool | None]]


class File(TypedDict):
    path: str
    text: str


class Files(TypedDict):
    files: list[File]


def payloads() -> dict[str, tuple[type, dict[str, Any]]]:
    """name -> (the tool's return type, the structured content it returns)."""
    rnd = random.Random(20250618)
    weather = {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    records = {
        "records": [
            {
                "id": i,
                "name": "".join(rnd.choices(string.ascii_letters, k=12)),
                "email": f"user{i}@example.com",
                "active": rnd.random() < 0.5,
                "score": round(rnd.uniform(0, 100), 3),
                "tags": rnd.sample(["alpha", "beta", "gamma", "delta", "epsilon"], k=2),
                "manager": None if i % 7 == 0 else rnd.randrange(200),
            }
            for i in range(200)
        ]
    }
    rows = {
        "columns": ["id", "city", "lat", "lon", "open"],
        "rows": [[i, f"city-{i}", round(rnd.uniform(-90, 90), 6), round(rnd.uniform(-180, 180), 6), i % 3 == 0] for i in range(1000)],
    }
    # Source files: quotes, backslashes, newlines, tabs and non-ASCII, which the mirror escapes again.
    line = 'printf("%s\\n", path); // "quoted" \\ C:\\dir\tcafé ∑ 😀\n'
    text = (line * (8192 // len(line) + 1))[:8192]
    docs = {"files": [{"path": f"src/file{i}.c", "text": text} for i in range(4)]}
    return {
        "weather": (Weather, weather),
        "records_200": (Records, records),
        "rows_1000": (Rows, rows),
        "strings_8k": (Files, docs),
    }


def tool_metadata(returns: type) -> FuncMetadata:
    """The SDK's metadata of a tool returning ``returns``: its output schema and validator."""

    def tool() -> Any: ...

    tool.__annotations__["return"] = returns
    return func_metadata(tool)


# -- contenders -----------------------------------------------------------------------------------


def run_sync(coro: Any) -> Any:
    """Run a coroutine that never suspends (validate_tool_result of a tool whose schema is
    cached awaits nothing), without an event loop whose cost is not the SDK's validation."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine suspended")


def server_contenders(meta: FuncMetadata, structured: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    tool = mcp_native.Tool("t", output_schema=meta.output_schema, protocol_version=VERSION)
    rs = jsonschema_rs.validator_for(meta.output_schema)
    # _serialize reads only the server's cache hints (none) and, from 2026-07-28 on, its info.
    runner = ServerRunner(server=Server("bench"), connection=None, lifespan_state=None)  # type: ignore[arg-type]

    def ours() -> bytes:
        return tool.encode_response(1, structured)

    def sdk() -> bytes:
        dumped = runner._serialize("tools/call", VERSION, meta.convert_result(structured))
        response = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=1, result=dumped)
        return (response.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()

    def rs_orjson() -> bytes:
        if not rs.is_valid(structured):
            raise ValueError("invalid")
        text = orjson.dumps(structured).decode()
        result = {"structuredContent": structured, "content": [{"type": "text", "text": text}]}
        return orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": result}) + b"\n"

    def floor() -> bytes:
        return orjson.dumps(structured)

    # The same message from every contender (the floor writes only the payload).
    for fn in (ours, sdk, rs_orjson):
        got = json.loads(fn())["result"]
        assert got["structuredContent"] == structured
        assert json.loads(got["content"][0]["text"]) == structured
    return {OURS: ours, SDK_SERVER: sdk, RS_ORJSON: rs_orjson, FLOOR: floor}


def client_contenders(meta: FuncMetadata, line: bytes) -> dict[str, Callable[[], Any]]:
    client = mcp_native.Tool.from_definition(
        {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": meta.output_schema}, protocol_version=VERSION
    )
    rs = jsonschema_rs.validator_for(meta.output_schema)
    send, receive = anyio.create_memory_object_stream[Any](0)  # never used: nothing is sent
    session = ClientSession(receive, send)
    session._tool_output_schemas["t"] = meta.output_schema  # as list_tools leaves it

    def ours() -> Any:
        client.check_result(line)
        return mcp_native.loads(line)["result"]

    def sdk() -> Any:
        raw = mt.jsonrpc_message_adapter.validate_json(line, by_name=False).result
        mcp_types.methods.validate_server_result("tools/call", VERSION, raw)
        result = session._call_tool_adapter.validate_python(raw, by_name=False)
        run_sync(session.validate_tool_result("t", result))
        return result

    def orjson_rs() -> Any:
        result = orjson.loads(line)["result"]
        if not rs.is_valid(result["structuredContent"]):
            raise ValueError("invalid")
        return result

    structured = json.loads(line)["result"]["structuredContent"]
    assert ours()["structuredContent"] == sdk().structured_content == orjson_rs()["structuredContent"] == structured
    return {OURS: ours, SDK_CLIENT: sdk, ORJSON_RS: orjson_rs}


def per_call_ns(fns: dict[str, Callable[[], Any]], quick: bool) -> dict[str, float]:
    """Best per-call time of each function. Rounds alternate between the functions, so that
    load from elsewhere on the machine hits them alike; the collector is off while timing."""
    # Many short rounds rather than a few long ones: on a shared machine the best of them is
    # more often one that nothing else disturbed.
    budget = 0.005 if quick else 0.01
    numbers = {}
    for name, fn in fns.items():
        n = 1
        while (t := timeit.timeit(fn, number=n)) < budget:
            n *= 2 if t == 0 else max(2, min(100, int(budget / t) + 1))
        numbers[name] = n
    best = dict.fromkeys(fns, float("inf"))
    gc.disable()
    try:
        for _ in range(3 if quick else 41):
            for name, fn in fns.items():
                best[name] = min(best[name], timeit.timeit(fn, number=numbers[name]) / numbers[name])
    finally:
        gc.enable()
    return {k: v * 1e9 for k, v in best.items()}


def main(quick: bool = False) -> dict[str, Any]:
    server = Table("server: the tools/call response line", OURS, [SDK_SERVER, RS_ORJSON, FLOOR])
    client = Table("client: checking the received line", OURS, [SDK_CLIENT, ORJSON_RS])
    for name, (returns, structured) in payloads().items():
        meta = tool_metadata(returns)
        name = f"{name} ({len(orjson.dumps(structured)):,} B)"
        server.add(name, per_call_ns(server_contenders(meta, structured), quick))
        line = mcp_native.Tool("t", output_schema=meta.output_schema, protocol_version=VERSION).encode_response(1, structured)
        client.add(name, per_call_ns(client_contenders(meta, line), quick))
        print(f"[bench_wire] {name} done", flush=True)
    for t in (server, client):
        print_table(t)
    return result("bench_wire", "Tool results on the wire", [server, client], quick,
                  ["mcp", "mcp-types", "pydantic", "pydantic-core", "jsonschema", "jsonschema-rs", "orjson"])


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
