"""azure-functions' MCP tool trigger: the ``McpToolResult`` of a tool written natively, mirrored
and validated (``tool_results``)."""

from __future__ import annotations

from .._patching.spec import GroupSpec, Target

_AZURE_APP = "azure.functions.decorators.function_app"

# azure-functions' MCP tool trigger: one patch, proven on each release line (1.x for Python
# up to 3.12, 2.x from 3.13).
GROUPS: tuple[GroupSpec, ...] = (
    *(
        GroupSpec(
            f"azure-functions-results{suffix}",
            "azure-functions",
            "server results",
            ("server",),
            "Azure Functions MCP tools: the McpToolResult written natively, mirrored, validated",
            (Target(_AZURE_APP, "TriggerApi.mcp_tool", f"{__name__}.tool_results", "mcp_tool", "stock_mcp_tool"),),
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
