"""Writes the seed corpus of every fuzz target (cpp_* are the libFuzzer ones) into OUT/<target>/ from the reference data in
../shared (JSONTestSuite, JSON-Schema-Test-Suite, the MCP schemas) and a few messages of the
tests' kind. Nothing of it is committed: this script is the corpus.

    python tests/fuzz/make_corpus.py OUT
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

SHARED = Path(os.environ.get("MCP_NATIVE_SHARED", Path(__file__).resolve().parents[3] / "shared"))
MAX_SEED = 4096  # bytes: small seeds mutate faster


def write(out: Path, target: str, data: bytes) -> None:
    if len(data) <= MAX_SEED:
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def suite_cases() -> list[tuple[object, object]]:
    cases = []
    for path in sorted((SHARED / "json-schema-test-suite" / "tests").rglob("*.json")):
        for group in json.loads(path.read_text()):
            for test in group["tests"]:
                cases.append((group["schema"], test["data"]))
    return cases


def mcp_examples() -> list[object]:
    """Every value under the MCP schemas' `examples` and `default`, and the definitions."""
    found: list[object] = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("examples", "default") and isinstance(v, list):
                    found.extend(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for path in sorted((SHARED / "mcp-schema").glob("*/schema.json")):
        doc = json.loads(path.read_text())
        walk(doc)
        found.extend(doc.get("definitions", doc.get("$defs", {})).values())
    return found


def main(out: Path) -> None:
    parsing = sorted((SHARED / "json-test-suite" / "test_parsing").glob("*.json"))
    texts = [p.read_bytes() for p in parsing]
    for t in texts:
        write(out, "loads", t)
        write(out, "cpp_json", t)
        write(out, "cpp_wire", t + b"\n" + t)
        write(out, "dumps", t)
        write(out, "jsonrpc", t + b"\n" + t)
        write(out, "sse", b"data: " + t + b"\n\n")
    cases = suite_cases()
    for i, (schema, data) in enumerate(cases):
        write(out, "validator", json.dumps([schema, data]).encode())
        write(out, "cpp_schema", bytes([i % 256]) + json.dumps(schema).encode() + b"\0" + json.dumps(data).encode())
        if isinstance(schema, dict) and isinstance(schema.get("pattern"), str) and isinstance(data, str):
            write(out, "cpp_regex_formats", schema["pattern"].encode() + b"\0" + data.encode())
        if isinstance(schema, dict) and "format" in schema and isinstance(data, str):
            write(out, "cpp_regex_formats", data.encode() + b"\0" + data.encode())
        if isinstance(schema, dict) and schema.get("type") == "object":
            write(
                out,
                "tool",
                json.dumps([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}, data]).encode(),
            )
    examples = mcp_examples()
    for i, ex in enumerate(examples):
        write(out, "loads", json.dumps(ex).encode())
        line = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"arguments": ex}}).encode()
        write(
            out,
            "jsonrpc",
            line + b"\n" + json.dumps({"jsonrpc": "2.0", "id": i, "result": {"x": ex}}).encode() + b"\r\n",
        )
        write(out, "cpp_wire", line + b"\n" + b"data: " + line + b"\n\n")
        write(
            out, "sse", b"event: message\nid: " + str(i).encode() + b"\ndata: " + line + b"\n\n: comment\nretry: 10\n\n"
        )
        write(
            out,
            "tool",
            json.dumps(
                [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}, {"v": ex}]
            ).encode(),
        )
        if isinstance(ex, dict) and ex.get("type") == "object":
            write(out, "validator", json.dumps([ex, {}]).encode())
    for line in (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
        b'[{"jsonrpc":"2.0","id":1,"method":"m"}]\n{"jsonrpc":"2.0","id":1.5,"method":"m"}\n',
        b'{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}\r\n\n{bad\n',
    ):
        write(out, "jsonrpc", line)
        write(out, "cpp_wire", line)
    for stream in (b"\xef\xbb\xbfdata: a\r\ndata: b\r\rid: 7\nevent: e\n\n", b"retry: 1000\ndata\n\ndata:x\n"):
        write(out, "sse", stream)
        write(out, "cpp_wire", stream)
    print(f"corpus written to {out}: " + ", ".join(f"{d.name} {len(list(d.iterdir()))}" for d in sorted(out.iterdir())))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
