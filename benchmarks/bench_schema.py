"""Schema validation speed: mcp_native.Validator against its peers, in one run on the same data.

Peers: jsonschema-rs (`validator_for(schema).is_valid`), fastjsonschema (`compile`),
python-jsonschema (a cached `validator_for(schema)(schema).is_valid`, and the one-shot
`jsonschema.validate(instance, schema)` that the official MCP SDK calls per tool result), and
valijson (C++, benchmarks/cpp/valijson_bench.cpp, built here into build/bench). Formats are
annotations for every peer (ours by default; jsonschema-rs and fastjsonschema told so).

Measured per workload (benchmarks/schema_workloads.py): `is_valid` on Python objects,
`is_valid_json` on the JSON bytes against `orjson.loads` of the same bytes, and compile time.
Timings are the minimum over repeats of a calibrated batch, in ns per operation.

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
from schema_workloads import Workload, all_workloads  # noqa: E402

# python-jsonschema needs 0.4 to 8 s per call on these; the quick run leaves it (and valijson's
# 4 s recursive case) out.
SLOW_PEERS_SKIPPED_WHEN_QUICK = {"citm_catalog", "geojson canada", "recursive"}

PEERS = ["ours", "jsonschema-rs", "fastjsonschema", "py-jsonschema", "py-jsonschema one-shot", "valijson"]
TARGETS = {
    # summary key: (what, target, higher is better)
    "speedup_vs_jsonschema_rs": ("is_valid: jsonschema-rs ns / ours ns", 1.5, True),
    "speedup_vs_python_jsonschema": ("is_valid: cached python-jsonschema ns / ours ns", 100.0, True),
    "is_valid_json_over_orjson_loads": ("ours is_valid_json ns / orjson.loads ns", 0.5, False),
    "compile_vs_jsonschema_rs": ("compile: ours ns / jsonschema-rs ns", 1.0, False),
}


class Timer:
    def __init__(self, quick: bool) -> None:
        self.batch_s = 0.005 if quick else 0.025
        self.repeats = 3 if quick else 7
        # A call slower than this is timed once: repeating it would cost more than it tells.
        self.single_shot_s = 0.05 if quick else 1.0

    def ns(self, calls: dict[str, tuple[Callable[[Any], Any], Any]]) -> dict[str, float]:
        """Minimum over repeats of a batch calibrated to batch_s, in ns per call, for each call.

        The repeats go round the calls in turn, so that a burst of load on this shared machine
        slows every peer's batch alike instead of one peer's whole measurement.
        """
        best: dict[str, float] = {}
        batches: dict[str, tuple[timeit.Timer, int]] = {}
        for name, (fn, arg) in calls.items():
            start = time.perf_counter()
            fn(arg)
            first = time.perf_counter() - start
            if first >= self.single_shot_s:
                best[name] = first * 1e9
            else:
                n = max(1, int(self.batch_s / max(first, 1e-8)))
                batches[name] = (timeit.Timer("f(x)", globals={"f": fn, "x": arg}), n)
        for _ in range(self.repeats):
            for name, (timer, n) in batches.items():
                best[name] = min(best.get(name, math.inf), timer.timeit(n) / n * 1e9)
        return {name: best[name] for name in calls}


# --- Peers: each returns an is_valid(instance) -> bool, or raises NotApplicable --------------


class NotApplicable(Exception):
    """The peer cannot run this workload; the message says why."""


def _fastjsonschema(w: Workload) -> Callable[[Any], bool]:
    if not w.draft7:
        raise NotApplicable("drafts 4-7 only (no unevaluated*)")
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


PYTHON_PEERS: dict[str, Callable[[Workload], Callable[[Any], bool]]] = {
    "ours": lambda w: mcp_native.Validator(w.schema).is_valid,
    "jsonschema-rs": _rs,
    "fastjsonschema": _fastjsonschema,
    "py-jsonschema": _python_cached,
    "py-jsonschema one-shot": _python_one_shot,
}
COMPILERS: dict[str, Callable[[Any], Any]] = {
    "ours": mcp_native.Validator,
    "jsonschema-rs": lambda s: jsonschema_rs.validator_for(s, validate_formats=False),
    "py-jsonschema": lambda s: jsonschema.validators.validator_for(s)(s),
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


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def run(quick: bool) -> dict[str, Any]:
    timer = Timer(quick)
    workloads = all_workloads()
    try:
        valijson_binary: Path | None = build_valijson_bench()
        valijson_missing = ""
    except NotApplicable as e:
        valijson_binary, valijson_missing = None, str(e)
    results: dict[str, dict[str, Any]] = {}
    compile_ns: dict[str, dict[str, Any]] = {}
    compiled_schemas: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for w in workloads:
            row: dict[str, Any] = {}
            skip_slow = quick and w.name in SLOW_PEERS_SKIPPED_WHEN_QUICK
            if not w.compile_only:
                calls: dict[str, tuple[Callable[[Any], Any], Any]] = {}
                for peer, make in PYTHON_PEERS.items():
                    if skip_slow and peer.startswith("py-jsonschema"):
                        row[peer] = "n/a (skipped when quick)"
                    elif isinstance(prepared := _prepare(peer, make, w), str):
                        row[peer] = prepared
                    else:
                        calls[peer] = (prepared, w.instance)
                data = orjson.dumps(w.instance)
                ours = mcp_native.Validator(w.schema)
                assert ours.is_valid_json(data) == w.valid, f"{w.name}: is_valid_json disagrees"
                calls["ours is_valid_json"] = (ours.is_valid_json, data)
                calls["orjson.loads"] = (orjson.loads, data)
                row.update(timer.ns(calls))
            key = orjson.dumps(w.schema).decode()
            if key not in compiled_schemas:
                compiled_schemas.add(key)
                compile_ns[w.name] = timer.ns({peer: (c, w.schema) for peer, c in COMPILERS.items()})
            if valijson_binary is None:
                row["valijson"] = f"n/a ({valijson_missing})"
            elif skip_slow and w.name == "recursive":
                row["valijson"] = "n/a (skipped when quick)"
            else:
                try:
                    out = valijson(valijson_binary, w, quick, Path(tmp))
                    if not w.compile_only:
                        ok = out["valid"] == w.valid
                        row["valijson"] = out["validate_ns"] if ok else f"wrong verdict {out['valid']}"
                    if w.name in compile_ns:
                        compile_ns[w.name]["valijson"] = out["compile_ns"]
                except NotApplicable as e:
                    row["valijson"] = f"n/a ({e})"
            if not w.compile_only:
                results[w.name] = row
    return summarize(results, compile_ns, quick)


def _prepare(
    peer: str, make: Callable[[Workload], Callable[[Any], bool]], w: Workload
) -> Callable[[Any], bool] | str:
    """The peer's is_valid for w, checked against the expected verdict, or why it cannot be timed.

    A peer that fails is reported in the table; ours failing stops the run.
    """
    try:
        is_valid = make(w)
        verdict = is_valid(w.instance)
    except NotApplicable as e:
        return f"n/a ({e})"
    except Exception as e:
        if peer == "ours":
            raise
        return f"n/a ({type(e).__name__}: {str(e)[:60]})"
    if verdict != w.valid:
        if peer == "ours":
            raise AssertionError(f"{w.name}: Validator.is_valid gives {verdict}, expected {w.valid}")
        return f"wrong verdict {verdict}"
    return is_valid


def _ratios(results: dict[str, dict[str, Any]], num: str, den: str) -> dict[str, float]:
    return {
        name: row[num] / row[den]
        for name, row in results.items()
        if isinstance(row.get(num), float) and isinstance(row.get(den), float)
    }


def summarize(
    results: dict[str, dict[str, Any]], compile_ns: dict[str, dict[str, Any]], quick: bool
) -> dict[str, Any]:
    per_ratio = {
        "speedup_vs_jsonschema_rs": _ratios(results, "jsonschema-rs", "ours"),
        "speedup_vs_python_jsonschema": _ratios(results, "py-jsonschema", "ours"),
        "is_valid_json_over_orjson_loads": _ratios(results, "ours is_valid_json", "orjson.loads"),
        "compile_vs_jsonschema_rs": _ratios(compile_ns, "ours", "jsonschema-rs"),
        # for information, no target
        "speedup_vs_fastjsonschema": _ratios(results, "fastjsonschema", "ours"),
        "speedup_vs_python_one_shot": _ratios(results, "py-jsonschema one-shot", "ours"),
        "speedup_vs_valijson": _ratios(results, "valijson", "ours"),
    }
    geomeans = {k: _geomean(list(v.values())) for k, v in per_ratio.items()}
    # The same over the MCP-shaped workloads alone: what a tool server sees.
    geomeans_mcp = {k: _geomean([r for name, r in v.items() if name.startswith("mcp")]) for k, v in per_ratio.items()}
    targets = {}
    for key, (what, target, higher) in TARGETS.items():
        g = geomeans[key]
        targets[key] = {"what": what, "geomean": g, "target": target,
                        "met": g is not None and (g >= target if higher else g <= target)}
    return {
        "quick": quick,
        "ns_per_op": results,
        "compile_ns": compile_ns,
        "ratios": per_ratio,
        "geomeans": geomeans,
        "geomeans_mcp": geomeans_mcp,
        "targets": targets,
    }


# --- Output -----------------------------------------------------------------------------------


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v / 1e6:,.2f} ms" if v >= 1e6 else f"{v / 1e3:,.2f} µs" if v >= 1e4 else f"{v:,.0f} ns"
    return "—" if v is None else str(v)


def _x(v: float | None) -> str:
    return "—" if v is None else f"{v:,.2f}×" if v < 100 else f"{v:,.0f}×"


def markdown(summary: dict[str, Any]) -> str:
    results, ratios = summary["ns_per_op"], summary["ratios"]
    lines = ["### is_valid on Python objects (min ns/op; ratios are peer / ours)", "",
             "| workload | " + " | ".join(PEERS) + " | vs rs | vs py | vs valijson |",
             "|---|" + "---:|" * (len(PEERS) + 3)]
    for name, row in results.items():
        cells = [_fmt(row.get(p)) for p in PEERS] + [
            _x(ratios[k].get(name))
            for k in ("speedup_vs_jsonschema_rs", "speedup_vs_python_jsonschema", "speedup_vs_valijson")
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "### is_valid_json on bytes vs orjson.loads of the same bytes", "",
              "| workload | ours is_valid_json | orjson.loads | ratio |", "|---|---:|---:|---:|"]
    for name, row in results.items():
        lines.append(f"| {name} | {_fmt(row.get('ours is_valid_json'))} | {_fmt(row.get('orjson.loads'))} | "
                     f"{_x(ratios['is_valid_json_over_orjson_loads'].get(name))} |")
    lines += ["", "### compile (min ns per schema)", "",
              "| schema of | ours | jsonschema-rs | py-jsonschema | valijson | ours / rs |",
              "|---|---:|---:|---:|---:|---:|"]
    for name, row in summary["compile_ns"].items():
        cells = [_fmt(row.get(p)) for p in ("ours", "jsonschema-rs", "py-jsonschema", "valijson")]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {_x(ratios['compile_vs_jsonschema_rs'].get(name))} |")
    lines += ["", "### geometric means", "", "| measure | geomean | MCP workloads only | target | met |",
              "|---|---:|---:|---:|:---:|"]
    mcp = summary["geomeans_mcp"]
    for key, t in summary["targets"].items():
        lines.append(f"| {t['what']} | {_x(t['geomean'])} | {_x(mcp[key])} | {t['target']} | "
                     f"{'yes' if t['met'] else 'NO'} |")
    for key in ("speedup_vs_fastjsonschema", "speedup_vs_python_one_shot", "speedup_vs_valijson"):
        name = key.replace("_", " ")
        lines.append(f"| {name} (information) | {_x(summary['geomeans'][key])} | {_x(mcp[key])} | | |")
    return "\n".join(lines)


def main(quick: bool = False) -> dict[str, Any]:
    summary = run(quick)
    print(markdown(summary))
    return summary


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, slow peers skipped (under 30 s)")
    main(ap.parse_args().quick)
