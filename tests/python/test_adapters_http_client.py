"""The adapted Streamable HTTP client transport (``http-client``: mcp 2.x's
``StreamableHTTPTransport._handle_json_response`` and ``_handle_sse_event``) against real uvicorn
servers on 127.0.0.1: what the transport hands to the session is the stock transport's, model for
model (type, fields, fields set, repr), for JSON bodies and SSE events a server writes, good or
malformed (the same parse errors, word for word), for a server that drops the connection, and
for a stream that ends without an answer; a real MCPServer's results through ``mcp.client.Client``
are stock's, JSON and SSE, both eras, and progress notifications arrive in order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("mcp.client.streamable_http")
pytest.importorskip("mcp_types", reason="the mcp 2.x line")

from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

from http_canned import CASES, Served, leaves, stock_env, uvicorn
from mcp_native import adapters

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

ROOT = Path(__file__).resolve().parents[2]


def _seen(item: Any) -> tuple[Any, ...]:
    """What the session receives, as exactly as it can be compared."""
    if isinstance(item, SessionMessage):
        m = item.message
        return (type(m).__name__, m.model_dump(), sorted(m.model_fields_set), repr(m), item.metadata)
    return (type(item).__name__, str(item))


async def _exchange(url: str, case: str) -> list[tuple[Any, ...]]:
    """Everything the transport hands to the session for one request, up to its answer."""
    seen: list[tuple[Any, ...]] = []
    request = JSONRPCRequest(jsonrpc="2.0", id=7, method="test", params={"case": case})
    try:
        async with streamable_http_client(url) as (read, write):
            await write.send(SessionMessage(request))
            with anyio.fail_after(20):
                while True:
                    item = await read.receive()
                    seen.append(_seen(item))
                    if not case.startswith("sse"):  # a JSON body holds one message
                        break
                    message = item.message if isinstance(item, SessionMessage) else None
                    if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id == 7:
                        break
    except Exception as e:  # the transport's failure: what it raises, leaf by leaf
        seen.append(("raised", *leaves(e)))
    return seen


@pytest.mark.parametrize("case", CASES)
async def test_the_session_receives_what_stock_hands_it(canned: str, case: str) -> None:
    stock = await _exchange(canned, case)
    report = adapters.install()
    assert "http-client" in report.patched or "http-client" in report.waiting
    adapted = await _exchange(canned, case)
    assert repr(adapted) == repr(stock)  # (repr: a NaN is not equal to itself)
    if case == "drop":  # the connection dropped mid-body: the transport fails, in both
        assert stock[-1][0] == "raised" and "RemoteProtocolError" in stock[-1][1]
    if case.startswith("bad") or case.startswith("sse-bad"):
        assert "validation error" in repr(stock[-1]) or "Failed to parse" in repr(stock[-1])


async def test_the_native_path_is_taken(canned: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A good JSON body and SSE event are read natively, without the SDK's parser."""
    import mcp.client.streamable_http as transport

    adapters.install()

    class Refused:
        def validate_json(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the stock parser ran")

    monkeypatch.setattr(transport, "jsonrpc_message_adapter", Refused())
    for case in ("ok", "big", "sse-ok", "sse-big", "sse-ids"):
        seen = await _exchange(canned, case)
        assert seen[-1][0] == "JSONRPCResponse"


# --- a real server ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["json", "sse"])
def real(request: pytest.FixtureRequest, served: Served) -> Iterator[tuple[str, str]]:
    env = {**stock_env(), "HTTP_APP": "mcpserver", "HTTP_RESPONSE": request.param, "HTTP_STATE": "stateless-2025"}
    env["FASTMCP_LOG_LEVEL"] = "WARNING"
    cmd = uvicorn("http_app:app")
    with served(lambda port: [*cmd(port), "--app-dir", str(ROOT / "benchmarks")], ROOT, env) as port:
        yield f"http://127.0.0.1:{port}/mcp", request.param


async def _calls(url: str, mode: str) -> tuple[list[Any], list[tuple[float, float | None, str | None]]]:
    notified: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notified.append((progress, total, message))

    results: list[tuple[Any, ...]] = []
    async with Client(url, mode=mode) as client:
        for name, args in (
            ("get_weather", {"city": "Paris"}),
            ("list_records", {"count": 200}),
            ("broken_weather", {"city": "Oslo"}),
            ("ticking", {"steps": 5}),
        ):
            try:
                result = await client.call_tool(name, args, progress_callback=on_progress)
                results.append((type(result).__name__, result.model_dump(), sorted(result.model_fields_set)))
            except Exception as e:
                results.append((type(e).__name__, str(e)))
    return results, notified


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_real_server_gives_stock_results(real: tuple[str, str], mode: str) -> None:
    url, response = real
    stock, stock_progress = await _calls(url, mode)
    adapters.install()
    adapted, adapted_progress = await _calls(url, mode)
    assert adapted == stock
    assert adapted[0][1]["structured_content"]["city"] == "Paris"
    assert len(adapted[1][1]["structured_content"]["records"]) == 200
    assert adapted_progress == stock_progress
    if response == "sse" and mode == "legacy":  # (a 2026-07-28 call's progress is not streamed back)
        assert [p[0] for p in adapted_progress] == [1, 2, 3, 4, 5]


async def test_uninstall_restores_the_transport() -> None:
    import mcp.client.streamable_http as transport

    json_response = transport.StreamableHTTPTransport._handle_json_response
    sse_event = transport.StreamableHTTPTransport._handle_sse_event
    adapters.install()
    assert transport.StreamableHTTPTransport._handle_json_response is not json_response
    assert transport.StreamableHTTPTransport._handle_sse_event is not sse_event
    adapters.uninstall()
    assert transport.StreamableHTTPTransport._handle_json_response is json_response
    assert transport.StreamableHTTPTransport._handle_sse_event is sse_event
    adapters.install(client=False)
    assert transport.StreamableHTTPTransport._handle_json_response is json_response
