"""The server spans of mcp 2.x (``otel-idle``: the low-level ``Server``'s OpenTelemetry
middleware, MCPServer's) and of fastmcp 4.x (``fastmcp-spans-idle``: its seam and server
spans) are not built where OpenTelemetry would drop them: no tracer provider, no parent context
in the request's ``_meta``, a current span that records nothing. What a tool sees of the trace
context is stock's in every case, each case named below takes the path it should (the SDK's
span helper spied on), and with a provider configured (in a child process: a global provider is
set once) the spans finished, with every attribute, are stock's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp.server._otel", reason="the mcp 2.x line's OpenTelemetry middleware")
pytest.importorskip("fastmcp.server.telemetry", reason="fastmcp 4.x's server spans")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from mcp_native import adapters

pytestmark = pytest.mark.anyio

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
PARENT_TRACE_ID = 0x0AF7651916CD43DD8448EB211C80319C


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def no_provider() -> None:
    # What the no-span path is for: this process must not have set a global provider.
    assert type(trace.get_tracer_provider()) is trace.ProxyTracerProvider
    assert "OTEL_PYTHON_TRACER_PROVIDER" not in os.environ


def seen() -> dict[str, Any]:
    """What a tool sees of the trace context."""
    span = trace.get_current_span()
    ctx = span.get_span_context()
    return {"trace_id": ctx.trace_id, "span_id": ctx.span_id, "valid": ctx.is_valid, "recording": span.is_recording()}


def server(framework: str) -> Any:
    """MCPServer or fastmcp's FastMCP with one tool that answers with what it sees."""
    if framework == "mcpserver":
        from mcp.server.mcpserver import MCPServer as App
    else:
        from fastmcp import FastMCP as App  # type: ignore[assignment]
    app = App("spans")

    @app.tool()
    def where(city: str) -> dict[str, Any]:
        return {"city": city, **seen()}

    return app


async def call(framework: str, meta: dict[str, Any] | None) -> dict[str, Any]:
    if framework == "mcpserver":
        from mcp import Client

        async with Client(server(framework)) as client:
            result = await client.call_tool("where", {"city": "Oslo"}, meta=meta)  # type: ignore[arg-type]
        assert result.structured_content is not None
        return dict(result.structured_content)
    from fastmcp import Client as FastMCPClient

    async with FastMCPClient(server(framework)) as fclient:
        fresult = await fclient.call_tool("where", {"city": "Oslo"}, meta=meta)
    assert fresult.structured_content is not None
    return dict(fresult.structured_content)


SPAN_HELPERS = {"mcpserver": ("mcp.server._otel", "otel_span"), "fastmcp": ("fastmcp.server.telemetry", "get_tracer")}


