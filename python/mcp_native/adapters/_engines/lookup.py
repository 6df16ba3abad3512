"""fastmcp's tool lookup, ``AggregateProvider._get_tool`` (the same on fastmcp 3.x and 4.x): a
server's own tools found in the calling task instead of a task group per lookup.

Stock awaits each provider's lookup in a task of its own (fastmcp's ``gather``, a task group),
about 0.05-0.1 ms of every ``tools/call``.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Any

stock_get_tool: Callable[..., Any] | None = None  # set by install()


def _run_now(coro: Any) -> tuple[bool, Any]:
    """Runs ``coro`` to its end at once, in a copy of the context, as the task of stock's
    ``gather`` runs it: (True, its value or the exception it raised, which ``gather`` with
    ``return_exceptions`` returns as the result); (False, None), ``coro`` closed, if it would
    wait for anything."""
    try:
        contextvars.copy_context().run(coro.send, None)
    except StopIteration as stop:
        return True, stop.value
    except BaseException as e:
        return True, e
    coro.close()
    return False, None


@functools.cache
def _lookup_names() -> tuple[Callable[[Any], Any], tuple[type, ...]]:
    """fastmcp's ``hashed_lookup_target`` and the provider classes whose lookup is
    ``LocalProvider``'s own: ``LocalProvider``, and fastmcp 4.2's ``_SchemaCacheLocalProvider``,
    the one every ``FastMCP`` server registers its tools in, which overrides registration only
    (it mirrors each tool's input schema into a cache; fastmcp 3.x has none). Imported on first
    use: this module is loaded with fastmcp's aggregate provider, while fastmcp's package is
    still being imported, before its server module is."""
    from fastmcp.server import server
    from fastmcp.server.providers.base import hashed_lookup_target
    from fastmcp.server.providers.local_provider import LocalProvider

    schema_cache = getattr(server, "_SchemaCacheLocalProvider", None)
    return hashed_lookup_target, (LocalProvider,) if schema_cache is None else (LocalProvider, schema_cache)


async def get_tool(self: Any, name: str, version: Any = None) -> Any:
    """``AggregateProvider._get_tool`` (the tool lookup of every ``tools/call``). A server whose one provider is its own ``LocalProvider``, with no transforms of its own and
    no lookup by hash under way, looks a tool up in fastmcp's code that reads a dict and never
    waits: that lookup runs here, in the calling task, in a copy of its context. The result,
    or the error, goes through stock's ``_get_highest_version_result`` as before. Any other
    server, or a lookup that would wait after all (it is closed, having only read), takes the
    stock path."""
    assert stock_get_tool is not None
    providers = self.providers
    if len(providers) == 1:
        provider = providers[0]
        hashed_lookup_target, own = _lookup_names()
        if type(provider) in own and not provider.transforms and hashed_lookup_target(provider) is None:
            done, result = _run_now(provider.get_tool(name, version))
            if done:
                return self._get_highest_version_result([result], f"get_tool({name!r})")
    return await stock_get_tool(self, name, version)
