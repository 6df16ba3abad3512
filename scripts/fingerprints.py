#!/usr/bin/env python3
"""Fingerprints of the SDK source the adapters' patch groups rely on (see
python/mcp_native/adapters/_patching/proof.py).

    scripts/fingerprints.py write            # fingerprints.json from the sdists of the tested releases
    scripts/fingerprints.py compat           # the newest mcp and fastmcp on the registry, group by group
    scripts/fingerprints.py compat mcp==2.4.0 fastmcp==4.3.0

``write`` is run when a release joins TESTED, after its official suite ran stock and adapted
(``scripts/sdk-tests --matrix``) with no regression. ``compat`` (``scripts/sdk-compat``) is the
first thing to run when an SDK ships: per patch group, whether the new release's source matches a
tested release, and if not which names changed. Sdists are kept under build/sdists/.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from mcp_native.adapters import GROUPS, GroupSpec  # noqa: E402
from mcp_native.adapters._patching import proof as _proof  # noqa: E402

SDISTS = ROOT / "build" / "sdists"
PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--ignore-requires-python"]

#: Releases whose official suites ran stock and adapted with no regression (the newest patch
#: release of each minor line; the other patch releases of a line are listed when their
#: source of every group matches one of those).
TESTED = {
    "mcp": ["1.26.0", "1.30.0", "2.0.1", "2.1.1", "2.2.0", "2.3.0"],
    "fastmcp": ["3.4.11", "4.0.11", "4.1.2", "4.1.3", "4.1.4", "4.1.6", "4.1.7", "4.2.3"],
    # 1.x runs on Python up to 3.12, 2.x needs 3.13 (scripts/azure-functions tests both).
    "azure-functions": ["1.26.0", "2.3.0"],
}
# The distributions a release's code comes in: mcp 2.x keeps its types in mcp-types, released
# with it under the same version (1.x has them in mcp.types).
PARTS = {"mcp": ["mcp", "mcp-types"], "fastmcp": ["fastmcp"], "azure-functions": ["azure-functions"]}
SINGLE = {("mcp", "1")}  # (dist, major line) released as one distribution


def sdist(dist: str, version: str | None) -> Path:
    """The unpacked sdist of ``dist`` (the newest release when ``version`` is None)."""
    SDISTS.mkdir(parents=True, exist_ok=True)
    archive = SDISTS / f"{dist.replace('-', '_')}-{version}.tar.gz"
    if version is None or not archive.is_file():
        spec = dist if version is None else f"{dist}=={version}"
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                # A release for another Python (azure-functions 2.x needs 3.13) is only read here.
                [*PIP_DOWNLOAD, "--no-binary", ":all:", "-d", tmp, spec],
                check=True,
                stderr=subprocess.DEVNULL,
            )
            (download,) = Path(tmp).glob("*.tar.gz")
            archive = Path(shutil.move(download, SDISTS / download.name))
    unpacked = SDISTS / archive.name.removesuffix(".tar.gz")
    if not unpacked.is_dir():
        with tarfile.open(archive) as tar:
            tar.extractall(SDISTS, filter="data")
    return unpacked


def version_of(unpacked: Path) -> str:
    return unpacked.name.rpartition("-")[2]


def source_root(dist: str, version: str | None) -> tuple[str, Path]:
    """(the version, a folder holding the release's top-level packages side by side, as in
    site-packages), from its sdists."""
    first = sdist(PARTS[dist][0], version)
    version = version_of(first)
    trees = [first]
    for part in [] if (dist, version.split(".")[0]) in SINGLE else PARTS[dist][1:]:
        try:
            trees.append(sdist(part, version))
        except subprocess.CalledProcessError:  # not released with it (mcp 1.x has no mcp-types)
            print(f"fingerprints: no {part} {version}: its names count as missing", flush=True)
    root = SDISTS / "roots" / f"{dist}-{version}"
    root.mkdir(parents=True, exist_ok=True)
    tops = {name.split(":")[0].split(".")[0] for g in GROUPS if g.dist == dist for name in g.names}
    for top in sorted(tops):
        found = [
            p.parent
            for tree in trees
            for p in tree.rglob(f"{top}/__init__.py")
            if not {"tests", "docs", "examples"} & set(p.relative_to(tree).parts)
        ]
        link = root / top
        if found and not link.exists():
            link.symlink_to(min(found, key=lambda p: len(p.parts)))
    return version, root


def groups_of(dist: str, version: str) -> list[GroupSpec]:
    """The groups written for the release line of ``version``."""
    return [g for g in GROUPS if g.dist == dist and str(g.major) == version.split(".")[0]]


def names_of(dist: str, version: str) -> list[str]:
    return sorted({n for g in groups_of(dist, version) for n in g.names})


def write() -> None:
    data: dict[str, dict[str, object]] = {}
    for dist, releases in TESTED.items():
        data[dist] = {}
        for release in releases:
            _, root = source_root(dist, release)
            data[dist][release] = _proof.Installed(root).record(names_of(dist, release))
            print(f"fingerprints: {dist} {release}", flush=True)
    _proof.DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"fingerprints: wrote {_proof.DATA.relative_to(ROOT)}")


def compat(specs: list[str]) -> int:
    tested = json.loads(_proof.DATA.read_text())
    wanted = dict(s.split("==") for s in specs) if specs else {}
    if specs and not all(re.fullmatch(r"[\w-]+==[\w.]+", s) for s in specs):
        raise SystemExit("give releases as name==version")
    failures = 0
    for dist in wanted or TESTED:
        version, root = source_root(dist, wanted.get(dist))
        release = _proof.Installed(root)
        print(f"{dist} {version}{' (tested)' if version in TESTED[dist] else ''}:")
        for group in groups_of(dist, version):
            line = {r: v for r, v in tested[dist].items() if r.split(".")[0] == str(group.major)}
            match, changed = _proof.prove(release, group.names, line, prefer=version)
            if match is not None:
                print(f"  {group.name:18} matches {match}: patched")
            else:
                failures += 1
                print(f"  {group.name:18} CHANGED, stays stock until tested: {', '.join(changed)}")
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("write", help="write fingerprints.json from the tested releases' sdists")
    c = sub.add_parser("compat", help="compare releases (default: the newest) with the tested ones")
    c.add_argument("releases", nargs="*", help="name==version")
    args = ap.parse_args()
    if args.command == "write":
        write()
        return 0
    return compat(args.releases)


if __name__ == "__main__":
    sys.exit(main())
