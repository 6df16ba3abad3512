"""The demo's report: the spread it shows beside each median, its chart's label (a quick run says
so), and the server CPU time it reads from benchmarks/cpu_server.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_adapters  # noqa: E402
import demo  # noqa: E402


def raw(stock: list[float], adapted: list[float], payloads: tuple[str, ...] = ("weather",)) -> dict[str, Any]:
    """measure()'s result for one framework, the same times for each payload."""
    return {
        "times": {"fw": {p: {"stock": stock, "adapted": adapted} for p in payloads}},
        "sizes": {"fw": dict.fromkeys(payloads, 100)},
        "cpu": {"fw": {p: {"stock": 0.01, "adapted": 0.005} for p in payloads}},
        "client_cpu": {"fw": {p: {"stock": 0.01, "adapted": 0.005} for p in payloads}},
    }


def test_rows_give_the_10th_and_90th_percentiles_around_the_median() -> None:
    ms = [i / 1e3 for i in range(1, 11)]  # 1..10 ms, shuffled
    [row] = bench_adapters.summarize(raw(ms[::-1], [x / 2 for x in ms]))
    assert row["stock_p10_ms"] == pytest.approx(1.9)
    assert row["stock_ms"] == pytest.approx(5.5)
    assert row["stock_p90_ms"] == pytest.approx(9.1)
    assert (row["adapted_p10_ms"], row["adapted_ms"], row["adapted_p90_ms"]) == pytest.approx((0.95, 2.75, 4.55))
    assert row["speedup"] == pytest.approx(2.0)
    assert row["calls"] == 10


def summary(quick: bool) -> dict[str, Any]:
    rows = bench_adapters.summarize(
        raw([0.002, 0.003, 0.009] * 4, [0.001, 0.001, 0.004] * 4, tuple(bench_adapters.CALLS))
    )
    return {
        "date": "2026-11-25T21:00:00+00:00",
        "machine": "AMD EPYC, 2 cores, Linux 6.18",
        "python": "3.11.7",
        "versions": {"mcp": "2.3.0", "fastmcp": "4.1.2", "mcp-native": "0.1.0"},
        "quick": quick,
        "latency": rows,
    }


def test_a_quick_runs_chart_says_what_it_is_and_where_it_ran() -> None:
    label = demo.chart_label(summary(quick=True))
    for part in ("quick run", "12 calls per bar", "10th-90th percentile", "AMD EPYC, 2 cores", "2026-11-25",
                 "Python 3.11.7", "mcp 2.3.0", "fastmcp 4.1.2", "mcp-native 0.1.0"):  # fmt: skip
        assert part in label
    assert "quick" not in demo.chart_label(summary(quick=False))


def test_the_chart_draws_the_spread(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    # Skewed samples: uneven whiskers, each drawn from the median.
    demo.chart(summary(quick=True), tmp_path / "latency.png")
    assert (tmp_path / "latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cpu_server_reports_the_cpu_time_of_all_its_threads(tmp_path: Path) -> None:
    """A thread that burned 50 ms of CPU and ended still counts (what /proc's per-thread
    counters would lose), and the figure is the process's, not a 10 ms tick count."""
    app = tmp_path / "app.py"
    app.write_text(
        "import sys, threading, time\n"
        "def burn():\n"
        "    start = time.thread_time()\n"
        "    while time.thread_time() - start < 0.05: pass\n"
        "t = threading.Thread(target=burn); t.start(); t.join()\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
    )
    out = tmp_path / "cpu"
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "cpu_server.py"), str(out), str(app)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        os.kill(proc.pid, signal.SIGUSR1)
        while not out.exists():
            assert proc.poll() is None, "the server ended without writing its CPU time"
            time.sleep(0.01)
        assert int(out.read_text()) >= 50_000_000
    finally:
        proc.kill()
        proc.wait()


def test_the_readme_summary_is_the_published_run_in_short() -> None:
    # The README shows a summary of the demo's tables, docs/benchmarks.md the tables in full;
    # both sections are where the demo writes them, and the summary is what it writes from the
    # run it published (demo/results.json).
    import json

    import report

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert readme.count(demo.README_BEGIN) == readme.count(demo.README_END) == 1
    assert docs.count(demo.DOCS_BEGIN) == docs.count(demo.DOCS_END) == 1
    summary = json.loads((ROOT / "demo" / "results.json").read_text(encoding="utf-8"))
    section = demo.summary_section(summary)
    assert report.rewrite_section(readme, section, demo.README_BEGIN, demo.README_END) == readme
    assert "| MCPServer | 200 records |" in section and "**Streamable HTTP**" in section
