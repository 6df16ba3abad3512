"""Shared test configuration: where the reference data in ../shared lives, and the fixtures of the
adapter tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import SHARED


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"reference data not found at {SHARED}; set MCP_NATIVE_SHARED")
    return SHARED


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def adapters_restored() -> Iterator[None]:
    """Whatever a test installs, the SDKs are stock again after it."""
    yield
    from mcp_native import adapters

    adapters.uninstall()
