"""The main job: run every benchmark suite against its peers, then publish the results.

Each ``benchmarks/bench_*.py`` module defines ``main(quick: bool) -> dict`` (a ``report.result``)
and runs on its own too. A full run writes ``benchmarks/results/<suite>.json``, a chart per
suite in ``docs/bench/`` and the results section of docs/benchmarks.md (from every suite's last result).
``--quick`` is a smoke run: fewer repetitions, everything written under ``build/bench-quick/``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITES = ["bench_json", "bench_schema", "bench_wire_framing", "bench_wire"]
sys.path.insert(0, str(HERE))
from report import chart, readme_section, rewrite_section  # noqa: E402


def publish(results_dir: Path, charts_dir: Path, readme: Path) -> None:
    """Charts and the results section of ``readme`` (docs/benchmarks.md) from the result files in
    ``results_dir``."""
    results = [json.loads(p.read_text()) for name in SUITES if (p := results_dir / f"{name}.json").exists()]
    charts = {}
    for r in results:
        path = charts_dir / f"{r['suite']}.png"
        chart(r, path)
        charts[r["suite"]] = os.path.relpath(path, readme.parent)
    section = readme_section(results, charts)
    readme.write_text(rewrite_section(readme.read_text(encoding="utf-8"), section), encoding="utf-8")
    print(f"charts in {charts_dir}, results section in {readme}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suites", nargs="*", default=SUITES, help="suites to run (default: all)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    ap.add_argument("--publish-only", action="store_true", help="redo the charts and the results section from the last results")
    args = ap.parse_args()
    if unknown := set(args.suites) - set(SUITES):
        ap.error(f"unknown suites: {', '.join(sorted(unknown))}")
    if args.quick:
        out = ROOT / "build" / "bench-quick"
        charts, readme = out / "charts", out / "benchmarks.md"
        # The section is written into a copy of docs/benchmarks.md, so the smoke run exercises it too.
        out.mkdir(parents=True, exist_ok=True)
        readme.write_text((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"), encoding="utf-8")
    else:
        out, charts, readme = HERE / "results", ROOT / "docs" / "bench", ROOT / "docs" / "benchmarks.md"
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for name in [] if args.publish_only else args.suites:
        suite_start = time.perf_counter()
        print(f"[{name}] running", flush=True)
        summary = importlib.import_module(name).main(quick=args.quick)
        (out / f"{name}.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"[{name}] {time.perf_counter() - suite_start:.0f} s; results in {out / (name + '.json')}", flush=True)
    publish(out, charts, readme)
    print(f"wall time {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
