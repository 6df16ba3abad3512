"""Every Python snippet in README.md runs as written.

Each fenced ```python block runs on its own, in a fresh namespace, so a block must define every
name it uses. A block whose first line is ``# not run: <reason>`` (a server program, say) is
only compiled.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_native import adapters

README = Path(__file__).resolve().parents[2] / "README.md"
NOT_RUN = "# not run:"


def python_blocks() -> list[tuple[int, str]]:
    """(line number, code) of each fenced python block."""
    text = README.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 2, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S)
    ]


def test_readme_has_python_blocks() -> None:
    assert len(python_blocks()) >= 4


@pytest.mark.parametrize(("line", "code"), python_blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_readme_block_runs(line: int, code: str) -> None:
    # Padded so that a traceback names the README's own line numbers.
    compiled = compile("\n" * (line - 1) + code, str(README), "exec")
    if not code.startswith(NOT_RUN):
        try:
            exec(compiled, {"__name__": "readme"})
        finally:
            adapters.uninstall()  # the quick start installs the adapters: not for the other tests
