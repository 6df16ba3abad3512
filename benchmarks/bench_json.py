"""JSON codec benchmark: mcp_native.dumps/loads against orjson, msgspec.json and the json module.

Inputs: the public documents in ../shared/bench-data (canada, citm_catalog, geojson, fast_*) and
the MCP-shaped payloads of payloads.py. Prints time per call and the ratio to orjson for each
payload, then the geometric mean of the ratios; ``main`` returns the same as a dict.

Run alone: ``python benchmarks/bench_json.py [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import msgspec
import orjson

import mcp_native

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from payloads import all_payloads  # noqa: E402

SHARED = Path(os.environ.get("MCP_NATIVE_SHARED", HERE.parent.parent / "shared"))
DATA_FILES = ["canada", "citm_catalog", "geojson", "fast_schema", "fast_valid", "fast_invalid"]
TARGETS = {"dumps": 1.1, "loads": 1.0}  # geometric mean of time / orjson time


def _std_dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


_msgspec_encoder = msgspec.json.Encoder()
_msgspec_decoder = msgspec.json.Decoder()

DUMPERS: dict[str, Callable[[Any], bytes]] = {
    "mcp_native": mcp_native.dumps,
    "orjson": orjson.dumps,
    "msgspec": _msgspec_encoder.encode,
    "json": _std_dumps,
}
LOADERS: dict[str, Callable[[bytes], Any]] = {
    "mcp_native": mcp_native.loads,
    "orjson": orjson.loads,
    "msgspec": _msgspec_decoder.decode,
    "json": json.loads,
}


def _loops(fn: Callable[[Any], Any], arg: Any, budget: float) -> int:
    """Number of calls that take about ``budget`` seconds."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn(arg)
        dt = time.perf_counter() - t0
        if dt >= budget:
            return n
        n *= 2 if dt == 0 else max(2, min(100, int(budget / dt * 1.2)))


def time_per_call(fns: dict[str, Callable[[Any], Any]], arg: Any, quick: bool) -> dict[str, float]:
    """Best-of-N seconds per call of each function. Rounds alternate between the functions so
    that a noisy moment on the (shared) machine does not favour one of them. The cyclic garbage
    collector is off while timing, as in timeit: its passes land on whichever call happens to
    cross its threshold."""
    budget = 0.005 if quick else 0.03
    gc.collect()
    gc.disable()
    try:
        loops = {name: _loops(fn, arg, budget) for name, fn in fns.items()}
        best = {name: float("inf") for name in fns}
        for _ in range(3 if quick else 9):
            for name, fn in fns.items():
                n = loops[name]
                t0 = time.perf_counter()
                for _ in range(n):
                    fn(arg)
                best[name] = min(best[name], (time.perf_counter() - t0) / n)
    finally:
        gc.enable()
    return best


def payloads() -> dict[str, tuple[Any, bytes]]:
    """Name -> (Python value, its JSON bytes)."""
    out: dict[str, tuple[Any, bytes]] = {}
    for name in DATA_FILES:
        raw = (SHARED / "bench-data" / f"{name}.json").read_bytes()
        out[name] = (json.loads(raw), raw)
    for name, value in all_payloads().items():
        out[name] = (value, _std_dumps(value))
    return out


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def run(kind: str, table: dict[str, Callable[[Any], Any]], inputs: dict[str, Any], quick: bool) -> dict[str, Any]:
    print(f"\n{kind}: microseconds per call (ratio to orjson)")
    names = list(table)
    print(f"{'payload':30}" + "".join(f"{n:>22}" for n in names))
    rows: dict[str, Any] = {}
    for pname, arg in inputs.items():
        times = time_per_call(table, arg, quick)
        ratios = {lib: times[lib] / times["orjson"] for lib in names}
        rows[pname] = {"us": {k: round(v * 1e6, 3) for k, v in times.items()},
                       "ratio_to_orjson": {k: round(v, 3) for k, v in ratios.items()}}
        print(f"{pname:30}" + "".join(f"{times[n] * 1e6:>13.2f} ({ratios[n]:5.2f})" for n in names))
    gm = {lib: round(geomean([r["ratio_to_orjson"][lib] for r in rows.values()]), 3) for lib in names}
    print(f"{'geometric mean of ratios':30}" + "".join(f"{gm[n]:>22.3f}" for n in names))
    return {"payloads": rows, "geomean_ratio_to_orjson": gm}


def main(quick: bool = False) -> dict[str, Any]:
    data = payloads()
    for name, (value, raw) in data.items():  # what is timed must be right
        assert mcp_native.dumps(value) == _std_dumps(value), name
        assert mcp_native.loads(raw) == json.loads(raw), name
    dumps = run("dumps", DUMPERS, {k: v for k, (v, _) in data.items()}, quick)
    loads = run("loads", LOADERS, {k: raw for k, (_, raw) in data.items()}, quick)
    summary = {
        "dumps": dumps,
        "loads": loads,
        "targets": TARGETS,
        "meets_targets": {
            "dumps": dumps["geomean_ratio_to_orjson"]["mcp_native"] <= TARGETS["dumps"],
            "loads": loads["geomean_ratio_to_orjson"]["mcp_native"] <= TARGETS["loads"],
        },
        "versions": {"orjson": orjson.__version__, "msgspec": msgspec.__version__, "python": sys.version.split()[0]},
    }
    print(f"\nmcp_native / orjson (geometric mean): dumps {dumps['geomean_ratio_to_orjson']['mcp_native']:.3f} "
          f"(target <= {TARGETS['dumps']}), loads {loads['geomean_ratio_to_orjson']['mcp_native']:.3f} "
          f"(target <= {TARGETS['loads']})")
    return summary


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    main(ap.parse_args().quick)
