"""The adapters in every process of a program: ``MCP_NATIVE_ADAPTERS`` and its start-up hook
(which ``python -m mcp_native run`` sets for the program's children), with real HTTP servers on
127.0.0.1: uvicorn ``--workers 2`` (spawned interpreters), gunicorn with uvicorn's worker class
(forked), ``fastmcp run``, multiprocessing and plain Python subprocesses. Each worker answers a
probe route with its pid and the function its Streamable HTTP transport writes responses with."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")
pytest.importorskip("uvicorn")

from mcp_native import adapters

ENV = adapters.ENVIRONMENT
NATIVE = "mcp_native.adapters._engines.http"

PROBE_APP = """
import os
import time
from mcp.server.mcpserver import MCPServer
from starlette.responses import JSONResponse

server = MCPServer("probe")


@server.custom_route("/probe", methods=["GET"])
async def probe(request):
    from mcp.server.streamable_http import StreamableHTTPServerTransport as T
    time.sleep(0.1)  # blocks this worker's loop: the next connection goes to another worker
    return JSONResponse({"pid": os.getpid(), "writer": T._create_json_response.__module__})


app = server.streamable_http_app()
"""

FASTMCP_APP = """
import os
import time
from fastmcp import FastMCP
from starlette.responses import JSONResponse

mcp = FastMCP("probe")


@mcp.custom_route("/probe", methods=["GET"])
async def probe(request):
    from mcp.server.streamable_http import StreamableHTTPServerTransport as T
    time.sleep(0.1)  # blocks this worker's loop: the next connection goes to another worker
    return JSONResponse({"pid": os.getpid(), "writer": T._create_json_response.__module__})
"""


# conftest's ``served``: ``with served(lambda port: cmd, cwd, env) as port:``.
Served = Callable[[Callable[[int], list[str]], Path, dict[str, str]], AbstractContextManager[int]]


def _env(value: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if value is not None:
        env[ENV] = value
    return env


def _ask(port: int) -> tuple[int, str] | None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/probe", headers={"Connection": "close"})
        answer = json.loads(conn.getresponse().read())
    except (OSError, http.client.HTTPException):
        return None  # a worker still starting
    finally:
        conn.close()
    return answer["pid"], answer["writer"]


def probe(port: int, workers: int) -> dict[int, str]:
    """pid -> the module of the transport's response writer, from rounds of concurrent
    connections (the probe blocks its worker for a moment, so that the others take the rest)
    until ``workers`` distinct processes have answered."""
    seen: dict[int, str] = {}
    with ThreadPoolExecutor(4) as pool:
        for _ in range(50):
            seen.update(a for a in pool.map(_ask, [port] * 4) if a is not None)
            if len(seen) == workers:
                return seen
    raise AssertionError(f"only {len(seen)} of {workers} workers answered: {seen}")


def _uvicorn(port: int) -> list[str]:
    return ["-m", "uvicorn", "probe_app:app", "--workers", "2", "--port", str(port), "--log-level", "warning"]


@pytest.mark.parametrize("launch", ["run", "environment", "stock"])
def test_uvicorn_workers(tmp_path: Path, launch: str, served: Served) -> None:
    (tmp_path / "probe_app.py").write_text(PROBE_APP)
    run = ["-m", "mcp_native", "run"] if launch == "run" else []
    env = _env("1" if launch == "environment" else None)
    with served(lambda port: [sys.executable, *run, *_uvicorn(port)], tmp_path, env) as port:
        seen = probe(port, 2)
    assert os.getpid() not in seen
    assert set(seen.values()) == {"mcp.server.streamable_http" if launch == "stock" else NATIVE}


def test_gunicorn_forked_workers(tmp_path: Path, served: Served) -> None:
    pytest.importorskip("gunicorn")
    (tmp_path / "probe_app.py").write_text(PROBE_APP)
    gunicorn = ["-m", "gunicorn", "probe_app:app", "-w", "2", "-k", "uvicorn.workers.UvicornWorker"]
    run = [sys.executable, "-m", "mcp_native", "run", *gunicorn, "--log-level", "warning"]
    with served(lambda port: [*run, "-b", f"127.0.0.1:{port}"], tmp_path, _env(None)) as port:
        assert set(probe(port, 2).values()) == {NATIVE}


@pytest.mark.parametrize("launch", ["run", "environment"])
def test_fastmcp_run(tmp_path: Path, launch: str, served: Served) -> None:
    fastmcp = shutil.which("fastmcp", path=os.path.dirname(sys.executable))
    assert fastmcp is not None
    (tmp_path / "app.py").write_text(FASTMCP_APP)
    args = ["run", "app.py", "--transport", "http", "--no-banner"]
    start = [sys.executable, "-m", "mcp_native", "run", fastmcp] if launch == "run" else [fastmcp]
    env = _env(None if launch == "run" else "1")
    with served(lambda port: [*start, *args, "--port", str(port)], tmp_path, env) as port:
        assert set(probe(port, 1).values()) == {NATIVE}


CHILDREN = """
import multiprocessing, subprocess, sys

def report(queue):
    from mcp_native import adapters
    r = adapters.report()
    queue.put(None if r is None else r.output_validation)

if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=report, args=(queue,))
    child.start()
    spawned = queue.get(timeout=60)
    child.join()
    code = "from mcp_native import adapters; r = adapters.report(); print(None if r is None else r.output_validation)"
    sub = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    print(spawned, sub)
"""


def test_run_reaches_spawned_processes_and_subprocesses_with_its_options(tmp_path: Path) -> None:
    (tmp_path / "children.py").write_text(CHILDREN)
    cmd = [sys.executable, "-m", "mcp_native", "run", "--quiet", "--output-validation", "warn", "children.py"]
    out = subprocess.run(cmd, cwd=tmp_path, env=_env(None), capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["warn", "warn"]
    stock = subprocess.run(
        [sys.executable, "children.py"],
        cwd=tmp_path,
        env=_env(None),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert stock.stdout.split() == ["None", "None"]


@pytest.mark.parametrize(
    ("value", "options"),
    [
        ("1", {}),
        ("on", {}),
        ("", None),
        ("0", None),
        ("off", None),
        ("output_validation=warn, mirror=compact", {"output_validation": "warn", "mirror": "compact"}),
        ("client=0,server=1,transport=off", {"client": False, "server": True, "transport": False}),
    ],
)
def test_options_from_the_environment(value: str, options: dict[str, object] | None) -> None:
    assert adapters.options_from_environment(value) == options
    if options:
        assert adapters.options_from_environment(adapters.environment_value(**options)) == options


@pytest.mark.parametrize(
    "value", ["yes please", "mirror=tight", "output_validation=strict", "client=maybe", "strict=1"]
)
def test_a_bad_environment_value_is_named_and_does_not_stop_the_interpreter(value: str) -> None:
    with pytest.raises(ValueError, match=ENV):
        adapters.options_from_environment(value)
    code = "from mcp_native import adapters; print(adapters.report())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=_env(value), capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "None"
    assert f"mcp-native adapters not installed at start-up: {ENV}" in out.stderr
