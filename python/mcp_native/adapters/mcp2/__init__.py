"""mcp 2.x: what mcp-native changes in the SDK, group by group (the modules beside this
file hold the replacements; the stdio and HTTP engines they enter are in ``adapters._engines``)."""

from __future__ import annotations

from .._engines import (
    HTTP,
    SSE_STREAMING,
    http_client_group,
    http_one_pass_group,
    http_responses_group,
    http_sse_group,
    stdio_client_group,
    stdio_server_group,
)
from .._patching.spec import GroupSpec, Target
from ._names import (
    _DISPATCH,
    _DISPATCHER,
    _FUNC_METADATA,
    _HTTP,
    _HTTP_CLIENT,
    _HTTP_MODERN,
    _LOWLEVEL,
    _MANAGER,
    _WIRE,
)
from .session_groups import SESSION_GROUPS

GROUPS: tuple[GroupSpec, ...] = (
    stdio_server_group(
        "",
        f"{__name__}.stdio",
        (
            "mcp.server.stdio:_claim_fd",
            "mcp.server.stdio:_is_backed_by_fd",
            "mcp.server.stdio:_open_stdin_diversion",
            "mcp.server.stdio:_open_stdout_diversion",
            "mcp.shared._context_streams:create_context_streams",
            # How the SDK correlates ids, and its code for a request cut off by the end of input.
            "mcp.shared.dispatcher:coerce_request_id",
            "mcp_types.jsonrpc:CONNECTION_CLOSED",
            # The parser of the lines the decoder has not proven (_engines.reading).
            "mcp_types.jsonrpc:jsonrpc_message_adapter",
            *_WIRE,
        ),
    ),
    GroupSpec(
        "server-runner",
        "mcp",
        "stdio server",
        ("transport",),
        "server runner: messages read by the serving loop itself, without a relay task",
        (
            Target(
                "mcp.server.runner",
                "_replay_from_opening_request",
                f"{__name__}.server_runner",
                "replay_from_opening_request",
                "stock_replay",
            ),
        ),
        (
            "mcp.server.runner:serve_dual_era_loop",
            "mcp.server.runner:_PRE_REQUEST_REPLAY_LIMIT",
            "mcp.server.runner:_sender_context",
            "mcp.shared._context_streams:ContextReceiveStream",
            "mcp.shared.message:SessionMessage",
            "mcp_types.jsonrpc:JSONRPCRequest",
        ),
    ),
    GroupSpec(
        "runner-unwind",
        "mcp",
        "HTTP",
        ("transport",),
        "server runner: a connection with nothing to unwind ends without a shielded, timed scope",
        (
            Target(
                "mcp.server.runner",
                "aclose_shielded",
                f"{__name__}.server_runner",
                "aclose_shielded",
                "stock_aclose_shielded",
            ),
        ),
        # Where the stack comes from: a Connection makes a plain AsyncExitStack.
        ("mcp.server.connection:Connection.__init__",),
    ),
    GroupSpec(
        "otel-idle",
        "mcp",
        "HTTP",
        ("transport",),
        "OpenTelemetry middleware: no per-message span where no tracer provider would record it",
        (
            Target(
                "mcp.server._otel",
                "OpenTelemetryMiddleware.__call__",
                f"{__name__}.otel",
                "middleware_call",
                "stock_call",
            ),
        ),
        (
            # The span stock opens: its tracer (the API's proxy when made before a provider is
            # set), the parent it extracts from _meta, and what the context carries.
            "mcp.shared._otel:_tracer",
            "mcp.shared._otel:otel_span",
            "mcp.shared._otel:extract_trace_context",
            "mcp.server.context:ServerRequestContext",
            "mcp.server.lowlevel.server:Server.__init__",
        ),
    ),
    stdio_client_group(
        "",
        f"{__name__}.stdio_client",
        (
            "mcp.client.stdio:_drain_stdout",
            "mcp.client.stdio:_stop_server_process",
            "mcp.client.stdio:_WRITER_FLUSH_TIMEOUT",
        ),
        # The parser of the lines the decoder has not proven (_engines.reading), as stock's reader.
        ("mcp.client.stdio:_parse_line", "mcp_types.jsonrpc:jsonrpc_message_adapter", *_WIRE),
    ),
    http_client_group(
        "",
        f"{__name__}.http_client",
        (
            # What the replacements read of the module, and the parser they stand in for.
            f"{_HTTP_CLIENT}:ErrorData",
            f"{_HTTP_CLIENT}:PARSE_ERROR",
            "mcp_types.jsonrpc:jsonrpc_message_adapter",
            "mcp_types.jsonrpc:JSONRPCMessage",
            "mcp_types.jsonrpc:RequestId",
            "mcp_types.jsonrpc:PARSE_ERROR",
            *_WIRE,
        ),
    ),
    http_responses_group("", " (2025 era)", _WIRE),
    http_one_pass_group(
        "http-stateless",
        "Streamable HTTP (2025 era): a stateless request, notification or DELETE in one pass, without a transport loop",
        f"{__name__}.http_stateless",
        (
            # The transport: what stock's POST runs, and the parts of it this path calls.
            f"{_HTTP}:StreamableHTTPServerTransport.__init__",
            f"{_HTTP}:StreamableHTTPServerTransport.handle_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_delete_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_unsupported_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_post_request",
            f"{_HTTP}:StreamableHTTPServerTransport._message_metadata",
            f"{_HTTP}:StreamableHTTPServerTransport._check_content_type",
            f"{_HTTP}:StreamableHTTPServerTransport._create_json_response",
            f"{_HTTP}:StreamableHTTPServerTransport._create_error_response",
            f"{_HTTP}:StreamableHTTPServerTransport._terminate_unanswered_request",
            f"{_HTTP}:StreamableHTTPServerTransport._mint_priming_event",
            *SSE_STREAMING,
            "mcp.shared.message:ServerMessageMetadata",
            f"{_HTTP}:StreamableHTTPServerTransport.terminate",
            f"{_HTTP}:StreamableHTTPServerTransport.connect",
            f"{_HTTP}:check_accept_headers",
            f"{_HTTP}:REQUEST_CANCELLED",
            "mcp.server.transport_security:TransportSecurityMiddleware.validate_request",
            "mcp_types.jsonrpc:jsonrpc_message_adapter",
            # The dispatcher's request path, run without its read loop.
            *_DISPATCH,
            f"{_DISPATCHER}:JSONRPCDispatcher._write_result",
            f"{_DISPATCHER}:JSONRPCDispatcher._write_error",
            f"{_DISPATCHER}:JSONRPCDispatcher._settle_unanswered",
            f"{_DISPATCHER}:JSONRPCDispatcher._final_write",
            f"{_DISPATCHER}:JSONRPCDispatcher.notify",
            f"{_DISPATCHER}:_JSONRPCDispatchContext",
            f"{_DISPATCHER}:_contained_notify",
            f"{_DISPATCHER}:progress_token_from_params",
            # The kernel and the connection stock's loop serves the request with.
            "mcp.server.runner:ServerRunner",
            "mcp.server.runner:serve_connection",
            "mcp.server.runner:aclose_shielded",
            "mcp.server.connection:Connection.from_envelope",
            "mcp.shared.transport_context:TransportContext",
        ),
    ),
    *SESSION_GROUPS,
    http_sse_group("", _WIRE),
    GroupSpec(
        "http-errors",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2025 era): -32600 for a malformed envelope",
        (
            Target(
                _HTTP,
                "StreamableHTTPServerTransport._create_error_response",
                HTTP,
                "create_error_response",
                "stock_create_error_response",
            ),
        ),
        (f"{_HTTP}:StreamableHTTPServerTransport._handle_post_request",),
    ),
    GroupSpec(
        "http-modern",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2026-07-28): response bodies and SSE events written natively",
        (
            Target(_HTTP_MODERN, "_sse_event", HTTP, "sse_event", "stock_sse_event"),
            Target(_HTTP_MODERN, "_write", HTTP, "write", "stock_write"),
        ),
        _WIRE,
    ),
    GroupSpec(
        "http-modern-sse",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2026-07-28), SSE responses: the request without a task group, stream or scope",
        (
            Target(
                _MANAGER,
                "handle_modern_request",
                f"{__name__}.http_modern",
                "handle_modern_request",
                "stock_handle_modern_request",
                holds=f"{_HTTP_MODERN}:handle_modern_request",  # imported by name
            ),
        ),
        (
            # The function this one follows step by step, its caller, and what it calls.
            f"{_HTTP_MODERN}:handle_modern_request",
            f"{_MANAGER}:StreamableHTTPSessionManager._handle_request",
            f"{_HTTP_MODERN}:_SingleExchangeDispatchContext",
            f"{_HTTP_MODERN}:_to_jsonrpc_response",
            f"{_HTTP_MODERN}:_acknowledge_notification",
            f"{_HTTP_MODERN}:_mcp_param_rejection",
            f"{_HTTP_MODERN}:_is_notification_shaped",
            f"{_HTTP_MODERN}:_write_rejection",
            "mcp.server.runner:serve_one",
            "mcp.shared.inbound:classify_inbound_request",
            "mcp.shared.inbound:find_duplicated_routing_header",
        ),
    ),
    GroupSpec(
        "http-modern-params",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2026-07-28): no Mcp-Param-* walk for a tool whose schema declares no header",
        (
            Target(
                _HTTP_MODERN,
                "validate_mcp_param_headers",
                f"{__name__}.http_modern",
                "validate_mcp_param_headers",
                "stock_validate_mcp_param_headers",
                holds="mcp.shared.inbound:validate_mcp_param_headers",  # imported by name
            ),
        ),
        (
            # The check, and what decides which positions it looks at: only those whose dict
            # carries the key, found by the walk over the schema's own dicts.
            "mcp.shared.inbound:validate_mcp_param_headers",
            "mcp.shared.inbound:_annotated_positions",
            "mcp.shared.inbound:_walk_schema_positions",
            "mcp.shared.inbound:X_MCP_HEADER_KEY",
        ),
    ),
    GroupSpec(
        "http-modern-listing",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2026-07-28): MCPServer's tools/list not run again before each tools/call",
        (
            Target(
                _HTTP_MODERN,
                "_tool_input_schema",
                f"{__name__}.http_modern",
                "tool_input_schema",
                "stock_tool_input_schema",
            ),
        ),
        (
            # The listing it stands in for, what it runs and what runs around it.
            f"{_HTTP_MODERN}:_mcp_param_rejection",
            "mcp.server.mcpserver.server:MCPServer.__init__",
            "mcp.server.mcpserver.server:MCPServer._handle_list_tools",
            "mcp.server.mcpserver.server:MCPServer.list_tools",
            "mcp.server.mcpserver.tools.tool_manager:ToolManager.list_tools",
            "mcp.server.mcpserver.tools.tool_manager:ToolManager.add_tool",
            "mcp.server.lowlevel.server:Server.__init__",
            "mcp.server.runner:ServerRunner._on_request",
            "mcp.server.request_state:RequestStateBoundary.__call__",
            "mcp.server._otel:OpenTelemetryMiddleware.__call__",
            "mcp.shared.inbound:validate_mcp_param_headers",
            "mcp.shared.inbound:X_MCP_HEADER_KEY",
        ),
    ),
    GroupSpec(
        "http-modern-bodies",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2026-07-28): request bodies parsed natively",
        (Target(_HTTP_MODERN, "json", HTTP, "modern_json", holds="json"),),
        # The one json.loads of a request body, and what it answers when that fails.
        (f"{_HTTP_MODERN}:handle_modern_request",),
    ),
    GroupSpec(
        "client-results",
        "mcp",
        "client validation",
        ("client",),
        "tools/call results of the common shape (text blocks) checked natively, parsed without the content union",
        (
            Target(
                "mcp_types.methods",
                "validate_server_result",
                f"{__name__}.client",
                "validate_server_result",
                "stock_validate_server_result",
            ),
            Target(
                "mcp.client.session",
                "_CallToolResultAdapter",
                f"{__name__}.client",
                "call_tool_results",
                "stock_call_tool_results",
                instance_of="pydantic:TypeAdapter",
            ),
        ),
        (
            # Who parses a tools/call result with it: the session's adapter unless claims are active.
            "mcp.client.session:ClientSession.__init__",
            "mcp.client.session:ClientSession.send_request",
            "mcp.client.session:ClientSession.call_tool",
            "mcp.client.session:_build_call_tool_adapter",
            "mcp_types._types:CallToolResult",
            "mcp_types._types:InputRequiredResult",
            "mcp_types._types:TextContent",
        ),
    ),
    GroupSpec(
        "client-validation",
        "mcp",
        "client validation",
        ("client",),
        "ClientSession.validate_tool_result: native output-schema validation",
        (
            Target(
                "mcp.client.session", "ClientSession.validate_tool_result", f"{__name__}.client", "validate_tool_result"
            ),
        ),
        (
            "mcp.client.session:ClientSession.__init__",
            "mcp.client.session:ClientSession.list_tools",
            "mcp.client.session:ClientSession._absorb_tool_listing",
            "mcp.client.session:ClientSession.call_tool",
        ),
        settings=("mode",),
    ),
    GroupSpec(
        "server-results",
        "mcp",
        "server results",
        ("server",),
        "MCPServer tool results: the text mirror written natively, sent without a second dump",
        (
            Target(
                _FUNC_METADATA,
                "FuncMetadata.convert_result",
                f"{__name__}.server",
                "convert_result",
                "stock_convert_result",
            ),
            Target(
                "mcp.server.runner", "ServerRunner._serialize", f"{__name__}.server", "serialize", "stock_serialize"
            ),
        ),
        (
            f"{_FUNC_METADATA}:FuncMetadata",
            f"{_FUNC_METADATA}:_convert_to_content",
            "mcp.server.runner:ServerRunner._stamp_server_info",
            "mcp.server.lowlevel.server:Server.__init__",
            "mcp_types._types:CallToolResult",
            "mcp_types._types:ContentBlock",
            "mcp_types._types:InputRequiredResult",
            "mcp_types._types:TextContent",
            "mcp_types.version:MODERN_PROTOCOL_VERSIONS",
        ),
        settings=("mirror_indent",),
    ),
    GroupSpec(
        "lowlevel-validation",
        "mcp",
        "server results",
        ("server",),
        "low-level Server: tool results validated against the output schemas it lists",
        (
            Target(
                _LOWLEVEL,
                "Server.get_request_handler",
                f"{__name__}.lowlevel",
                "get_request_handler",
                "stock_get_request_handler",
            ),
        ),
        (
            f"{_LOWLEVEL}:HandlerEntry",
            f"{_LOWLEVEL}:Server.__init__",
            f"{_LOWLEVEL}:Server.add_request_handler",
            # The caller: it looks the handler up per request and awaits it with the typed params.
            "mcp.server.runner:ServerRunner._on_request",
            # A tool called before any listing: its context, made a listing's for the tools/list handler.
            "mcp.server.runner:ServerRunner._make_context",
            "mcp.server.context:ServerRequestContext",
            "mcp_types._types:CallToolRequestParams",
            "mcp_types._types:CallToolResult",
            "mcp_types._types:ListToolsResult",
            "mcp_types._types:TextContent",
            "mcp_types._types:Tool",
        ),
        settings=("mode",),
    ),
)
