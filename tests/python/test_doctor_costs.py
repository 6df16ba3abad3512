"""``python -m mcp_native doctor``'s per-request costs: what the installed distributions and the
environment tell, each with its measured cost and the setting that removes it."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_native._doctor import per_request_costs

ROOT = Path(__file__).resolve().parents[2]
MCP_LINE = int(importlib.metadata.version("mcp").split(".")[0])
FASTMCP = importlib.util.find_spec("fastmcp") is not None


def costs(versions: dict[str, str]) -> list[str]:
    return per_request_costs(versions.get)


def test_each_cost_is_named_with_its_setting() -> None:
    found = costs({"mcp": "1.30.0", "rich": "15.0.0", "uvicorn": "0.54.0", "httpcore": "1.0.9"})
    assert len(found) == 4
    logging, server, access_log, client = found
    assert access_log.startswith("uvicorn 0.54.0 writes an access-log line")
    assert logging.startswith("FastMCP (mcp 1.30.0) logs each request at INFO through rich")
    assert "1.41 ms at INFO" in logging and 'log_level="WARNING"' in logging
    assert server.startswith("uvicorn 0.54.0 without httptools and uvloop:")
    assert "911 µs" in server and "uvicorn[standard]" in server
    assert client.startswith("httpcore without sniffio:") and "5.5%" in client and "install sniffio" in client


def test_what_is_in_place_is_not_named() -> None:
    everything = {
        "uvicorn": "0.54.0",
        "httptools": "0.7.1",
        "uvloop": "0.22.1",
        "httpcore": "1.0.9",
        "sniffio": "1.3.1",
    }
    # No SDK, uvicorn complete (its access log is the command line's), httpcore with sniffio.
    (access_log,) = costs(everything)
    assert access_log.startswith("uvicorn 0.54.0 writes an access-log line")
    logging, _ = costs({"mcp": "1.26.0", **everything})  # (no rich: logging's own handler)
    assert logging.startswith("FastMCP (mcp 1.26.0) logs each request at INFO to stderr")
    only, _ = costs({"uvicorn": "0.54.0", "uvloop": "0.22.1"})
    assert only.startswith("uvicorn 0.54.0 without httptools:")
    assert costs({"httpcore": "1.0.9", "sniffio": "1.3.1"}) == []


def test_mcpserver_points_to_its_log_level() -> None:
    (line,) = costs({"mcp": "2.3.0"})
    assert line.startswith("MCPServer (mcp 2.3.0) logs at INFO to stderr")
    assert 'log_level="WARNING"' in line


def test_doctor_prints_them_before_its_summary() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mcp_native", "doctor"], cwd=ROOT, capture_output=True, text=True, timeout=60
    ).stdout.splitlines()
    expected = per_request_costs()
    if expected:
        start = out.index("per-request costs a setting removes:")
        assert out[start + 1 : start + 1 + len(expected)] == [f"  - {line}" for line in expected]
        assert out[-1].startswith("mcp-native adapters: ")
    else:
        assert "per-request costs a setting removes:" not in out


def test_the_access_log_and_the_listing_before_each_call_are_named() -> None:
    (log,) = costs({"uvicorn": "0.54.0", "httptools": "0.7.1", "uvloop": "0.22.1"})
    assert log.startswith("uvicorn 0.54.0 writes an access-log line for each request")
    assert "--no-access-log" in log and "30 µs" in log
    listing = [line for line in costs({"mcp": "2.2.0"}) if "tools/list" in line]
    assert len(listing) == 1 and "upgrade to mcp 2.3.0" in listing[0] and "0.37 ms" in listing[0]
    assert not [line for line in costs({"mcp": "2.3.0"}) if "tools/list" in line]
    assert not [line for line in costs({"mcp": "1.30.0"}) if "tools/list" in line]


APPS = """
import sys
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from fastmcp import FastMCP

streamed = MCPServer("streamed", log_level="WARNING")  # SSE and sessions: the SDK's defaults
streamed_app = streamed.streamable_http_app()
lean = MCPServer("lean", log_level="WARNING")
lean_app = lean.streamable_http_app(json_response=True, stateless_http=True)

async def list_tools(ctx, params):
    raise AssertionError("doctor serves nothing")

listing = Server("listing", on_list_tools=list_tools)
listing_app = listing.streamable_http_app(json_response=True, stateless_http=True)
looked_up = Server("looked-up", on_list_tools=list_tools, get_tool_input_schema=lambda name: None)
looked_up_app = looked_up.streamable_http_app(json_response=True, stateless_http=True)
fast = FastMCP("fast")


@fast.tool
def fast_sync() -> str:
    return "x"


@fast.tool(run_in_thread=False)
def fast_inline() -> str:
    return "x"


app = fast.http_app(json_response=False, stateless_http=True)
tooled = MCPServer("tooled", log_level="WARNING")


@tooled.tool()
def blocking() -> str:
    return "x"


@tooled.tool()
async def waiting() -> str:
    return "x"


@lean.tool()
async def quick() -> str:
    return "x"


tooled_app = tooled.streamable_http_app(json_response=True, stateless_http=True)

if __name__ == "__main__":
    sys.exit("the main block ran")
