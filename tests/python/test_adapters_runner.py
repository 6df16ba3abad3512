"""The end of a connection the mcp 2.x runner serves (``runner-unwind``): one with nothing on its
exit stack ends at once, without stock's shielded, timed scope (no timer scheduled); one with
callbacks takes stock's, which runs them shielded from a cancellation, logs and swallows one
that raises, and abandons one that outlasts the bound; a stack of another kind takes stock's."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from mcp_native import adapters

runner = pytest.importorskip("mcp.server.runner", reason="the mcp 2.x line's runner")

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the timers counted are asyncio's


@pytest.fixture
def unwind() -> Iterator[Any]:
    adapters.install()
    from mcp_native.adapters.mcp2 import server_runner

    assert runner.aclose_shielded is server_runner.aclose_shielded
    yield server_runner
    adapters.uninstall()
    assert runner.aclose_shielded is server_runner.stock_aclose_shielded


@contextlib.contextmanager
def timers_counted() -> Iterator[list[float]]:
    """The delay of each timer the running loop schedules inside the block."""
    loop = asyncio.get_running_loop()
    scheduled: list[float] = []
    call_at = loop.call_at

    def counting(when: float, *args: Any, **kwargs: Any) -> Any:
        scheduled.append(when - loop.time())
        return call_at(when, *args, **kwargs)

    loop.call_at = counting  # type: ignore[method-assign,assignment]
    try:
        yield scheduled
    finally:
        del loop.call_at  # the class's again


def connection(stack: Any = None) -> Any:
    return SimpleNamespace(exit_stack=contextlib.AsyncExitStack() if stack is None else stack)


async def test_nothing_to_unwind_ends_without_a_timer(unwind: Any) -> None:
    with timers_counted() as scheduled:
        await runner.aclose_shielded(connection())
    assert scheduled == []
    with timers_counted() as scheduled:  # what stock does for the same connection
        await unwind.stock_aclose_shielded(connection())
    assert scheduled == [pytest.approx(runner._EXIT_STACK_CLOSE_TIMEOUT, abs=0.1)]


async def test_callbacks_are_run_by_stocks_shielded_close(unwind: Any, caplog: pytest.LogCaptureFixture) -> None:
    ran: list[str] = []
    conn = connection()

    async def slow() -> None:
        await asyncio.sleep(0.05)  # past the cancellation below: the shield lets it finish
        ran.append("slow")

    def raises() -> None:
        ran.append("raises")
        raise RuntimeError("cleanup failed")

    conn.exit_stack.push_async_callback(slow)
    conn.exit_stack.callback(raises)

    async def serve() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            await runner.aclose_shielded(conn)

    with timers_counted() as scheduled, caplog.at_level(logging.ERROR, "mcp.server.runner"):
        task = asyncio.ensure_future(serve())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert ran == ["raises", "slow"]  # in reverse order of pushing, the slow one to its end
    assert any(d == pytest.approx(runner._EXIT_STACK_CLOSE_TIMEOUT, abs=0.1) for d in scheduled)
    assert [r.getMessage() for r in caplog.records] == ["connection exit_stack cleanup raised"]


async def test_a_callback_past_the_bound_is_abandoned_as_stock_abandons_it(
    unwind: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(runner, "_EXIT_STACK_CLOSE_TIMEOUT", 0.05)
    conn = connection()
    conn.exit_stack.push_async_callback(asyncio.sleep, 10)
    with caplog.at_level(logging.WARNING, "mcp.server.runner"):
        await runner.aclose_shielded(conn)
    assert "exceeded 0.05 seconds" in caplog.text


async def test_a_stack_of_another_kind_takes_stocks_close(unwind: Any) -> None:
    class Stack(contextlib.AsyncExitStack):
        closed = 0

        async def aclose(self) -> None:
            Stack.closed += 1
            await super().aclose()

    with timers_counted() as scheduled:
        await runner.aclose_shielded(connection(Stack()))
    assert Stack.closed == 1 and len(scheduled) == 1
