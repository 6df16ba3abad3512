"""The adapted Streamable HTTP client transport (``http-client``: mcp 2.x's
``StreamableHTTPTransport._handle_json_response`` and ``_handle_sse_event``) against real uvicorn
servers on 127.0.0.1: what the transport hands to the session is the stock transport's, model for
model (type, fields, fields set, repr), for JSON bodies and SSE events a server writes, good or
malformed (the same parse errors, word for word), for a server that drops the connection, and
for a stream that ends without an answer; a real MCPServer's results through ``mcp.client.Client``
are stock's, JSON and SSE, both eras, and progress notifications arrive in order."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
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

from mcp_native import adapters

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup  # anyio's backport on 3.10

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

ROOT = Path(__file__).resolve().parents[2]

# conftest's ``served``: ``with served(lambda port: cmd, cwd, env) as port:``.
Served = Callable[[Callable[[int], list[str]], Path, dict[str, str]], AbstractContextManager[int]]

# A server that answers each POST with the body its case names (params.case), "ID" replaced by
# the request's id; "DROP" in a case's chunks drops the connection there.
CANNED_APP = r"""
import json

OK = b'{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"hi \xc3\xa9"}],"isError":false}}'
PROGRESS = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"total":1.0}}'
DEEP = b'{"jsonrpc":"2.0","id":ID,"result":{"d":' + b"[" * 250 + b"]" * 250 + b"}}"
BIG = b'{"jsonrpc":"2.0","id":ID,"result":{"structuredContent":{"records":[' + b",".join(
    b'{"id":%d,"name":"User %d","score":%d.25,"tags":["a","b"],"big":123456789012345678901234567890}' % (i, i, i)
    for i in range(200)
) + b']},"content":[]}}'
JSON = "application/json"
SSE = "text/event-stream"


def sse(*datas, event=None, id=None):
    out = b""
    for data in datas:
        if event:
            out += b"event: " + event + b"\n"
        if id:
            out += b"id: " + id + b"\n"
        for line in data.split(b"\n"):
            out += b"data: " + line + b"\n"
        out += b"\n"
    return out


