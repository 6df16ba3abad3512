"""mcp 1.x, and fastmcp 2.x/3.x running on it: what mcp-native changes in the SDK, group by group."""

from __future__ import annotations

from .._engines import (
    SSE_STREAMING,
    http_client_group,
    http_one_pass_group,
    http_responses_group,
    http_sse_group,
    stdio_client_group,
    stdio_server_group,
)
from .._patching.spec import GroupSpec, Target

_LOWLEVEL = "mcp.server.lowlevel.server"
_HTTP = "mcp.server.streamable_http"
_FUNC_METADATA_1X = "mcp.server.fastmcp.utilities.func_metadata"
_HTTP_CLIENT = "mcp.client.streamable_http"
# The same models as mcp 2.x's (``adapters.mcp2``) in mcp.types, each message wrapped in the
# JSONRPCMessage root model.
_WIRE_1X = (
    "mcp.shared.message:SessionMessage",
    "mcp.types:JSONRPCMessage",
    "mcp.types:JSONRPCRequest",
    "mcp.types:JSONRPCNotification",
    "mcp.types:JSONRPCResponse",
    "mcp.types:JSONRPCError",
    "mcp.types:ErrorData",
    "mcp.types:CONNECTION_CLOSED",
)

GROUPS: tuple[GroupSpec, ...] = (
    stdio_server_group(
        "-1x",
        f"{__name__}.stdio",
        (
            # How the session reads the stream (an Exception item, the end of input closing its
            # write stream) and correlates the client's answers.
            "mcp.shared.session:BaseSession._receive_loop",
            "mcp.shared.session:BaseSession._normalize_request_id",
            *_WIRE_1X,
        ),
        line=1,
    ),
    stdio_client_group(
        "-1x",
        f"{__name__}.stdio_client",
        ("mcp.client.stdio:_terminate_process_tree", "mcp.client.stdio:PROCESS_TERMINATION_TIMEOUT"),
        _WIRE_1X,
        line=1,
    ),
    GroupSpec(
        "lowlevel-validation-1x",
        "mcp",
        "output validation",
        ("server",),
        "low-level Server.call_tool: arguments and results checked by schemas compiled once",
        (Target(_LOWLEVEL, "Server.call_tool", f"{__name__}.lowlevel", "call_tool"),),
        (
            f"{_LOWLEVEL}:Server._make_error_result",
            f"{_LOWLEVEL}:Server._get_cached_tool_definition",
            f"{_LOWLEVEL}:Server.list_tools",
            "mcp.shared.exceptions:UrlElicitationRequiredError",
            "mcp.types:CallToolRequest",
            "mcp.types:CallToolResult",
            "mcp.types:CreateTaskResult",
            "mcp.types:ServerResult",
            "mcp.types:TextContent",
        ),
        settings=("mode",),
        line=1,
    ),
    GroupSpec(
        "server-results-1x",
        "mcp",
        "server results",
        ("server",),
        "FastMCP 1.x tool results: the text mirror written natively, sent without a second dump",
        (
            Target(
                _FUNC_METADATA_1X,
                "FuncMetadata.convert_result",
                f"{__name__}.server",
                "convert_result",
                "stock_convert_result",
            ),
            Target(
                "mcp.shared.session",
                "BaseSession._send_response",
                f"{__name__}.server",
                "send_response",
                "stock_send_response",
            ),
        ),
        (
            f"{_FUNC_METADATA_1X}:FuncMetadata",
            f"{_FUNC_METADATA_1X}:_convert_to_content",
            "mcp.server.fastmcp.tools.base:Tool.run",
            # What hands the session the handler's result, and what it sends.
            "mcp.shared.session:RequestResponder.respond",
            "mcp.shared.message:SessionMessage",
            "mcp.types:Result",
            "mcp.types:CallToolResult",
            "mcp.types:ContentBlock",
            "mcp.types:TextContent",
            "mcp.types:ServerResult",
            "mcp.types:JSONRPCResponse",
            "mcp.types:JSONRPCMessage",
        ),
        settings=("mirror_indent",),
        line=1,
    ),
    http_responses_group("-1x", "", _WIRE_1X, line=1),
    http_sse_group("-1x", _WIRE_1X, line=1),
    http_one_pass_group(
        "http-one-pass-1x",
        "Streamable HTTP: a stateless request, notification or DELETE in one pass, without a transport loop",
        f"{__name__}.http_one_pass",
        (
            # The transport: what stock's POST runs, and the parts of it this path calls.
            f"{_HTTP}:StreamableHTTPServerTransport.__init__",
            f"{_HTTP}:StreamableHTTPServerTransport.connect",
            f"{_HTTP}:StreamableHTTPServerTransport.handle_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_post_request",
            f"{_HTTP}:StreamableHTTPServerTransport._handle_delete_request",
            f"{_HTTP}:StreamableHTTPServerTransport._check_accept_headers",
            f"{_HTTP}:StreamableHTTPServerTransport._check_content_type",
            f"{_HTTP}:StreamableHTTPServerTransport._validate_request_headers",
            f"{_HTTP}:StreamableHTTPServerTransport._validate_session",
            f"{_HTTP}:StreamableHTTPServerTransport._validate_protocol_version",
            f"{_HTTP}:StreamableHTTPServerTransport._create_json_response",
            f"{_HTTP}:StreamableHTTPServerTransport._create_error_response",
            f"{_HTTP}:StreamableHTTPServerTransport.terminate",
            *SSE_STREAMING,  # SSE responses (1.30)
            f"{_HTTP}:MCP_PROTOCOL_VERSION_HEADER",
            "mcp.shared.version:SUPPORTED_PROTOCOL_VERSIONS",
            "mcp.types:DEFAULT_NEGOTIATED_VERSION",
            # What Server.run and the session's receive loop do with the request.
            f"{_LOWLEVEL}:Server.__init__",
            f"{_LOWLEVEL}:Server.run",
            f"{_LOWLEVEL}:Server._handle_message",
            f"{_LOWLEVEL}:lifespan",
            "mcp.server.session:ServerSession.__init__",
            "mcp.server.session:ServerSession._receive_loop",
            "mcp.server.session:ServerSession._received_request",
            "mcp.server.session:ServerSession._received_notification",
            "mcp.shared.session:BaseSession.__init__",
            "mcp.shared.session:BaseSession.__aexit__",
            "mcp.shared.session:BaseSession._receive_loop",
            "mcp.shared.session:RequestResponder.__init__",
            "mcp.shared.message:ServerMessageMetadata",
            "mcp.types:ClientRequest",
            "mcp.types:ClientNotification",
            "mcp.types:CancelledNotification",
            *_WIRE_1X,
        ),
        line=1,
    ),
    http_client_group(
        "-1x",
        f"{__name__}.http_client",
        (f"{_HTTP_CLIENT}:StreamableHTTPTransport._maybe_extract_protocol_version_from_message", *_WIRE_1X),
        line=1,
    ),
    GroupSpec(
        "client-validation-1x",
        "mcp",
        "client validation",
        ("client",),
        "ClientSession._validate_tool_result: native output-schema validation",
        (
            Target(
                "mcp.client.session",
                "ClientSession._validate_tool_result",
                f"{__name__}.client",
                "validate_tool_result",
            ),
        ),
        (
            "mcp.client.session:ClientSession.__init__",
            "mcp.client.session:ClientSession.list_tools",
            "mcp.client.session:ClientSession.call_tool",
        ),
        settings=("mode",),
        line=1,
    ),
    GroupSpec(
        "http-stateless-1x",
        "mcp",
        "HTTP",
        # A method of the low-level Server (as lowlevel-validation-1x), whatever transport calls it.
        ("server",),
        "Server.create_initialization_options: the mcp version looked up once, not per stateless request",
        (
            Target(
                _LOWLEVEL,
                "Server.create_initialization_options",
                f"{__name__}.init_options",
                "create_initialization_options",
            ),
        ),
        (
            # What the options are built of: the server's fields, its capabilities, the models.
            f"{_LOWLEVEL}:Server.__init__",
            f"{_LOWLEVEL}:Server.get_capabilities",
            f"{_LOWLEVEL}:NotificationOptions",
            f"{_LOWLEVEL}:InitializationOptions",
            "mcp.server.models:InitializationOptions",
        ),
        line=1,
    ),
)
