"""An MCP server on the low-level ``Server`` of ``mcp`` 1.x, over stdio, written as the SDK's
structured-output example is: the tools declared by hand, the handler returns a dict and the
server checks it against the tool's ``outputSchema``. ``no_schema`` returns what
``broken_weather`` does without a schema; ``raw_broken`` returns a ``CallToolResult`` itself,
which the server sends unchecked, so a client's own check is what catches it.

Stock: ``python examples/lowlevel1_app.py``; on mcp-native: ``python -m mcp_native run
examples/lowlevel1_app.py``. Needs ``mcp<2``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mcp.server.stdio
from mcp import types
from mcp.server.lowlevel import Server
from payloads import Records, Weather, broken_weather, get_weather, list_records
from pydantic import TypeAdapter

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}}
WEATHER = TypeAdapter(Weather).json_schema()
RECORDS = TypeAdapter(Records).json_schema()
TOOLS = [
    types.Tool(name="get_weather", inputSchema=CITY, outputSchema=WEATHER),
    types.Tool(name="list_records", inputSchema=COUNT, outputSchema=RECORDS),
    types.Tool(name="broken_weather", inputSchema=CITY, outputSchema=WEATHER),
    types.Tool(name="no_schema", inputSchema=CITY),
    types.Tool(name="raw_broken", inputSchema=CITY, outputSchema=WEATHER),
]

server: Server[Any, Any] = Server("weather-lowlevel")


@server.list_tools()
async def handle_list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def handle_call_tool(name: str, arguments: dict[str, Any]) -> Any:
    if name == "get_weather":
        return get_weather(arguments["city"])
    if name == "list_records":
        return list_records(arguments.get("count", 200))
    if name in ("broken_weather", "no_schema"):
        return broken_weather(arguments["city"])
    if name == "raw_broken":
        data = broken_weather(arguments["city"])
        text = types.TextContent(type="text", text=json.dumps(data))
        return types.CallToolResult(content=[text], structuredContent=data)
    raise ValueError(f"Unknown tool: {name}")


async def run() -> None:
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(run())
