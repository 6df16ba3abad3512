"""Shared test configuration: where the reference data in ../shared lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SHARED


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"reference data not found at {SHARED}; set MCP_NATIVE_SHARED")
    return SHARED
