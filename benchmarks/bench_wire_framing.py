"""JSON-RPC framing: Decoder.feed on a stdio stream of tools/call requests, the encoders, SSE.

Decoding is compared per message with orjson.loads of the same line (the floor any framing
built on a JSON parser pays) and with a pure-Python framer (split lines, json.loads, classify).
Encoding is compared with orjson.dumps of the equivalent dict (with OPT_APPEND_NEWLINE).
SSE: encode_event against sse-starlette's ServerSentEvent.encode (what the official SDK's
server uses), and the SSE decoder per event on a 64 KiB-chunked stream.
Run: python benchmarks/bench_wire_framing.py [--quick]
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any, Callable

import orjson

import mcp_native
from mcp_native import jsonrpc, sse

CHUNK = 64 * 1024


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


def bench_decode(name: str, big: bool, n: int, repeat: int) -> dict[str, float]:
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

    def our_loads() -> None:  # the JSON part alone: the framing's own cost is the difference
        loads = mcp_native.loads
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

    t_ours, t_orjson, t_kept, t_loads, t_py = (
        t / n for t in race([ours, orjson_loads, orjson_loads_kept, our_loads, baseline], repeat)
    )
    avg = len(stream) / n
    print(f"  decode {name:5s} (~{avg:.0f} B/line, {n} lines, {CHUNK // 1024} KiB chunks): ours {t_ours * 1e9:6.0f} ns/msg\n"
          f"    vs orjson.loads per line {t_orjson * 1e9:6.0f} ns: ratio {t_ours / t_orjson:.2f}x"
          f" | kept per chunk {t_kept * 1e9:6.0f} ns: ratio {t_ours / t_kept:.2f}x"
          f" | pure-Python framer {t_py * 1e9:6.0f} ns: ours {t_py / t_ours:.1f}x faster\n"
          f"    (mcp_native.loads per line {t_loads * 1e9:6.0f} ns = {t_loads / t_orjson:.2f}x orjson.loads)")
    return {
        "ns_per_message": t_ours * 1e9,
        "orjson_loads_ns": t_orjson * 1e9,
        "ratio_vs_orjson_loads": t_ours / t_orjson,
        "orjson_loads_kept_per_chunk_ns": t_kept * 1e9,
        "ratio_vs_orjson_loads_kept_per_chunk": t_ours / t_kept,
        "mcp_native_loads_ns": t_loads * 1e9,
        "pure_python_ns": t_py * 1e9,
        "speedup_vs_pure_python": t_py / t_ours,
        "bytes_per_line": avg,
    }


def bench_encode(repeat: int, n: int) -> dict[str, dict[str, float]]:
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
    out = {}
    for name, (ours, theirs) in cases.items():
        assert json.loads(ours()) == json.loads(theirs())

        def loop(f: Callable[[], Any] = ours) -> None:
            for _ in range(n):
                f()

        def loop_theirs(f: Callable[[], Any] = theirs) -> None:
            for _ in range(n):
                f()

        t_ours, t_theirs = (t / n for t in race([loop, loop_theirs], repeat))
        print(f"  {name:24s}: ours {t_ours * 1e9:6.0f} ns | orjson.dumps {t_theirs * 1e9:6.0f} ns "
              f"(ratio {t_ours / t_theirs:.2f}x)")
        out[name] = {"ns": t_ours * 1e9, "orjson_dumps_ns": t_theirs * 1e9, "ratio_vs_orjson_dumps": t_ours / t_theirs}
    return out


def bench_sse(repeat: int, n: int) -> dict[str, float]:
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

    t_enc, t_star, t_dec, t_loads = (t / n for t in race([ours_encode, starlette_encode, ours_decode, orjson_loads], repeat))
    print(f"  sse encode_event (1 KB): ours {t_enc * 1e9:6.0f} ns | sse-starlette {t_star * 1e9:6.0f} ns (ratio {t_enc / t_star:.2f}x)")
    print(f"  sse Decoder.feed (1 KB events): ours {t_dec * 1e9:6.0f} ns/event (orjson.loads of the payload: {t_loads * 1e9:6.0f} ns)")
    return {
        "encode_event_ns": t_enc * 1e9,
        "sse_starlette_encode_ns": t_star * 1e9,
        "ratio_vs_sse_starlette": t_enc / t_star,
        "decode_ns_per_event": t_dec * 1e9,
        "orjson_loads_payload_ns": t_loads * 1e9,
    }


def main(quick: bool = False) -> dict[str, Any]:
    repeat = 3 if quick else 9
    print("[bench_wire_framing] JSON-RPC framing (ratios < 1 mean mcp-native is faster)")
    summary: dict[str, Any] = {
        "decode_1kb": bench_decode("1 KB", True, 2000 if quick else 20000, repeat),
        "decode_small": bench_decode("small", False, 5000 if quick else 50000, repeat),
        "encode": bench_encode(repeat, 2000 if quick else 20000),
        "sse": bench_sse(repeat, 1000 if quick else 10000),
    }
    return summary


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
