"""An MCP server on fastmcp, over stdio.

Stock: ``python examples/fastmcp_app.py``; on mcp-native: ``python -m mcp_native run
examples/fastmcp_app.py`` (or call ``mcp_native.adapters.install()`` first in the program).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fastmcp import FastMCP  # noqa: E402
from payloads import TOOLS  # noqa: E402

app = FastMCP("weather")
for tool in TOOLS:
    app.tool()(tool)

if __name__ == "__main__":
    app.run("stdio", show_banner=False)
