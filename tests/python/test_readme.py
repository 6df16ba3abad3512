"""Every Python snippet in README.md, CONTRIBUTING.md and docs/*.md runs as written.

Each fenced ```python block runs on its own, in a fresh namespace, so a block must define every
name it uses. A block whose first line is ``# not run: <reason>`` (a server program, say) is
only compiled.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_native import adapters

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = "# not run:"


def python_blocks() -> list[tuple[Path, int, str]]:
    """(file, line number, code) of each fenced python block."""
    blocks = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        blocks += [
            (path, text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S)
        ]
    return blocks


def test_readme_has_python_blocks() -> None:
    assert len(python_blocks()) >= 4
    assert any(path.name == "README.md" for path, _, _ in python_blocks())


def test_every_relative_link_leads_to_a_file() -> None:
    # The README's deep material is in docs/: a link that leads nowhere loses it.
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" not in target:
                assert (path.parent / target).exists(), f"{path.name}: {target}"


@pytest.mark.parametrize(
    ("path", "line", "code"),
    python_blocks(),
    ids=[f"{p.relative_to(ROOT)}:{line}" for p, line, _ in python_blocks()],
)
def test_readme_block_runs(path: Path, line: int, code: str) -> None:
    # Padded so that a traceback names the file's own line numbers.
    compiled = compile("\n" * (line - 1) + code, str(path), "exec")
    if not code.startswith(NOT_RUN):
        try:
            exec(compiled, {"__name__": "readme"})
        finally:
            adapters.uninstall()  # the quick start installs the adapters: not for the other tests
