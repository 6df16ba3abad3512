"""fastmcp 3.x (on mcp 1.x): what mcp-native changes in fastmcp itself (its servers' transports
and the session's writes go through mcp 1.x's groups, ``adapters.mcp1``; the tool lookup is
4.x's, ``adapters._engines.lookup``; its stateless HTTP requests take mcp 1.x's one pass, with the
session its run opens)."""

from __future__ import annotations

from .._engines import fastmcp_lookup_group
from .._patching.spec import GroupSpec, Target

_TOOLS = "fastmcp.tools.base"
_LOW_LEVEL = "fastmcp.server.low_level"

GROUPS: tuple[GroupSpec, ...] = (
    GroupSpec(
        "fastmcp-results-3x",
        "fastmcp",
        "server results",
        ("server",),
        "fastmcp 3.x tool results: serialized once, the mirror written natively and marked",
        (Target(_TOOLS, "Tool.convert_result", f"{__name__}.server", "convert_result", "stock_convert_result"),),
        (
            f"{_TOOLS}:Tool.serializer",
            f"{_TOOLS}:Tool.output_schema",
            f"{_TOOLS}:ToolResult",
            f"{_TOOLS}:resolve_serialize_by_alias",
            f"{_TOOLS}:default_serializer",
            f"{_TOOLS}:_serialize_with_fallback",
            f"{_TOOLS}:_convert_to_content",
            f"{_TOOLS}:_convert_to_single_content_block",
            f"{_TOOLS}:_HAS_PREFAB",
            "fastmcp.utilities.types:Audio",
            "fastmcp.utilities.types:File",
            "fastmcp.utilities.types:Image",
            "fastmcp.tools.function_tool:FunctionTool.run",
            "fastmcp.server.mixins.mcp_operations:MCPOperationsMixin._call_tool_mcp",
        ),
        line=3,
    ),
    fastmcp_lookup_group("-3x", line=3),
    GroupSpec(
        "http-one-pass-3x",
        "fastmcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP: stateless requests in mcp 1.x's one pass, with the session fastmcp's run opens",
        (Target(_LOW_LEVEL, "LowLevelServer.run", f"{__name__}.http_one_pass", "run", "stock_run"),),
        (
            # The one pass does what the run does with the session it opens and the low-level
            # Server's methods it calls: the two classes whole (what they override of mcp's).
            f"{_LOW_LEVEL}:MiddlewareServerSession",
            f"{_LOW_LEVEL}:LowLevelServer",
        ),
        line=3,
    ),
)
