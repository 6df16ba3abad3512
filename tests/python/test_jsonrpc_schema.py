"""Every line mcp_native.jsonrpc writes conforms to the JSON-RPC definitions of the official MCP
schema of its protocol version, checked with python-jsonschema as the reference validator."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_native import jsonrpc
from mcp_native.jsonrpc import Decoder, Invalid

# The error response definition was renamed after 2025-06-18.
ERROR_DEF = {"2025-06-18": "JSONRPCError", "2025-11-25": "JSONRPCErrorResponse", "2026-07-28": "JSONRPCErrorResponse"}
RESPONSE_DEF = {
    "2025-06-18": "JSONRPCResponse",
    "2025-11-25": "JSONRPCResultResponse",
    "2026-07-28": "JSONRPCResultResponse",
}


SpecCheckers = Callable[[str, str], tuple[Any, Any]]  # the spec_checkers fixture


def errors(spec_checkers: SpecCheckers, version: str, definition: str, line: bytes) -> list[str]:
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    instance = json.loads(line)
    v = spec_checkers(version, definition)[0]
    found = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(instance)]
    if not found:  # also a valid JSONRPCMessage, the union a transport reads
        found = [e.message for e in spec_checkers(version, "JSONRPCMessage")[0].iter_errors(instance)]
    return found


def result_for(version: str) -> dict[str, Any]:
    # 2026-07-28 requires resultType on every result.
    base: dict[str, Any] = {"content": [{"type": "text", "text": "hi"}], "isError": False}
    return {**base, "resultType": "complete"} if version == "2026-07-28" else base


ENCODED_IDS = [0, -1, 2**53, 2**63 - 1, 2**70, "", "req-1", 'é\n"\\']


@pytest.mark.parametrize("id", ENCODED_IDS)
def test_encoded_lines_conform(spec_checkers: SpecCheckers, version: str, id: int | str) -> None:
    params = {"name": "add", "arguments": {"a": 1, "b": [1.5, None, "x\u2028"]}, "_meta": {"progressToken": 5}}
    assert errors(spec_checkers, version, "JSONRPCRequest", jsonrpc.encode_request(id, "tools/call", params)) == []
    assert errors(spec_checkers, version, "JSONRPCRequest", jsonrpc.encode_request(id, "ping")) == []
    assert (
        errors(spec_checkers, version, "JSONRPCNotification", jsonrpc.encode_notification("notifications/initialized"))
        == []
    )
    assert errors(spec_checkers, version, "JSONRPCNotification", jsonrpc.encode_notification("n", {"a": {}})) == []
    assert errors(spec_checkers, version, RESPONSE_DEF[version], jsonrpc.encode_response(id, result_for(version))) == []
    for code in (
        jsonrpc.PARSE_ERROR,
        jsonrpc.INVALID_REQUEST,
        jsonrpc.METHOD_NOT_FOUND,
        jsonrpc.INVALID_PARAMS,
        jsonrpc.INTERNAL_ERROR,
    ):
        line = jsonrpc.encode_error(id, code, "went wrong", data={"detail": [1, 2]})
        assert errors(spec_checkers, version, ERROR_DEF[version], line) == []


def test_the_schema_check_can_fail(spec_checkers: SpecCheckers, version: str) -> None:
    bad = b'{"jsonrpc":"2.0","id":true,"method":"m"}\n'
    assert errors(spec_checkers, version, "JSONRPCRequest", bad)


def invalid_items(version: str, bad_lines: list[bytes]) -> list[Invalid]:
    lines = [*bad_lines, b'{"jsonrpc":"2.0","method":"m","x":"' + b"a" * 200 + b'"}']
    d = Decoder(max_message_bytes=200, protocol_version=version)
    items = d.feed(b"\n".join(lines) + b"\n") + d.close()
    assert len(items) == len(lines) and all(isinstance(i, Invalid) for i in items)
    return [i for i in items if isinstance(i, Invalid)]


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_invalid_error_responses_conform(spec_checkers: SpecCheckers, version: str, bad_lines: list[bytes]) -> None:
    for item in invalid_items(version, bad_lines):
        assert errors(spec_checkers, version, ERROR_DEF[version], item.response) == [], item
    # Unknown ids are left out, as these schemas want (id optional, never null).
    assert jsonrpc.encode_error(None, jsonrpc.PARSE_ERROR, "Parse error").find(b'"id"') == -1
    assert errors(spec_checkers, version, ERROR_DEF[version], jsonrpc.encode_error(None, -32700, "Parse error")) == []


def test_invalid_error_responses_2025_06_18(spec_checkers: SpecCheckers, bad_lines: list[bytes]) -> None:
    """2025-06-18's schema requires a string or integer id on every error response, which a
    response to an unreadable message cannot have; the decoder then writes ``"id": null`` as
    JSON-RPC 2.0 prescribes. Everything else of those responses conforms."""
    version = "2025-06-18"
    for item in invalid_items(version, bad_lines):
        found = errors(spec_checkers, version, ERROR_DEF[version], item.response)
        if item.id is None:
            assert json.loads(item.response)["id"] is None
            assert found == ["id: None is not of type 'string', 'integer'"], item
        else:
            assert found == [], item


def test_error_responses_to_an_unknown_id_per_version(spec_checkers: SpecCheckers, version: str) -> None:
    """What each schema says of an error response without a usable id, and what encode_error
    writes for it: left out from 2025-11-25 on (the default), null for 2025-06-18."""
    absent = b'{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}\n'
    null = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'
    line = jsonrpc.encode_error(None, jsonrpc.PARSE_ERROR, "Parse error", protocol_version=version)
    if version == "2025-06-18":
        # Neither form conforms: the id is required and must be a string or an integer.
        assert errors(spec_checkers, version, ERROR_DEF[version], absent) == [": 'id' is a required property"]
        assert errors(spec_checkers, version, ERROR_DEF[version], null) == [
            "id: None is not of type 'string', 'integer'"
        ]
        assert line == null  # JSON-RPC 2.0's rule
    else:
        assert errors(spec_checkers, version, ERROR_DEF[version], absent) == []
        assert errors(spec_checkers, version, ERROR_DEF[version], null) != []
        assert line == absent
    # The Decoder answers unreadable lines the same way.
    (item,) = Decoder(protocol_version=version).feed(b"{\n")
    assert isinstance(item, Invalid)
    assert (b'"id":null' in item.response) == (version == "2025-06-18")
    # A known id is written whatever the version.
    assert (
        errors(
            spec_checkers, version, ERROR_DEF[version], jsonrpc.encode_error(3, -32601, "m", protocol_version=version)
        )
        == []
    )


def test_encode_error_defaults_to_leaving_an_unknown_id_out() -> None:
    assert jsonrpc.encode_error(None, -32700, "Parse error") == jsonrpc.encode_error(
        None, -32700, "Parse error", protocol_version="2025-11-25"
    )
    with pytest.raises(ValueError, match="2024-11-04"):
        jsonrpc.encode_error(None, -32700, "m", protocol_version="2024-11-04")
    # The versions the SDKs still negotiate require the id, as 2025-06-18 does.
    for old in ("2024-11-05", "2025-03-26"):
        assert jsonrpc.encode_error(None, -32700, "m", protocol_version=old) == (
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}\n'
        )
    with pytest.raises(TypeError, match="protocol_version"):
        jsonrpc.encode_error(None, -32700, "m", protocol_version=None)  # type: ignore[arg-type]  # on purpose


# Each error definition of the schemas whose code is a constant, and our name for it.
ERROR_CONSTANTS = {
    "ParseError": "PARSE_ERROR",
    "InvalidRequestError": "INVALID_REQUEST",
    "MethodNotFoundError": "METHOD_NOT_FOUND",
    "InvalidParamsError": "INVALID_PARAMS",
    "InternalError": "INTERNAL_ERROR",
    "URLElicitationRequiredError": "URL_ELICITATION_REQUIRED",
    "HeaderMismatchError": "HEADER_MISMATCH",
    "MissingRequiredClientCapabilityError": "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "UnsupportedProtocolVersionError": "UNSUPPORTED_PROTOCOL_VERSION",
}


def schema_error_codes(node: object, found: set[int]) -> set[int]:
    """Every `"code": {"const": N}` in a schema fragment."""
    if isinstance(node, dict):
        code = node.get("properties", {}).get("code") if isinstance(node.get("properties"), dict) else None
        if isinstance(code, dict) and isinstance(code.get("const"), int):
            found.add(code["const"])
        for v in node.values():
            schema_error_codes(v, found)
    elif isinstance(node, list):
        for v in node:
            schema_error_codes(v, found)
    return found


def test_error_code_constants_match_the_schema(shared: Path, version: str) -> None:
    root = json.loads((shared / "mcp-schema" / version / "schema.json").read_text())
    defs = root.get("definitions") or root["$defs"]
    named = {name: schema_error_codes(defs[name], set()) for name in ERROR_CONSTANTS if name in defs}
    for name, codes in named.items():
        assert codes == {getattr(jsonrpc, ERROR_CONSTANTS[name])}, (version, name, codes)
    # Every constant code anywhere in the schema has a name here.
    ours = {getattr(jsonrpc, c) for c in ERROR_CONSTANTS.values()}
    assert schema_error_codes(defs, set()) <= ours
