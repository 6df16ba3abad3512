#!/usr/bin/env python3
"""mcp_native.adapters end to end on every tested pair of mcp and fastmcp releases.

Per pair, a virtual environment under ``build/sdk-pairs/<pair>/venv`` holds that pair's
distributions from the package registry (``mcp``, ``mcp-types``, ``fastmcp`` and what they
need), the test dependencies at the versions ``.venv`` has, and a copy of mcp_native (the
package and the extension built by ``scripts/setup``, as scripts/sdk_tests.py copies it). The
pair the main ``.venv`` has (mcp 2.3.0 + fastmcp 4.2.3) runs in ``.venv`` itself. In each:

1. ``python -m mcp_native doctor``: every group must be proven by a tested release (exit 0,
   no group stock);
2. the adapters' end-to-end tests (``tests/python/test_adapters*.py`` but the stdio EOF one),
   run from this checkout with the pair's Python: nothing puts ``python/`` on the path there, so
   the copy in the venv is the one imported (checked before the tests run);
3. ``benchmarks/demo.py --quick`` (the examples as stdio servers, stock and adapted, and the
   demo's correctness checks), written to ``build/sdk-pairs/<pair>/demo/``.

The mcp 1.x pairs run the tests of that line's adapters (:data:`TESTS_1X`) in step 2, and in
step 3 ``benchmarks/bench_mcp1.py --quick`` (the demo's servers are written for mcp 2.x): the
1.x examples stock and adapted, whose answers must be stock's.

A venv is created once and kept while its requirements stay the same (a stamp records them).
Exit status 1 when a step fails on any pair.

    scripts/sdk-pairs                           # every pair
    scripts/sdk-pairs --pair 2.0.1+4.0.11       # one pair (mcp+fastmcp; repeatable)
    scripts/sdk-pairs --no-demo                 # doctor and tests only
    scripts/sdk-pairs --at HEAD                 # mcp_native as committed, not the working tree
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _venvs import ROOT, add_mcp_native, counts, locked, parse_report, quiet, run, site_packages

WORK = ROOT / "build" / "sdk-pairs"
MAIN_VENV = ROOT / ".venv"
# (mcp, fastmcp): the newest patch of each fastmcp line with the newest mcp it runs with (the
# first is the pair .venv has), 4.1.2 (the release the adapters were first written against),
# and mcp 2.0-2.2 with the fastmcp releases that accept them.
PAIRS = [
    ("2.3.0", "4.2.3"),
    ("2.3.0", "4.1.7"),
    ("2.3.0", "4.1.2"),
    ("2.2.0", "4.1.2"),
    ("2.1.1", "4.0.11"),
    ("2.0.1", "4.0.11"),
    # The mcp 1.x line, with the newest fastmcp that runs on it, and fastmcp 2.x's newest.
    ("1.30.0", "3.4.11"),
    ("1.26.0", "3.4.11"),
    ("1.30.0", "2.14.7"),
]
# The pair the main .venv has (pyproject.toml's test extra): tested in .venv itself.
MAIN_PAIR = ("2.3.0", "4.2.3")
TESTS = [
    "tests/python/test_adapters.py",
    "tests/python/test_adapters_lowlevel.py",
    "tests/python/test_adapters_results.py",
    "tests/python/test_adapters_fastmcp_lookup.py",
    "tests/python/test_adapters_stdio_client.py",
    "tests/python/test_adapters_stdio_reading.py",
    "tests/python/test_adapters_support.py",
    "tests/python/test_adapters_otel.py",
    "tests/python/test_adapters_runner.py",
]
# The tests of the mcp 1.x line's adapters (the others need mcp 2.x; this one needs 1.x).
TESTS_1X = [
    "tests/python/test_adapters_mcp1.py",
    "tests/python/test_adapters_mcp1_stdio.py",
    "tests/python/test_adapters_mcp1_http.py",
    "tests/python/test_adapters_mcp1_http_client.py",
    "tests/python/test_adapters_fastmcp_lookup.py",
    "tests/python/test_adapters_stdio_reading.py",
    "tests/python/test_adapters_otel.py",
]
# What the tests and the demo import beyond the SDKs, at the versions .venv has.
TEST_DEPS = ["pytest", "hypothesis", "jsonschema", "matplotlib", "opentelemetry-instrumentation-mcp", "opentelemetry-sdk"]


def step(msg: str) -> float:
    print(f"sdk-pairs: {msg}", flush=True)
    return time.monotonic()


def name(pair: tuple[str, str]) -> str:
    return f"mcp-{pair[0]}+fastmcp-{pair[1]}"


def is_1x(pair: tuple[str, str]) -> bool:
    """A pair of the mcp 1.x line (no mcp-types; its own tests; no demo, whose servers are 2.x's)."""
    return pair[0].startswith("1.")


def parse_pair(text: str) -> tuple[str, str]:
    mcp, sep, fastmcp = text.partition("+")
    if not sep or not mcp or not fastmcp:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MCP+FASTMCP, e.g. 2.0.1+4.0.11")
    return mcp, fastmcp


def main_venv_versions(dists: list[str]) -> dict[str, str]:
    """The versions .venv has of ``dists`` (those it lacks are left out)."""
    probe = (
        "import importlib.metadata as m, json, sys\n"
        "out = {}\n"
        "for d in sys.argv[1:]:\n"
        "    try: out[d] = m.version(d)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))"
    )
    proc = subprocess.run(
        [str(MAIN_VENV / "bin" / "python"), "-c", probe, *dists], check=True, capture_output=True, text=True
    )
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def requirements(pair: tuple[str, str]) -> list[str]:
    pinned = main_venv_versions(TEST_DEPS)
    mcp, fastmcp = pair
    return [
        f"mcp=={mcp}",
        *([] if is_1x(pair) else [f"mcp-types=={mcp}"]),
        f"fastmcp=={fastmcp}",
        *(f"{d}=={pinned[d]}" if d in pinned else d for d in TEST_DEPS),
    ]


def prepare(pair: tuple[str, str], rev: str | None) -> Path:
    """The pair's venv (created once; a stamp records its requirements) with a fresh copy of mcp_native."""
    if pair == MAIN_PAIR:
        return MAIN_VENV
    home = WORK / name(pair)
    venv = home / "venv"
    stamp = home / "ready"
    reqs = requirements(pair)
    key = hashlib.sha256(json.dumps([sys.version, reqs]).encode()).hexdigest()
    with locked(home / "lock"):
        if not (stamp.exists() and stamp.read_text() == key):
            t = step(f"{name(pair)}: creating the venv ({' '.join(reqs)})")
            shutil.rmtree(venv, ignore_errors=True)
            run([sys.executable, "-m", "venv", str(venv)])
            quiet([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *reqs])
            stamp.write_text(key)
            print(f"sdk-pairs: {name(pair)}: venv ready in {time.monotonic() - t:.0f} s", flush=True)
        add_mcp_native(venv, rev, metadata=True)
    return venv


def imported_from(venv: Path) -> Path:
    """Where the venv's Python, started in this checkout as pytest is, imports mcp_native from."""
    probe = "import mcp_native; print(mcp_native.__file__)"
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe], cwd=ROOT, check=True, capture_output=True, text=True
    )
    return Path(proc.stdout.strip()).parent