@pytest.fixture
def spans_opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The frameworks whose span helper ran: mcp's ``otel_span``, fastmcp's ``get_tracer`` as its
    seam and server spans call it (``propagation_only`` calls neither)."""
    import importlib

    opened: list[str] = []
    for framework, (module, name) in SPAN_HELPERS.items():
        mod = importlib.import_module(module)
        original = getattr(mod, name)

        def spy(*args: Any, _original: Any = original, _framework: str = framework, **kwargs: Any) -> Any:
            opened.append(_framework)
            return _original(*args, **kwargs)

        monkeypatch.setattr(mod, name, spy)
    yield opened


async def both(framework: str, meta: dict[str, Any] | None, opened: list[str]) -> tuple[Any, Any, int, int]:
    """(stock's view, adapted view, spans stock opened, spans adapted opened)."""
    stock = await call(framework, meta)
    stock_opened = opened.count(framework)
    adapters.install()
    try:
        import fastmcp.server.telemetry as fastmcp_telemetry
        import mcp.server._otel as mcp_otel

        from mcp_native.adapters.fastmcp4 import telemetry
        from mcp_native.adapters.mcp2 import otel

        assert mcp_otel.OpenTelemetryMiddleware.__call__ is otel.middleware_call
        assert fastmcp_telemetry.telemetry_mode is telemetry.telemetry_mode  # type: ignore[attr-defined]
        adapted = await call(framework, meta)
    finally:
        adapters.uninstall()
    return stock, adapted, stock_opened, opened.count(framework) - stock_opened


@pytest.mark.parametrize("framework", ["mcpserver", "fastmcp"])
async def test_no_provider_no_parent_builds_no_span(framework: str, spans_opened: list[str]) -> None:
    stock, adapted, stock_opened, adapted_opened = await both(framework, None, spans_opened)
    assert adapted == stock
    assert stock["valid"] is False and stock["recording"] is False
    assert stock_opened >= 1 and adapted_opened == 0


@pytest.mark.parametrize("framework", ["mcpserver", "fastmcp"])
async def test_meta_without_trace_context_builds_no_span(framework: str, spans_opened: list[str]) -> None:
    stock, adapted, stock_opened, adapted_opened = await both(framework, {"note": "x"}, spans_opened)
    assert adapted == stock
    assert stock_opened >= 1 and adapted_opened == 0


async def test_fastmcp_takes_stocks_span_for_any_trace_key_in_meta(spans_opened: list[str]) -> None:
    # A tracestate alone: fastmcp extracts from it, the check leaves that to stock.
    stock, adapted, _, adapted_opened = await both("fastmcp", {"tracestate": "k=v"}, spans_opened)
    assert adapted == stock
    assert adapted_opened >= 1


@pytest.mark.parametrize("framework", ["mcpserver", "fastmcp"])
async def test_a_parent_in_meta_takes_stocks_span(framework: str, spans_opened: list[str]) -> None:
    stock, adapted, _, adapted_opened = await both(framework, {"traceparent": TRACEPARENT}, spans_opened)
    assert adapted == stock
    assert stock["trace_id"] == PARENT_TRACE_ID and stock["valid"] is True
    assert adapted_opened >= 1  # the call's (the client's other requests carry no parent)


@pytest.mark.parametrize("framework", ["mcpserver", "fastmcp"])
async def test_inside_a_recording_span_the_tool_sees_stocks_context(framework: str, spans_opened: list[str]) -> None:
    # A provider of the program's own, never made global: its span records and is current where
    # the client starts. The server sees it through the client's own (no-op) span, or as the
    # parent the client puts in _meta: either way the tool sees the same trace as stock's.
    tracer = TracerProvider().get_tracer("outer")
    with tracer.start_as_current_span("outer") as outer:
        stock, adapted, _, _ = await both(framework, None, spans_opened)
    assert adapted == stock
    assert stock["trace_id"] == outer.get_span_context().trace_id


def test_a_recording_current_span_is_not_idle() -> None:
    from mcp_native.adapters._engines.tracing import spans_unrecorded

    with TracerProvider().get_tracer("outer").start_as_current_span("outer"):
        assert not spans_unrecorded()
    assert spans_unrecorded()


def test_a_proxy_that_bound_a_providers_tracer_is_not_idle() -> None:
    from mcp_native.adapters._engines.tracing import proxy_without_provider

    proxy = trace.ProxyTracer("x")
    assert proxy_without_provider(proxy)
    proxy._real_tracer = TracerProvider().get_tracer("x")  # what a proxy keeps once a provider is set
    assert not proxy_without_provider(proxy)
    assert not proxy_without_provider(TracerProvider().get_tracer("x"))


CHILD = r"""
import asyncio, json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
if sys.argv[3] == "global":
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
# else: the provider OTEL_PYTHON_TRACER_PROVIDER names, loaded by the first span (none exported)
if sys.argv[1] == "adapted":
    from mcp_native import adapters
    adapters.install()
sys.path.insert(0, sys.argv[2])
import test_adapters_spans_idle as t

async def main():
    out = {}
    for framework in ("mcpserver", "fastmcp"):
        for meta in (None, {"traceparent": t.TRACEPARENT}):
            exporter.clear()
            view = await t.call(framework, meta)
            spans = [
                {"name": s.name, "kind": str(s.kind),
                 # a session id is drawn per connection: its presence is compared
                 "attributes": {k: "<id>" if k == "mcp.session.id" else v for k, v in (s.attributes or {}).items()},
                 "status": str(s.status.status_code), "parent": s.parent is not None,
                 "trace": s.context.trace_id == t.PARENT_TRACE_ID}
                for s in exporter.get_finished_spans()
            ]
            out[f"{framework} {meta is not None}"] = {"spans": sorted(spans, key=json.dumps), "valid": view["valid"],
                                                      "recording": view["recording"]}
    out["provider"] = type(trace.get_tracer_provider()).__module__
    print(json.dumps(out, default=str))

asyncio.run(main())
"""


@pytest.mark.parametrize("how", ["global", "environment"])
def test_with_a_provider_the_spans_are_stocks(how: str) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    runs = {}
    for side in ("stock", "adapted"):
        env = {k: v for k, v in os.environ.items() if k != "MCP_NATIVE_ADAPTERS"}
        if how == "environment":
            env["OTEL_PYTHON_TRACER_PROVIDER"] = "sdk_tracer_provider"
        done = subprocess.run(
            [sys.executable, "-c", CHILD, side, here, how], capture_output=True, text=True, timeout=120, env=env
        )
        assert done.returncode == 0, done.stderr[-3000:]
        runs[side] = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["adapted"] == runs["stock"]
    assert runs["stock"].pop("provider") == "opentelemetry.sdk.trace"
    for case, seen_there in runs["stock"].items():
        assert seen_there["recording"] is True  # the tool ran inside a recorded span
        if how == "global":
            names = [s["name"] for s in seen_there["spans"]]
            assert any(n.startswith("tools/call") for n in names), (case, names)
