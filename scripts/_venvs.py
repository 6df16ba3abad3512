"""What the scripts that test mcp_native in other virtual environments share (scripts/sdk_pairs.py;
written so that scripts/sdk_tests.py can import it too): running pip quietly, one run at a time
per environment, a copy of mcp_native in a venv, and the outcomes of a pytest JUnit report.

The scripts run from scripts/, so ``import _venvs`` finds this module."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run(cmd: list[str], **kw: Any) -> None:
    subprocess.run(cmd, check=True, **kw)


def quiet(cmd: list[str], **kw: Any) -> None:
    """Runs pip, whose output (warnings about the configured indexes) shows only if it fails."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if proc.returncode:
        print(proc.stdout)
        raise subprocess.CalledProcessError(proc.returncode, cmd)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """One run at a time per environment (a second one waits)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def built_core() -> Path:
    """The extension scripts/setup built (the editable install in .venv rebuilds it on import)."""
    probe = "import mcp_native._core as c; print(c.__file__)"
    out = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-c", probe], check=True, capture_output=True, text=True
    )
    return Path(out.stdout.strip())


def add_mcp_native(venv: Path, rev: str | None, metadata: bool = False, wheel: Path | None = None) -> None:
    """A copy of the package (the working tree's, or as committed at rev) with the extension
    built in this checkout, in the venv's site-packages. ``metadata``: as the wheel installs it,
    with a minimal ``dist-info`` (``importlib.metadata.version("mcp-native")`` answers) and the
    start-up hook that reads ``MCP_NATIVE_ADAPTERS``. ``wheel``:
    the extension of that wheel (for the venv's Python) and the libraries bundled beside it."""
    site = site_packages(venv)
    core = built_core() if wheel is None else None
    shutil.rmtree(site / "mcp_native", ignore_errors=True)
    if rev is None:
        shutil.copytree(
            ROOT / "python" / "mcp_native", site / "mcp_native", ignore=shutil.ignore_patterns("__pycache__", "*.so")
        )
    else:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "python/mcp_native"], check=True, capture_output=True
        ).stdout
        run(["tar", "-x", "--strip-components=1", "-C", str(site)], input=archive)
    if core is not None:
        shutil.copy2(core, site / "mcp_native")
    else:
        shutil.rmtree(site / "mcp_native.libs", ignore_errors=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(
                site,
                [
                    n
                    for n in z.namelist()
                    if n.startswith("mcp_native.libs/") or (n.startswith("mcp_native/_core.") and n.endswith(".so"))
                ],
            )
    for old in site.glob("mcp_native-*.dist-info"):
        shutil.rmtree(old)
    if metadata:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
        info = site / f"mcp_native-{project['version']}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
        )
        (info / "INSTALLER").write_text("scripts/_venvs.py\n")
        shutil.copy2(ROOT / "python" / "mcp_native_adapters.pth", site)


def parse_report(report: Path) -> dict[str, str]:
    """Outcome per test id: passed, failed, skipped (xfail/xpass count as skipped/passed)."""
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        if case.get("classname") is None and case.get("name") is None:
            continue  # a nameless entry some plugins' reports hold: no test to compare or rerun
        test_id = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcomes[test_id] = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
    return outcomes


def counts(outcomes: dict[str, str]) -> str:
    return ", ".join(f"{sum(v == k for v in outcomes.values())} {k}" for k in ("passed", "failed", "skipped"))


if __name__ == "__main__":
    sys.exit("scripts/_venvs.py is a module: scripts/sdk_pairs.py imports it")
