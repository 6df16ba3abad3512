"""Request bodies on the 2026-07-28 Streamable HTTP path (``http-modern-bodies``): a stock and an
adapted uvicorn server on 127.0.0.1 give the same answer (status, content type, and the same JSON:
the adapted server writes results with raw UTF-8 where the stock one escapes, errors byte for
byte) to well-formed calls and to bodies ``mcp_native.loads`` reads, refuses or must leave to
``json.loads`` (encodings it does not take, nesting, sizes past the SDK's limit)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from http_pair import Served, exchange, json_body
from mcp_native import adapters

APP = """
import mcp.server._streamable_http_modern as modern
from mcp.server.mcpserver import MCPServer
from starlette.responses import JSONResponse

server = MCPServer("bodies")


@server.tool()
def echo(value: object = None, city: str = "") -> dict:
    \"\"\"Returns what it was given, as Python sees it (ascii: 1 is not 1.0, a lone surrogate shows).\"\"\"
    return {"value": ascii(value), "city": city}


@server.custom_route("/probe", methods=["GET"])
async def probe(request):
    kind = type(modern.json)
    return JSONResponse({"json": f"{kind.__module__}.{kind.__qualname__}"})


app = server.streamable_http_app(json_response=True, stateless_http=True, max_request_body_size=65536)
"""

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "echo",
}


def call(value: object, id: object = 1) -> bytes:
    params = {"name": "echo", "arguments": {"value": value}, "_meta": META}
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).encode()


def nested(depth: int) -> bytes:
    return call(None).replace(b'"value": null', b'"value": ' + b"[" * depth + b"]" * depth)


BODIES = {
    "call": call({"a": [1, 2.5, None, True, "\u00e9\U0001f600"]}),
    "call with escapes": call('\u00e9\U0001f600\n"\\').replace(b"\\u00e9", b"\\u00E9"),
    "long string": call("x" * 5000),
    "many brackets": call([{"k": [i]} for i in range(300)]),
    "big integers": call([2**70, -(2**64), 1e400, 5e-324], id=2**70),
    "float id": call(1, id=1.0),
    "string id": call(1, id="a"),
    "duplicate keys": call(1)[:-1] + b', "id": 7}',
    "escaped lone surrogate": call(None).replace(b"null", b'"\\ud800"'),
    "encoded surrogate": call(None).replace(b"null", b'"\xed\xa0\x80"'),
    "NaN": call(None).replace(b"null", b"NaN"),
    "byte-order mark": b"\xef\xbb\xbf" + call(1),
    "UTF-16": call(1).decode().encode("utf-16"),
    "invalid UTF-8": call(None).replace(b"null", b'"\xff"'),
    "nesting 150": nested(150),
    "nesting 950": nested(950),
    "nesting 5000": nested(5000),
    "not JSON": b'{"jsonrpc": "2.0", "id": 1,',
    "empty": b"",
    "trailing data": call(1) + b" x",
    "two lines": call(1) + b"\n" + call(2),
    "batch": b"[" + call(1) + b"]",
    "scalar": b"1",
    "notification": json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}).encode(),
    "JSON-RPC 1.0": call(1).replace(b'"2.0"', b'"1.0"'),
    "response": b'{"jsonrpc": "2.0", "id": 1, "result": {}}',
    "no _meta": call(1).replace(b'"_meta"', b'"meta"'),
    "over the body limit": call("y" * 70000),
}


def _request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, str | None, object]:
    """Status, content type, and the body's JSON (its bytes if it has none)."""
    status, kind, _, raw = exchange(port, method, path, body, HEADERS if body is not None else {})
    return status, kind, json_body(kind, raw)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, served: Served) -> Iterator[tuple[int, int]]:
    tmp_path = tmp_path_factory.mktemp("bodies")
    (tmp_path / "bodies_app.py").write_text(APP)
    stock_env = {k: v for k, v in os.environ.items() if k != adapters.ENVIRONMENT}

    def uvicorn(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "bodies_app:app", "--port", str(port), "--log-level", "warning"]

    with (
        served(uvicorn, tmp_path, stock_env) as stock,
        served(uvicorn, tmp_path, {**stock_env, adapters.ENVIRONMENT: "1"}) as adapted,
    ):
        yield stock, adapted


def test_the_adapted_server_parses_bodies_natively(servers: tuple[int, int]) -> None:
    stock, adapted = servers
    assert _request(stock, "GET", "/probe")[2] == {"json": "builtins.module"}
    assert _request(adapted, "GET", "/probe")[2] == {"json": "mcp_native.adapters._engines.http._Json"}


@pytest.mark.parametrize("name", list(BODIES))
def test_stock_and_adapted_answer_alike(servers: tuple[int, int], name: str) -> None:
    stock, adapted = servers
    answer = _request(stock, "POST", "/mcp", BODIES[name])
    assert _request(adapted, "POST", "/mcp", BODIES[name]) == answer
    if name == "call":  # the fixture serves what these bodies are compared on
        assert answer[:2] == (200, "application/json")
        text = answer[2]["result"]["content"][0]["text"]  # type: ignore[index]
        assert json.loads(text)["value"] == ascii({"a": [1, 2.5, None, True, "\u00e9\U0001f600"]})


@pytest.mark.usefixtures("adapters_restored")
def test_install_checks_the_module_global_and_uninstall_restores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcp.server._streamable_http_modern as modern

    from mcp_native.adapters._engines import http

    adapters.install()
    assert vars(modern)["json"] is http.modern_json
    adapters.uninstall()
    assert vars(modern)["json"] is json
    # Something else bound there (another patcher's wrapper): left alone, the group stays stock.
    monkeypatch.setattr(modern, "json", http.modern_json.__class__())
    with pytest.warns(RuntimeWarning, match="http-modern-bodies left stock: .*expected json"):
        report = adapters.install()
    assert "http-modern-bodies" in report.stock
    left = vars(modern)["json"]
    assert type(left) is type(http.modern_json) and left is not http.modern_json
