"""fastmcp 4.x's middleware chain for a ``tools/call`` (group ``fastmcp-middleware-pass``): where
every middleware of the server hands the call on unchanged (the default server's
``DereferenceRefsMiddleware``), no chain; a middleware with any hook a ``tools/call`` runs of its
own, on its class or its instance, sees every call as on stock. Each case runs on a stock and an
adapted server through fastmcp's client, and the answers must be the same."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

pytest.importorskip("fastmcp.server.middleware.dereference")

from fastmcp import Client, FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.middleware import middleware as middleware_module
from pydantic import BaseModel

from http_pair import HEADERS, asgi_post, stock_then_adapted

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]
GROUP = "fastmcp-middleware-pass"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Point(BaseModel):
    x: int
    y: int


def app(*middleware: Any) -> FastMCP:
    server = FastMCP("mw")  # with its DereferenceRefsMiddleware
    for each in middleware:
        server.add_middleware(each)

    @server.tool
    async def phase() -> str:
        return middleware_module._dispatch_phase.get()

    @server.tool
    async def fails() -> str:
        raise ValueError("no")

    @server.tool
    def echo(points: list[Point]) -> list[Point]:  # $defs in its schemas: the listing dereferences them
        return points

    return server


async def session(server: FastMCP) -> list[Any]:
    """A listing and a call of each tool, as the client sees them."""
    async with Client(server) as client:
        tools = {tool.name: (tool.input_schema, tool.output_schema) for tool in await client.list_tools()}
        results = [
            await client.call_tool(name, args, raise_on_error=False)
            for name, args in (("phase", {}), ("fails", {}), ("echo", {"points": [{"x": 1, "y": 2}]}), ("echo", {}))
        ]
    return [tools, *[(r.is_error, [c.model_dump() for c in r.content], r.structured_content) for r in results]]


def hooks_run(during: Callable[[], Any]) -> Callable[[], Any]:
    """``during``, with the names of the functions of fastmcp's middleware package it ran."""

    async def run() -> tuple[Any, set[str]]:
        seen: set[str] = set()
        package = os.path.dirname(middleware_module.__file__)

        def profile(frame: FrameType, event: str, _: Any) -> None:
            if event == "call" and os.path.dirname(frame.f_code.co_filename) == package:
                seen.add(frame.f_code.co_name)

        sys.setprofile(profile)
        try:
            answer = await during()
        finally:
            sys.setprofile(None)
        return answer, seen

    return run


async def test_a_call_through_middleware_that_passes_it_on_runs_no_chain(caplog: pytest.LogCaptureFixture) -> None:
    server = app()

    async def logged() -> tuple[list[Any], list[tuple[str, int, str, str]]]:
        caplog.clear()
        answers = await session(server)
        # The tool's failure is logged with its traceback (caught below the chain): the same lines.
        formatter = logging.Formatter()
        lines = [
            (r.name, r.levelno, r.getMessage(), formatter.formatException(r.exc_info) if r.exc_info else "")
            for r in caplog.records
        ]
        return answers, lines

    stock, adapted = await stock_then_adapted(hooks_run(logged), GROUP)
    assert adapted[0] == stock[0]
    assert any("Error calling tool 'fails'" in line[2] and "ValueError: no" in line[3] for line in stock[0][1])
    assert stock[0][0][1][0] is False and stock[0][0][1][2] == {"result": "all"}  # the phase stock sets
    stock, adapted = (stock[0][0], stock[1]), (adapted[0][0], adapted[1])
    assert "$defs" not in str(stock[0][0]["echo"])  # the listing went through the middleware on both
    assert {"on_call_tool", "on_list_tools"} <= stock[1]
    assert "on_list_tools" in adapted[1] and "on_call_tool" not in adapted[1]


def counting(name: str) -> Callable[..., Any]:
    """A hook (of a class or of an instance) that counts a call under ``name``, then hands the
    context on."""

    async def hook(*args: Any, call_next: Any) -> Any:  # as fastmcp calls hooks: call_next by name
        context = args[-1]
        COUNTS.append(name)
        return await call_next(context)

    return hook


def overriding(name: str, hook: str) -> type[Middleware]:
    """A middleware class ``name`` with a counting ``hook`` of its own."""
    return type(name, (Middleware,), {hook: counting(name)})


OnCall = overriding("OnCall", "on_call_tool")
OnRequest = overriding("OnRequest", "on_request")
OnMessage = overriding("OnMessage", "on_message")


class Called(Middleware):
    async def __call__(self, context: Any, call_next: Any) -> Any:
        COUNTS.append(type(self).__name__)
        return await super().__call__(context, call_next)


class Dispatched(Middleware):
    async def _dispatch_handler(self, context: Any, call_next: Any, phase: Any = "all") -> Any:
        COUNTS.append(type(self).__name__)
        return await super()._dispatch_handler(context, call_next, phase)


class Looked(Middleware):
    """Its hooks found through ``__getattribute__`` (as fastmcp's suite records them)."""

    def __getattribute__(self, name: str) -> Any:
        return counting("Looked") if name == "on_call_tool" else super().__getattribute__(name)


def on_the_instance() -> Middleware:
    middleware = Middleware()
    middleware.on_call_tool = counting("instance")  # type: ignore[method-assign]
    return middleware


COUNTS: list[str] = []


@pytest.mark.parametrize(
    "make", [OnCall, OnRequest, OnMessage, Called, Dispatched, Looked, on_the_instance], ids=lambda m: m.__name__
)
async def test_a_middleware_with_a_hook_of_its_own_sees_every_call(make: Callable[[], Middleware]) -> None:
    server = app(make())

    async def run() -> tuple[list[Any], list[str]]:
        COUNTS.clear()
        return await session(server), list(COUNTS)

    stock, adapted = await stock_then_adapted(run, GROUP)
    assert adapted == stock
    assert len(stock[1]) >= 4  # one per call at least (on_request and on_message see the listing too)


async def test_middleware_added_later_is_seen_at_once() -> None:
    server = app()

    async def run() -> list[str]:
        COUNTS.clear()
        await session(server)
        server.add_middleware(OnCall())
        await session(server)
        server.middleware.pop()
        return list(COUNTS)

    stock, adapted = await stock_then_adapted(run, GROUP)
    assert adapted == stock == ["OnCall"] * 4


class OnNotification(Middleware):
    async def on_notification(self, context: Any, call_next: Any) -> Any:
        COUNTS.append(context.method)
        return await call_next(context)


async def test_a_tools_call_sent_as_a_notification_reaches_a_middleware_of_notifications() -> None:
    """A client may send ``tools/call`` without an id: its middleware context is a notification's,
    whose ``on_notification`` runs on stock (a 2025-era stateless POST, JSON responses)."""
    server = app(OnNotification())
    body = json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "phase", "arguments": {}}})

    async def run() -> tuple[int, list[str]]:
        COUNTS.clear()
        http = server.http_app(stateless_http=True, json_response=True)
        async with http.router.lifespan_context(http):
            status, _ = await asgi_post(http, {**HEADERS, "Mcp-Protocol-Version": "2025-11-25"}, body.encode())
        return status, list(COUNTS)

    stock, adapted = await stock_then_adapted(run, GROUP)
    assert adapted == stock == (202, ["tools/call"])
