"""Run servers and clients of the official ``mcp`` SDK and of fastmcp on mcp-native.

    import mcp_native.adapters
    mcp_native.adapters.install()

or, with no change to the program: ``python -m mcp_native run server.py [args]``.

The patches come in groups that only make sense together (:data:`GROUPS`: the stdio server
transport and the modules that bind it by name, MCPServer's results and the runner that sends
them, ...). :func:`install` patches a group when the installed SDK's source of every name the
group relies on (the patched functions, the helpers they call, the models they build) is the
source of a release whose official test suite ran with the adapters (``fingerprints.json``);
any other group stays stock, and the report names what differs. Each SDK is judged on its own.
Each patched attribute is checked to hold the function it should before it is replaced, and
:func:`uninstall` puts the originals back. What changes:

- ``transport``: the stdio server transport frames and parses lines natively, answers every
  malformed line with its JSON-RPC error, and writes responses natively (see
  ``adapters._stdio_server``, entered by ``adapters.stdio`` on mcp 2.x and ``adapters.mcp1_stdio``
  on 1.x); with ``client`` too, the stdio client transport frames and parses the server's lines
  natively without relay tasks (``adapters._stdio_client``, entered by
  ``adapters.mcp_stdio_client`` and ``adapters.mcp1_stdio_client``); both Streamable
  HTTP server paths write responses natively and answer a malformed envelope with ``-32600``;
- ``client``: ``ClientSession.validate_tool_result`` validates ``structuredContent`` with the
  tool's output schema compiled once natively; fastmcp's ``Client`` builds a result's ``.data``
  without the per-object default hooks of its output-schema types where they change nothing
  (``adapters.fastmcp_client``);
- ``server``: MCPServer and fastmcp write the text mirror of a tool's result natively (a dict,
  model, dataclass, list, tuple, str, number or bool: see ``adapters.mcp_server`` and
  ``adapters.fastmcp_server``), and the server runner sends such a result without validating
  and dumping it again; fastmcp tools validate their ``structuredContent`` against their output
  schema before it is sent (fastmcp does not), and fastmcp 4.x finds a server's own tool
  without a task group (``adapters.fastmcp_server.get_tool``); on mcp 1.x, FastMCP's and fastmcp 3.x's results
  the same way, sent by the session without its dump (``adapters.mcp1_server``,
  ``adapters.fastmcp3_server``), and the low-level ``call_tool`` handler checks arguments and
  results by schemas compiled once (``adapters.mcp1_lowlevel``);
  azure-functions' MCP tools write their ``McpToolResult`` natively, mirrored and validated
  (see ``adapters.azure_functions``).

``output_validation`` ("error", "warn" or "off") decides what the client and fastmcp's server
do with a result that violates its output schema.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import logging
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _proof
from ._patch import Patch, PatchOnImport, UnexpectedTarget

__all__ = [
    "ENVIRONMENT",
    "GROUPS",
    "Group",
    "GroupSpec",
    "Report",
    "UnsupportedVersion",
    "check",
    "environment_value",
    "install",
    "options_from_environment",
    "report",
    "uninstall",
]

logger = logging.getLogger("mcp_native.adapters")

#: The environment variable that installs the adapters in every Python process that starts with
#: it set (the startup hook ``mcp_native_adapters.pth``): ``1`` for the defaults, or the options
#: of :func:`install` as ``name=value`` pairs separated by commas
#: (``output_validation=warn,mirror=compact,client=0``); unset, empty, ``0`` or ``off``: nothing.
#: ``python -m mcp_native run`` sets it, so that the program's worker and child processes are
#: adapted as it is.
ENVIRONMENT = "MCP_NATIVE_ADAPTERS"
_OUTPUT_VALIDATION = ("error", "warn", "off")
_MIRRORS = ("framework", "compact")
# The distributions whose code the groups patch, and the import name of each.
_DISTS = {"mcp": "mcp", "fastmcp": "fastmcp", "azure-functions": "azure.functions"}
# The top-level packages of their code, whose modules' bindings of a patched function are patched
# with it (mcp 2.x keeps its types in mcp_types).
_SDK_PACKAGES = ("mcp", "mcp_types", "fastmcp", "azure")
# The newest major line of each distribution, the one the groups without a ``line`` serve.
_NEWEST_LINE = {"mcp": 2, "fastmcp": 4, "azure-functions": 2}


@dataclass(frozen=True)
class Target:
    """``module.attribute`` replaced by ``mcp_native.adapters.<adapter>.<function>``; with
    ``stock``, the adapter's attribute of that name receives the original; with ``holds`` or
    ``instance_of``, the attribute is a module global that must be that module or object, or an
    instance of that class (see ``Patch``)."""

    module: str
    attribute: str
    adapter: str
    function: str
    stock: str | None = None
    holds: str | None = None
    instance_of: str | None = None

    @property
    def name(self) -> str:
        return f"{self.module}:{self.attribute}"


@dataclass(frozen=True)
class GroupSpec:
    """Patches that only make sense together, and every SDK name they rely on."""

    name: str
    dist: str  # the distribution whose release proves the group
    part: str  # the part of the support table it belongs to
    needs: tuple[str, ...]  # the install() switches that must all be on
    what: str
    targets: tuple[Target, ...]
    relies_on: tuple[str, ...]  # "module:qualname", beside the targets
    settings: tuple[str, ...] = ()  # install() options the adapter module reads
    # The major release line of ``dist`` it is written for (None: the newest, _NEWEST_LINE); a
    # group is only considered for a release of its line, and proven by that line's releases.
    line: int | None = None

    @property
    def major(self) -> int:
        return _NEWEST_LINE[self.dist] if self.line is None else self.line

    @property
    def names(self) -> tuple[str, ...]:
        """Every fingerprinted name: the targets, then what they rely on."""
        return tuple(t.name for t in self.targets) + self.relies_on


_WIRE = (
    "mcp.shared.message:SessionMessage",
    "mcp_types.jsonrpc:JSONRPCRequest",
    "mcp_types.jsonrpc:JSONRPCNotification",
    "mcp_types.jsonrpc:JSONRPCResponse",
    "mcp_types.jsonrpc:JSONRPCError",
    "mcp_types.jsonrpc:ErrorData",
)
# mcp 1.x: the same models in mcp.types, each message wrapped in the JSONRPCMessage root model.
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
_HTTP = "mcp.server.streamable_http"
_HTTP_MODERN = "mcp.server._streamable_http_modern"
# The same two methods, names and signatures on both SDK lines (http.py serves both).
_HTTP_RESPONSES = (
    Target(_HTTP, "StreamableHTTPServerTransport._create_json_response", "http", "create_json_response"),
    Target(_HTTP, "StreamableHTTPServerTransport._create_event_data", "http", "create_event_data"),
)
_FUNC_METADATA = "mcp.server.mcpserver.utilities.func_metadata"
_LOWLEVEL = "mcp.server.lowlevel.server"
_FUNC_METADATA_1X = "mcp.server.fastmcp.utilities.func_metadata"
_AZURE_APP = "azure.functions.decorators.function_app"

#: Every patch group, in the order they are applied.
GROUPS: tuple[GroupSpec, ...] = (
    GroupSpec(
        "stdio-server",
        "mcp",
        "stdio server",
        ("transport",),
        "stdio server transport: native framing and writes",
        (Target("mcp.server.stdio", "stdio_server", "stdio", "stdio_server", "stock_stdio_server"),),
        (
            "mcp.server.stdio:_claim_fd",
            "mcp.server.stdio:_is_backed_by_fd",
            "mcp.server.stdio:_open_stdin_diversion",
            "mcp.server.stdio:_open_stdout_diversion",
            "mcp.shared._context_streams:create_context_streams",
            # How the SDK correlates ids, and its code for a request cut off by the end of input.
            "mcp.shared.dispatcher:coerce_request_id",
            "mcp_types.jsonrpc:CONNECTION_CLOSED",
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
                "server_runner",
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
        "stdio-client",
        "mcp",
        "stdio client",
        ("transport", "client"),
        "stdio client transport: native framing, no relay tasks",
        (Target("mcp.client.stdio", "stdio_client", "mcp_stdio_client", "stdio_client", "stock_stdio_client"),),
        (
            "mcp.client.stdio:_get_executable_command",
            "mcp.client.stdio:_create_platform_compatible_process",
            "mcp.client.stdio:get_default_environment",
            "mcp.client.stdio:_drain_stdout",
            "mcp.client.stdio:_stop_server_process",
            "mcp.client.stdio:_WRITER_FLUSH_TIMEOUT",
            "mcp.client.stdio:StdioServerParameters",
            *_WIRE,
        ),
    ),
    GroupSpec(
        "http-responses",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2025 era): response bodies and SSE events written natively",
        _HTTP_RESPONSES,
        (f"{_HTTP}:CONTENT_TYPE_JSON", f"{_HTTP}:MCP_SESSION_ID_HEADER", f"{_HTTP}:EventMessage", *_WIRE),
    ),
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
                "http",
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
            Target(_HTTP_MODERN, "_sse_event", "http", "sse_event", "stock_sse_event"),
            Target(_HTTP_MODERN, "_write", "http", "write", "stock_write"),
        ),
        _WIRE,
    ),
    GroupSpec(
        "http-modern-bodies",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP (2026-07-28): request bodies parsed natively",
        (Target(_HTTP_MODERN, "json", "http", "modern_json", holds="json"),),
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
                "mcp_client",
                "validate_server_result",
                "stock_validate_server_result",
            ),
            Target(
                "mcp.client.session",
                "_CallToolResultAdapter",
                "mcp_client",
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
        (Target("mcp.client.session", "ClientSession.validate_tool_result", "mcp_client", "validate_tool_result"),),
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
                _FUNC_METADATA, "FuncMetadata.convert_result", "mcp_server", "convert_result", "stock_convert_result"
            ),
            Target("mcp.server.runner", "ServerRunner._serialize", "mcp_server", "serialize", "stock_serialize"),
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
                "mcp_lowlevel",
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
    GroupSpec(
        "fastmcp-results",
        "fastmcp",
        "server results",
        ("server",),
        "fastmcp tool results: one serialization, validated against the output schema",
        (
            Target(
                "fastmcp.tools.base", "Tool.convert_result", "fastmcp_server", "convert_result", "stock_convert_result"
            ),
        ),
        (
            "fastmcp.tools.base:Tool.output_schema",
            "fastmcp.tools.base:Tool.return_type",
            "fastmcp.tools.base:ToolResult",
            "fastmcp.tools.base:_serialize_to_jsonable",
            "fastmcp.tools.base:_convert_to_content",
            "fastmcp.tools.base:_convert_to_single_content_block",
            "fastmcp.tools.base:default_serializer",
            "fastmcp.utilities.prefab:is_prefab_app",
            "fastmcp.utilities.prefab:is_prefab_component",
            "fastmcp.utilities.types:Audio",
            "fastmcp.utilities.types:File",
            "fastmcp.utilities.types:Image",
            "fastmcp.exceptions:ToolError",
            "fastmcp.server.mixins.mcp_operations:_normalize_call_tool_result",
        ),
        settings=("mode",),
    ),
    GroupSpec(
        "fastmcp-lookup",
        "fastmcp",
        "server results",
        ("server",),
        "fastmcp tool lookup: a server's own tools found in the calling task, without a task group",
        (
            Target(
                "fastmcp.server.providers.aggregate",
                "AggregateProvider._get_tool",
                "fastmcp_server",
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
    ),
    GroupSpec(
        "fastmcp-client-data",
        "fastmcp",
        "client validation",
        ("client",),
        "fastmcp Client results: .data built from the output-schema type without its no-op default hooks",
        (
            Target(
                "fastmcp.client.mixins.tools",
                "json_schema_to_type_adapter",
                "fastmcp_client",
                "json_schema_to_type_adapter",
                "stock_json_schema_to_type_adapter",
                holds="fastmcp.utilities.json_schema_type:json_schema_to_type_adapter",
            ),
        ),
        (
            # The one caller: it validates structuredContent (or its "result") with the adapter.
            "fastmcp.client.mixins.tools:_parse_call_tool_result",
            "fastmcp.client.mixins.tools:_wrapped_result_schema",
            # The types built from a schema, and the hook each dataclass carries.
            "fastmcp.utilities.json_schema_type:json_schema_to_type_adapter",
            "fastmcp.utilities.json_schema_type:_convert_normalized",
            "fastmcp.utilities.json_schema_type:_convert_schema",
            "fastmcp.utilities.json_schema_type:_get_from_type_handler",
            "fastmcp.utilities.json_schema_type:_object_schema_to_type",
            "fastmcp.utilities.json_schema_type:_create_dataclass",
            "fastmcp.utilities.json_schema_type:_build_dataclass",
            "fastmcp.utilities.json_schema_type:_build_pydantic_model",
            "fastmcp.utilities.json_schema_type:_merge_defaults",
        ),
    ),
    # mcp 1.x, and fastmcp 2.x/3.x running on it (adapters/mcp1_*.py).
    GroupSpec(
        "stdio-server-1x",
        "mcp",
        "stdio server",
        ("transport",),
        "stdio server transport: native framing and writes",
        (Target("mcp.server.stdio", "stdio_server", "mcp1_stdio", "stdio_server", "stock_stdio_server"),),
        (
            # How the session reads the stream (an Exception item, the end of input closing its
            # write stream) and correlates the client's answers.
            "mcp.shared.session:BaseSession._receive_loop",
            "mcp.shared.session:BaseSession._normalize_request_id",
            *_WIRE_1X,
        ),
        line=1,
    ),
    GroupSpec(
        "stdio-client-1x",
        "mcp",
        "stdio client",
        ("transport", "client"),
        "stdio client transport: native framing, no relay tasks",
        (Target("mcp.client.stdio", "stdio_client", "mcp1_stdio_client", "stdio_client", "stock_stdio_client"),),
        (
            "mcp.client.stdio:_get_executable_command",
            "mcp.client.stdio:_create_platform_compatible_process",
            "mcp.client.stdio:get_default_environment",
            "mcp.client.stdio:_terminate_process_tree",
            "mcp.client.stdio:PROCESS_TERMINATION_TIMEOUT",
            "mcp.client.stdio:StdioServerParameters",
            *_WIRE_1X,
        ),
        line=1,
    ),
    GroupSpec(
        "lowlevel-validation-1x",
        "mcp",
        "output validation",
        ("server",),
        "low-level Server.call_tool: arguments and results checked by schemas compiled once",
        (Target(_LOWLEVEL, "Server.call_tool", "mcp1_lowlevel", "call_tool"),),
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
                "mcp1_server",
                "convert_result",
                "stock_convert_result",
            ),
            Target(
                "mcp.shared.session",
                "BaseSession._send_response",
                "mcp1_server",
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
    GroupSpec(
        "fastmcp-results-3x",
        "fastmcp",
        "server results",
        ("server",),
        "fastmcp 3.x tool results: serialized once, the mirror written natively and marked",
        (
            Target(
                "fastmcp.tools.base", "Tool.convert_result", "fastmcp3_server", "convert_result", "stock_convert_result"
            ),
        ),
        (
            "fastmcp.tools.base:Tool.serializer",
            "fastmcp.tools.base:Tool.output_schema",
            "fastmcp.tools.base:ToolResult",
            "fastmcp.tools.base:resolve_serialize_by_alias",
            "fastmcp.tools.base:default_serializer",
            "fastmcp.tools.base:_serialize_with_fallback",
            "fastmcp.tools.base:_convert_to_content",
            "fastmcp.tools.base:_convert_to_single_content_block",
            "fastmcp.tools.base:_HAS_PREFAB",
            "fastmcp.utilities.types:Audio",
            "fastmcp.utilities.types:File",
            "fastmcp.utilities.types:Image",
            "fastmcp.tools.function_tool:FunctionTool.run",
            "fastmcp.server.mixins.mcp_operations:MCPOperationsMixin._call_tool_mcp",
        ),
        line=3,
    ),
    GroupSpec(
        "http-responses-1x",
        "mcp",
        "HTTP",
        ("transport",),
        "Streamable HTTP: response bodies and SSE events written natively",
        _HTTP_RESPONSES,
        (f"{_HTTP}:CONTENT_TYPE_JSON", f"{_HTTP}:MCP_SESSION_ID_HEADER", f"{_HTTP}:EventMessage", *_WIRE_1X),
        line=1,
    ),
    GroupSpec(
        "client-validation-1x",
        "mcp",
        "client validation",
        ("client",),
        "ClientSession._validate_tool_result: native output-schema validation",
        (Target("mcp.client.session", "ClientSession._validate_tool_result", "mcp1_client", "validate_tool_result"),),
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
                "mcp1_init_options",
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
    # azure-functions' MCP tool trigger: one patch, proven on each release line (1.x for Python
    # up to 3.12, 2.x from 3.13).
    *(
        GroupSpec(
            f"azure-functions-results{suffix}",
            "azure-functions",
            "server results",
            ("server",),
            "Azure Functions MCP tools: the McpToolResult written natively, mirrored, validated",
            (Target(_AZURE_APP, "TriggerApi.mcp_tool", "azure_functions", "mcp_tool", "stock_mcp_tool"),),
            (
                f"{_AZURE_APP}:DecoratorApi._configure_function_builder",
                f"{_AZURE_APP}:Function.__init__",
                f"{_AZURE_APP}:Function.add_trigger",
                "azure.functions.decorators.mcp:_MCPToolTrigger",
                "azure.functions.mcp:MCPToolContext",
                # How the trigger's output_schema reaches the binding JSON as "outputSchema".
                "azure.functions.decorators.utils:BuildDictMeta.add_to_dict",
                "azure.functions.decorators.core:Binding.get_dict_repr",
                # How the worker hands the wrapper's str to the host.
                "azure.functions.mcp:_MCPToolTriggerConverter.encode",
            ),
            settings=("mode",),
            line=line,
        )
        for line, suffix in ((None, ""), (1, "-1x"))
    ),
)


class UnsupportedVersion(RuntimeError):
    """``install(strict=True)`` met a patch group it cannot prove on the installed SDK."""


@dataclass
class Group:
    """A group's state after :func:`install` or :func:`check`: ``"patched"``, ``"waiting"``
    (proven; applied when the program imports its modules), ``"stock"`` (``why`` says what
    differs) or ``"off"`` (turned off by an option)."""

    spec: GroupSpec
    state: str
    why: str = ""  # the tested release that proves it, or why it is not patched
    patches: list[Patch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # bindings left alone, with the reason

    def refresh(self) -> None:
        """Updates ``state`` from the patches (a waiting group is patched once they all are)."""
        if self.state in ("patched", "waiting") and self.patches:
            targets = [p for p in self.patches if p.expects is None]
            self.state = "patched" if all(p.applied for p in targets) else "waiting"


@dataclass
class Report:
    """What :func:`install` did, per group: the versions found, which groups are patched, wait
    for their module to be imported, or stay stock, and why."""

    versions: dict[str, str] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    output_validation: str = "error"

    def _named(self, *states: str) -> list[str]:
        for g in self.groups:
            g.refresh()
        return [g.spec.name for g in self.groups if g.state in states]

    @property
    def patched(self) -> list[str]:
        return self._named("patched")

    @property
    def waiting(self) -> list[str]:
        return self._named("waiting")

    @property
    def stock(self) -> list[str]:
        """Groups of an installed SDK that could not be proven (not those turned off)."""
        return self._named("stock")

    def summary(self) -> str:
        """One line: per SDK, how many of its groups are patched (or will be on import)."""
        parts = []
        for dist, version in self.versions.items():
            groups = [g for g in self.groups if g.spec.dist == dist and g.state != "off"]
            if not groups and _line(dist, version) is None:
                # A line with no groups of its own (fastmcp 2.x): mcp's groups serve its servers.
                parts.append(f"{dist} {version}: no groups of its own, its servers run on mcp's")
                continue
            active = [g for g in groups if g.state in ("patched", "waiting")]
            text = f"{dist} {version}: {len(active)} of {len(groups)} groups"
            stock = [g.spec.name for g in groups if g.state == "stock"]
            if stock:
                text += f" (stock: {', '.join(stock)}; see python -m mcp_native doctor)"
            parts.append(text)
        return "mcp-native adapters: " + ("; ".join(parts) or "no MCP SDK installed, nothing to patch")

    def describe(self, at_exit: bool = False) -> str:
        """Every group, its state and why. ``at_exit``: a group still waiting is one whose
        modules the program never imported."""
        for g in self.groups:
            g.refresh()
        found = ", ".join(f"{k} {v}" for k, v in self.versions.items()) or "no MCP SDK installed"
        lines = [f"mcp-native adapters ({found}; output validation: {self.output_validation})"]
        labels = {"waiting": "unused" if at_exit else "on import"}
        for g in self.groups:
            why = "not imported by the program" if at_exit and g.state == "waiting" else g.why
            lines.append(f"  {labels.get(g.state, g.state):9} {g.spec.name}: {g.spec.what}{f' ({why})' if why else ''}")
            lines += [f"            {note}" for note in g.notes]
        if not self.groups:
            lines.append("  nothing to patch")
        return "\n".join(lines)

    __str__ = describe


_report: Report | None = None
_hook: PatchOnImport | None = None


def _installed_versions() -> dict[str, str]:
    found = {}
    for dist, top in _DISTS.items():
        try:
            spec = importlib.util.find_spec(top)  # (imports the parent package of a dotted name)
        except ModuleNotFoundError:  # that parent is not installed
            spec = None
        if spec is not None:
            found[dist] = importlib.metadata.version(dist)
    return found


def _major(version: str) -> int | None:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else None


def _line(dist: str, version: str) -> int | None:
    """The release line whose groups serve ``version``: its major line; for a major release
    newer than any group is written for, the newest line (its groups apply where the code is
    unchanged); for an older line without groups (fastmcp 2.x, served by mcp 1.x's), None."""
    major = _major(version)
    if any(g.dist == dist and g.major == major for g in GROUPS):
        return major
    return _NEWEST_LINE[dist] if major is None or major > _NEWEST_LINE[dist] else None


def _prove(spec: GroupSpec, version: str, installed: _proof.Installed) -> tuple[str | None, str]:
    """(the tested release whose source the installed one matches for every name of ``spec``,
    or None; what proves it, or what differs from the nearest tested release)."""
    releases = {r: v for r, v in _proof.tested().get(spec.dist, {}).items() if _major(r) == spec.major}
    release, changed = _proof.prove(installed, spec.names, releases, prefer=version)
    if release is not None:
        return release, f"the source of {spec.dist} {release}"
    tested = ", ".join(releases) or "none"
    shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    return None, f"{spec.dist} {version} is not a tested release ({tested}) and its source differs in {shown}"


def check(
    *, server: bool = True, client: bool = True, transport: bool = True, output_validation: str = "error"
) -> Report:
    """What :func:`install` would do, without patching anything or importing the SDKs: every
    group of the installed SDKs, proven (``"waiting"``), ``"stock"`` with what differs from
    the tested releases, or ``"off"``."""
    switches = {"server": server, "client": client, "transport": transport}
    versions = _installed_versions()
    installed = _proof.Installed()
    rep = Report(versions=versions, output_validation=output_validation)
    for spec in GROUPS:
        if spec.dist not in versions or spec.major != _line(spec.dist, versions[spec.dist]):
            continue
        off = [n for n in spec.needs if not switches[n]]
        if off:
            rep.groups.append(Group(spec, "off", f"{off[0]}=False"))
            continue
        release, why = _prove(spec, versions[spec.dist], installed)
        rep.groups.append(Group(spec, "stock" if release is None else "waiting", why))
    return rep


def _keep(target: Target, settings: Mapping[str, Any], names: tuple[str, ...]) -> Callable[[Any], None]:
    """An ``on_apply`` for a target: the adapter module, imported once the target is proven,
    gets the original (which its replacement falls back to) and the install() options it reads."""

    def keep(original: Any) -> None:
        adapter = importlib.import_module(f"{__name__}.{target.adapter}")
        if target.stock is not None:
            setattr(adapter, target.stock, original)
        for name in names:
            setattr(adapter, name, settings[name])

    return keep


def _patches(spec: GroupSpec, settings: Mapping[str, Any]) -> list[Patch]:
    patches = []
    for target in spec.targets:
        native = f"{__name__}.{target.adapter}:{target.function}"
        patches.append(
            Patch(
                target.module,
                target.attribute,
                native,
                spec.what,
                holds=target.holds,
                instance_of=target.instance_of,
                on_apply=_keep(target, settings, spec.settings),
            )
        )
    return patches


def install(
    *,
    server: bool = True,
    client: bool = True,
    transport: bool = True,
    output_validation: str = "error",
    mirror: str = "framework",
    strict: bool = False,
) -> Report:
    """Patch the installed ``mcp`` and fastmcp, each group whose source a tested release proves;
    returns a :class:`Report` (also logged at debug level). Idempotent: a second call restores
    the originals first, then applies its options. A group that cannot be proven stays stock:
    a warning names it, or with ``strict=True`` :class:`UnsupportedVersion` is raised and
    nothing is patched. Groups whose modules are not imported yet are patched when they are.

    ``mirror="compact"`` writes MCPServer's text mirror of a result as compact JSON instead of
    its own pretty-printed layout (fastmcp's is compact already): the same data in about a third
    of the bytes on tabular results, and fewer tokens for a model that reads the text."""
    global _report, _hook
    if output_validation not in _OUTPUT_VALIDATION:
        raise ValueError(f"output_validation: {output_validation!r} is not one of {', '.join(_OUTPUT_VALIDATION)}")
    if mirror not in _MIRRORS:
        raise ValueError(f"mirror: {mirror!r} is not one of {', '.join(_MIRRORS)}")
    uninstall()
    rep = check(server=server, client=client, transport=transport, output_validation=output_validation)
    if strict and rep.stock:
        problems = "; ".join(f"{g.spec.name}: {g.why}" for g in rep.groups if g.state == "stock")
        raise UnsupportedVersion(problems)
    unproven = rep.stock
    settings = {"mode": output_validation, "mirror_indent": None if mirror == "compact" else 2}
    owner: dict[int, Group] = {}
    for group in rep.groups:
        if group.state == "waiting":
            group.patches = _patches(group.spec, settings)
            owner.update((id(p), group) for p in group.patches)
    _report = rep

    def failed(patch: Patch, error: UnexpectedTarget) -> None:
        group = owner[id(patch)]
        if patch.optional:
            group.notes.append(f"left alone: {error}")
            return
        for p in reversed(group.patches):
            p.restore()
        if _hook is not None:
            _hook.forget(group.patches)
        group.state, group.why, group.patches = "stock", str(error), []
        if strict:
            uninstall()
            raise UnsupportedVersion(f"{group.spec.name}: {error}") from None
        warnings.warn(f"mcp_native.adapters: {group.spec.name} left stock: {error}", RuntimeWarning, stacklevel=3)

    def applied(patch: Patch) -> None:
        # The SDK's modules that bound the function by name before it was patched get the
        # replacement too (mcp's package re-exports its transports, mcp.types mirrors
        # mcp_types, fastmcp imports them by name), so that the report's "patched" is true of
        # every place the SDK calls it from.
        group = owner[id(patch)]
        bindings, notes = patch.bindings(_SDK_PACKAGES)
        group.notes += notes
        for b in bindings:
            owner[id(b)] = group
            group.patches.append(b)
            try:
                b.apply()
            except UnexpectedTarget as e:
                failed(b, e)

    waiting = []
    for group in rep.groups:
        for p in list(group.patches):
            if p.module not in sys.modules:
                waiting.append(p)
                continue
            try:
                p.apply()
            except UnexpectedTarget as e:
                failed(p, e)
            else:
                applied(p)
            if group.state == "stock":
                break
    if waiting:
        _hook = PatchOnImport([p for p in waiting if owner[id(p)].state != "stock"], failed, applied)
        sys.meta_path.insert(0, _hook)
    if unproven:
        warnings.warn(f"mcp_native.adapters.install(): {rep.summary()}", RuntimeWarning, stacklevel=2)
    logger.debug("%s", rep)
    return rep


_SWITCHES = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


def options_from_environment(value: str) -> dict[str, Any] | None:
    """The :func:`install` options a value of :data:`ENVIRONMENT` asks for, or None for "do not
    install". Raises ``ValueError`` naming what it does not understand."""
    value = value.strip()
    if value.lower() in ("", "0", "false", "off"):
        return None
    if value.lower() in ("1", "true", "on"):
        return {}
    options: dict[str, Any] = {}
    for item in value.split(","):
        name, eq, setting = (part.strip() for part in item.partition("="))
        if not eq:
            raise ValueError(f"{ENVIRONMENT}: {item.strip()!r} is not name=value")
        if name in ("server", "client", "transport"):
            if setting.lower() not in _SWITCHES:
                raise ValueError(f"{ENVIRONMENT}: {name}={setting!r} is not 1 or 0")
            options[name] = _SWITCHES[setting.lower()]
        elif (name == "output_validation" and setting in _OUTPUT_VALIDATION) or (
            name == "mirror" and setting in _MIRRORS
        ):
            options[name] = setting
        else:
            raise ValueError(f"{ENVIRONMENT}: {item.strip()!r} is not an option of install()")
    return options


def environment_value(**options: Any) -> str:
    """The value of :data:`ENVIRONMENT` that asks for ``options`` (the inverse of
    :func:`options_from_environment`)."""
    items = [f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in options.items()]
    return ",".join(items) or "1"


def uninstall() -> None:
    """Restore every attribute :func:`install` replaced, in reverse order."""
    global _report, _hook
    if _hook is not None:
        if _hook in sys.meta_path:
            sys.meta_path.remove(_hook)
        _hook = None
    if _report is not None:
        for group in reversed(_report.groups):
            for p in reversed(group.patches):
                p.restore()
    _report = None


def report() -> Report | None:
    """The report of the installation in force, or None."""
    return _report
