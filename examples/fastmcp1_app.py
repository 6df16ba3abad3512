"""An MCP server on the FastMCP built into ``mcp`` 1.x (``mcp.server.fastmcp``), over stdio.

Stock: ``python examples/fastmcp1_app.py``; on mcp-native: ``python -m mcp_native run
examples/fastmcp1_app.py`` (or call ``mcp_native.adapters.install()`` first in the program).
Needs ``mcp<2``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp.server.fastmcp import FastMCP
from payloads import TOOLS

app = FastMCP("weather")
for tool in TOOLS:
    app.tool()(tool)

if __name__ == "__main__":
    app.run("stdio")
