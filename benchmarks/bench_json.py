"""JSON codec benchmark: mcp_native.dumps/loads against orjson, msgspec.json and the json module.

Inputs: the public documents in ../shared/bench-data (canada, citm_catalog, geojson, fast_*) and
the MCP-shaped payloads of payloads.py. Prints and returns (report.result) the time per call of
each contender and how much faster mcp_native is than each peer.

Goals (development notes, not output): dumps within 1.1x of orjson.dumps and loads on par with
orjson.loads, as geometric means over these payloads.

Run alone: ``python benchmarks/bench_json.py [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import json
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
from report import Table, print_table, result  # noqa: E402

SHARED = Path(os.environ.get("MCP_NATIVE_SHARED", HERE.parent.parent / "shared"))
DATA_FILES = ["canada", "citm_catalog", "geojson", "fast_schema", "fast_valid", "fast_invalid"]


def _std_dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


_msgspec_encoder = msgspec.json.Encoder()
_msgspec_decoder = msgspec.json.Decoder()

DUMPERS: dict[str, Callable[[Any], bytes]] = {
    "mcp_native.dumps": mcp_native.dumps,
    "orjson.dumps": orjson.dumps,
    "msgspec.json.Encoder": _msgspec_encoder.encode,
    "json.dumps": _std_dumps,
}
LOADERS: dict[str, Callable[[bytes], Any]] = {
    "mcp_native.loads": mcp_native.loads,
    "orjson.loads": orjson.loads,
    "msgspec.json.Decoder": _msgspec_decoder.decode,
    "json.loads": json.loads,
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


def run(title: str, fns: dict[str, Callable[[Any], Any]], inputs: dict[str, Any], quick: bool) -> Table:
    ours, *peers = fns
    table = Table(title, ours, peers)
    for name, arg in inputs.items():
        table.add(name, {k: v * 1e9 for k, v in time_per_call(fns, arg, quick).items()})
    print_table(table)
    return table


def main(quick: bool = False) -> dict[str, Any]:
    data = payloads()
    for name, (value, raw) in data.items():  # what is timed must be right
        assert mcp_native.dumps(value) == _std_dumps(value), name
        assert mcp_native.loads(raw) == json.loads(raw), name
    tables = [
        run("dumps: Python objects to compact JSON bytes", DUMPERS, {k: v for k, (v, _) in data.items()}, quick),
        run("loads: JSON bytes to Python objects", LOADERS, {k: raw for k, (_, raw) in data.items()}, quick),
    ]
    return result("bench_json", "JSON codec", tables, quick, ["orjson", "msgspec"])


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    main(ap.parse_args().quick)
