"""Every public entry point, called many times on valid, invalid and raising paths, keeps memory
flat once warm: Python objects (tracemalloc) and the process's resident size (native memory).

Each round moves ~10 KB of data per call, so a leak of the input or of a result shows as
megabytes. `python tests/python/test_leaks.py 1000000` runs the long version (a million calls per
entry point) and prints the figures.
"""

from __future__ import annotations

import gc
import os
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from mcp_native import SchemaError, Tool, ValidationError, Validator, dumps, jsonrpc, loads, sse
from mcp_native._core import model_copies
from mcp_native.tools import mcp_tool_result

SCHEMA = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "s": {"type": "string", "pattern": "^x"}},
                "required": ["id"],
            },
        }
    },
    "required": ["rows"],
}
GOOD = {"rows": [{"id": i, "s": "x" * 40} for i in range(150)]}
BAD = {"rows": [{"id": i if i % 50 else str(i), "s": "x" * 40} for i in range(150)]}  # three errors
GOOD_TEXT, BAD_TEXT = dumps(GOOD), dumps(BAD)
V = Validator(SCHEMA)
TOOL = Tool("t", output_schema=SCHEMA, protocol_version="2025-11-25")
RESPONSE = TOOL.encode_response(1, GOOD)


class Opaque:
    pass


class Block(BaseModel, extra="allow"):
    text: str


def raising_default(obj: Any) -> Any:
    raise TypeError("no")


def expect(exc: type[BaseException], f: Callable[..., Any], *args: Any, **kwargs: Any) -> BaseException:
    try:
        f(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{f} did not raise {exc.__name__}")


def decode_rpc() -> None:
    dec = jsonrpc.Decoder(max_message_bytes=8000)
    line = jsonrpc.encode_request(1, "tools/call", GOOD)
    dec.feed(line[:3000])
    dec.feed(line[3000:] + b"{bad json\n" + b'{"jsonrpc":"2.0","id":[1],"method":"m"}\n' + b"x" * 9000 + b"\n")
    dec.feed(b'{"jsonrpc":"2.0","method":"m"')
    dec.close()


def copy_models() -> None:
    """A template of fresh ~10 KB values each call (a reference to its state left behind keeps
    them alive), copied 50 times (a fields set or extra dict left behind shows 50 times over)."""
    template = Block.model_validate({"text": GOOD_TEXT.decode() + "!", "z": [GOOD_TEXT.decode() + "?"]})
    model_copies(template, "text", ["x"] * 50)
    expect(TypeError, model_copies, template, "missing", ["x"])


def check_results() -> None:
    TOOL.check_result(RESPONSE)
    expect(ValidationError, TOOL.check_result, RESPONSE.replace(b'"id":0', b'"id":"0"'))


ENTRY_POINTS: dict[str, Callable[[], Any]] = {
    "loads": lambda: loads(GOOD_TEXT),
    "loads invalid": lambda: expect(ValueError, loads, GOOD_TEXT[:-1]),
    "dumps": lambda: dumps(GOOD),
    "dumps default": lambda: dumps([GOOD, Opaque()], default=lambda o: "opaque"),
    "dumps raising default": lambda: expect(TypeError, dumps, [GOOD, Opaque()], default=raising_default),
    "dumps nan": lambda: expect(ValueError, dumps, [GOOD, float("nan")]),
    "dumps indent": lambda: dumps(GOOD, indent=2),
    "Validator": lambda: Validator(SCHEMA),
    "Validator invalid": lambda: expect(SchemaError, Validator, {"properties": {"a": {"pattern": "("}}, "x": GOOD}),
    "is_valid": lambda: (V.is_valid(GOOD), V.is_valid(BAD)),
    "is_valid_json": lambda: (V.is_valid_json(GOOD_TEXT), V.is_valid_json(BAD_TEXT)),
    "validate": lambda: expect(ValidationError, V.validate, BAD),
    "iter_errors": lambda: list(V.iter_errors(BAD)),
    "iter_errors_json": lambda: list(V.iter_errors_json(BAD_TEXT)),
    "is_valid_json bad JSON": lambda: expect(ValueError, V.is_valid_json, BAD_TEXT[:-1]),
    "jsonrpc.Decoder": decode_rpc,
    "jsonrpc.encode_*": lambda: (
        jsonrpc.encode_request(1, "m", GOOD),
        jsonrpc.encode_response(1, GOOD),
        jsonrpc.encode_error(1, -1, "m", GOOD),
        expect(TypeError, jsonrpc.encode_response, 1, {"a": Opaque()}),
    ),
    "sse": lambda: sse.Decoder().feed(sse.encode_event(GOOD_TEXT, id="1") + b"data: x"),
    "Tool": lambda: Tool("t", input_schema=SCHEMA, output_schema=SCHEMA),
    "Tool.result": lambda: (TOOL.result(GOOD), expect(ValidationError, TOOL.result, BAD)),
    "Tool.encode_response": lambda: (
        TOOL.encode_response(1, GOOD),
        expect(ValidationError, TOOL.encode_response, 2, BAD),
    ),
    "Tool.check_result": check_results,
    "mcp_tool_result": lambda: (
        mcp_tool_result(GOOD),
        mcp_tool_result(content=[{"type": "text", "text": GOOD_TEXT.decode()}], is_error=True),
        expect(TypeError, mcp_tool_result, {"a": Opaque()}),
    ),
    "model_copies": copy_models,
}


# AddressSanitizer (scripts/test --sanitize) holds freed blocks in quarantine: resident size
# grows there without a leak, so only the Python side is measured under it.
SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def growth(call: Callable[[], Any], rounds: int, calls: int) -> tuple[int, int]:
    """(RSS growth, traced Python memory growth, 0 unless tracemalloc runs) over `rounds` rounds
    after a warm-up round."""
    for _ in range(calls):
        call()
    gc.collect()
    rss0 = rss_bytes()
    traced0 = tracemalloc.get_traced_memory()[0]
    for _ in range(rounds):
        for _ in range(calls):
            call()
    gc.collect()
    return rss_bytes() - rss0, tracemalloc.get_traced_memory()[0] - traced0


def test_memory_stays_flat() -> None:
    for name, call in ENTRY_POINTS.items():
        rss, _ = growth(call, rounds=1, calls=200)
        # 200 calls of ~10 KB each: a leak of the data would be ~2 MB.
        assert SANITIZED or rss < 1 << 20, f"{name}: resident memory grew by {rss} bytes"
    tracemalloc.start()  # (slow: fewer calls, and a leak of any Python object shows)
    try:
        for name, call in ENTRY_POINTS.items():
            _, traced = growth(call, rounds=1, calls=10)
            assert traced < 32 << 10, f"{name}: Python memory grew by {traced} bytes"
    finally:
        tracemalloc.stop()


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    for name, call in ENTRY_POINTS.items():
        rss, _ = growth(call, rounds=1, calls=n)
        print(f"{name:24} {n} calls: RSS {rss / 1024:+.0f} KiB")
