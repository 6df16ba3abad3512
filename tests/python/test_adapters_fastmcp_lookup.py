"""fastmcp's tool lookup (groups fastmcp-lookup, fastmcp 4.x, and fastmcp-lookup-3x, fastmcp 3.x
on mcp 1.x): the tools stock finds, the errors it raises, without the task group per lookup
where the server's own provider answers at once."""

from __future__ import annotations

import contextvars
from typing import Any

import pytest

pytest.importorskip("fastmcp.server.providers.aggregate")  # fastmcp 3.x and 4.x

import anyio
import fastmcp.server.providers.aggregate
import fastmcp.utilities.async_utils
from fastmcp import FastMCP
from fastmcp.server.providers.local_provider import LocalProvider
from fastmcp.server.transforms import Namespace
from fastmcp.utilities.versions import VersionSpec
from pydantic import BaseModel

from mcp_native import adapters
from mcp_native.adapters._engines import lookup

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]


class Shape(BaseModel):
    name: str


def shape() -> Shape:
    return Shape(name="s")


def weather(city: str) -> dict[str, str]:
    return {"city": city}


def records(n: int) -> list[int]:
    return list(range(n))


def plain(x: int) -> str:
    return str(x)


LOOKED_UP: contextvars.ContextVar[str] = contextvars.ContextVar("looked_up", default="")


def lookup_server(case: str) -> FastMCP:
    app = FastMCP("t")
    for version in ("1.0", "2.0"):
        app.tool(name="versioned", version=version)(plain)
    app.tool(shape)
    app.tool(weather)
    if case == "disabled":
        app.disable(names={"shape"})
    elif case == "provider transform":
        app.providers[0].add_transform(Namespace("ns"))
    elif case == "mounted":
        other = FastMCP("other")
        other.tool(records)
        app.mount(other)
    return app


def named(found: Any) -> Any:
    """What a lookup found: the tool's name and version, None, or the error's type."""
    return type(found).__name__ if isinstance(found, BaseException) else found and (found.name, found.version)


async def lookups(case: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], int, str]:
    """Every lookup of a server: what each found, how many task groups they ran, and the context
    variable a lookup set, as the caller sees it after."""
    fanned_out = 0
    stock_gather = fastmcp.utilities.async_utils.gather

    async def gather(*args: Any, **kwargs: Any) -> Any:
        nonlocal fanned_out
        fanned_out += 1
        return await stock_gather(*args, **kwargs)

    monkeypatch.setattr(fastmcp.server.providers.aggregate, "gather", gather)
    stock_lookup = LocalProvider._get_tool

    async def local_lookup(self: Any, name: str, version: Any = None) -> Any:
        LOOKED_UP.set(name)  # a lookup's context is a copy: the caller does not see this
        if case == "waits":
            await anyio.sleep(0)
        if case == "raises" and name == "weather":
            raise ValueError("the lookup failed")
        return await stock_lookup(self, name, version)

    monkeypatch.setattr(LocalProvider, "_get_tool", local_lookup)
    app = lookup_server(case)
    found = []
    for name, version in [
        ("shape", None),
        ("weather", None),
        ("ns_shape", None),
        ("records", None),
        ("missing", None),
        ("versioned", None),
        ("versioned", VersionSpec(eq="1.0")),
        ("versioned", VersionSpec(lt="1.0")),
    ]:
        try:
            found.append(named(await app.get_tool(name, version)))
        except Exception as e:
            found.append(named(e))
    return found, fanned_out, LOOKED_UP.get()


# case: whether the adapted lookups run without a task group (8 lookups)
LOOKUP_CASES = {
    "plain": True,
    "disabled": True,  # a server-level transform, applied around the lookup
    "raises": True,
    "provider transform": False,
    "mounted": True,  # the mounted server's own lookups; the outer one fans out to two providers
    "waits": False,
}


@pytest.mark.parametrize("case", list(LOOKUP_CASES))
async def test_fastmcp_finds_the_tools_stock_finds(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stock, stock_fanned_out, stock_seen = await lookups(case, monkeypatch)
    adapters.install(strict=True)
    assert fastmcp.server.providers.aggregate.AggregateProvider._get_tool is lookup.get_tool
    found, fanned_out, seen = await lookups(case, monkeypatch)
    assert found == stock
    assert stock_fanned_out >= len(found)  # stock: a task group for every lookup (and listing)
    assert fanned_out == stock_fanned_out - (len(found) if LOOKUP_CASES[case] else 0)
    if case == "mounted":  # the outer lookup, over two providers, still fans out
        assert fanned_out >= len(found)
    assert seen == stock_seen == ""
    if case == "plain":
        assert found[:2] == [("shape", None), ("weather", None)] and found[2:5] == [None] * 3
        assert found[5:] == [("versioned", "2.0"), ("versioned", "1.0"), None]
    if case == "raises":
        assert found[1] is None  # logged, as stock logs it (provider_error_strategy "log")


async def test_fastmcp_lookup_errors_raise_as_stock_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    async def failing(self: Any, name: str, version: Any = None) -> Any:
        raise ValueError("the lookup failed")

    monkeypatch.setattr(LocalProvider, "_get_tool", failing)
    adapters.install(strict=True)
    app = FastMCP("t")
    app.provider_error_strategy = "raise"
    with pytest.raises(ValueError, match="the lookup failed"):
        await app.get_tool("anything")
