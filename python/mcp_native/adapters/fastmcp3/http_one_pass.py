"""fastmcp 3.x (on mcp 1.x): its servers' stateless Streamable HTTP requests in mcp 1.x's one pass.

fastmcp 3.x's ``LowLevelServer.run`` is the low-level ``Server.run`` with two changes: its
session is a ``MiddlewareServerSession`` (which routes ``initialize`` through fastmcp's
middleware), and the task group the messages are handled in is the session's
``_subscription_task_group`` (where fastmcp's ping middleware and task subscriptions start their
tasks). mcp 1.x's one pass (``adapters.mcp1.http_one_pass``) serves a request as ``Server.run``
serves it, so on its own it leaves fastmcp's servers to the stock path.

This group replaces ``LowLevelServer.run`` with a function that runs fastmcp's own, unchanged,
and that carries how fastmcp's run opens its session (``one_pass_session``): the one pass serves
a server whose run is this one with that session, which a run the group's proof does not cover
(another fastmcp release, or a run wrapped by someone else) never gets.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from ..mcp1.http_one_pass import session_closed

stock_run: Callable[..., Any] | None = None  # set by install()


@asynccontextmanager
async def one_pass_session(app: Any, out: Any) -> AsyncIterator[Any]:
    """The session fastmcp's run serves a stateless request with, the task group it handles the
    request in as its ``_subscription_task_group``; left as fastmcp's run leaves it: the task
    group's tasks ended, then the session's exit."""
    # Looked up on use: fastmcp 4.x, under which this module is imported too, has no such class.
    session_type = importlib.import_module("fastmcp.server.low_level").MiddlewareServerSession
    session = session_type(app.fastmcp, None, out, app.create_initialization_options(), stateless=True)
    try:
        async with anyio.create_task_group() as tg:
            session._subscription_task_group = tg
            yield session
    finally:
        await session_closed(session)


async def run(self: Any, *args: Any, **kwargs: Any) -> None:
    """fastmcp's ``LowLevelServer.run``, as it is."""
    assert stock_run is not None
    await stock_run(self, *args, **kwargs)


# What mcp 1.x's one pass reads of a server's run (see its ``_session_opener``).
run.one_pass_session = one_pass_session  # type: ignore[attr-defined]
