#!/usr/bin/env python3
"""Regenerate python/mcp_native/schemas/<version>.json from the official MCP schemas
(../shared/mcp-schema/<version>/schema.json, or $MCP_NATIVE_SHARED).

The package data is each official document as published with its prose left out: a
``description`` or ``$comment`` that annotates a schema (never a property that happens to be
named so) is dropped, which changes no verdict and takes the three files from 464 to 102 KB. Run this
only when the official schemas change; tests/python/test_protocol_schemas.py checks that the
committed files are what it writes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MCP_NATIVE_SHARED", ROOT.parent / "shared"))
OUT = ROOT / "python" / "mcp_native" / "schemas"
VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
PROSE = ("description", "$comment")
# Keywords whose value maps names to schemas: the names are data, only the values are schemas.
SCHEMA_MAPS = ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas")


def without_prose(schema: Any) -> Any:
    if isinstance(schema, list):
        return [without_prose(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in PROSE and isinstance(value, str):
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: without_prose(s) for name, s in value.items()}
        elif key in ("const", "enum", "default", "examples"):
            out[key] = value  # instances, not schemas
        else:
            out[key] = without_prose(value)
    return out


def render(version: str, shared: Path = SHARED) -> str:
    doc = json.loads((shared / "mcp-schema" / version / "schema.json").read_text(encoding="utf-8"))
    return json.dumps(without_prose(doc), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def main() -> None:
    if not (SHARED / "mcp-schema").is_dir():
        sys.exit(f"no official MCP schemas in {SHARED / 'mcp-schema'} (set MCP_NATIVE_SHARED)")
    OUT.mkdir(exist_ok=True)
    for version in VERSIONS:
        (OUT / f"{version}.json").write_text(render(version), encoding="utf-8")


if __name__ == "__main__":
    main()
