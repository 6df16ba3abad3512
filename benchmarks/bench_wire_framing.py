"""JSON-RPC framing: Decoder.feed on a stdio stream of tools/call requests, the encoders, SSE.

Decoding is compared per message with orjson.loads of the same line (the floor any framing
built on a JSON parser pays) and with a pure-Python framer (split lines, json.loads, classify).
Encoding is compared with orjson.dumps of the equivalent dict (with OPT_APPEND_NEWLINE).
SSE: encode_event against sse-starlette's ServerSentEvent.encode (what the official SDK's
server uses), and the SSE decoder per event on a 64 KiB-chunked stream.
Run: python benchmarks/bench_wire_framing.py [--quick]

Goals (development notes, not output): Decoder.feed per message no slower than orjson.loads of
the line, the encoders on par with orjson.dumps.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

import orjson

import mcp_native
from mcp_native import jsonrpc, sse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import Table, print_table, result  # noqa: E402

CHUNK = 64 * 1024
OURS = "mcp-native"
LOADS = "orjson.loads per line (no framing)"
LOADS_KEPT = "orjson.loads, a chunk's messages kept"
PY_FRAMER = "pure-Python framer (json.loads)"
DUMPS = "orjson.dumps"
STARLETTE = "sse-starlette ServerSentEvent.encode"
PAYLOAD_LOADS = "orjson.loads of the event data (no framing)"


def tools_call(i: int, rng: random.Random, big: bool) -> dict[str, Any]:
    if big:  # ~1 KB: a realistic tool call with nested arguments
        arguments = {
            "query": "SELECT id, name, created_at FROM customers WHERE region = $1 ORDER BY created_at DESC",
            "parameters": ["eu-west", rng.randint(0, 10**6)],
            "options": {"limit": 100, "timeout_ms": 2500.0, "explain": False, "tags": ["prod", "read-only", "nightly"]},
            "context": {
                "user": {"id": f"u-{rng.randint(0, 10**9)}", "roles": ["analyst", "viewer"], "locale": "fr-FR"},
                "notes": "Rapport trimestriel — données consolidées « brutes » (vérifier les totaux)",
                "history": [{"step": k, "ok": k % 3 != 0, "score": rng.random()} for k in range(6)],
            },
            "filters": [{"field": f"col_{k}", "op": "eq", "value": rng.randint(0, 1000)} for k in range(5)],
        }
    else:
        arguments = {"a": rng.randint(0, 1000), "b": rng.randint(0, 1000)}
    params = {"name": "run_query" if big else "add", "arguments": arguments, "_meta": {"progressToken": i}}
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def race(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """Best time of each function, run in turns so that load on the machine hits all alike."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, t in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def python_framer(chunks: list[bytes]) -> list[tuple[Any, ...]]:
    """The baseline: buffer, split on newlines, json.loads, classify the envelope."""
    out: list[tuple[Any, ...]] = []
    buf = b""
    for chunk in chunks:
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            line = line.rstrip(b"\r")
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                out.append(("invalid", -32700))
                continue
            if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
                out.append(("invalid", -32600))
            elif isinstance(msg.get("method"), str):
                if "id" in msg:
                    rid = msg["id"]
                    if isinstance(rid, bool) or not isinstance(rid, (int, str)):
                        out.append(("invalid", -32600))
                    else:
                        out.append(jsonrpc.Request(rid, msg["method"], msg.get("params")))
                else:
                    out.append(jsonrpc.Notification(msg["method"], msg.get("params")))
            elif "result" in msg:
                out.append(jsonrpc.Response(msg["id"], msg["result"]))
            else:
                out.append(jsonrpc.ErrorResponse(msg.get("id"), msg["error"]))
    return out


