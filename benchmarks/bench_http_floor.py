"""Where a Streamable HTTP call's CPU goes below the HTTP server: in process, without one.

Each configuration of ``http_app.py`` (MCPServer or fastmcp; 2026-07-28 or 2025-era stateless
requests; JSON or SSE responses; the example tools as written, sync, or as coroutine functions)
is loaded in a fresh interpreter, stock and adapted (``MCP_NATIVE_ADAPTERS=1``), its lifespan
started, and driven by ``tools/call`` requests handed straight to its ASGI app (a scope, the
body, a ``send`` that keeps the messages; every answer checked for its city). Reported: the
process CPU per call, the best of 5 windows, and adapted/stock. Beside them, what a sync tool's
worker-thread hop costs alone (``anyio.to_thread.run_sync``, as MCPServer and fastmcp run a
sync tool; ``loop.run_in_executor``; a direct call, which is what minimcp does: it calls a sync
tool on the event loop).

The HTTP server (uvicorn, its protocol, starlette's routing) comes on top: ``bench_http.py``
measures that whole, under load. This one shows what is left to take out of the SDKs' own
path, and what no adapter can take out without changing what a sync tool runs on.

``--callgrind`` counts instructions per call instead (steady where CPU time swings with the
machine's other load): each child runs under ``valgrind --tool=callgrind`` twice, with 40 and
240 calls per window, and the difference is divided by the 1,000 calls it adds; the collector is
off in those children (its share depends on the heap, see ``doctor``). About 3 minutes a row.

    python benchmarks/bench_http_floor.py [--calls N] [--framework mcpserver|fastmcp ...]
        [--era 2026-07-28|"2025 era" ...] [--response json|sse ...] [--tools sync|async ...] [--callgrind]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ERAS = {"2026-07-28": "stateless", "2025 era": "stateless-2025"}
META = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'


def _body(i: int, modern: bool) -> bytes:
    meta = META if modern else ""
    params = f'{{"name":"get_weather","arguments":{{"city":"c{i}"}}{meta}}}'
    return f'{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{params}}}'.encode()


def post_scope(headers: list[tuple[bytes, bytes]], body: bytes) -> dict[str, Any]:
    """The ASGI scope of a POST of ``body`` to ``/mcp`` with ``headers`` (its length added), as an
    HTTP server passes it to the app (also the in-process tests' requests)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": b"",
        "root_path": "",
        "headers": [*headers, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
        "state": {},
    }


async def _drive(calls: int) -> float:
    """In the child: CPU µs per call through the app ``http_app`` builds from the environment."""
    sys.path.insert(0, str(HERE))
    import logging

    from http_app import app

    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger("mcp").setLevel(logging.WARNING)
    modern = os.environ["HTTP_STATE"] == "stateless"
    version = b"2026-07-28" if modern else b"2025-11-25"
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", version),
        (b"mcp-method", b"tools/call"),
        (b"mcp-name", b"get_weather"),
    ]

    async def call(i: int) -> None:
        body = _body(i, modern)
        scope = post_scope(headers, body)
        sent: list[dict[str, Any]] = []
        read = False

        async def receive() -> dict[str, Any]:
            nonlocal read
            if not read:
                read = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays until its answer
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        if sent[0]["status"] != 200 or b"c%d" % i not in out:
            raise SystemExit(f"call {i}: {sent[0]['status']} {out[:300]!r}")

    if os.environ.get("HTTP_FLOOR_NO_GC"):
        gc.disable()
    async with app.router.lifespan_context(app):
        for i in range(300):  # warm up
            await call(i)
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            for i in range(calls):
                await call(i)
            best = min(best, (time.process_time() - start) / calls * 1e6)
    return best


def _hops(calls: int) -> dict[str, float]:
    """CPU µs per call of a no-op sync function run as a sync tool is, and directly."""
    import anyio.to_thread

    def noop() -> None:
        return None

    async def measure() -> dict[str, float]:
        loop = asyncio.get_running_loop()
        ways = {
            "anyio.to_thread.run_sync (MCPServer, fastmcp)": lambda: anyio.to_thread.run_sync(noop),
            "loop.run_in_executor": lambda: loop.run_in_executor(None, noop),
        }
        out = {}
        for name, way in ways.items():
            best = float("inf")
            for _ in range(3):
                start = time.process_time()
                for _ in range(calls):
                    await way()
                best = min(best, (time.process_time() - start) / calls * 1e6)
            out[name] = best
        start = time.process_time()
        for _ in range(calls):
            noop()
        out["a direct call on the loop (minimcp)"] = (time.process_time() - start) / calls * 1e6
        return out

    return asyncio.run(measure())


def _child(env: dict[str, str], calls: int, callgrind: bool = False) -> float:
    """CPU µs per call in a child run with ``env``; with ``callgrind``, instructions per call."""
    cmd = [sys.executable, __file__, "--child", "--calls", str(calls)]
    base = {k: v for k, v in os.environ.items() if k != "MCP_NATIVE_ADAPTERS"}
    if not callgrind:
        done = subprocess.run(cmd, env={**base, **env}, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"bench_http_floor: {env}: {done.stderr[-2000:]}")
        return float(done.stdout.strip().splitlines()[-1])
    counts = []
    for n in (40, 240):
        grind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd[:-1], str(n)]
        done = subprocess.run(grind, env={**base, **env, "HTTP_FLOOR_NO_GC": "1"}, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"bench_http_floor: {env}: {done.stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return (counts[1] - counts[0]) / (5 * 200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000, help="calls per window (5 windows)")
    ap.add_argument("--framework", action="append", choices=["mcpserver", "fastmcp"])
    ap.add_argument("--era", action="append", choices=list(ERAS))
    ap.add_argument("--response", action="append", choices=["json", "sse"])
    ap.add_argument("--tools", action="append", choices=["sync", "async"])
    ap.add_argument("--callgrind", action="store_true", help="instructions per call, counted by callgrind")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(asyncio.run(_drive(args.calls)))
        return
    if args.callgrind and shutil.which("valgrind") is None:
        raise SystemExit("bench_http_floor: --callgrind needs valgrind (scripts/apt-install valgrind)")
    unit = "instructions" if args.callgrind else "CPU µs"
    if not args.callgrind:
        print("A sync tool's worker-thread hop alone, CPU µs per call:")
        for name, us in _hops(args.calls).items():
            print(f"  {name}: {us:.1f}")
    print(f"\n| framework | requests | responses | tools | {unit}/call stock → mcp-native | adapted/stock |")
    print("|---|---|---|---|---:|---:|")
    rows = []
    for framework in args.framework or ["mcpserver", "fastmcp"]:
        for era in args.era or list(ERAS):
            for response in args.response or ["json", "sse"]:
                for tools in args.tools or ["sync", "async"]:
                    state = ERAS[era]
                    env = {"HTTP_APP": framework, "HTTP_STATE": state, "HTTP_RESPONSE": response, "HTTP_TOOLS": tools}
                    stock = _child(env, args.calls, args.callgrind)
                    adapted = _child({**env, "MCP_NATIVE_ADAPTERS": "1"}, args.calls, args.callgrind)
                    rows.append({**env, "unit": unit, "stock": stock, "adapted": adapted})
                    print(
                        f"| {framework} | {era} | {response.upper()} | {tools} | {stock:,.0f} → {adapted:,.0f} "
                        f"| {stock / adapted:.2f}× faster |",
                        flush=True,
                    )
    out = Path(__file__).resolve().parents[1] / "build" / "bench-http-floor.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    print(f"\nbench_http_floor: {out}")


if __name__ == "__main__":
    main()
