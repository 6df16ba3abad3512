"""Test data and checks shared by several test modules (test modules do not import each other)."""

from __future__ import annotations

import base64
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

import mcp_native
from mcp_native import _core
from mcp_native import content as c

# Where the reference data in ../shared lives; conftest.py's `shared` fixture checks it is there.
SHARED = Path(os.environ.get("MCP_NATIVE_SHARED", Path(__file__).resolve().parents[2].parent / "shared"))


# --- MCP schema conformance (test_content, test_tools) -------------------------------------------

VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")


@cache
def _document(shared: Path, version: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared / "mcp-schema" / version / "schema.json").read_text())
    return doc


@cache
def spec_checkers(
    shared: Path, version: str, definition: str
) -> tuple[jsonschema.protocols.Validator, mcp_native.Validator]:
    """Validators of `definition` of the MCP schema `version`: python-jsonschema (the reference)
    and mcp_native.Validator, each on a `$ref` into the whole schema document."""
    doc = _document(shared, version)
    defs = "definitions" if version == "2025-06-18" else "$defs"
    schema = {**doc, "$ref": f"#/{defs}/{definition}"}
    cls = jsonschema.Draft7Validator if version == "2025-06-18" else jsonschema.Draft202012Validator
    return cls(schema), mcp_native.Validator(schema)


def assert_conforms(shared: Path, version: str, definition: str, instance: Any) -> None:
    reference, ours = spec_checkers(shared, version, definition)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in reference.iter_errors(instance)]
    assert not errors, f"{definition} {version}: {errors}"
    assert ours.is_valid(instance), f"{definition} {version}: mcp_native.Validator rejects {instance!r}"
    assert ours.is_valid_json(json.dumps(instance).encode())


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
ANN = {"audience": ["user", "assistant"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}


def all_blocks(version: str) -> list[dict[str, Any]]:
    blocks = [
        c.text('hello "world"\n\u00e9\U0001f600'),
        c.text("", annotations=ANN, meta={"k": [1, 2]}),
        c.image(PNG, "image/png"),
        c.image(base64.b64encode(PNG).decode(), "image/png", annotations={"priority": 1}),
        c.audio(b"RIFF....WAVE", "audio/wav", meta={}),
        c.resource_link("file:///project/src/main.rs", "main.rs"),
        c.resource_link(
            "https://example.com/a.txt",
            "a.txt",
            title="A",
            description="the a",
            mime_type="text/plain",
            size=0,
            annotations={"audience": []},
            meta={"x": None},
            protocol_version=version,
        ),
        c.embedded_resource("file:///x.txt", text="x", mime_type="text/plain", resource_meta={"r": 1}),
        c.embedded_resource("file:///x.bin", blob=b"\x00\xff", annotations=ANN, meta={"m": True}),
        c.embedded_resource("file:///x.bin", blob="AP8="),
    ]
    if version >= "2025-11-25":
        icon = c.icon(
            "data:image/png;base64,AAAA",
            mime_type="image/png",
            sizes=["48x48", "any"],
            theme="dark",
            protocol_version=version,
        )
        blocks.append(
            c.resource_link(
                "https://example.com/b",
                "b",
                icons=[icon, {"src": "https://example.com/i.svg"}],
                protocol_version=version,
            )
        )
    return blocks


# --- everything a peer can send (test_jsonrpc, test_jsonrpc_schema) ------------------------------

PARSE_ERRORS = [
    b"{bad",
    b"{",
    b"}",
    b'{"jsonrpc":"2.0","method":"m"',
    b'{"jsonrpc":"2.0","method":"m"}}',
    b'{"jsonrpc":"2.0","method":"m"} {"jsonrpc":"2.0","method":"m"}',
    b"{'jsonrpc':'2.0'}",
    b'{"jsonrpc":"2.0","method":"m","params":{"a":NaN}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":01}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":"\t"}}',
    b"nul",
    b"\xef\xbb\xbf{}",  # a BOM is not JSON
    # invalid UTF-8: a stray continuation byte, a truncated sequence, an overlong form, a surrogate
    b'{"jsonrpc":"2.0","method":"\x80"}',
    b'{"jsonrpc":"2.0","method":"\xe2\x82"}',
    b'{"jsonrpc":"2.0","method":"\xc0\xaf"}',
    b'{"jsonrpc":"2.0","method":"\xed\xa0\x80"}',
    b'{"jsonrpc":"2.0","method":"m"}\xff',
    b"\x00",
]

INVALID_REQUESTS: list[tuple[bytes, int | str | None]] = [
    # (line, id the error response carries)
    (b'{"id":1,"method":"m"}', 1),
    (b'{"jsonrpc":"1.0","id":1,"method":"m"}', 1),
    (b'{"jsonrpc":2.0,"id":1,"method":"m"}', 1),
    (b'{"jsonrpc":null,"id":"a","method":"m"}', "a"),
    (b'{"jsonrpc":"2.0","id":1}', 1),
    (b'{"jsonrpc":"2.0"}', None),
    (b"{}", None),
    (b'{"jsonrpc":"2.0","id":1,"method":null}', 1),
    (b'{"jsonrpc":"2.0","id":1,"method":["m"]}', 1),
    (b'{"jsonrpc":"2.0","method":1}', None),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}', 1),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","params":null}', 1),
    (b'{"jsonrpc":"2.0","method":"m","params":"x"}', None),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","result":{}}', 1),
    # bad id types
    (b'{"jsonrpc":"2.0","id":true,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":false,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":1.0,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":1e3,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":null,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":true,"result":{}}', None),
    (b'{"jsonrpc":"2.0","id":null,"result":{}}', None),
    (b'{"jsonrpc":"2.0","result":{}}', None),
    (b'{"jsonrpc":"2.0","id":[],"error":{"code":1,"message":"m"}}', None),
    # bad responses
    (b'{"jsonrpc":"2.0","id":1,"result":[]}', 1),
    (b'{"jsonrpc":"2.0","id":1,"result":null}', 1),
    (b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":"boom"}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}', 1),
    # not objects; batches
    (b"[]", None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"m"}]', None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"}]', None),
    (b'"text"', None),
    (b"42", None),
    (b"null", None),
    (b"true", None),
]


# --- validation while a tool response is written (test_schema_suite, test_schema_property) -------


def written_valid(v: mcp_native.Validator, instance: Any) -> bool:
    """The verdict of the walk that validates while it writes a tool response; a valid
    instance must come out exactly as without a schema."""
    line = Verdict(v, "2026-07-28").encode_response(7, instance)
    if line is None:
        return False
    assert line == _core.ResponseWriter(None, "2026-07-28").encode_response(7, instance)
    return True


class Verdict(_core.ResponseWriter):
    """Answers an invalid payload with None."""

    def _encode_invalid(self, *args: Any) -> None:
        return None


_SANITIZER_ENV = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")


def sanitizer_env() -> dict[str, str]:
    """What a subprocess needs of this process's environment to load the sanitized module
    (scripts/test --sanitize): the SDK's stdio client starts servers with a scrubbed one."""
    return {k: os.environ[k] for k in _SANITIZER_ENV if k in os.environ}


def tool_env() -> dict[str, str]:
    """This process's environment without the sanitizer runtime, for tools that are not ours
    (cmake, make): under scripts/test --sanitize, ASan would check them too."""
    return {k: v for k, v in os.environ.items() if k not in _SANITIZER_ENV}
