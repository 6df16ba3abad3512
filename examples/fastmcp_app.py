"""An MCP server on fastmcp, over stdio.

Stock: ``python examples/fastmcp_app.py``; on mcp-native: ``python -m mcp_native run
examples/fastmcp_app.py`` (or call ``mcp_native.adapters.install()`` first in the program).
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fastmcp import FastMCP  # noqa: E402
from payloads import BAD_WEATHER, Records, Weather, records, weather  # noqa: E402

app = FastMCP("weather")


@app.tool()
def get_weather(city: str) -> Weather:
    """Current weather for a city."""
    return weather(city)


@app.tool()
def list_records(count: int = 200) -> Records:
    """A table of user records."""
    return records(count)


@app.tool()
def broken_weather(city: str) -> Weather:
    """A tool whose result violates its own output schema."""
    bad: Any = BAD_WEATHER
    return bad  # type: ignore[no-any-return]


if __name__ == "__main__":
    app.run("stdio", show_banner=False)
