"""Shared test configuration: where the reference data in ../shared lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("MCP_NATIVE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"reference data not found at {SHARED}; set MCP_NATIVE_SHARED")
    return SHARED