CASES = {
    "ok": (JSON, [OK]),
    "ok-newline": (JSON, [OK + b"\n"]),
    "ok-chunked": (JSON, [OK[:10], OK[10:40], OK[40:]]),
    "big": (JSON, [BIG]),
    "pretty": (JSON, [b'{\n  "jsonrpc": "2.0",\n  "id": ID,\n  "result": {}\n}']),
    "server-request": (JSON, [b'{"jsonrpc":"2.0","id":"s1","method":"ping","params":{"a":[1,2.5,null]}}']),
    "error": (JSON, [b'{"jsonrpc":"2.0","id":ID,"error":{"code":-32000,"message":"boom","data":{"x":1}}}']),
    "error-no-id": (JSON, [b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom"}}']),
    "bad-json": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":']),
    "bad-envelope": (JSON, [b'{"jsonrpc":"1.0","id":ID,"result":{}}']),
    "result-list": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":[]}']),
    "params-null": (JSON, [b'{"jsonrpc":"2.0","method":"notifications/x","params":null}']),
    "float-id": (JSON, [b'{"jsonrpc":"2.0","id":1.0,"result":{}}']),
    "batch": (JSON, [b'[{"jsonrpc":"2.0","id":ID,"result":{}}]']),
    "two": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":{}}\n{"jsonrpc":"2.0","id":ID,"result":{}}']),
    "trailing": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":{}} x']),
    "empty": (JSON, [b""]),
    "bom": (JSON, [b'\xef\xbb\xbf{"jsonrpc":"2.0","id":ID,"result":{}}']),
    "bad-utf8": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":{"s":"\xff"}}']),
    "lone-surrogate": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":{"s":"\\ud800"}}']),
    "surrogate-pair": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":{"s":"\\ud83d\\ude00"}}']),
    "deep": (JSON, [DEEP]),
    "nan": (JSON, [b'{"jsonrpc":"2.0","id":ID,"result":{"x":NaN}}']),
    "drop": (JSON, [OK[:30], "DROP"]),
    "sse-ok": (SSE, [sse(PROGRESS, OK)]),
    "sse-big": (SSE, [sse(BIG)]),
    "sse-string-id": (SSE, [sse(OK.replace(b"ID", b'"ID"'))]),
    "sse-ids": (SSE, [sse(b"", id=b"0"), sse(PROGRESS, id=b"1"), sse(OK, id=b"2")]),
    "sse-split": (SSE, [sse(PROGRESS, OK)[:37], sse(PROGRESS, OK)[37:]]),
    "sse-multiline": (SSE, [sse(b'{"jsonrpc":"2.0",\n"id":ID,"result":{}}')]),
    "sse-other-event": (SSE, [sse(PROGRESS, event=b"ping"), sse(OK)]),
    "sse-bad-json": (SSE, [sse(PROGRESS, b'{"jsonrpc":"2.0","id":ID,"result":')]),
    "sse-bad-envelope": (SSE, [sse(b'{"jsonrpc":"2.0","id":true,"result":{}}')]),
    "sse-error": (SSE, [sse(b'{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"no"}}')]),
    "sse-error-no-id": (SSE, [sse(b'{"jsonrpc":"2.0","error":{"code":-32601,"message":"no"}}')]),
    "sse-surrogate": (SSE, [sse(b'{"jsonrpc":"2.0","id":ID,"result":{"s":"\\udc00"}}')]),
    "sse-deep": (SSE, [sse(DEEP)]),
    "sse-crlf": (SSE, [sse(PROGRESS, OK).replace(b"\n", b"\r\n")]),
    "sse-ends": (SSE, [sse(PROGRESS)]),
    "sse-drop": (SSE, [sse(PROGRESS), b"data: {\"jsonrpc\"", "DROP"]),
}


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    body, more = b"", True
    while more:
        message = await receive()
        body, more = body + message.get("body", b""), message.get("more_body", False)
    request = json.loads(body)
    kind, chunks = CASES[request["params"]["case"]]
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind.encode())]})
    for chunk in chunks:
        if chunk == "DROP":
            raise RuntimeError("connection dropped")
        await send({"type": "http.response.body", "body": chunk.replace(b"ID", str(request["id"]).encode()), "more_body": True})
    await send({"type": "http.response.body", "body": b""})
"""

CASES = [
    "ok", "ok-newline", "ok-chunked", "big", "pretty", "server-request", "error", "error-no-id", "bad-json",
    "bad-envelope", "result-list", "params-null", "float-id", "batch", "two", "trailing", "empty", "bom",
    "bad-utf8", "lone-surrogate", "surrogate-pair", "deep", "nan", "drop", "sse-ok", "sse-big", "sse-string-id",
    "sse-ids", "sse-split", "sse-multiline", "sse-other-event", "sse-bad-json", "sse-bad-envelope", "sse-error",
    "sse-error-no-id", "sse-surrogate", "sse-deep", "sse-crlf", "sse-ends", "sse-drop",
]  # fmt: skip


def _uvicorn(module: str) -> Callable[[int], list[str]]:
    def cmd(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", module, "--port", str(port), "--log-level", "critical"]

    return cmd


def _stock_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}


@pytest.fixture(scope="module")
def canned(tmp_path_factory: pytest.TempPathFactory, served: Served) -> Iterator[str]:
    tmp_path = tmp_path_factory.mktemp("canned")
    (tmp_path / "canned_app.py").write_text(CANNED_APP)
    with served(_uvicorn("canned_app:app"), tmp_path, _stock_env()) as port:
        yield f"http://127.0.0.1:{port}/mcp"


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
        seen.append(("raised", *_leaves(e)))
    return seen


def _leaves(e: BaseException) -> list[str]:
    if isinstance(e, BaseExceptionGroup):
        return [leaf for inner in e.exceptions for leaf in _leaves(inner)]
    return [f"{type(e).__name__}: {e}"]


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
    env = {**_stock_env(), "HTTP_APP": "mcpserver", "HTTP_RESPONSE": request.param, "HTTP_STATE": "stateless-2025"}
    env["FASTMCP_LOG_LEVEL"] = "WARNING"
    cmd = _uvicorn("http_app:app")
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
