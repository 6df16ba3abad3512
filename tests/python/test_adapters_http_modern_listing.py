"""MCPServer's ``tools/list`` before a 2026-07-28 ``tools/call`` (group ``http-modern-listing``):
mcp 2.0.1-2.2.0 run the whole listing for each call with arguments, to find the tool's schema
for its ``Mcp-Param-*`` check (2.3.0 too, for a server without ``get_tool_input_schema``: the
servers here have it taken away, so every release runs the listing). Adapted, once stock's
listing succeeded for the same tools, a call to a tool that declares no header (or to no tool)
is not listed again; everything a listing shows itself to, or that could change its answer,
lists as stock does. Each case runs on a stock and an adapted server in process, and answers
and listings are compared."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Annotated, Any

import mcp.server._streamable_http_modern as modern
import mcp.shared._otel as shared_otel
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import Field

from http_pair import HEADERS, asgi_post, stock_then_adapted

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]
GROUP = "http-modern-listing"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
MODERN = {**HEADERS, "Mcp-Protocol-Version": "2026-07-28"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def weather(city: str) -> dict[str, Any]:
    return {"city": city}


def routed(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    return region


class Counting:
    """A user's middleware: sees every message, the listings too."""

    def __init__(self) -> None:
        self.methods: list[str] = []

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        self.methods.append(ctx.method)
        return await call_next(ctx)


def app(server_class: type[MCPServer] = MCPServer, **kwargs: Any) -> MCPServer:
    server = server_class("listing", **kwargs)
    server.add_tool(weather)
    server.add_tool(routed)
    return server


Call = tuple[str, dict[str, Any], dict[str, str]]  # tool, arguments, extra headers


async def calls(
    make: Callable[[], MCPServer], plan: list[Call], between: Callable[[MCPServer, int], None] | None = None
) -> tuple[list[Any], list[int]]:
    """Each call in a 2026-07-28 request of its own (JSON responses), on a server without
    ``get_tool_input_schema`` (as mcp 2.0.1-2.2.0 build it): the answers (id dropped), and how
    many listings each ran."""
    server = make()
    server._lowlevel_server.get_tool_input_schema = None
    http = server.streamable_http_app(stateless_http=True, json_response=True)
    listings: list[int] = []
    m: Any = modern  # its private names
    stock_serve_one = m.serve_one

    async def serve_one(app: Any, dctx: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        if method == "tools/list":
            listings[-1] += 1
        return await stock_serve_one(app, dctx, method, *args, **kwargs)

    answers = []
    m.serve_one = serve_one
    try:
        async with http.router.lifespan_context(http):
            for i, (tool, arguments, headers) in enumerate(plan):
                if between is not None:
                    between(server, i)
                listings.append(0)
                params = {"name": tool, "arguments": arguments, "_meta": META}
                body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})
                routing = {"Mcp-Method": "tools/call", "Mcp-Name": tool}
                status, raw = await asgi_post(http, {**MODERN, **routing, **headers}, body.encode())
                answer = json.loads(raw)
                answer.pop("id")
                answers.append((status, answer))
    finally:
        m.serve_one = stock_serve_one
    return answers, listings


async def both(run: Callable[[], Any]) -> tuple[Any, Any]:
    """``run`` on stock, then adapted (the group applied)."""
    return await stock_then_adapted(run, GROUP)


WEATHER: Call = ("weather", {"city": "Paris"}, {})


async def test_a_tool_that_declares_no_header_is_listed_once() -> None:
    plan = [WEATHER] * 4 + [("nowhere", {"x": 1}, {})] * 2
    (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(app, plan))
    assert adapted == stock
    assert stock[0][1].get("result", {}).get("structuredContent") == {"city": "Paris"}, stock[0]
    assert stock_listings == [1] * 6
    assert adapted_listings == [1, 0, 0, 0, 0, 0]


