"""The engines several SDK lines share: the stdio server (``stdio_server``) and client
(``stdio_client``) transports, the SDKs' message models seen natively (``wire``), the text mirror
of a result (``mirror``), output-schema validation (``validation``) and the Streamable HTTP
writers (``http``, the same methods on mcp 1.x and 2.x). Each line's package enters them, and
declares the groups of the transports with the functions below: the same group on every line,
the line's entry module and SDK names as data."""

from __future__ import annotations

from .._patching.spec import GroupSpec, Target

HTTP = f"{__name__}.http"
HTTP_SSE = f"{__name__}.http_sse"
_TRANSPORT = "mcp.server.streamable_http"
# What a stateless one pass streaming a request with SSE responses (``http_sse.stream_request``,
# ``deliver``) runs of the transport's, on either line.
SSE_STREAMING = (
    f"{_TRANSPORT}:StreamableHTTPServerTransport._run_sse_writer",
    f"{_TRANSPORT}:StreamableHTTPServerTransport._create_event_data",
    f"{_TRANSPORT}:StreamableHTTPServerTransport._clean_up_memory_streams",
    f"{_TRANSPORT}:REQUEST_STREAM_BUFFER_SIZE",
    f"{_TRANSPORT}:CONTENT_TYPE_SSE",
    f"{_TRANSPORT}:EventMessage",
)
_MANAGER = "mcp.server.streamable_http_manager"
_HTTP_CLIENT = "mcp.client.streamable_http"
# What ``stdio_client.spawn`` calls in each line's ``mcp.client.stdio``, the same names on both.
_SPAWN = (
    "mcp.client.stdio:_get_executable_command",
    "mcp.client.stdio:_create_platform_compatible_process",
    "mcp.client.stdio:get_default_environment",
)


def stdio_server_group(suffix: str, entry: str, relies_on: tuple[str, ...], line: int | None = None) -> GroupSpec:
    """The stdio server transport's group, entered by the line's module ``entry``."""
    return GroupSpec(
        f"stdio-server{suffix}",
        "mcp",
        "stdio server",
        ("transport",),
        "stdio server transport: native framing and writes",
        (Target("mcp.server.stdio", "stdio_server", entry, "stdio_server", "stock_stdio_server"),),
        relies_on,
        line=line,
    )


def stdio_client_group(
    suffix: str, entry: str, shutdown: tuple[str, ...], wire: tuple[str, ...], line: int | None = None
) -> GroupSpec:
    """The stdio client transport's group, entered by the line's module ``entry``, which winds the
    server down with the line's ``shutdown`` names."""
    return GroupSpec(
        f"stdio-client{suffix}",
        "mcp",
        "stdio client",
        ("transport", "client"),
        "stdio client transport: native framing, no relay tasks",
        (Target("mcp.client.stdio", "stdio_client", entry, "stdio_client", "stock_stdio_client"),),
        (*_SPAWN, *shutdown, "mcp.client.stdio:StdioServerParameters", *wire),
        line=line,
    )


def http_responses_group(suffix: str, era: str, wire: tuple[str, ...], line: int | None = None) -> GroupSpec:
    """The Streamable HTTP writers' group: the two methods ``http`` replaces have the same names
    and signatures on both SDK lines."""
    return GroupSpec(
        f"http-responses{suffix}",
        "mcp",
        "HTTP",
        ("transport",),
        f"Streamable HTTP{era}: response bodies and SSE events written natively",
        (
            Target(_TRANSPORT, "StreamableHTTPServerTransport._create_json_response", HTTP, "create_json_response"),
            Target(_TRANSPORT, "StreamableHTTPServerTransport._create_event_data", HTTP, "create_event_data"),
        ),
        (f"{_TRANSPORT}:CONTENT_TYPE_JSON", f"{_TRANSPORT}:MCP_SESSION_ID_HEADER", f"{_TRANSPORT}:EventMessage", *wire),
        line=line,
    )


def http_one_pass_group(
    name: str, what: str, entry: str, relies_on: tuple[str, ...], line: int | None = None
) -> GroupSpec:
    """A line's stateless Streamable HTTP requests served in one pass by its module ``entry``: the
    manager's method it replaces, its caller and the manager's state are the same on both lines;
    what the line's one pass runs in stock's place is its ``relies_on``."""
    return GroupSpec(
        name,
        "mcp",
        "HTTP",
        ("transport",),
        what,
        (
            Target(
                _MANAGER,
                "StreamableHTTPSessionManager._handle_stateless_request",
                entry,
                "handle_stateless_request",
                "stock_handle_stateless_request",
            ),
        ),
        (
            # The caller, and the manager's state the request reads.
            f"{_MANAGER}:StreamableHTTPSessionManager._handle_request",
            f"{_MANAGER}:StreamableHTTPSessionManager.__init__",
            f"{_MANAGER}:StreamableHTTPSessionManager.run",
            *relies_on,
        ),
        line=line,
    )


