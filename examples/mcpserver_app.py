"""An MCP server on the official SDK's MCPServer, over stdio.

Stock: ``python examples/mcpserver_app.py``; on mcp-native: ``python -m mcp_native run
examples/mcpserver_app.py`` (or call ``mcp_native.adapters.install()`` first in the program).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp.server.mcpserver import MCPServer  # noqa: E402
from payloads import TOOLS  # noqa: E402

app = MCPServer("weather")
for tool in TOOLS:
    app.tool()(tool)

if __name__ == "__main__":
    app.run("stdio")