def versions_in(venv: Path) -> dict[str, str]:
    probe = (
        "import importlib.metadata as m, json\n"
        "out = {}\n"
        "for d in ('mcp', 'mcp-types', 'fastmcp'):\n"
        "    try: out[d] = m.version(d)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))"
    )
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", probe], check=True, capture_output=True, text=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def doctor(venv: Path) -> tuple[bool, str]:
    """(every group proven, the summary line)."""
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "mcp_native", "doctor"], cwd=ROOT, capture_output=True, text=True
    )
    lines = proc.stdout.splitlines()
    stock = [line.strip() for line in lines if line.strip().startswith("stock")]
    summary = lines[-1] if lines else proc.stderr.strip()
    for line in stock:
        print(f"  {line}")
    ok = proc.returncode == 0 and not stock and "(stock:" not in summary
    if proc.returncode:
        print(proc.stdout + proc.stderr)
    return ok, summary


def tests(venv: Path, home: Path, extra: list[str], paths: list[str]) -> tuple[dict[str, str], str]:
    report = home / "adapters.xml"
    report.unlink(missing_ok=True)
    proc = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--color=no",
            f"--junitxml={report}",
            *paths,
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    (home / "adapters.log").write_text(proc.stdout)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    failures = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    for line in failures:
        print(f"  {line}")
    if not report.exists():
        print(proc.stdout[-3000:])
        return {}, "no report"
    return parse_report(report), lines[-1] if lines else ""


