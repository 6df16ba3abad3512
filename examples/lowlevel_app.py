"""An MCP server on the official SDK's low-level ``Server``, over stdio, with the tools of
``payloads`` declared by hand, as the SDK's structured-output example does, and one tool without
an output schema.

Stock: ``python examples/lowlevel_app.py``; on mcp-native: ``python -m mcp_native run
examples/lowlevel_app.py``. The stock low-level server of ``mcp`` 2.x sends whatever
``structuredContent`` its handler returns; adapted, it is checked against the tool's
``outputSchema``.
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
from mcp.server import Server, ServerRequestContext
from payloads import Records, Weather, broken_weather, get_weather, list_records
from pydantic import TypeAdapter

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}}
WEATHER = TypeAdapter(Weather).json_schema()
RECORDS = TypeAdapter(Records).json_schema()
TOOLS = [
    types.Tool(name="get_weather", input_schema=CITY, output_schema=WEATHER),
    types.Tool(name="list_records", input_schema=COUNT, output_schema=RECORDS),
    types.Tool(name="broken_weather", input_schema=CITY, output_schema=WEATHER),
    types.Tool(name="no_schema", input_schema=CITY),  # returns what broken_weather does, unchecked
]


async def handle_list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def handle_call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    args: dict[str, Any] = params.arguments or {}
    data: Any
    if params.name == "get_weather":
        data = get_weather(args["city"])
    elif params.name == "list_records":
        data = list_records(args.get("count", 200))
    elif params.name in ("broken_weather", "no_schema"):
        data = broken_weather(args["city"])
    else:
        raise ValueError(f"Unknown tool: {params.name}")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data))], structured_content=data
    )


server = Server("weather-lowlevel", on_list_tools=handle_list_tools, on_call_tool=handle_call_tool)


async def run() -> None:
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(run())