async def test_a_tool_that_declares_a_header_is_checked_as_stock_checks_it() -> None:
    plan = [WEATHER, ("routed", {"region": "eu"}, {"Mcp-Param-Region": "us"}), ("routed", {"region": "eu"}, {})]
    plan += [("routed", {"region": "eu"}, {"Mcp-Param-Region": "eu"})]
    (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(app, plan))
    assert adapted == stock
    assert stock[1][0] == 400 and stock[2][0] == 400, stock  # a header that disagrees, or none
    assert stock[3][1]["result"]["content"][0]["text"] == "eu"
    assert stock_listings == [1, 1, 1, 1]
    assert adapted_listings == [1, 1, 1, 1]


async def test_a_tool_added_or_removed_lists_again() -> None:
    def change(server: MCPServer, i: int) -> None:
        if i == 2:  # a tool that declares a header now answers the name the plain one had
            server.remove_tool("weather")
            server.add_tool(routed, name="weather")
        if i == 4:
            server.remove_tool("weather")

    plan = [WEATHER, WEATHER, ("weather", {"region": "eu"}, {"Mcp-Param-Region": "us"}), WEATHER, WEATHER, WEATHER]
    (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(app, plan, change))
    assert adapted == stock
    assert stock[2][0] == 400, stock
    assert stock_listings == [1] * 6
    # Listed again after each change; a listing that found no tool (its answer the same as a failed
    # one's) proves nothing, so the calls after the removal list each time.
    assert adapted_listings == [1, 0, 1, 1, 1, 1]


async def test_a_users_middleware_sees_every_listing() -> None:
    seen: list[list[str]] = []

    def make() -> MCPServer:
        counting = Counting()
        seen.append(counting.methods)
        return app(middleware=[counting])

    (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(make, [WEATHER] * 3))
    assert adapted == stock
    assert stock_listings == adapted_listings == [1, 1, 1]
    assert seen[0] == seen[1] == ["tools/list", "tools/call"] * 3


async def test_a_server_that_lists_its_own_way_lists_each_time() -> None:
    class Renamed(MCPServer):
        async def list_tools(self) -> Any:
            tools = await super().list_tools()
            return [tool.model_copy(update={"name": f"my_{tool.name}"}) for tool in tools]

    plan: list[Call] = [("weather", {"city": "Paris"}, {})] * 3
    (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(lambda: app(Renamed), plan))
    assert adapted == stock
    assert stock_listings == adapted_listings == [1, 1, 1]


async def test_a_listing_that_fails_is_never_taken_as_proof(caplog: pytest.LogCaptureFixture) -> None:
    def make() -> MCPServer:
        server = app()
        server._tool_manager.get_tool("routed").parameters["default"] = object()  # type: ignore[union-attr]
        return server

    with caplog.at_level(logging.ERROR, logger=modern.logger.name):
        (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(make, [WEATHER] * 3))
    assert adapted == stock
    assert stock_listings == adapted_listings == [1, 1, 1]
    failed = [r for r in caplog.records if "the tools/list listing failed" in r.getMessage()]
    assert len(failed) == 6, caplog.records  # each listing, on both


async def test_debug_on_the_modules_logger_lists_each_time() -> None:
    level = modern.logger.level
    modern.logger.setLevel(logging.DEBUG)
    try:
        (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(app, [WEATHER] * 3))
    finally:
        modern.logger.setLevel(level)
    assert adapted == stock
    assert stock_listings == adapted_listings == [1, 1, 1]


async def test_a_tracer_that_records_sees_every_listings_span(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(shared_otel, "_tracer", provider.get_tracer("mcp-python-sdk"))
    (stock, stock_listings), (adapted, adapted_listings) = await both(lambda: calls(app, [WEATHER] * 3))
    assert adapted == stock
    assert stock_listings == adapted_listings == [1, 1, 1]
    names = [span.name for span in exporter.get_finished_spans()]
    assert len(names) == 12 and len(set(names)) == 2, names  # a listing's and a call's span, each call, both
