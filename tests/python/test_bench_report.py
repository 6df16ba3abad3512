"""The benchmarks' report: one speed-up convention, and the docs/benchmarks.md section it rewrites."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from report import README_BEGIN, README_END, Table, fmt_speedup, rewrite_section  # noqa: E402


def test_speedups_are_peer_time_over_ours() -> None:
    t = Table("t", "ours", ["fast peer", "slow peer", "absent"])
    t.add("w1", {"ours": 100.0, "fast peer": 50.0, "slow peer": 400.0, "absent": "n/a (reason)"})
    t.add("w2", {"ours": 100.0, "fast peer": 50.0, "slow peer": 100.0})
    d = t.as_dict()
    assert d["faster"]["w1"] == {"fast peer": 0.5, "slow peer": 4.0, "absent": None}
    assert d["ns"]["w2"]["absent"] == "—"
    assert d["geomean_faster"] == {"fast peer": 0.5, "slow peer": 2.0, "absent": None}


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (4.0, "4.00× faster"),
        (0.5, "2.00× slower"),
        (0.996, "1.00× faster"),
        (25.04, "25.0× faster"),
        (1234.0, "1,234× faster"),
    ],
)
def test_speedup_words(x: float, text: str) -> None:
    assert fmt_speedup(x) == text


def test_readme_section_is_rewritten_between_the_markers() -> None:
    readme = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert readme.count(README_BEGIN) == readme.count(README_END) == 1
    text = f"head\n{README_BEGIN}\nold\n{README_END}\ntail\n"
    assert rewrite_section(text, "new\n") == f"head\n{README_BEGIN}\nnew\n{README_END}\ntail\n"
    with pytest.raises(ValueError, match="section"):
        rewrite_section("no markers", "new")
