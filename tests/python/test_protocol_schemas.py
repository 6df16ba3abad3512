"""The official MCP schemas as package data: written by scripts/gen_mcp_schemas.py, read by
``mcp_native.protocol``, and as strict as the published documents."""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import mcp_native
from mcp_native import ProtocolVersion, ValidationError, protocol

ROOT = Path(__file__).resolve().parents[2]
OTHER_TYPES: tuple[Any, ...] = (5, None, "x", [], {})


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_mcp_schemas", ROOT / "scripts" / "gen_mcp_schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_package_data_is_what_the_generator_writes(shared: Path, version: str) -> None:
    committed = (ROOT / "python" / "mcp_native" / "schemas" / f"{version}.json").read_text(encoding="utf-8")
    assert committed == generator().render(version, shared), "run scripts/gen_mcp_schemas.py"


def test_prose_goes_and_data_named_like_it_stays() -> None:
    strip = generator().without_prose
    schema = {
        "description": "a tool",
        "$comment": "why",
        "properties": {"description": {"type": "string", "description": "its text"}},
        "required": ["description"],
        "enum": [{"description": "an instance"}],
        "default": {"$comment": "data"},
    }
    assert strip(schema) == {
        "properties": {"description": {"type": "string"}},
        "required": ["description"],
        "enum": [{"description": "an instance"}],
        "default": {"$comment": "data"},
    }


def test_official_schema_is_a_new_copy_each_time() -> None:
    doc = protocol.official_schema("2025-11-25")
    assert "Tool" in doc["$defs"] and "description" in doc["$defs"]["Tool"]["properties"]
    doc["$defs"].clear()
    assert "Tool" in protocol.official_schema(ProtocolVersion.V2025_11_25)["$defs"]
    assert "CallToolResult" in protocol.official_schema("2025-06-18")["definitions"]


@pytest.mark.parametrize(
    ("version", "name", "error"),
    [
        ("2024-11-05", "Tool", "no schema for protocol version 2024-11-05"),
        ("2025-03-26", "Tool", "no schema for protocol version 2025-03-26"),
        ("2099-01-01", "Tool", "'2099-01-01' is not a valid ProtocolVersion"),
        ("2025-11-25", "NoSuchThing", "the 2025-11-25 schema has no definition 'NoSuchThing'"),
        ("2025-06-18", "ToolExecution", "the 2025-06-18 schema has no definition 'ToolExecution'"),
    ],
)
def test_definition_validator_refuses_what_it_does_not_have(version: str, name: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        protocol.definition_validator(version, name)


def test_definition_validator_is_compiled_once() -> None:
    v = protocol.definition_validator("2026-07-28", "JSONRPCMessage")
    assert protocol.definition_validator(ProtocolVersion.V2026_07_28, "JSONRPCMessage") is v
    assert isinstance(v, mcp_native.Validator)
    with pytest.raises(ValidationError, match="is not valid under any of the given schemas"):
        v.validate({"jsonrpc": "1.0", "id": 1, "method": "ping"})


def samples(version: str, blocks: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Valid messages of a few definitions, and each with every top-level member dropped or
    replaced by a value of another type."""
    result: dict[str, Any] = {"content": blocks, "isError": False, "structuredContent": {"t": 1}}
    if version >= "2026-07-28":
        result["resultType"] = "complete"
    valid: dict[str, list[Any]] = {
        "CallToolResult": [result, {**result, "content": []}],
        "Tool": [{"name": "get_weather", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}],
        "JSONRPCMessage": [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "a", "result": {}},
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "no"}},
        ],
        "ContentBlock": blocks,
    }
    out: dict[str, list[Any]] = {}
    for name, instances in valid.items():
        cases = list(instances)
        for instance in instances:
            for key in instance:
                cases.append({k: v for k, v in instance.items() if k != key})
                for other in OTHER_TYPES:
                    changed = copy.deepcopy(instance)
                    changed[key] = other
                    cases.append(changed)
        out[name] = cases
    return out


def test_verdicts_match_the_published_documents(
    version: str,
    all_blocks: Callable[[str], list[dict[str, Any]]],
    spec_checkers: Callable[[str, str], tuple[Any, Any]],
) -> None:
    # The reference: python-jsonschema on the official document as published (prose included).
    for name, cases in samples(version, all_blocks(version)).items():
        reference = spec_checkers(version, name)[0]
        ours = protocol.definition_validator(version, name)
        for instance in cases:
            expected = not any(reference.iter_errors(instance))
            assert ours.is_valid(instance) is expected, (name, instance)
        assert any(ours.is_valid(i) for i in cases) and not all(ours.is_valid(i) for i in cases)
