"""The stubs in _core.pyi must match the native module."""

import subprocess
import sys


def test_stubtest_core() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "mcp_native._core"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
