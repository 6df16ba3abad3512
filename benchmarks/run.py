"""The main job: run every benchmark suite against its peers, print ratios, write results.

Each ``benchmarks/bench_*.py`` module defines ``main(quick: bool) -> dict`` (a JSON-ready summary
of ratios) and runs on its own too. Results go to ``benchmarks/results/<suite>.json``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITES = ["bench_json", "bench_schema", "bench_wire_framing", "bench_wire"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("suites", nargs="*", default=SUITES, help="suites to run (default: all)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    for name in args.suites:
        if not (HERE / f"{name}.py").exists():
            print(f"[{name}] not present, skipped")
            continue
        summary = importlib.import_module(name).main(quick=args.quick)
        (out / f"{name}.json").write_text(json.dumps(summary, indent=2) + "\n")
        print(f"[{name}] results written to {out / (name + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
