"""Schema validation speed: mcp_native.Validator against its peers, in one run on the same data.

Peers: jsonschema-rs (`validator_for(schema).is_valid`), fastjsonschema (`compile`),
python-jsonschema twice: a cached `validator_for(schema)(schema).is_valid` (what the `mcp` 2.x
client does per tool) and the one-shot `jsonschema.validate(instance, schema)` (what `mcp`
releases before that cache did per result), and valijson (C++,
benchmarks/cpp/valijson_bench.cpp, built here into build/bench). Formats are annotations for
every peer (ours by default; jsonschema-rs and fastjsonschema told so).

Measured per workload (benchmarks/schema_workloads.py): `is_valid` on Python objects,
`is_valid_json` on the JSON bytes (against `orjson.loads` + jsonschema-rs, and against
`orjson.loads` alone, which does no validation), and compile time. Timings are the minimum over
repeats of a calibrated batch, in ns per operation. A line per workload shows progress.

Goals (development notes, not output): is_valid 1.5x faster than jsonschema-rs and 100x faster
than cached python-jsonschema; is_valid_json at most half of orjson.loads alone; compiling no
slower than jsonschema-rs (geometric means).

Run alone: `python benchmarks/bench_schema.py [--quick]`, or through benchmarks/run.py.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
import jsonschema_rs
import orjson

import mcp_native

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from report import Table, print_table, result  # noqa: E402
from schema_workloads import Workload, all_workloads  # noqa: E402

# python-jsonschema needs 0.2 to 5 s per call on these; the quick run leaves it (and valijson's
# 2 s recursive case) out.
SLOW_PEERS_SKIPPED_WHEN_QUICK = {"citm_catalog", "geojson canada", "recursive"}

# Contender names as the tables show them.
OURS = "mcp-native"
RS = "jsonschema-rs"
FAST = "fastjsonschema"
PY_CACHED = "python-jsonschema (cached validator)"
PY_ONE_SHOT = "python-jsonschema validate() (one-shot)"
VALIJSON = "valijson (C++)"
RS_BYTES = "orjson.loads + jsonschema-rs"
LOADS_ONLY = "orjson.loads (no validation)"


class Timer:
    def __init__(self, quick: bool) -> None:
        self.batch_s = 0.005 if quick else 0.025
        self.repeats = 3 if quick else 7
        # A call slower than this is timed once: repeating it would cost more than it tells.
        self.single_shot_s = 0.05 if quick else 1.0
        # Slow calls get fewer repeats: at most about this long per contender.
        self.budget_s = 0.1 if quick else 0.6

    def ns(self, calls: dict[str, tuple[Callable[[Any], Any], Any]]) -> dict[str, float]:
        """Minimum over repeats of a batch calibrated to batch_s, in ns per call, for each call.

        The repeats go round the calls in turn, so that a burst of load on this shared machine
        slows every peer's batch alike instead of one peer's whole measurement.
        """
        best: dict[str, float] = {}
        batches: dict[str, tuple[timeit.Timer, int, int]] = {}
        for name, (fn, arg) in calls.items():
            start = time.perf_counter()
            fn(arg)
            first = time.perf_counter() - start
            if first >= self.single_shot_s:
                best[name] = first * 1e9
            else:
                n = max(1, int(self.batch_s / max(first, 1e-8)))
                repeats = max(1, min(self.repeats, int(self.budget_s / (n * first))))
                batches[name] = (timeit.Timer("f(x)", globals={"f": fn, "x": arg}), n, repeats)
        for i in range(self.repeats):
            for name, (timer, n, repeats) in batches.items():
                if i < repeats:
                    best[name] = min(best.get(name, math.inf), timer.timeit(n) / n * 1e9)
        return {name: best[name] for name in calls}


# --- Peers: each returns an is_valid(instance) -> bool, or raises NotApplicable --------------


class NotApplicable(Exception):
    """The peer cannot run this workload; the message says why."""


def _fastjsonschema(w: Workload) -> Callable[[Any], bool]:
    if not w.draft7:
        raise NotApplicable("drafts 4-7 only: no unevaluated*")
    check = fastjsonschema.compile(w.schema, use_default=False, use_formats=False)
    failure = fastjsonschema.JsonSchemaException

    def is_valid(instance: Any) -> bool:
        try:
            check(instance)
        except failure:
            return False
        return True

    return is_valid


def _python_one_shot(w: Workload) -> Callable[[Any], bool]:
    schema = w.schema
    failure = jsonschema.ValidationError

    def is_valid(instance: Any) -> bool:
        try:
            jsonschema.validate(instance, schema)
        except failure:
            return False
        return True

    return is_valid


def _python_cached(w: Workload) -> Callable[[Any], bool]:
    return jsonschema.validators.validator_for(w.schema)(w.schema).is_valid  # type: ignore[no-any-return]


def _rs(w: Workload) -> Callable[[Any], bool]:
    return jsonschema_rs.validator_for(w.schema, validate_formats=False).is_valid  # type: ignore[no-any-return]


def _rs_bytes(w: Workload) -> Callable[[Any], bool]:
    is_valid = _rs(w)
    loads = orjson.loads
    return lambda data: is_valid(loads(data))  # type: ignore[no-any-return]


PYTHON_PEERS: dict[str, Callable[[Workload], Callable[[Any], bool]]] = {
    OURS: lambda w: mcp_native.Validator(w.schema).is_valid,
    RS: _rs,
    FAST: _fastjsonschema,
    PY_CACHED: _python_cached,
    PY_ONE_SHOT: _python_one_shot,
}
COMPILERS: dict[str, Callable[[Any], Any]] = {
    OURS: mcp_native.Validator,
    RS: lambda s: jsonschema_rs.validator_for(s, validate_formats=False),
    PY_CACHED: lambda s: jsonschema.validators.validator_for(s)(s),
}


# --- valijson, through its C++ program ----------------------------------------------------------


def build_valijson_bench() -> Path:
    """Configure build/bench if needed and (re)build valijson_bench; cmake skips an up-to-date one."""
    build = ROOT / "build" / "bench"
    tools = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    cmake = shutil.which("cmake", path=tools)
    if cmake is None:
        raise NotApplicable("cmake not found")
    if not (build / "CMakeCache.txt").exists():
        generator = ["-G", "Ninja"] if shutil.which("ninja", path=tools) else []
        _run([cmake, "-S", str(ROOT), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
              "-DMCP_NATIVE_BUILD_BENCH=ON", "-DMCP_NATIVE_BUILD_PYTHON=OFF"], tools)
    _run([cmake, "--build", str(build), "--target", "valijson_bench"], tools)
    return build / "valijson_bench"


def _run(cmd: list[str], path: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PATH": path})
    if proc.returncode != 0:
        raise NotApplicable(f"build failed: {' '.join(cmd[:2])}: {(proc.stdout + proc.stderr)[-400:]}")


def valijson(binary: Path, w: Workload, quick: bool, tmp: Path) -> dict[str, Any]:
    if not w.draft7:
        raise NotApplicable("draft-07 and older only")
    schema, instance = tmp / "schema.json", tmp / "instance.json"
    schema.write_bytes(orjson.dumps(w.schema))
    instance.write_bytes(orjson.dumps(w.instance))
    repeats, min_ms = ("3", "5") if quick else ("7", "25")
    proc = subprocess.run([str(binary), str(schema), str(instance), repeats, min_ms],
                          capture_output=True, text=True, timeout=300)
    out = json.loads(proc.stdout) if proc.stdout.strip() else {"error": proc.stderr.strip()}
    if "error" in out:
        raise NotApplicable(f"valijson: {out['error'][:80]}")
    return out


# --- The run ----------------------------------------------------------------------------------


def run(quick: bool) -> list[Table]:
    timer = Timer(quick)
    workloads = all_workloads()
    try:
        valijson_binary: Path | None = build_valijson_bench()
        valijson_missing = ""
    except NotApplicable as e:
        valijson_binary, valijson_missing = None, str(e)
    objects = Table("is_valid on Python objects", OURS, [RS, FAST, PY_CACHED, PY_ONE_SHOT, VALIJSON])
    texts = Table("is_valid_json on JSON bytes", OURS, [RS_BYTES, LOADS_ONLY])
    compiles = Table("compiling a schema", OURS, [RS, PY_CACHED, VALIJSON],
                     "each distinct schema; python-jsonschema only builds its validator here, it compiles lazily")
    compiled_schemas: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for i, w in enumerate(workloads, 1):
            start = time.perf_counter()
            row: dict[str, Any] = {}
            skip_slow = quick and w.name in SLOW_PEERS_SKIPPED_WHEN_QUICK
            if not w.compile_only:
                calls: dict[str, tuple[Callable[[Any], Any], Any]] = {}
                for peer, make in PYTHON_PEERS.items():
                    if skip_slow and peer in (PY_CACHED, PY_ONE_SHOT):
                        row[peer] = "skipped when quick"
                    elif isinstance(prepared := _prepare(peer, make, w), str):
                        row[peer] = prepared
                    else:
                        calls[peer] = (prepared, w.instance)
                data = orjson.dumps(w.instance)
                ours = mcp_native.Validator(w.schema)
                assert ours.is_valid_json(data) == w.valid, f"{w.name}: is_valid_json disagrees"
                calls["is_valid_json"] = (ours.is_valid_json, data)
                if isinstance(rs_bytes := _prepare(RS_BYTES, _rs_bytes, w, data), str):
                    row[RS_BYTES] = rs_bytes
                else:
                    calls[RS_BYTES] = (rs_bytes, data)
                calls[LOADS_ONLY] = (orjson.loads, data)
                row.update(timer.ns(calls))
            key = orjson.dumps(w.schema).decode()
            compile_row: dict[str, Any] | None = None
            if key not in compiled_schemas:
                compiled_schemas.add(key)
                compile_row = timer.ns({peer: (c, w.schema) for peer, c in COMPILERS.items()})
            if valijson_binary is None:
                row[VALIJSON] = f"n/a ({valijson_missing})"
            elif skip_slow and w.name == "recursive":
                row[VALIJSON] = "skipped when quick"
            else:
                try:
                    out = valijson(valijson_binary, w, quick, Path(tmp))
                    if not w.compile_only:
                        ok = out["valid"] == w.valid
                        row[VALIJSON] = float(out["validate_ns"]) if ok else f"wrong verdict {out['valid']}"
                    if compile_row is not None:
                        compile_row[VALIJSON] = float(out["compile_ns"])
                except NotApplicable as e:
                    row[VALIJSON] = f"n/a ({e})"
            if not w.compile_only:
                objects.add(w.name, row)
                texts.add(w.name, {**row, OURS: row["is_valid_json"]})
            if compile_row is not None:
                compiles.add(w.name, compile_row)
            print(f"[bench_schema] {i}/{len(workloads)} {w.name}: {time.perf_counter() - start:.1f} s", flush=True)
    return [objects, texts, compiles]


def _prepare(
    peer: str, make: Callable[[Workload], Callable[[Any], bool]], w: Workload, instance: Any = None
) -> Callable[[Any], bool] | str:
    """The peer's is_valid for w, checked against the expected verdict, or why it cannot be timed.

    A peer that fails is reported in the table; ours failing stops the run. ``instance`` is what
    is_valid takes when it is not ``w.instance`` (its JSON bytes).
    """
    try:
        is_valid = make(w)
        verdict = is_valid(w.instance if instance is None else instance)
    except NotApplicable as e:
        return f"n/a ({e})"
    except Exception as e:
        if peer == OURS:
            raise
        return f"n/a ({type(e).__name__}: {str(e)[:60]})"
    if verdict != w.valid:
        if peer == OURS:
            raise AssertionError(f"{w.name}: Validator.is_valid gives {verdict}, expected {w.valid}")
        return f"wrong verdict {verdict}"
    return is_valid


def main(quick: bool = False) -> dict[str, Any]:
    tables = run(quick)
    for t in tables:
        print_table(t)
    return result("bench_schema", "JSON Schema validation", tables, quick,
                  ["jsonschema-rs", "fastjsonschema", "jsonschema", "orjson"], ["libvalijson-dev"])


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, slow peers skipped (under 30 s)")
    main(ap.parse_args().quick)
