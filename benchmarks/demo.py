"""The demo: real MCP servers, stock vs on mcp-native, speed and correctness side by side.

Runs the example MCPServer and fastmcp servers (``examples/``) as stdio subprocesses, stock and
with ``python -m mcp_native run``, driven by the ``mcp`` SDK's own client (see
``bench_adapters``), splits the adapted servers' CPU time between mcp-native, pydantic, the
framework and the event loop (cProfile), then shows two correctness differences a user meets:

- a malformed line sent to each server: stock drops it (the client waits for its timeout),
  mcp-native answers it with the JSON-RPC error;
- a tool returning a value that violates its output schema: stock fastmcp sends it, mcp-native
  refuses it with an ``isError`` result naming the failing value.

The full run also measures the same servers over Streamable HTTP under uvicorn
(``bench_http``'s quick configurations, with wrk), and the mcp 1.x line's examples over stdio
(``bench_mcp1`` in ``scripts/sdk-pairs``' environment of mcp 1.30.0 and fastmcp 3.4.11, whose
answers must be stock's). Writes ``demo/results.json``,
``demo/latency.png``, the tables in docs/benchmarks.md and their summary under the chart in README.md;
``--quick`` (2 rounds of 5 calls, about 1.5 minutes once ``scripts/setup`` has built the package; on a
fresh clone that build takes 2-3 minutes more) writes to ``build/demo-quick/`` (or ``--out``)
instead, leaving the published results alone, and labels its chart as a quick run. The servers'
logs go to ``servers.log`` beside the results (``build/demo-servers.log`` for the full run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio

import bench_adapters as bench
import bench_fastmcp_floor as fastmcp_floor
import bench_http as http
import bench_mcp1
import bench_shapes as shapes
import report

sys.path.insert(0, str(bench.ROOT / "scripts"))
import sdk_pairs  # noqa: E402

# The mcp 1.x line: its newest release, with the newest fastmcp that runs on it.
MCP1_PAIR = ("1.30.0", "3.4.11")
MCP1_JSON = bench.ROOT / "build" / "demo-mcp1.json"  # what bench_mcp1 measured; results.json holds it too

# The full tables go to docs/benchmarks.md, a summary of them to the README.
DOCS_BEGIN = "<!-- demo-results:begin (scripts/demo writes this section) -->"
DOCS_END = "<!-- demo-results:end -->"
README_BEGIN = "<!-- demo-summary:begin (scripts/demo writes this section) -->"
README_END = "<!-- demo-summary:end -->"

CHECK_LINES = [
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list"',  # cut short: not JSON
    b'{"jsonrpc":"2.0","id":2,"method":"ping"}',
]


def malformed_line(app: Path, mode: str) -> str:
    """What the server answers to a line that is not JSON (the ping after it shows it is alive)."""
    params = bench.server_params(app, mode)
    proc = subprocess.run([params.command, *params.args], input=b"\n".join(CHECK_LINES) + b"\n", capture_output=True,
                          cwd=bench.ROOT, timeout=60, check=False)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = [a["error"] for a in answers if "error" in a]
    if errors:
        return f"answered: {errors[0]['code']} {errors[0]['message']}"
    return "no answer (the client waits for its timeout)"


async def invalid_result(app: Path, mode: str) -> str:
    """What the client gets from a tool whose result violates its output schema."""
    bench.set_client("stock")  # the stock client's own check shows what the server sent
    with open(os.devnull, "w") as errlog:
        async with bench.stdio_client(bench.server_params(app, mode), errlog=errlog) as (read, write):
            async with bench.ClientSession(read, write) as s:
                await s.initialize()
                try:
                    result = await s.call_tool("broken_weather", {"city": "Paris"})
                except RuntimeError as e:
                    return f"sent anyway (the client caught it: {str(e).splitlines()[0]})"
    if result.is_error:
        return f"refused: isError result: {result.content[0].text}"  # type: ignore[union-attr]
    return "sent anyway"


def correctness() -> list[dict[str, str]]:
    rows = []
    for fw, app in bench.APPS.items():
        for mode in bench.MODES:
            rows.append({"framework": fw, "server": mode, "malformed line": malformed_line(app, mode),
                         "invalid tool result": anyio.run(invalid_result, app, mode)})
    return rows


def chart_label(summary: dict[str, Any]) -> str:
    """What a chart shows and where it was measured: a quick run says so."""
    v = summary["versions"]
    calls = summary["latency"][0]["calls"]
    run = f"quick run (a smoke test, not the published figures), {calls} calls per bar" if summary["quick"] else f"{calls} calls per bar"
    return (f"{run}; bars: median, whiskers: 10th-90th percentile\n{summary['machine']}, {summary['date'][:10]}; "
            f"Python {summary['python']}, mcp {v['mcp']}, fastmcp {v['fastmcp']}, mcp-native {v['mcp-native']}")


def chart(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    for ax, payload in zip(axes, bench.CALLS):
        sub = [r for r in summary["latency"] if r["payload"] == payload]
        xs = range(len(sub))
        for offset, mode, label, color in ((-0.2, "stock", "stock", "#999999"), (0.2, "adapted", "mcp-native", "#2b7bba")):
            medians = [r[f"{mode}_ms"] for r in sub]
            # Clamped: a percentile interpolated between equal samples may differ in the last bit.
            spread = [[max(0.0, r[f"{mode}_ms"] - r[f"{mode}_p10_ms"]) for r in sub],
                      [max(0.0, r[f"{mode}_p90_ms"] - r[f"{mode}_ms"]) for r in sub]]
            ax.bar([x + offset for x in xs], medians, 0.4, yerr=spread, capsize=3, label=label, color=color)
        for x, r in zip(xs, sub):
            ax.text(x + 0.2, r["adapted_p90_ms"], f"{r['speedup']:.1f}×", ha="center", va="bottom", fontsize=9)
        ax.set_xticks(list(xs), [r["framework"] for r in sub])
        ax.set_title(f"tools/call, {payload}")
        ax.set_ylabel("ms per call (median round trip)")
        ax.margins(y=0.15)  # room for the speed-up above the tallest whisker
    axes[0].legend(loc="upper left", fontsize=8)
    fig.suptitle("MCP server over stdio, driven by the SDK's client: stock vs mcp-native", fontsize=10)
    fig.text(0.5, 0.01, chart_label(summary), ha="center", va="bottom", fontsize=7, color="#c0392b" if summary["quick"] else "#555555")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a smoke run: about 1.5 minutes once the package is built")
    ap.add_argument("--out", type=Path, help="write results.json and latency.png there (--quick only; default: build/demo-quick)")
    args = ap.parse_args()
    if args.out and not args.quick:
        ap.error("--out goes with --quick (the full run writes demo/, docs/benchmarks.md and README.md)")
    rounds, calls = (2, 5) if args.quick else (30, 25)
    out = args.out or bench.ROOT / ("build/demo-quick" if args.quick else "demo")
    out.mkdir(parents=True, exist_ok=True)

    log = out / "servers.log" if args.quick else bench.ROOT / "build" / "demo-servers.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    print(f"demo: {len(bench.APPS) * 2} servers, {rounds} rounds of {calls} calls per server and payload; "
          f"the servers' logs go to {log}", flush=True)
    t = time.monotonic()
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        print(f"demo: round {done}/{rounds} ({time.monotonic() - t:.0f} s)", flush=True)

    with open(log, "w") as errlog:
        raw = anyio.run(bench.measure, rounds, calls, list(bench.APPS), errlog, tick)
    rows = bench.summarize(raw)
    print("\nLatency per tools/call (median round trip; speed-up = stock time / mcp-native time)\n")
    print(bench.table(rows))

    print("\ndemo: where the adapted server's CPU goes (cProfile)", flush=True)
    shares = bench.server_profile(20 if args.quick else 300, list(bench.APPS))
    print(bench.profile_table(shares))

    print("\ndemo: each return shape, stock vs mcp-native (bench_shapes)", flush=True)
    shape_rows = shapes.main(args.quick)

    print("\ndemo: fastmcp's own per-call mechanisms, each replaced by a stand-in (bench_fastmcp_floor)", flush=True)
    floor = fastmcp_floor.main(args.quick)

    http_rows: list[dict[str, Any]] = []
    if not args.quick:  # needs wrk (scripts/demo installs it) and 1.5 minutes: the full run only
        print("\ndemo: over Streamable HTTP under uvicorn, stock vs mcp-native (bench_http --quick)", flush=True)
        with open(log, "a") as errlog:
            http_rows = http.measure(True, errlog)

    mcp1: dict[str, Any] = {}
    if not args.quick:  # needs its own environment (minutes, once): the full run only
        print(f"\ndemo: the mcp 1.x line (bench_mcp1 on mcp {MCP1_PAIR[0]}, fastmcp {MCP1_PAIR[1]})", flush=True)
        venv = sdk_pairs.prepare(MCP1_PAIR, None)
        proc = subprocess.run([str(venv / "bin" / "python"), "benchmarks/bench_mcp1.py", "--json", str(MCP1_JSON)],
                              cwd=bench.ROOT, check=False)
        mcp1 = json.loads(MCP1_JSON.read_text())
        mcp1["same_answers"] = proc.returncode == 0

    print("\ndemo: correctness checks", flush=True)
    checks = correctness()
    print("\n| framework | server | a malformed line | a tool result that violates its output schema |\n|---|---|---|---|")
    for c in checks:
        print(f"| {c['framework']} | {c['server']} | {c['malformed line']} | {c['invalid tool result']} |")
    adapted_ok = all(c["malformed line"].startswith("answered") and c["invalid tool result"].startswith("refused")
                     for c in checks if c["server"] == "adapted")

    summary = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": report.machine(),
        "python": platform.python_version(),
        "versions": {d: version(d) for d in ("mcp", "fastmcp", "mcp-native")},
        "quick": args.quick,
        "latency": rows,
        "adapted_server_cpu_shares": shares,
        "shapes": shape_rows,
        "fastmcp_floor_ms": {variant: statistics.median(t) * 1e3 for variant, t in floor.items()},
        "http": http_rows,
        "mcp1": mcp1,
        "correctness": checks,
        "adapted_passed_correctness_checks": adapted_ok,
    }
    (out / "results.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    chart(summary, out / "latency.png")
    if not args.quick:
        publish(summary, floor)

    print(f"\ndemo: wrote {out / 'results.json'} and {out / 'latency.png'} ({time.monotonic() - t:.0f} s)")
    if not adapted_ok:
        print("demo: the mcp-native servers FAILED a correctness check", file=sys.stderr)
        return 1
    if mcp1 and not mcp1["same_answers"]:
        print("demo: an adapted server of the mcp 1.x line answered other than stock", file=sys.stderr)
        return 1
    if not all(r[m]["ok"] for r in http_rows for m in http.MODES):
        print("demo: answers over HTTP FAILED the check (lost, duplicated, unknown or wrong)", file=sys.stderr)
        return 1
    return 0


def publish(summary: dict[str, Any], floor: dict[str, list[float]]) -> None:
    """The full tables into docs/benchmarks.md, the summary of them into the README."""
    rows, shares, shape_rows = summary["latency"], summary["adapted_server_cpu_shares"], summary["shapes"]
    http_rows, mcp1 = summary["http"], summary["mcp1"]
    section = (f"Measured by `scripts/demo` on {summary['machine']}, {summary['date'][:10]}, Python "
               f"{summary['python']}, mcp {summary['versions']['mcp']}, fastmcp {summary['versions']['fastmcp']}: "
               f"median round trip per `tools/call` over stdio, the SDK's own client (adapted too, for the adapted "
               "server); the CPU time per call of the server process and of the client's. They take turns, so the "
               f"round trip is about the sum of the two.\n\n{bench.table(rows)}\n\n"
               "Where the adapted server's CPU goes per call (cProfile's own time per function, start-up "
               "excluded; it slows Python code more than native code, so the Python-heavy shares come out "
               "somewhat high). A sync tool runs in a worker thread, which the profile shows as the hand-over "
               f"to it:\n\n{bench.profile_table(shares)}\n\n"
               "The same data returned in each common shape (`benchmarks/bench_shapes.py`: a TypedDict, a "
               "pydantic model, a dataclass, a list of models, a float), median round trip with its p10-p90 "
               f"range:\n\n{shapes.table(shape_rows)}\n\n"
               "MCPServer sends a list as one text block per item (stock's layout), which both ends build as "
               "`TextContent` models: at 200 records that, and the client's garbage collector (those objects "
               "take its allocations past CPython's first threshold of 700 in each call), is what its list adds "
               "over its TypedDict path.\n\n"
               "The rest of a fastmcp call is mostly fastmcp's own per-call work, which stock does too "
               "(`benchmarks/bench_fastmcp_floor.py`: the weather model, on mcp-native, with one or both of two "
               "mechanisms replaced by a stand-in that changes fastmcp's behaviour, so the adapters leave them "
               "alone: the OpenTelemetry spans a call opens with no tracer configured, the session's visibility "
               "rules read from the state store):"
               f"\n\n{fastmcp_floor.table(floor)}\n\n"
               "Over Streamable HTTP (`benchmarks/bench_http.py --quick`: one uvicorn worker, stateless, JSON "
               f"responses; wrk with {http.WRK_CONNECTIONS} connections, then the SDK's client in "
               f"{http.CLIENT_PROCESSES} processes of {http.CLIENTS_PER_PROCESS}; every answer checked). The whole "
               "matrix (SSE, sessions, 2 workers) is in [deploying-over-http.md](deploying-over-http.md):"
               f"\n\n{http.table(http_rows)}\n\n"
               f"The mcp 1.x line (`benchmarks/bench_mcp1.py`, mcp {mcp1['versions']['mcp']} and fastmcp "
               f"{mcp1['versions']['fastmcp']}, {mcp1['rounds']} rounds of {mcp1['calls']} calls): FastMCP 1.x, "
               "mcp 1.x's low-level `Server` and fastmcp 3.x over stdio, the same tools, the SDK's own client; "
               f"the adapted server's answers compared with stock's:\n\n{bench_mcp1.table(mcp1['rows'])}")
    docs = bench.ROOT / "docs" / "benchmarks.md"
    docs.write_text(report.rewrite_section(docs.read_text(encoding="utf-8"), section, DOCS_BEGIN, DOCS_END), encoding="utf-8")
    readme = bench.ROOT / "README.md"
    readme.write_text(
        report.rewrite_section(readme.read_text(encoding="utf-8"), summary_section(summary), README_BEGIN, README_END),
        encoding="utf-8",
    )


def summary_section(summary: dict[str, Any]) -> str:
    """The README's tables: per transport, the round trip or throughput stock and adapted."""
    lines = [
        f"Measured by `scripts/demo` on {summary['machine']}, {summary['date'][:10]}, Python {summary['python']}, "
        f"mcp {summary['versions']['mcp']}, fastmcp {summary['versions']['fastmcp']}; every table in full, with CPU "
        "per call and where it goes, in [docs/benchmarks.md](docs/benchmarks.md).",
        "",
        "**stdio**, median round trip per `tools/call`, the SDK's own client:",
        "",
        "| framework | payload | stock ms | mcp-native ms | speed-up |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [
        f"| {r['framework']} | {r['payload']} | {r['stock_ms']:.2f} | {r['adapted_ms']:.2f} | {bench.speedup(r['speedup'])} |"
        for r in summary["latency"]
    ]
    if summary["http"]:
        lines += [
            "",
            "**Streamable HTTP**, one uvicorn worker, stateless, JSON responses, the SDKs' logging at WARNING, wrk's "
            "load (`benchmarks/bench_http.py --quick`; every answer checked). Server CPU per call is the steady "
            "figure on a shared machine; its inverse is what a worker with a core to itself serves:",
            "",
            "| framework | requests | payload | calls/s stock → mcp-native | server CPU ms/call stock → mcp-native "
            "| calls per CPU-second |",
            "|---|---|---|---:|---:|---:|",
        ]
        modern = int(summary["versions"]["mcp"].split(".")[0]) >= 2
        lines += [
            f"| {r['framework']} | {'2026-07-28' if modern and r['state'] == 'stateless' else '2025 era'} "
            f"| {r['payload']} | {r['stock']['calls_per_s']:,.0f} → {r['adapted']['calls_per_s']:,.0f} "
            f"| {r['stock']['cpu_ms_per_call']:.2f} → {r['adapted']['cpu_ms_per_call']:.2f} "
            f"| {bench.speedup(r['cpu_faster'])} |"
            for r in summary["http"]
            if r["load"] == "wrk"
        ]
    if summary["mcp1"]:
        mcp1 = summary["mcp1"]
        lines += [
            "",
            f"**The mcp 1.x line** over stdio (mcp {mcp1['versions']['mcp']}, fastmcp {mcp1['versions']['fastmcp']}; "
            "`benchmarks/bench_mcp1.py`):",
            "",
            "| server | payload | stock ms | mcp-native ms | speed-up |",
            "|---|---|---:|---:|---:|",
        ]
        lines += [
            f"| {r['server']} | {r['payload']} | {r['stock_ms']:.2f} | {r['adapted_ms']:.2f} "
            f"| {r['stock_ms'] / r['adapted_ms']:.2f}× faster |"
            for r in mcp1["rows"]
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