def http_client_group(suffix: str, entry: str, relies_on: tuple[str, ...], line: int | None = None) -> GroupSpec:
    """The Streamable HTTP client's group: the two methods the line's module ``entry`` replaces,
    their callers and the module's logger have the same names on both SDK lines; what else the
    line's replacements read, and the parser they stand in for, is its ``relies_on``."""
    return GroupSpec(
        f"http-client{suffix}",
        "mcp",
        "HTTP client",
        ("transport", "client"),
        "Streamable HTTP client: JSON response bodies and SSE events' messages read natively",
        (
            Target(
                _HTTP_CLIENT,
                "StreamableHTTPTransport._handle_json_response",
                entry,
                "handle_json_response",
                "stock_handle_json_response",
            ),
            Target(
                _HTTP_CLIENT,
                "StreamableHTTPTransport._handle_sse_event",
                entry,
                "handle_sse_event",
                "stock_handle_sse_event",
            ),
        ),
        (
            # The callers, and how they call.
            f"{_HTTP_CLIENT}:StreamableHTTPTransport._handle_post_request",
            f"{_HTTP_CLIENT}:StreamableHTTPTransport._handle_sse_response",
            f"{_HTTP_CLIENT}:StreamableHTTPTransport._handle_resumption_request",
            f"{_HTTP_CLIENT}:StreamableHTTPTransport._handle_reconnection",
            f"{_HTTP_CLIENT}:StreamableHTTPTransport.handle_get_stream",
            f"{_HTTP_CLIENT}:logger",
            *relies_on,
        ),
        line=line,
    )


def http_sse_group(suffix: str, wire: tuple[str, ...], line: int | None = None) -> GroupSpec:
    """The group of a session's SSE answer written at once (``http_sse``): the transport's names
    are the same on both SDK lines (the writer a method in mcp 2.x and 1.30, a closure of the POST
    in 1.26: each line's releases record what they have)."""
    return GroupSpec(
        f"http-sse{suffix}",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2025 era): a session's SSE answer written at once when it comes first, without a task group",
        (
            Target(
                _TRANSPORT,
                "EventSourceResponse",
                HTTP_SSE,
                "event_source_response",
                "stock_event_source_response",
                holds="sse_starlette:EventSourceResponse",
            ),
        ),
        (
            # The POST that builds the response and its writer, which a quick answer replaces,
            # and what reaches the request's stream: the router (in connect), close_sse_stream,
            # the cleanups.
            f"{_TRANSPORT}:StreamableHTTPServerTransport.__init__",
            f"{_TRANSPORT}:StreamableHTTPServerTransport._handle_post_request",
            f"{_TRANSPORT}:StreamableHTTPServerTransport._mint_priming_event",
            f"{_TRANSPORT}:StreamableHTTPServerTransport._maybe_send_priming_event",
            f"{_TRANSPORT}:StreamableHTTPServerTransport._run_sse_writer",
            f"{_TRANSPORT}:StreamableHTTPServerTransport._create_event_data",
            f"{_TRANSPORT}:StreamableHTTPServerTransport._clean_up_memory_streams",
            f"{_TRANSPORT}:StreamableHTTPServerTransport.close_sse_stream",
            f"{_TRANSPORT}:StreamableHTTPServerTransport.connect",
            f"{_TRANSPORT}:StreamableHTTPServerTransport.terminate",
            f"{_TRANSPORT}:EventMessage",
            *wire,
        ),
        line=line,
    )


def fastmcp_lookup_group(suffix: str, line: int | None = None) -> GroupSpec:
    """fastmcp's tool lookup (``lookup``), the same code on fastmcp 3.x and 4.x."""
    return GroupSpec(
        f"fastmcp-lookup{suffix}",
        "fastmcp",
        "server results",
        ("server",),
        "fastmcp tool lookup: a server's own tools found in the calling task, without a task group",
        (
            Target(
                "fastmcp.server.providers.aggregate",
                "AggregateProvider._get_tool",
                f"{__name__}.lookup",
                "get_tool",
                "stock_get_tool",
            ),
        ),
        (
            "fastmcp.server.providers.aggregate:AggregateProvider.__init__",
            "fastmcp.server.providers.aggregate:AggregateProvider._get_highest_version_result",
            "fastmcp.utilities.async_utils:gather",
            "fastmcp.server.providers.base:Provider.__init__",
            "fastmcp.server.providers.base:Provider.transforms",
            "fastmcp.server.providers.base:Provider.get_tool",
            "fastmcp.server.providers.base:hashed_lookup_target",
            "fastmcp.server.providers.local_provider.local_provider:LocalProvider._get_tool",
            "fastmcp.server.server:_SchemaCacheLocalProvider",
            "fastmcp.utilities.versions:VersionSpec.matches",
            "fastmcp.utilities.versions:version_sort_key",
        ),
        line=line,
    )
