"""What every suite shares: the result file, its tables, the charts and the results section of docs/benchmarks.md.

A suite returns ``result(...)``: a dict with the machine, the date, the versions of Python and of
every peer, and tables. A table has one row per workload and one column per contender, the first
being ours; each cell is a time in ns per call, or a string saying why there is none. Speed-ups
are always peer time / our time, shown as "N× faster" (or "N× slower" when the peer wins).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import math
import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

README_BEGIN = "<!-- bench-results:begin (scripts/bench writes this section) -->"
README_END = "<!-- bench-results:end -->"


class Table:
    """Rows of times per contender; ``ours`` is the contender the others are compared with."""

    def __init__(self, title: str, ours: str, peers: list[str], note: str = "") -> None:
        self.title, self.ours, self.peers, self.note = title, ours, peers, note
        self.rows: dict[str, dict[str, float | str]] = {}

    def add(self, workload: str, ns: dict[str, float | str]) -> None:
        self.rows[workload] = {c: ns.get(c, "—") for c in [self.ours, *self.peers]}

    def as_dict(self) -> dict[str, Any]:
        faster = {w: {p: _speedup(row[p], row[self.ours]) for p in self.peers} for w, row in self.rows.items()}
        geomean = {}
        for p in self.peers:
            xs = [f[p] for f in faster.values() if f[p] is not None]
            geomean[p] = math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None
        return {
            "title": self.title,
            "note": self.note,
            "ours": self.ours,
            "peers": self.peers,
            "ns": {w: {c: round(v, 1) if isinstance(v, float) else v for c, v in row.items()} for w, row in self.rows.items()},
            "faster": {w: {p: _round(x) for p, x in f.items()} for w, f in faster.items()},
            "geomean_faster": {p: _round(x) for p, x in geomean.items()},
        }


def _speedup(peer: float | str, ours: float | str) -> float | None:
    return peer / ours if isinstance(peer, float) and isinstance(ours, float) else None


def _round(x: float | None) -> float | None:
    return None if x is None else float(f"{x:.3g}")


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def versions(dists: list[str], debian: list[str] = ()) -> dict[str, str]:
    """Python's, ours and each peer's version: PyPI distributions, then Debian packages."""
    out = {"python": platform.python_version(), "mcp-native": importlib.metadata.version("mcp-native")}
    for d in dists:
        out[d] = importlib.metadata.version(d)
    for p in debian:
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", p], capture_output=True, text=True)
        out[p] = proc.stdout.strip() or "unknown"
    return out


def result(suite: str, title: str, tables: list[Table], quick: bool, dists: list[str], debian: list[str] = ()) -> dict[str, Any]:
    return {
        "suite": suite,
        "title": title,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "quick": quick,
        "versions": versions(dists, list(debian)),
        "tables": [t.as_dict() for t in tables],
    }


# --- Text ---------------------------------------------------------------------------------------


def fmt_time(ns: float | str) -> str:
    if not isinstance(ns, float):
        return ns
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            v = ns / scale
            return f"{v:.2f} {unit}" if v < 10 else f"{v:.1f} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return f"{ns:.0f} ns"


def fmt_speedup(x: float | None) -> str:
    if x is None:
        return ""
    # Within rounding of 1 reads "1.00× faster", never "1.00× slower".
    word, v = ("faster", x) if x >= 0.995 else ("slower", 1 / x)
    return f"{v:.2f}× {word}" if v < 10 else f"{v:.1f}× {word}" if v < 100 else f"{v:,.0f}× {word}"


def table_markdown(t: dict[str, Any]) -> list[str]:
    """Our time, then each peer's time and how much faster we are; the geometric mean last."""
    lines = [f"**{t['title']}**" + (f": {t['note']}" if t["note"] else ""), "",
             "| workload | " + " | ".join([t["ours"], *t["peers"]]) + " |",
             "|---|" + "---:|" * (1 + len(t["peers"]))]
    for w, row in t["ns"].items():
        cells = [fmt_time(row[t["ours"]])]
        for p in t["peers"]:
            x = t["faster"][w][p]
            cells.append(fmt_time(row[p]) + (f" ({fmt_speedup(x)})" if x is not None else ""))
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    lines.append("| geometric mean | | " + " | ".join(fmt_speedup(t["geomean_faster"][p]) for p in t["peers"]) + " |")
    return lines


def markdown(res: dict[str, Any], chart: str | None = None) -> str:
    v = res["versions"]
    lines = [f"### {res['title']}", "",
             f"Run {res['date']}{' (quick)' if res['quick'] else ''} on {res['machine']}. Python {v['python']}; "
             + ", ".join(f"{k} {x}" for k, x in v.items() if k != "python") + "."]
    if chart:
        lines += ["", f"![{res['title']}]({chart})"]
    for t in res["tables"]:
        lines += ["", *table_markdown(t)]
    return "\n".join(lines)


def print_table(t: Table) -> None:
    """A finished table on the console, as the run goes."""
    print("\n".join(table_markdown(t.as_dict())), flush=True)


# --- Charts ---------------------------------------------------------------------------------------


def chart(res: dict[str, Any], path: Path) -> None:
    """One PNG per suite: a panel per table, a bar per workload and peer, the speed-up on a log scale
    (right of the 1× line: we are faster)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = [t for t in res["tables"] if any(x is not None for f in t["faster"].values() for x in f.values())]
    heights = [1 + 0.16 * len(t["ns"]) * len(t["peers"]) for t in tables]
    fig, axes = plt.subplots(len(tables), 1, figsize=(11, sum(heights) + 0.6), height_ratios=heights,
                             squeeze=False, layout="constrained")
    for ax, t in zip(axes[:, 0], tables):
        workloads = list(t["ns"])[::-1]
        width = 0.8 / len(t["peers"])
        for i, p in enumerate(t["peers"]):
            ys = [k + (len(t["peers"]) - 1 - i - (len(t["peers"]) - 1) / 2) * width for k in range(len(workloads))]
            xs = [t["faster"][w][p] or math.nan for w in workloads]  # no bar where there is no time
            ax.barh(ys, xs, height=width, label=p)
        ax.axvline(1, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yticks(range(len(workloads)), workloads, fontsize=8)
        ax.set_title(f"{t['title']}: {t['ours']} is N× faster than", fontsize=9, loc="left")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
        ax.tick_params(axis="x", labelsize=8)
        # Ticks at 1, 2 and 5 of each decade when the range is narrow, else at each decade only.
        xs = [x for f in t["faster"].values() for x in f.values() if x is not None]
        subs = (1.0,) if max(xs) / min(xs) > 1000 else (1.0, 2.0, 5.0)
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=subs))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}×"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    fig.suptitle(f"{res['title']} ({res['date'][:10]}, Python {res['versions']['python']})", fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --- README ---------------------------------------------------------------------------------------


def readme_section(results: list[dict[str, Any]], charts: dict[str, str]) -> str:
    intro = ("Written by `scripts/bench` from `benchmarks/results/*.json` (do not edit by hand). Times "
             "are the best of repeated batches per call; each peer's cell gives its time and how much "
             "faster mcp-native is than that peer (peer time / our time; \"slower\" when the peer wins).")
    return "\n\n".join([intro, *(markdown(r, charts.get(r["suite"])) for r in results)])


def rewrite_section(text: str, section: str, begin: str = README_BEGIN, end: str = README_END) -> str:
    """``text`` with what lies between the markers replaced by ``section``."""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"README has no {begin!r} ... {end!r} section")
    return pattern.sub(lambda _: f"{begin}\n{section.rstrip()}\n{end}", text, count=1)

