"""The adapted Streamable HTTP client transport on the mcp 1.x line (``http-client-1x``:
``StreamableHTTPTransport._handle_json_response`` and ``_handle_sse_event``) against real uvicorn
servers on 127.0.0.1: what the transport hands to the session is the stock transport's, model for
model (type, fields, fields set, repr), for JSON bodies and SSE events a server writes, good or
malformed (the same parse errors, word for word), for a server that drops the connection, and for
a stream that ends without an answer; a real FastMCP 1.x server's results through
``ClientSession`` are stock's, JSON and SSE, and progress notifications arrive in order.

These need ``mcp<2``: ``scripts/sdk-pairs`` runs them in its venvs of the 1.x line; with mcp 2.x
installed they are skipped."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

if not importlib.metadata.version("mcp").startswith("1."):
    pytest.skip("needs the mcp 1.x line (scripts/sdk-pairs runs it on mcp 1.30.0 and 1.26.0)", allow_module_level=True)

from http_canned import CASES, Served, leaves, stock_env, uvicorn
from mcp_native import adapters

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

ROOT = Path(__file__).resolve().parents[2]

# mcp 1.x's names (mypy checks the tests against mcp 2.x, which has other ones).
transport: Any = importlib.import_module("mcp.client.streamable_http")
types: Any = importlib.import_module("mcp.types")
SessionMessage: Any = importlib.import_module("mcp.shared.message").SessionMessage


def _seen(item: Any) -> tuple[Any, ...]:
    """What the session receives, as exactly as it can be compared."""
    if isinstance(item, SessionMessage):
        m = item.message
        root = m.root
        return (type(root).__name__, m.model_dump(), sorted(root.model_fields_set), repr(m), item.metadata)
    return (type(item).__name__, str(item))


# A stream that ends without the request's answer: mcp 1.x's transport hands the session nothing
# more (it reconnects only after an event with an id), so the session would wait for ever; what it
# got in the first seconds is compared.
UNANSWERED = {"sse-ends": 2.0, "sse-drop": 2.0}


async def _exchange(url: str, case: str) -> list[tuple[Any, ...]]:
    """Everything the transport hands to the session for one request, up to its answer."""
    seen: list[tuple[Any, ...]] = []
    request = types.JSONRPCMessage(types.JSONRPCRequest(jsonrpc="2.0", id=7, method="test", params={"case": case}))
    try:
        async with transport.streamablehttp_client(url) as (read, write, _):
            await write.send(SessionMessage(request))
            with anyio.fail_after(UNANSWERED.get(case, 20)):
                while True:
                    item = await read.receive()
                    seen.append(_seen(item))
                    # A JSON body holds one message; an error item ends what this case shows (1.x
                    # reads on, with nothing more to come).
                    if not case.startswith("sse") or not isinstance(item, SessionMessage):
                        break
                    root = item.message.root if isinstance(item, SessionMessage) else None
                    if isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
                        break
    except Exception as e:  # the transport's failure: what it raises, leaf by leaf
        seen.append(("raised", *leaves(e)))
    return seen


@pytest.mark.parametrize("case", CASES)
async def test_the_session_receives_what_stock_hands_it(canned: str, case: str) -> None:
    stock = await _exchange(canned, case)
    report = adapters.install()
    assert "http-client-1x" in report.patched or "http-client-1x" in report.waiting
    adapted = await _exchange(canned, case)
    assert repr(adapted) == repr(stock)  # (repr: a NaN is not equal to itself)
    if case == "drop":  # the connection dropped mid-body: the session gets the error, in both
        assert stock[-1][0] == "RemoteProtocolError"
    if case in UNANSWERED:
        assert stock[-1] == ("raised", "TimeoutError: ")
    if case in ("bad-json", "sse-bad-json"):
        assert "validation error" in repr(stock[-1]) or "Invalid JSON" in repr(stock[-1])


async def test_the_native_path_is_taken(canned: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A good JSON body and SSE event are read natively, without the SDK's parser."""
    adapters.install()

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the stock parser ran")

    monkeypatch.setattr(types.JSONRPCMessage, "model_validate_json", refused)
    for case in ("ok", "big", "sse-ok", "sse-big", "sse-ids"):
        seen = await _exchange(canned, case)
        assert seen[-1][0] == "JSONRPCResponse"


# --- a real server ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["json", "sse"])
def real(request: pytest.FixtureRequest, served: Served) -> Iterator[tuple[str, str]]:
    env = {**stock_env(), "HTTP_APP": "fastmcp1", "HTTP_RESPONSE": request.param, "HTTP_STATE": "stateful"}
    env["FASTMCP_LOG_LEVEL"] = "WARNING"
    cmd = uvicorn("http_app:app")
    with served(lambda port: [*cmd(port), "--app-dir", str(ROOT / "benchmarks")], ROOT, env) as port:
        yield f"http://127.0.0.1:{port}/mcp", request.param


async def _calls(url: str) -> tuple[list[Any], list[tuple[float, float | None, str | None]]]:
    notified: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notified.append((progress, total, message))

    results: list[tuple[Any, ...]] = []
    session_type = importlib.import_module("mcp.client.session").ClientSession
    async with transport.streamablehttp_client(url) as (read, write, _), session_type(read, write) as session:
        await session.initialize()
        for name, args in (
            ("get_weather", {"city": "Paris"}),
            ("list_records", {"count": 200}),
            ("broken_weather", {"city": "Oslo"}),
            ("ticking", {"steps": 5}),
        ):
            try:
                result = await session.call_tool(name, args, progress_callback=on_progress)
                results.append((type(result).__name__, result.model_dump(), sorted(result.model_fields_set)))
            except Exception as e:
                results.append((type(e).__name__, str(e)))
    return results, notified


async def test_a_real_server_gives_stock_results(real: tuple[str, str]) -> None:
    url, response = real
    stock = await _calls(url)
    adapters.install()
    adapted = await _calls(url)
    assert adapted == stock
    results, notified = adapted
    assert results[0][1]["structuredContent"]["city"] == "Paris"
    assert len(results[1][1]["structuredContent"]["records"]) == 200
    if response == "sse":  # (a JSON body carries only the answer)
        assert [p for p, _, _ in notified] == [1, 2, 3, 4, 5]


async def test_uninstall_restores_the_transport() -> None:
    stock = transport.StreamableHTTPTransport._handle_json_response, transport.StreamableHTTPTransport._handle_sse_event
    adapters.install()
    assert transport.StreamableHTTPTransport._handle_sse_event is not stock[1]
    adapters.uninstall()
    assert (
        transport.StreamableHTTPTransport._handle_json_response,
        transport.StreamableHTTPTransport._handle_sse_event,
    ) == stock