def demo(pair: tuple[str, str], venv: Path, home: Path) -> tuple[bool, str]:
    out = home / "demo"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    results = out / "results.json"
    if is_1x(pair):
        command = ["benchmarks/bench_mcp1.py", "--quick", "--json", str(results)]
    else:
        command = ["benchmarks/demo.py", "--quick", "--out", str(out)]
    proc = subprocess.run(
        [str(venv / "bin" / "python"), *command],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    home.mkdir(parents=True, exist_ok=True)
    (home / "demo.log").write_text(proc.stdout)
    if proc.returncode or not results.exists():
        print(proc.stdout[-3000:])
        return False, f"exit status {proc.returncode}"
    summary = json.loads(results.read_text())
    ran = {d: summary["versions"][d] for d in ("mcp", "fastmcp")}
    if ran != dict(zip(("mcp", "fastmcp"), pair, strict=True)):
        return False, f"ran on {ran}"
    if is_1x(pair):  # bench_mcp1 exits 1 when an answer differs
        speedups = ", ".join(f"{r['server']} {r['payload']} {r['stock_ms'] / r['adapted_ms']:.1f}x" for r in summary["rows"])
        return True, f"answers as stock's; speed-ups of a quick run: {speedups}"
    adapted = [c for c in summary["correctness"] if c["server"] == "adapted"]
    if not adapted or not summary["adapted_passed_correctness_checks"]:
        return False, "an adapted server failed a correctness check"
    speedups = ", ".join(f"{r['framework']} {r['payload']} {r['speedup']:.1f}x" for r in summary["latency"])
    return True, f"correctness checks passed; speed-ups of a quick run: {speedups}"


def judge(pair: tuple[str, str], venv: Path, args: argparse.Namespace) -> dict[str, object]:
    home = WORK / name(pair)
    home.mkdir(parents=True, exist_ok=True)
    row: dict[str, object] = {"pair": name(pair), "failed": []}
    failed: list[str] = row["failed"]  # type: ignore[assignment]
    t0 = step(f"{name(pair)}: {venv}")
    found = versions_in(venv)
    wanted = {"mcp": pair[0], **({} if is_1x(pair) else {"mcp-types": pair[0]}), "fastmcp": pair[1]}
    if found != wanted:
        failed.append(f"versions: {found}")
    where = imported_from(venv)
    if venv != MAIN_VENV and where != site_packages(venv) / "mcp_native":
        failed.append(f"mcp_native imported from {where}")
    ok, row["doctor"] = doctor(venv)
    print(f"  doctor: {row['doctor']}", flush=True)
    if not ok:
        failed.append("doctor")
    t = time.monotonic()
    outcomes, tail = tests(venv, home, args.pytest_args, TESTS_1X if is_1x(pair) else TESTS)
    row["tests"] = f"{counts(outcomes)} ({time.monotonic() - t:.0f} s)"
    print(f"  tests: {tail} ({time.monotonic() - t:.0f} s)", flush=True)
    if not outcomes or any(o == "failed" for o in outcomes.values()):
        failed.append("tests")
    if args.demo:
        t = time.monotonic()
        ok, text = demo(pair, venv, home)
        row["demo"] = f"{text} ({time.monotonic() - t:.0f} s)"
        print(f"  demo: {row['demo']}", flush=True)
        if not ok:
            failed.append("demo")
    row["time"] = time.monotonic() - t0
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--pair",
        type=parse_pair,
        action="append",
        default=[],
        metavar="MCP+FASTMCP",
        help="a pair to run (repeatable); default: " + " ".join(f"{m}+{f}" for m, f in PAIRS),
    )
    ap.add_argument("--no-demo", dest="demo", action="store_false", help="skip step 3 (demo.py or bench_mcp1.py --quick)")
    ap.add_argument(
        "--at", metavar="REV", help="test mcp_native as committed at REV, not the working tree (not for the .venv pair)"
    )
    ap.add_argument(
        "--jobs", type=int, default=3, help="venvs created at once (default 3); the pairs then run one after another"
    )
    ap.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --), e.g. -- -k stdio -x")
    args = ap.parse_args()
    pairs = args.pair or PAIRS
    if args.at and MAIN_PAIR in pairs:
        ap.error(f"--at: the {name(MAIN_PAIR)} pair runs in .venv (the working tree); choose other pairs with --pair")
    os.environ.pop("PYTHONPATH", None)  # nothing but the venv decides what the pairs import
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        venvs = list(pool.map(lambda p: prepare(p, args.at), pairs))
    rows = [judge(pair, venv, args) for pair, venv in zip(pairs, venvs, strict=True)]
    print("sdk-pairs: summary")
    for row in rows:
        failed: list[str] = row["failed"]  # type: ignore[assignment]
        print(f"  {row['pair']}: {'ok' if not failed else 'FAILED: ' + ', '.join(failed)} ({row['time']:.0f} s)")
        print(f"    doctor: {row['doctor']}")
        print(f"    tests: {row['tests']}")
        if "demo" in row:
            print(f"    demo: {row['demo']}")
    ok = not any(row["failed"] for row in rows)
    print(f"sdk-pairs: {'every pair passed' if ok else 'failures'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
