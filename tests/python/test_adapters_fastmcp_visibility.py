"""fastmcp 4.x's read of a session's visibility rules (group ``fastmcp-visibility-new``): on a
2025-era stateless request whose session id is made by that read, no store read, and the rules
stock would read (none); every case where the key could hold rules reads them as stock does.
Each case runs on a stock and an adapted server, over Streamable HTTP in process, and the
answers must be the same; the store's reads are counted on both."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("fastmcp.server.transforms.visibility")

from fastmcp import Context, FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.transforms import visibility as vis
from key_value.aio.stores.memory import MemoryStore

from http_pair import HEADERS as PAIR_HEADERS
from http_pair import asgi_post, stock_then_adapted

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.usefixtures("adapters_restored"),
    pytest.mark.skipif(
        not hasattr(vis, "_visibility_rules_key"), reason="fastmcp 4.1+: 4.0 reads the rules through get_state"
    ),
]
GROUP = "fastmcp-visibility-new"
HEADERS = {**PAIR_HEADERS, "Mcp-Protocol-Version": "2025-11-25"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class CountedStore(MemoryStore):
    """A store passed in: counts its reads (and may do anything else)."""

    reads = 0

    async def get(self, *args: Any, **kwargs: Any) -> Any:
        type(self).reads += 1
        return await super().get(*args, **kwargs)


class HideFirst(Middleware):
    """Hides ``hidden`` for the rest of the request before the call looks its tool up."""

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        await context.fastmcp_context.disable_components(names={"hidden"})
        return await call_next(context)


def app(*, store: Any = None, middleware: bool = False) -> FastMCP:
    server = FastMCP("vis", session_state_store=store)
    if middleware:
        server.add_middleware(HideFirst())

    @server.tool
    async def hide(ctx: Context) -> str:
        await ctx.disable_components(names={"hidden"})
        return ctx.session_id

    @server.tool
    async def hidden() -> str:
        return "seen"

    @server.tool
    async def state(ctx: Context) -> dict[str, Any]:
        before = await ctx.get_state("k")
        await ctx.set_state("k", "v")
        return {"id": ctx.session_id, "before": before, "after": await ctx.get_state("k")}

    return server


async def calls(server: FastMCP, names: list[str], headers: dict[str, str] | None = None) -> list[Any]:
    """Each tool called in a request of its own (2025-era stateless, JSON responses): its
    structured result, or the error's text."""
    http = server.http_app(stateless_http=True, json_response=True)
    out = []
    async with http.router.lifespan_context(http):
        for i, name in enumerate(names):
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": {}}}
            status, text = await asgi_post(http, {**HEADERS, **(headers or {})}, json.dumps(body).encode())
            assert status == 200, text
            answer = json.loads(text)
            result = answer.get("result") or answer["error"]
            out.append(result.get("structuredContent") or result.get("content") or result.get("message"))
    return out


async def both(run: Callable[[], Any]) -> tuple[Any, Any]:
    """``run`` on stock, then adapted (the group applied)."""
    return await stock_then_adapted(run, GROUP)


def read_counter(server: FastMCP) -> list[str]:
    """Records the keys the server's store is read under (on its adapter, as fastmcp reads)."""
    keys: list[str] = []
    store = server._state_store
    stock_get = store.get

    async def get(*, key: str, **kwargs: Any) -> Any:
        keys.append(key)
        return await stock_get(key=key, **kwargs)

    store.get = get  # type: ignore[method-assign,assignment]
    return keys


async def test_a_new_id_is_not_read() -> None:
    read: list[list[str]] = []

    async def run() -> Any:
        server = app()
        keys = read_counter(server)
        out = await calls(server, ["state", "state", "hidden"])
        read.append(keys)
        return out

    stock, adapted = await both(run)
    for out in (stock, adapted):
        # Each request its own id: the state a tool writes is there in its request only.
        first, second, hidden = out
        assert first["before"] is None and first["after"] == "v"
        assert second["before"] is None and second["id"] != first["id"]
        uuid.UUID(first["id"])
        assert hidden == {"result": "seen"}
    rules = [[k for k in keys if k.endswith(":_visibility_rules")] for keys in read]
    assert len(rules[0]) == 3  # stock: one read of the rules per call
    assert rules[1] == []  # adapted: none, and the tools' own state still read
    assert len(read[1]) == len(read[0]) - 3


async def test_no_id_is_made_for_a_call_that_never_asks_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stock makes each request's session id (for its spans' attributes, then its rules read);
    adapted leaves it to the first one to ask, here the ``state`` tool, which gets a new id as on
    stock. The first call's read is stock's on both: it creates the server's store."""
    made: list[str] = []
    stock_session_id = Context.session_id

    def session_id(ctx: Context) -> str:
        assert ctx.request_context is not None
        cached = ctx.request_context.session._connection.state.get("_fastmcp_state_prefix")
        value: str = stock_session_id.fget(ctx)  # type: ignore[attr-defined]
        if cached is None:
            made.append(value)
        return value

    monkeypatch.setattr(Context, "session_id", property(session_id))
    counts: list[int] = []

    async def run() -> Any:
        made.clear()
        out = await calls(app(), ["hidden", "hidden", "state", "hidden"])
        counts.append(len(made))
        return out[:2], out[2]["id"] in made, out[3]

    stock, adapted = await both(run)
    assert stock == adapted == ([{"result": "seen"}] * 2, True, {"result": "seen"})
    assert counts == [4, 2]


async def test_rules_written_in_the_request_are_read() -> None:
    async def run() -> Any:
        return await calls(app(middleware=True), ["hidden", "hidden"])

    stock, adapted = await both(run)
    assert stock == adapted
    assert all("Unknown tool" in str(out) and "hidden" in str(out) for out in stock)


async def test_a_session_id_header_is_read() -> None:
    async def run() -> Any:
        return await calls(app(), ["hidden", "hide", "hidden"], headers={"mcp-session-id": "s-1"})

    stock, adapted = await both(run)
    assert stock == adapted
    assert stock[0] == {"result": "seen"} and stock[1] == {"result": "s-1"}
    assert "hidden" in str(stock[2])  # the rule the second request wrote under that id


async def test_a_store_passed_in_is_read() -> None:
    async def run() -> Any:
        CountedStore.reads = 0
        out = await calls(app(store=CountedStore()), ["hidden", "hidden"])
        return out, CountedStore.reads

    stock, adapted = await both(run)
    assert stock == adapted
    assert stock[1] >= 2


async def test_a_replaced_uuid4_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's fixed ``uuid4``: each request gets the same id, and the rules written by one
    request are read by the next, as stock reads them."""
    fixed = uuid.UUID(int=7)
    monkeypatch.setattr(uuid, "uuid4", lambda: fixed)

    async def run() -> Any:
        return await calls(app(), ["hidden", "hide", "hidden"])

    stock, adapted = await both(run)
    assert stock == adapted
    assert stock[0] == {"result": "seen"} and stock[1] == {"result": str(fixed)}
    assert "hidden" in str(stock[2])
