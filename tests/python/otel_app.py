"""An MCP stdio server or client traced by OpenTelemetry's MCP instrumentation
(``opentelemetry-instrumentation-mcp``), set up in the order a user would write it, for
test_adapters_otel.py. On exit it writes to ``$OTEL_APP_OUT`` (JSON) the names of the spans it
finished, the state of each adapter group, and every place a patched function is not in force.

    otel_app.py server ORDER FRAMEWORK
    otel_app.py client ORDER CLIENT -- SERVER COMMAND...

ORDER is the steps, comma-separated, in the program's order: ``otel`` (the instrumentor's
``instrument()``; on mcp 2.x it raises, its own bug, and the program carries on as a user's would),
``native`` (``mcp_native.adapters.install()``), ``imports`` (the SDK's modules); ``auto`` and ``env``
stand for ``opentelemetry-instrument`` and ``MCP_NATIVE_ADAPTERS=1``, which the test puts in
front of the program and which set up before it runs. FRAMEWORK is ``mcp``
(mcp 2.x's MCPServer, mcp 1.x's FastMCP) or ``fastmcp``; CLIENT is ``session`` (the SDK's
``ClientSession``) or ``fastmcp`` (fastmcp's ``Client``).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import importlib.metadata
import json
import os
import signal
import sys
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))

MCP_2 = importlib.metadata.version("mcp").startswith("2.")
EXPORTER = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
# The instrumentor's tracer is taken through the global proxy, so this provider serves it in
# every order, opentelemetry-instrument's too.
trace.set_tracer_provider(_provider)


def unwrapped(obj: Any) -> Any:
    """``obj``, then what each wrapper wraps (wrapt proxies, ``functools.wraps``, contextlib)."""
    while obj is not None:
        yield obj
        obj = getattr(obj, "__wrapped__", None)


def not_in_force() -> list[str]:
    """Each SDK module binding of a patched function that does not reach mcp-native's."""
    from mcp_native import adapters

    rep = adapters.report()
    problems = []
    for group in rep.groups if rep else []:
        for p in group.patches:
            if not p.applied or "." in p.attribute or p.expects or p.holds or p.instance_of:
                continue
            for name, module in list(sys.modules.items()):
                if name.partition(".")[0] not in ("mcp", "mcp_types", "fastmcp"):
                    continue
                if module.__dict__.get(p.attribute) is None:
                    continue
                layers = list(unwrapped(module.__dict__[p.attribute]))
                stock = [o for o in layers if (o.__module__, o.__qualname__) == (p.module, p.attribute)]
                if (stock or name == p.module) and not any(o is p.new for o in layers):
                    problems.append(f"{group.spec.name}: {name}.{p.attribute}")
    return problems


def not_restored(patched: list[Any], held: dict[str, Any]) -> list[str]:
    """After uninstall(): each place still reaching mcp-native's function, and each patched
    attribute not holding the SDK's function, or the wrapper (another library's) it held."""
    problems = []
    for p in patched:
        for name, module in list(sys.modules.items()):
            value = (
                module.__dict__.get(p.attribute) if name.partition(".")[0] in ("mcp", "mcp_types", "fastmcp") else None
            )
            if value is not None and any(o is p.new for o in unwrapped(value)):
                problems.append(f"{name}.{p.attribute} still reaches mcp-native")
        # The SDK's function where mcp-native's was; a wrapper kept where one held it.
        was = held[p.module + "." + p.attribute]
        if sys.modules[p.module].__dict__.get(p.attribute) is not (p.original if was is p.new else was):
            problems.append(f"{p.module}.{p.attribute} is not restored")
    return problems


def write_out() -> None:
    from mcp_native import adapters

    rep = adapters.report()
    for g in rep.groups if rep else []:
        g.refresh()
    out = {
        "spans": sorted(s.name for s in EXPORTER.get_finished_spans()),
        "groups": {g.spec.name: g.state for g in rep.groups} if rep else {},
        "notes": [n for g in rep.groups for n in g.notes] if rep else [],
        "not_in_force": not_in_force(),
    }
    # Module-level function targets, each with the object its attribute holds while installed.
    patched = [
        p
        for g in (rep.groups if rep else [])
        for p in g.patches
        if p.applied and "." not in p.attribute and not (p.expects or p.holds or p.instance_of)
    ]
    held = {p.module + "." + p.attribute: sys.modules[p.module].__dict__.get(p.attribute) for p in patched}
    adapters.uninstall()
    out["not_restored"] = not_restored(patched, held)
    with open(os.environ["OTEL_APP_OUT"], "w") as f:
        json.dump(out, f)


def setup(order: str) -> None:
    for step in order.split(","):
        if step in ("auto", "env"):  # opentelemetry-instrument, MCP_NATIVE_ADAPTERS: set up before
            continue
        if step == "otel":
            instrumentation: Any = importlib.import_module("opentelemetry.instrumentation.mcp")
            try:
                instrumentation.McpInstrumentor().instrument()
            except Exception as e:  # mcp 2.x: wrapt cannot find mcp 1.x's names
                print(f"instrument() failed: {type(e).__name__}", file=sys.stderr)
        elif step == "native":
            from mcp_native import adapters

            adapters.install()
        elif step == "imports":
            import fastmcp
            import fastmcp.client  # noqa: F401
            import mcp.client.session
            import mcp.client.stdio
            import mcp.server.stdio  # noqa: F401
        else:
            raise SystemExit(f"unknown step {step!r}")
    atexit.register(write_out)
    signal.signal(signal.SIGTERM, on_sigterm)


def on_sigterm(*_: object) -> None:
    """A client may end its server with SIGTERM (fastmcp 3.x's does): write, then exit."""
    write_out()
    os._exit(0)


def serve(framework: str) -> None:
    tools = importlib.import_module("payloads").TOOLS  # examples/payloads.py
    if framework == "fastmcp":
        from fastmcp import FastMCP

        app: Any = FastMCP("weather")
        kwargs: dict[str, Any] = {"show_banner": False}
    elif MCP_2:
        from mcp.server.mcpserver import MCPServer

        app, kwargs = MCPServer("weather"), {}
    else:
        app, kwargs = importlib.import_module("mcp.server.fastmcp").FastMCP("weather"), {}
    for tool in tools:
        app.tool()(tool)
    app.run("stdio", **kwargs)


async def call(client: str, command: list[str]) -> list[Any]:
    """tools/list, then calls of two TypedDict tools."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_weather", {"city": "Oslo"}),
        ("get_weather", {"city": "Lima"}),
        ("list_records", {"count": 3}),
    ]
    if client == "fastmcp":
        from fastmcp import Client
        from fastmcp.client.transports import StdioTransport

        # The server ends with the client's context (fastmcp 3.x keeps it running past it by
        # default), so it has written its spans when this process exits.
        transport = StdioTransport(command[0], command[1:], env=dict(os.environ), keep_alive=False)
        async with Client(transport) as c:
            names = sorted(t.name for t in await c.list_tools())
            results = [(await c.call_tool(n, a)).structured_content for n, a in calls]
        return [names, *results]
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = sorted(t.name for t in (await session.list_tools()).tools)
        results = [(await session.call_tool(n, a)).model_dump(mode="json", by_alias=True) for n, a in calls]
    return [names, *results]


def main() -> None:
    role, order, kind = sys.argv[1:4]
    setup(order)
    if role == "server":
        serve(kind)
    else:
        print(json.dumps(asyncio.run(call(kind, sys.argv[5:]))))


if __name__ == "__main__":
    main()
