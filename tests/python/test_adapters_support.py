"""Support by proof: the source fingerprints that decide which patch groups apply, the command
line that says what happened (``run``'s line and ``--report``, ``doctor``), the arguments ``run``
passes to the program, and what the older release lines of mcp 2.x need (a synchronous
``_get_executable_command`` before 2.3, no ``_output_adapter`` in 2.0)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")

import mcp.client.stdio
from mcp import ClientSession, StdioServerParameters
from pydantic import BaseModel

from mcp_native import adapters
from mcp_native.adapters._patching import proof as _proof
from mcp_native.adapters.mcp2 import server as mcp_server

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("adapters_restored")]

# -- fingerprints ---------------------------------------------------------------------------

SOURCE = b'''
import sys
LIMIT = 10

def helper(x):
    """Its docstring."""
    return x + 1  # a comment

class Model:
    """A class."""
    field: int = 0

    def method(self):
        return helper(self.field)

if sys.platform == "win32":
    def platform():
        return "windows"
else:
    def platform():
        return "posix"
'''


def test_fingerprints_ignore_docstrings_comments_and_layout() -> None:
    names = ["helper", "Model", "Model.method", "Model.field", "LIMIT", "platform"]
    base = _proof.fingerprints(SOURCE, names)
    reworded = SOURCE.replace(b"Its docstring.", b"Another text.").replace(b"# a comment", b"")
    reworded = reworded.replace(b"return x + 1", b"return (\n        x + 1\n    )")
    assert _proof.fingerprints(reworded, names) == base
    assert len(set(base.values())) == len(names)


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        (b"return x + 1", b"return x + 2", {"helper"}),
        (b"field: int = 0", b"field: int = 1", {"Model", "Model.field"}),
        (b"return helper(self.field)", b"return helper(self.field) or 0", {"Model", "Model.method"}),
        (b"LIMIT = 10", b"LIMIT = 11", {"LIMIT"}),
        (b'return "posix"', b'return "linux"', {"platform"}),  # the last definition counts
        (b"def method(self):", b"async def method(self):", {"Model", "Model.method"}),
    ],
)
def test_fingerprints_see_every_change_of_code(old: bytes, new: bytes, changed: set[str]) -> None:
    names = ["helper", "Model", "Model.method", "Model.field", "LIMIT", "platform"]
    base = _proof.fingerprints(SOURCE, names)
    after = _proof.fingerprints(SOURCE.replace(old, new), names)
    assert {n for n in names if base[n] != after[n]} == changed


def test_fingerprints_are_the_same_on_every_python() -> None:
    # fingerprints.json is written on one Python and read on 3.10-3.13, whose ast.dump layouts
    # differ (3.12 adds type_params=[], 3.13 leaves empty fields out): pinned, so CI's run on 3.13
    # fails if a fingerprint depends on the Python that computes it.
    names = ["helper", "Model", "Model.method", "Model.field", "LIMIT", "platform"]
    assert _proof.fingerprints(SOURCE, names) == {
        "helper": "e52b2a570356c2b6",
        "Model": "7f1a23f35c70d6e0",
        "Model.method": "d88b2477023df425",
        "Model.field": "1b55c8fd2258656b",
        "LIMIT": "83ab62ab8299a340",
        "platform": "f4b2ba3dee0cf971",
    }


def test_fingerprints_of_missing_names() -> None:
    assert _proof.fingerprints(SOURCE, ["absent", "Model.absent", "helper.x"]) == dict.fromkeys(
        ["absent", "Model.absent", "helper.x"], _proof.MISSING
    )


def test_a_release_is_recognised_by_file_hash_or_by_parsing(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_bytes(SOURCE)
    names = ["pkg.mod:helper", "pkg.mod:Model.method", "pkg.gone:thing"]
    release = _proof.Installed(tmp_path).record(names)
    assert release["files"] == {"pkg.mod": _proof.file_hash(SOURCE), "pkg.gone": None}
    assert release["names"]["pkg.gone:thing"] == _proof.MISSING
    # A docstring changed: the file differs, the code does not.
    (tmp_path / "pkg" / "mod.py").write_bytes(SOURCE.replace(b"A class.", b"Documented."))
    assert _proof.Installed(tmp_path).differences(names, release) == []
    (tmp_path / "pkg" / "mod.py").write_bytes(SOURCE.replace(b"x + 1", b"x - 1"))
    assert _proof.Installed(tmp_path).differences(names, release) == ["pkg.mod:helper"]
    (tmp_path / "pkg" / "gone.py").write_text("def thing(): pass\n")
    assert _proof.Installed(tmp_path).differences(names, release) == ["pkg.mod:helper", "pkg.gone:thing"]


def test_the_data_covers_every_name_of_every_group_on_every_tested_release() -> None:
    data = _proof.tested()
    assert set(data) == {"mcp", "fastmcp", "azure-functions"}
    for spec in adapters.GROUPS:
        line = {r: e for r, e in data[spec.dist].items() if r.split(".")[0] == str(spec.major)}
        assert line, f"{spec.name}: no tested release of {spec.dist} {spec.major}.x"
        for release, entry in line.items():
            assert set(spec.names) <= set(entry["names"]), (spec.name, release)
        # A patched target exists in the line's newest tested release (a release without one
        # cannot prove the group: installer._prove).
        newest = line[max(line, key=lambda r: tuple(int(p) for p in r.split(".")))]
        assert all(newest["names"][t.name] != _proof.MISSING for t in spec.targets), spec.name


def test_a_group_is_not_for_a_tested_release_without_a_name_it_replaces(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_native.adapters._patching import installer

    releases = _proof.tested()["mcp"]

    class Installed:  # an installed mcp whose source is 2.0.1's, name for name
        def differences(self, names: Any, release: Any) -> list[str]:
            return [] if release is releases["2.0.1"] else ["changed"]

    monkeypatch.setattr(installer, "_installed_versions", lambda: {"mcp": "2.0.1"})
    monkeypatch.setattr(_proof, "Installed", Installed)
    groups = {g.spec.name: g for g in adapters.check().groups}
    # mcp 2.0.1 has no StreamableHTTPSessionManager._serve_opening_request (2.2.0 added it): the
    # group is not listed (install(strict=True) goes on), and no other release proves it there.
    assert "http-session-tasks" not in groups
    assert (groups["http-sessions"].state, groups["http-sessions"].why) == ("waiting", "the source of mcp 2.0.1")
    spec = next(s for s in adapters.GROUPS if s.name == "http-session-tasks")
    assert installer._prove(spec, "2.0.1", Installed())[0] is None  # type: ignore[arg-type]


# The package of each release line: the groups it declares, the modules that replace.
_LINE_PACKAGES = {
    ("mcp", 2): "mcp2",
    ("fastmcp", 4): "fastmcp4",
    ("mcp", 1): "mcp1",
    ("fastmcp", 3): "fastmcp3",
    ("azure-functions", 2): "azure_functions",
    ("azure-functions", 1): "azure_functions",
}


def test_each_line_declares_its_groups_beside_its_replacements() -> None:
    declared: list[str] = []
    for package in dict.fromkeys(_LINE_PACKAGES.values()):
        groups = importlib.import_module(f"mcp_native.adapters.{package}").GROUPS
        declared += [g.name for g in groups]
        for spec in groups:
            assert _LINE_PACKAGES[spec.dist, spec.major] == package, spec.name
            for target in spec.targets:
                # The line's own module, or an engine several lines share.
                home = target.adapter.removeprefix("mcp_native.adapters.").partition(".")[0]
                assert home in (package, "_engines"), (spec.name, target.adapter)
                assert hasattr(importlib.import_module(target.adapter), target.function)
    assert sorted(declared) == sorted(g.name for g in adapters.GROUPS)
    assert len(set(declared)) == len(declared)


def test_no_adapter_module_is_over_500_lines() -> None:
    root = Path(adapters.__file__).parent
    sizes = {p.relative_to(root): len(p.read_text().splitlines()) for p in root.rglob("*.py")}
    assert len(sizes) > 20
    assert {p: n for p, n in sizes.items() if n > 500} == {}


def test_a_release_is_judged_by_the_groups_of_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def names(versions: dict[str, str]) -> set[str]:
        monkeypatch.setattr(adapters._patching.installer, "_installed_versions", lambda: versions)
        return {g.spec.name for g in adapters.check().groups}

    sdks = ("mcp", "fastmcp")
    newest = {g.name for g in adapters.GROUPS if g.line is None and g.dist in sdks}
    line_1 = {g.name for g in adapters.GROUPS if g.line == 1 and g.dist in sdks}
    line_3 = {g.name for g in adapters.GROUPS if g.line == 3 and g.dist == "fastmcp"}
    assert line_3 and names({"mcp": "1.30.0", "fastmcp": "3.4.11"}) == line_1 | line_3
    # fastmcp 2.x has no groups of its own: mcp 1.x's serve its servers, as the line says.
    assert names({"mcp": "1.30.0", "fastmcp": "2.14.7"}) == line_1
    assert "fastmcp 2.14.7: no groups of its own, its servers run on mcp's" in adapters.check().summary()
    assert names({"mcp": "2.3.0", "fastmcp": "4.1.2"}) == newest
    # A major release newer than the groups: the newest line's, applied where the code is unchanged.
    assert names({"mcp": "3.0.0", "fastmcp": "5.0.0"}) == newest


def test_installed_releases_are_proven_by_their_own_fingerprints(sdk_versions: dict[str, str]) -> None:
    report = adapters.check()
    assert report.versions == sdk_versions
    assert {g.why for g in report.groups} == {f"the source of {dist} {v}" for dist, v in sdk_versions.items()}
    assert all(g.state == "waiting" for g in report.groups)  # check() patches nothing


# -- the command line -------------------------------------------------------------------------

PROBE = """
import json, sys
from mcp_native import adapters
r = adapters.report()
print(json.dumps({"argv": sys.argv, "waiting": r.waiting, "name": __name__}))
"""


def run(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_native", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=check
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--repository", "/tmp/repo", "-v"],
        ["--report", "--quiet", "-m", "x"],  # the program's own options, not run's
        ["--", "--output-validation", "off"],
        [],
    ],
)
def test_run_passes_every_argument_after_the_program_to_it(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "probe_mod.py").write_text(PROBE)
    out = run(tmp_path, "run", "--quiet", "-m", "probe_mod", *args)
    assert json.loads(out.stdout)["argv"][1:] == args and out.stderr == ""
    out = run(tmp_path, "run", "--output-validation", "warn", str(tmp_path / "probe_mod.py"), *args)
    probe = json.loads(out.stdout)
    assert probe["argv"] == [str(tmp_path / "probe_mod.py"), *args] and probe["name"] == "__main__"


def test_run_says_what_it_patches_in_one_line(tmp_path: Path, proven_summary: str) -> None:
    (tmp_path / "probe_mod.py").write_text(PROBE)
    out = run(tmp_path, "run", "-m", "probe_mod")
    assert out.stderr == proven_summary + "\n"
    assert run(tmp_path, "run", "--quiet", "-m", "probe_mod").stderr == ""


def test_run_report_shows_what_the_program_really_used(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text("import mcp.server.stdio, mcp.server.runner\nprint('ran')\n")
    out = run(tmp_path, "run", "--report", "--quiet", str(tmp_path / "server.py"))
    assert out.stdout == "ran\n"
    lines = {line.split()[1].rstrip(":"): line.split()[0] for line in out.stderr.splitlines()[1:]}
    # Importing mcp imports its client and HTTP parts too; fastmcp is never imported.
    assert {lines[g.spec.name] for g in adapters.check().groups if g.spec.dist == "mcp"} == {"patched"}
    assert lines["fastmcp-results"] == "unused"
    assert "not imported by the program" in out.stderr and "on import" not in out.stderr


def test_run_without_a_program_is_a_usage_error(tmp_path: Path) -> None:
    for args in (["run"], ["run", "--quiet"], ["run", "-m"]):
        out = run(tmp_path, *args, check=False)
        assert out.returncode == 2 and "give a script path or -m module" in out.stderr


def test_doctor_lists_every_group(tmp_path: Path, proven_summary: str) -> None:
    out = run(tmp_path, "doctor")
    assert "on import stdio-server" in " ".join(out.stdout.split())
    assert out.stdout.splitlines()[-1] == proven_summary


def test_doctor_fails_when_nothing_can_be_patched(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, sdk_versions: dict[str, str]
) -> None:
    from mcp_native import __main__

    monkeypatch.setattr(_proof, "tested", lambda: {"mcp": {}, "fastmcp": {}})
    assert __main__.main(["doctor"]) == 1
    out = capsys.readouterr().out
    mcp_release = f"mcp {sdk_versions['mcp']}"
    assert f"{mcp_release}: no tested release" not in out and "nothing can be patched" in out
    assert (
        f"stock     stdio-server: stdio server transport: native framing and writes ({mcp_release} is not a tested release (none)"
        in out
    )


# -- what the older mcp 2.x lines need --------------------------------------------------------


async def test_the_client_transport_takes_a_synchronous_executable_lookup(
    monkeypatch: pytest.MonkeyPatch, sanitizer_env: dict[str, str]
) -> None:
    # mcp 2.0-2.2: _get_executable_command is a plain function (a coroutine function from 2.3).
    looked_up = []

    def get_executable_command(command: str) -> str:
        looked_up.append(command)
        return command

    adapters.install(server=False)
    monkeypatch.setattr(mcp.client.stdio, "_get_executable_command", get_executable_command)
    app = ROOT / "examples" / "mcpserver_app.py"
    params = StdioServerParameters(command=sys.executable, args=[str(app)], cwd=str(ROOT), env=sanitizer_env)
    with open("/dev/null", "w") as errlog:
        async with (
            mcp.client.stdio.stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            assert (await session.list_tools()).tools
    assert looked_up == [sys.executable]


class Weather(BaseModel):
    temperature: float
    conditions: str


class FuncMetadata20(BaseModel):
    """mcp 2.0's FuncMetadata, as far as convert_result reads it: an output model that is a
    BaseModel class, and no ``_output_adapter``."""

    output_schema: dict[str, Any] | None = None
    output_model: Any = None
    wrap_output: bool = False


def test_mcpserver_results_on_mcp_2_0(monkeypatch: pytest.MonkeyPatch) -> None:
    def stock(self: Any, result: Any) -> Any:
        raise AssertionError("the native path takes a dict result")

    monkeypatch.setattr(mcp_server, "stock_convert_result", stock)
    monkeypatch.setattr(mcp_server, "mirror_indent", 2)  # install()'s default, whatever ran before
    meta = FuncMetadata20(output_schema=Weather.model_json_schema(), output_model=Weather)
    result = mcp_server.convert_result(meta, {"temperature": 21, "conditions": "sunny", "extra": 1})
    assert result.structured_content == {"temperature": 21.0, "conditions": "sunny"}
    assert result.content[0].text == '{\n  "temperature": 21.0,\n  "conditions": "sunny"\n}'
    # The runner's fast path recognises the mirror it marked.
    assert mcp_server._wire(result) == {
        "content": [{"text": result.content[0].text, "type": "text"}],
        "isError": False,
        "structuredContent": {"temperature": 21.0, "conditions": "sunny"},
    }