def bench_decode(n: int, repeat: int, big: bool) -> dict[str, float]:
    """ns per message of Decoder.feed on a stream of n tools/call lines, and of its peers."""
    rng = random.Random(42)
    lines = [orjson.dumps(tools_call(i, rng, big)) + b"\n" for i in range(n)]
    stream = b"".join(lines)
    chunks = [stream[i : i + CHUNK] for i in range(0, len(stream), CHUNK)]

    def ours() -> None:
        d = jsonrpc.Decoder()
        for c in chunks:
            d.feed(c)

    def orjson_loads() -> None:
        loads = orjson.loads
        for line in lines:
            loads(line)

    # orjson.loads with the decoder's object lifetime: a chunk's worth of messages alive at once
    # (what a framer returning a list per chunk has to hold; it costs cyclic-GC work).
    per_chunk = max(1, CHUNK * n // len(stream))
    groups = [lines[i : i + per_chunk] for i in range(0, n, per_chunk)]

    def orjson_loads_kept() -> None:
        loads = orjson.loads
        for group in groups:
            [loads(line) for line in group]

    def baseline() -> None:
        python_framer(chunks)

    # Same output as the baseline, so the comparison is of equal work.
    d = jsonrpc.Decoder()
    assert [m for c in chunks for m in d.feed(c)] == python_framer(chunks)
    times = race([ours, orjson_loads, orjson_loads_kept, baseline], repeat)
    return dict(zip([OURS, LOADS, LOADS_KEPT, PY_FRAMER], (t / n * 1e9 for t in times)))


def bench_encode(repeat: int, n: int) -> Table:
    rng = random.Random(7)
    big = tools_call(1, rng, True)
    small = tools_call(2, rng, False)
    result = {"content": [{"type": "text", "text": "42"}], "structuredContent": {"sum": 42}, "isError": False}
    nl = orjson.OPT_APPEND_NEWLINE
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "encode_request (1 KB)": (
            lambda: jsonrpc.encode_request(1, "tools/call", big["params"]),
            lambda: orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": big["params"]}, option=nl),
        ),
        "encode_request (small)": (
            lambda: jsonrpc.encode_request(2, "tools/call", small["params"]),
            lambda: orjson.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": small["params"]}, option=nl),
        ),
        "encode_notification": (
            lambda: jsonrpc.encode_notification("notifications/progress", {"progressToken": 1, "progress": 0.5}),
            lambda: orjson.dumps(
                {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 0.5}},
                option=nl,
            ),
        ),
        "encode_response": (
            lambda: jsonrpc.encode_response(3, result),
            lambda: orjson.dumps({"jsonrpc": "2.0", "id": 3, "result": result}, option=nl),
        ),
        "encode_error": (
            lambda: jsonrpc.encode_error(4, -32601, "Method not found"),
            lambda: orjson.dumps({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}}, option=nl),
        ),
    }
    table = Table("jsonrpc.encode_*: one message line", OURS, [DUMPS], "orjson.dumps of the same message dict")
    for name, (ours, theirs) in cases.items():
        assert json.loads(ours()) == json.loads(theirs())

        def loop(f: Callable[[], Any] = ours) -> None:
            for _ in range(n):
                f()

        def loop_theirs(f: Callable[[], Any] = theirs) -> None:
            for _ in range(n):
                f()

        t_ours, t_theirs = (t / n * 1e9 for t in race([loop, loop_theirs], repeat))
        table.add(name, {OURS: t_ours, DUMPS: t_theirs})
    return table


def bench_sse(repeat: int, n: int) -> Table:
    from sse_starlette.event import ServerSentEvent

    rng = random.Random(3)
    payloads = [orjson.dumps(tools_call(i, rng, True)) for i in range(n)]
    texts = [p.decode() for p in payloads]
    stream = b"".join(sse.encode_event(p, id=str(i)) for i, p in enumerate(payloads))
    chunks = [stream[i : i + CHUNK] for i in range(0, len(stream), CHUNK)]
    # Both write the same event.
    theirs = ServerSentEvent(data=texts[0], event="message", id="0").encode()
    assert sse.Decoder().feed(theirs) == sse.Decoder().feed(sse.encode_event(payloads[0], id="0"))

    def ours_encode() -> None:
        for p in payloads:
            sse.encode_event(p, id="1")

    def starlette_encode() -> None:
        for t in texts:
            ServerSentEvent(data=t, event="message", id="1").encode()

    def ours_decode() -> None:
        d = sse.Decoder()
        for c in chunks:
            d.feed(c)

    def orjson_loads() -> None:
        for p in payloads:
            orjson.loads(p)

    t_enc, t_star, t_dec, t_loads = (
        t / n * 1e9 for t in race([ours_encode, starlette_encode, ours_decode, orjson_loads], repeat)
    )
    table = Table("SSE: one event of ~1 KB", OURS, [STARLETTE, PAYLOAD_LOADS])
    table.add("sse.encode_event", {OURS: t_enc, STARLETTE: t_star})
    table.add(f"sse.Decoder.feed ({CHUNK // 1024} KiB chunks)", {OURS: t_dec, PAYLOAD_LOADS: t_loads})
    return table


def main(quick: bool = False) -> dict[str, Any]:
    repeat = 3 if quick else 9
    decode = Table("jsonrpc.Decoder.feed: per message of a stdio stream", OURS, [LOADS, LOADS_KEPT, PY_FRAMER],
                   f"tools/call lines fed in {CHUNK // 1024} KiB chunks")
    # Streams of 2 to 8 MB: many chunks, more than the CPU caches hold.
    decode.add("~1 KB lines", bench_decode(2000 if quick else 8000, repeat, big=True))
    decode.add("small lines", bench_decode(5000 if quick else 20000, repeat, big=False))
    tables = [decode, bench_encode(repeat, 2000 if quick else 10000), bench_sse(repeat, 1000 if quick else 5000)]
    for t in tables:
        print_table(t)
    return result("bench_wire_framing", "JSON-RPC framing and SSE", tables, quick, ["orjson", "sse-starlette"])


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
