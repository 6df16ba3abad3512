"""mcp 2.x's groups for Streamable HTTP sessions (their replacements: ``http_sessions``)."""

from __future__ import annotations

from .._patching.spec import GroupSpec, Target
from ._names import _DISPATCH, _DISPATCHER, _HTTP, _MANAGER

SESSION_GROUPS: tuple[GroupSpec, ...] = (
    GroupSpec(
        "http-sessions",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2025 era): a session's messages without its read loop, JSON answers without its router",
        (
            Target(
                _MANAGER,
                "StreamableHTTPSessionManager._handle_stateful_request",
                f"{__package__}.http_sessions",
                "handle_stateful_request",
                "stock_handle_stateful_request",
            ),
            Target(
                _MANAGER,
                "serve_loop",
                f"{__package__}.http_sessions",
                "serve_loop",
                "stock_serve_loop",
                holds="mcp.server.runner:serve_loop",
            ),
        ),
        (
            # Who calls them, and the manager's sessions.
            f"{_MANAGER}:StreamableHTTPSessionManager._handle_request",
            f"{_MANAGER}:StreamableHTTPSessionManager.__init__",
            f"{_MANAGER}:StreamableHTTPSessionManager._serve_opening_request",
            f"{_HTTP}:StreamableHTTPServerTransport.handle_request",
            f"{_HTTP}:MCP_SESSION_ID_HEADER",
            # The transport: its streams and router (connect), what its POST sends on the read
            # stream, and the request streams an answer is delivered to.
            f"{_HTTP}:StreamableHTTPServerTransport.__init__",
            f"{_HTTP}:StreamableHTTPServerTransport.connect",
            f"{_HTTP}:StreamableHTTPServerTransport.terminate",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_post_request",
            f"{_HTTP}:StreamableHTTPServerTransport._terminate_unanswered_request",
            f"{_HTTP}:StreamableHTTPServerTransport._clean_up_memory_streams",
            f"{_HTTP}:EventMessage",
            "mcp.shared._context_streams:ContextSendStream",
            "mcp.shared._context_streams:ContextReceiveStream",
            # The session's server, built as stock's serve_loop builds it, and what its loop
            # runs for each message.
            "mcp.server.runner:serve_loop",
            "mcp.server.runner:serve_connection",
            "mcp.server.runner:ServerRunner",
            "mcp.server.runner:aclose_shielded",
            "mcp.server.connection:Connection.for_loop",
            *_DISPATCH,
            "mcp.shared.message:SessionMessage",
        ),
    ),
    GroupSpec(
        "http-session-tasks",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2025 era): a session with no event store served without its tasks",
        (
            Target(
                _MANAGER,
                "StreamableHTTPSessionManager._serve_opening_request",
                f"{__package__}.http_sessions",
                "serve_opening_request",
                "stock_serve_opening_request",
            ),
        ),
        (
            # The manager: how it admits, answers, discards and shuts its sessions down (its task
            # group cancelled), and what ends one (the idle timeout, the transport terminated).
            f"{_MANAGER}:StreamableHTTPSessionManager.__init__",
            f"{_MANAGER}:StreamableHTTPSessionManager.run",
            f"{_MANAGER}:StreamableHTTPSessionManager._handle_stateful_request",
            f"{_MANAGER}:StreamableHTTPSessionManager._admit_session",
            f"{_MANAGER}:StreamableHTTPSessionManager._discard_session",
            f"{_MANAGER}:_send_and_report_status",
            f"{_MANAGER}:serve_loop",
            # The transport without connect(): what reads its streams, and the router's rules.
            f"{_HTTP}:StreamableHTTPServerTransport.__init__",
            f"{_HTTP}:StreamableHTTPServerTransport.connect",
            f"{_HTTP}:StreamableHTTPServerTransport.handle_request",
            f"{_HTTP}:StreamableHTTPServerTransport.terminate",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_post_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_get_request",
            f"{_HTTP}:StreamableHTTPServerTransport._terminate_unanswered_request",
            f"{_HTTP}:StreamableHTTPServerTransport._clean_up_memory_streams",
            f"{_HTTP}:EventMessage",
            f"{_HTTP}:GET_STREAM_KEY",
            # The session's server, built as stock's serve_loop builds it, and its loop's end.
            "mcp.server.runner:serve_loop",
            "mcp.server.runner:serve_connection",
            "mcp.server.runner:ServerRunner",
            "mcp.server.runner:aclose_shielded",
            "mcp.server.connection:Connection.for_loop",
            *_DISPATCH,
            f"{_DISPATCHER}:JSONRPCDispatcher._fan_out_closed",
            "mcp.shared._compat:resync_tracer",
            "mcp.shared.message:SessionMessage",
        ),
    ),
)
