"""MCP-shaped benchmark payloads, deterministic (seeded), as plain Python values.

Shared by the benchmarks of the codec and of the wire layer:

- ``call_tool_result(records=200)``: a ``CallToolResult`` whose ``structuredContent`` holds a
  list of records and whose text block mirrors it as serialized JSON (as the spec recommends).
- ``jsonrpc_request(size=1024)``: a ``tools/call`` JSON-RPC request of about ``size`` bytes.
- ``text_result(blocks=4, size=8192)``: a result of text blocks of ``size`` characters each,
  full of characters JSON must escape (quotes, backslashes, newlines, tabs, control characters)
  and non-ASCII text (accents, CJK, emoji).
- ``records(n)``: the records of ``call_tool_result`` alone (nested objects, nulls, lists),
  which ``shapes_server.py`` returns as a TypedDict, a pydantic model, a dataclass and a list.
"""

from __future__ import annotations

import json
import random
from typing import Any

_WORDS = ["alpha", "beta", "gamma", "delta", "sensor", "reading", "station", "north", "valve", "pump"]


def _records(rng: random.Random, n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "name": f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{i}",
            "active": rng.random() < 0.8,
            "temperature": round(rng.uniform(-20.0, 45.0), 2),
            "humidity": rng.randint(0, 100),
            "tags": rng.sample(_WORDS, 3),
            "location": {"lat": round(rng.uniform(-90, 90), 6), "lon": round(rng.uniform(-180, 180), 6)},
            "updated": f"2025-06-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "note": None if rng.random() < 0.5 else "checked by operator",
        }
        for i in range(n)
    ]


def records(n: int) -> list[dict[str, Any]]:
    """``n`` sensor records, the same for every call."""
    return _records(random.Random(200), n)


def call_tool_result(records: int = 200) -> dict[str, Any]:
    rng = random.Random(200)
    structured = {"records": _records(rng, records), "total": records, "page": 1}
    text = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [{"type": "text", "text": text}],
            "structuredContent": structured,
            "isError": False,
        },
    }


def jsonrpc_request(size: int = 1024) -> dict[str, Any]:
    rng = random.Random(1024)
    arguments: dict[str, Any] = {"query": "temperature above threshold", "limit": 50, "filters": []}
    request = {
        "jsonrpc": "2.0",
        "id": "req-8f14e45f-ceea-467f-a9f4-5f0c2b1d6e3a",
        "method": "tools/call",
        "params": {"name": "search_readings", "arguments": arguments, "_meta": {"progressToken": 17}},
    }
    while len(json.dumps(request, separators=(",", ":"))) < size:
        arguments["filters"].append(
            {"field": rng.choice(_WORDS), "op": rng.choice(["eq", "gt", "lt"]), "value": rng.randint(0, 1000)}
        )
    return request


_PIECES = [
    'He said "hello" ',
    "C:\\path\\to\\file ",
    "line\n",
    "\ttabbed ",
    "control\x01\x1f ",
    "café crème ",
    "naïve façade ",
    "日本語のテキスト ",
    "emoji 😀🚀 ",
    "plain ascii words here ",
]


def _escaped_text(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    n = 0
    while n < size:
        p = rng.choice(_PIECES)
        parts.append(p)
        n += len(p)
    return "".join(parts)[:size]


def text_result(blocks: int = 4, size: int = 8192) -> dict[str, Any]:
    rng = random.Random(8192)
    return {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "content": [{"type": "text", "text": _escaped_text(rng, size)} for _ in range(blocks)],
            "isError": False,
        },
    }


def all_payloads() -> dict[str, Any]:
    """Every MCP-shaped payload by name."""
    return {
        "mcp_call_tool_result_200": call_tool_result(),
        "mcp_jsonrpc_request_1k": jsonrpc_request(),
        "mcp_text_result_8k_escapes": text_result(),
    }
