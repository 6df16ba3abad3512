"""A canned Streamable HTTP server for the client transports' tests (both SDK lines): each POST
is answered with the body its case names, good or malformed, JSON or SSE."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from mcp_native import adapters

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup  # anyio's backport on 3.10

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


# conftest's ``served``: ``with served(lambda port: cmd, cwd, env) as port:``.
Served = Callable[[Callable[[int], list[str]], Path, dict[str, str]], AbstractContextManager[int]]


def uvicorn(module: str) -> Callable[[int], list[str]]:
    def cmd(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", module, "--port", str(port), "--log-level", "critical"]

    return cmd


def leaves(e: BaseException) -> list[str]:
    if isinstance(e, BaseExceptionGroup):
        return [leaf for inner in e.exceptions for leaf in leaves(inner)]
    return [f"{type(e).__name__}: {e}"]


def stock_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}
