"""The mcp 2.x modules and names several of the line's groups rely on."""

from __future__ import annotations

_WIRE = (
    "mcp.shared.message:SessionMessage",
    "mcp_types.jsonrpc:JSONRPCRequest",
    "mcp_types.jsonrpc:JSONRPCNotification",
    "mcp_types.jsonrpc:JSONRPCResponse",
    "mcp_types.jsonrpc:JSONRPCError",
    "mcp_types.jsonrpc:ErrorData",
)
_HTTP = "mcp.server.streamable_http"
_HTTP_MODERN = "mcp.server._streamable_http_modern"
_HTTP_CLIENT = "mcp.client.streamable_http"
_MANAGER = "mcp.server.streamable_http_manager"
_DISPATCHER = "mcp.shared.jsonrpc_dispatcher"
# What the dispatcher's read loop runs for each message it reads, which the stateless one pass and
# a session's hand-off run without it.
_DISPATCH = (
    f"{_DISPATCHER}:JSONRPCDispatcher.__init__",
    f"{_DISPATCHER}:JSONRPCDispatcher.run",
    f"{_DISPATCHER}:JSONRPCDispatcher._dispatch",
    f"{_DISPATCHER}:JSONRPCDispatcher._dispatch_request",
    f"{_DISPATCHER}:JSONRPCDispatcher._dispatch_notification",
    f"{_DISPATCHER}:JSONRPCDispatcher._resolve_pending",
    f"{_DISPATCHER}:JSONRPCDispatcher._spawn",
    f"{_DISPATCHER}:JSONRPCDispatcher._handle_request",
    f"{_DISPATCHER}:JSONRPCDispatcher._write",
)
_FUNC_METADATA = "mcp.server.mcpserver.utilities.func_metadata"
_LOWLEVEL = "mcp.server.lowlevel.server"
