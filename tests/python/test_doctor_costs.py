"""``python -m mcp_native doctor``'s per-request costs: what the installed distributions and the
environment tell, each with its measured cost and the setting that removes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp_native.__main__ import per_request_costs

ROOT = Path(__file__).resolve().parents[2]


def costs(versions: dict[str, str]) -> list[str]:
    return per_request_costs(versions.get)


def test_each_cost_is_named_with_its_setting() -> None:
    found = costs({"mcp": "1.30.0", "rich": "15.0.0", "uvicorn": "0.54.0", "httpcore": "1.0.9"})
    assert len(found) == 3
    logging, server, client = found
    assert logging.startswith("FastMCP (mcp 1.30.0) logs each request at INFO through rich")
    assert "1.69 ms at INFO" in logging and 'log_level="WARNING"' in logging
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
    assert costs(everything) == []  # no SDK, uvicorn complete, httpcore with sniffio
    (logging,) = costs({"mcp": "1.26.0", **everything})  # (no rich: logging's own handler)
    assert logging.startswith("FastMCP (mcp 1.26.0) logs each request at INFO to stderr")
    (only,) = costs({"uvicorn": "0.54.0", "uvloop": "0.22.1"})
    assert only.startswith("uvicorn 0.54.0 without httptools:")


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
