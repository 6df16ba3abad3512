"""fastmcp 4.x: what mcp-native changes in fastmcp itself (its servers' transports and
results also go through mcp 2.x's groups, ``adapters.mcp2``)."""

from __future__ import annotations

from .._engines import fastmcp_lookup_group
from .._patching.spec import GroupSpec, Target

_TOOLS = "fastmcp.tools.base"
_TELEMETRY = "fastmcp.server.telemetry"
_VISIBILITY = "fastmcp.server.transforms.visibility"
_CONTEXT = "fastmcp.server.context"
_MIDDLEWARE = "fastmcp.server.middleware.middleware"

GROUPS: tuple[GroupSpec, ...] = (
    GroupSpec(
        "fastmcp-results",
        "fastmcp",
        "server results",
        ("server",),
        "fastmcp tool results: one serialization, validated against the output schema",
        (Target(_TOOLS, "Tool.convert_result", f"{__name__}.server", "convert_result", "stock_convert_result"),),
        (
            f"{_TOOLS}:Tool.output_schema",
            f"{_TOOLS}:Tool.return_type",
            f"{_TOOLS}:ToolResult",
            f"{_TOOLS}:_serialize_to_jsonable",
            f"{_TOOLS}:_convert_to_content",
            f"{_TOOLS}:_convert_to_single_content_block",
            f"{_TOOLS}:default_serializer",
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
    fastmcp_lookup_group(""),
    GroupSpec(
        "fastmcp-spans-idle",
        "fastmcp",
        "HTTP",
        ("transport",),
        "fastmcp server spans: none built per request where no tracer provider would record them",
        (
            Target(
                _TELEMETRY,
                "telemetry_mode",
                f"{__name__}.telemetry",
                "telemetry_mode",
                "stock_telemetry_mode",
                holds="fastmcp.telemetry:telemetry_mode",
            ),
        ),
        (
            # The two readers of the name, the no-span path they take, the parent they extract
            # and where they find it.
            f"{_TELEMETRY}:seam_span",
            f"{_TELEMETRY}:server_span",
            f"{_TELEMETRY}:_propagation_only_span",
            f"{_TELEMETRY}:_get_parent_trace_context",
            "fastmcp.telemetry:telemetry_mode",
            "fastmcp.telemetry:extract_trace_context",
            "fastmcp.telemetry:TRACE_PARENT_KEY",
            "fastmcp.telemetry:TRACE_STATE_KEY",
            "fastmcp.server.dependencies:fastmcp_request_ctx",
            "fastmcp.server.dependencies:FastMCPRequestContext",
        ),
    ),
    GroupSpec(
        "fastmcp-middleware-pass",
        "fastmcp",
        "HTTP",
        ("server",),
        "fastmcp tools/call: no middleware chain where every middleware only hands the call on",
        (
            Target(
                "fastmcp.server.server",
                "FastMCP._run_middleware",
                f"{__name__}.middleware",
                "run_middleware",
                "stock_run_middleware",
            ),
        ),
        (
            # What a middleware runs for a tools/call when its class keeps them, each handing the
            # context on; the phase stock sets around the chain; the caller of the interior pass.
            f"{_MIDDLEWARE}:Middleware.__call__",
            f"{_MIDDLEWARE}:Middleware._dispatch_handler",
            f"{_MIDDLEWARE}:Middleware.on_message",
            f"{_MIDDLEWARE}:Middleware.on_request",
            f"{_MIDDLEWARE}:Middleware.on_notification",
            f"{_MIDDLEWARE}:Middleware.on_call_tool",
            f"{_MIDDLEWARE}:make_handler_wrapper",
            f"{_MIDDLEWARE}:_dispatch_phase",
            "fastmcp.server.server:FastMCP._dispatch_component_middleware",
        ),
    ),
    GroupSpec(
        "fastmcp-visibility-new",
        "fastmcp",
        "HTTP",
        ("server",),
        "fastmcp visibility rules: no store read, no session id made, for a new session",
        (
            Target(
                _VISIBILITY,
                "get_visibility_rules",
                f"{__name__}.visibility",
                "get_visibility_rules",
                "stock_get_visibility_rules",
            ),
        ),
        (
            # The key the read computes, each step of the session id it makes, where it caches
            # it, the state calls that key by the same id (each must ask for it first), and the
            # store it reads (created by the property, kept in __init__'s attribute).
            f"{_VISIBILITY}:_visibility_rules_key",
            f"{_CONTEXT}:Context.__init__",
            f"{_CONTEXT}:Context.fastmcp",
            f"{_CONTEXT}:Context.request_context",
            f"{_CONTEXT}:Context.session_id",
            f"{_CONTEXT}:Context._session_scope_key",
            f"{_CONTEXT}:Context._is_modern_protocol",
            f"{_CONTEXT}:Context.get_state",
            f"{_CONTEXT}:Context._make_state_key",
            "fastmcp.server.server:FastMCP.__init__",
            "fastmcp.server.server:FastMCP._state_store",
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
                f"{__name__}.client",
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
)