"""


def doctor(tmp_path: Path, target: str) -> subprocess.CompletedProcess[str]:
    """``python -m mcp_native doctor TARGET`` in ``tmp_path``, as a user runs it beside the app."""
    return subprocess.run(
        [sys.executable, "-m", "mcp_native", "doctor", target],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )


@pytest.mark.skipif(MCP_LINE < 2 or not FASTMCP, reason="the apps are mcp 2.x's and fastmcp's")
def test_doctor_names_what_an_app_it_imports_costs(tmp_path: Path) -> None:
    (tmp_path / "served.py").write_text(APPS)
    for target in ("served:app", "served.py:app", str(tmp_path / "served.py")):
        run = doctor(tmp_path, target)
        assert run.returncode == 0, run.stderr
        lines = [line[4:] for line in run.stdout.splitlines() if line.startswith("  - ")]
        (heap,) = [line for line in lines if line.startswith(f"{target}: the garbage collector tracks")]
        mine = [line for line in lines if line.startswith(target) and line != heap]
        by_server: dict[str, list[str]] = {}
        for line in mine:
            server = line[len(target) :].split(")", 1)[0].removeprefix(" (")
            by_server.setdefault(server, []).append(line)
        # Each app's own costs, nothing for the lean ones, nothing served, no main block run.
        assert sorted(by_server) == ["fast", "listing", "streamed", "tooled"], mine
        assert [line.split(") ", 1)[1][:40] for line in by_server["streamed"]] == [
            "answers each POST as an SSE stream (json",
            "keeps a session for each client (statele",
        ]
        assert "pass json_response=True" in by_server["streamed"][0]
        assert "pass stateless_http=True" in by_server["streamed"][1]
        (listing,) = by_server["listing"]
        assert "low-level Server without get_tool_input_schema" in listing and "0.26" in listing
        fast, fast_sync = by_server["fast"]  # fastmcp builds its manager at start: read from the app
        assert "SSE stream" in fast
        # The sync tools, by name (not the async ones, nor fastmcp's run_in_thread=False), with the setting.
        assert "runs 1 sync tool (fast_sync) in a worker thread" in fast_sync and "run_in_thread=False" in fast_sync
        (tooled,) = by_server["tooled"]
        assert "runs 1 sync tool (blocking) in a worker thread" in tooled and "async def" in tooled
        assert "46-80 µs" in tooled and "run_in_thread" not in tooled
        assert not [line for line in lines if "logs at INFO" in line]  # every server at WARNING
        assert "the main block ran" not in run.stderr


@pytest.mark.skipif(MCP_LINE < 2, reason="MCPServer is mcp 2.x's")
def test_doctor_names_an_unfrozen_heap_with_what_a_full_collection_takes(tmp_path: Path) -> None:
    app = (
        "from mcp.server.mcpserver import MCPServer\n"
        "app = MCPServer('kept', log_level='WARNING').streamable_http_app(json_response=True, stateless_http=True)\n"
    )
    (tmp_path / "kept.py").write_text(app)
    (tmp_path / "frozen.py").write_text(app + "import gc\ngc.collect()\ngc.freeze()\n")
    (tmp_path / "uncollected.py").write_text(app + "import gc\ngc.disable()\n")
    run = doctor(tmp_path, "kept:app")
    (line,) = [line for line in run.stdout.splitlines() if "garbage collector" in line]
    objects, ms = re.search(r"tracks ([\d,]+) objects .* walks them all: (\d+) ms here", line).groups()  # type: ignore[union-attr]
    assert int(objects.replace(",", "")) > 10_000  # the SDK's models and schemas, at the least
    assert int(ms) >= 0 and "gc.collect() then gc.freeze()" in line and "5.45 -> 3.93" in line
    # Frozen, or with no collections at all, nothing to name.
    for target in ("frozen:app", "uncollected:app"):
        run = doctor(tmp_path, target)
        assert run.returncode == 0, run.stderr
        assert "garbage collector" not in run.stdout


@pytest.mark.skipif(MCP_LINE < 2, reason="MCPServer is mcp 2.x's")
def test_doctor_names_the_sdk_log_level_only_where_it_is_info(tmp_path: Path) -> None:
    (tmp_path / "chatty.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "app = MCPServer('chatty').streamable_http_app(json_response=True, stateless_http=True)\n"
    )
    run = doctor(tmp_path, "chatty:app")
    (line,) = [line for line in run.stdout.splitlines() if "chatty" in line and "garbage collector" not in line]
    assert "the SDK logs at INFO" in line and 'log_level="WARNING"' in line


def test_doctor_says_what_it_cannot_import_or_find(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("raise RuntimeError('no database here')\n")
    missing = doctor(tmp_path, "plain:app")
    assert missing.returncode == 1 and missing.stderr.strip() == "doctor: 'plain' has no attribute 'app'"
    broken = doctor(tmp_path, "broken:app")
    assert broken.stderr.strip() == "doctor: importing 'broken' failed: RuntimeError: no database here"
    absent = doctor(tmp_path, "nowhere.py")
    assert absent.stderr.strip() == "doctor: no file 'nowhere.py'"
    nothing = doctor(tmp_path, "plain.py")
    (line,) = [line for line in nothing.stdout.splitlines() if line.startswith("  - plain.py")]
    assert "builds no Streamable HTTP app when imported" in line
