"""MCP servers over Streamable HTTP under load, stock vs on mcp-native, with every answer checked.

Each configuration (MCPServer or fastmcp; JSON or SSE responses; stateful: the 2025-era protocol
with a session, or stateless: 2026-07-28 requests, no session, or stateless-2025: 2025-era
requests, no session, no handshake, or flow: see below; 1 or 2 uvicorn workers) runs as
two uvicorn servers side by side, ``benchmarks/http_app.py`` stock and with
``MCP_NATIVE_ADAPTERS=1`` (every worker adapted). Two kinds of load, from other processes, take
turns on them (stock and adapted alternate, the order flipping each repetition):

- ``wrk`` (Debian's package) with ``http_wrk.lua``: 32 connections, each POSTing a JSON-RPC
  ``tools/call`` with its own id; in stateful mode all carry one session's ``Mcp-Session-Id``;
- the ``mcp`` SDK's own client (``mcp.client.Client`` on ``streamable_http_client``, stock for both
  servers): 2 processes of 16 clients, each client with its own session (stateful) or none, calling
  in a loop.

Reported per configuration, payload (weather, 200 records) and load: calls per second, p50 and p99
latency, the server's CPU time per call, and adapted/stock ("N× faster") for the calls per second
measured and for the calls per second of server CPU (1 / CPU per call: what a worker with a core
to itself serves, the steadier figure on a shared machine). The server's
CPU is read from ``/proc`` for the uvicorn process and its workers (user + system, all threads),
before and after the window: workers are spawned interpreters, which ``cpu_server.py``'s signal does
not reach; a window of thousands of calls makes the 10 ms clock tick negligible.

Every answer is checked, which is the reliability run under load: each id sent is answered
exactly once, with its own result (the weather tool is asked for a city named after the call and
must name it back). ``wrk`` counts ids in its script (requests still in flight when it stops are
left unanswered, at most one per connection); the SDK clients count the ids their transport sends
and receives. A run fails if any answer is lost, duplicated, unknown or wrong.

The session-per-call flow (state ``flow``), as clients that connect for one call do it and as
cross-language MCP benchmarks measure servers: against a stateless server answering in JSON, each
call is a whole session of four requests: POST ``initialize`` (protocol version 2025-11-25), POST
``notifications/initialized``, POST ``tools/call`` (weather, checked as above), DELETE ``/mcp``.
``wrk`` with ``http_flow.lua`` runs it, a thread per connection (32 of each: a thread's Lua state
is then its connection's, which keeps the step and the id in flight), and checks every answer:
initialize's id and protocol version, the call's id and city, and the statuses of the
notification and of DELETE, which are what stock answers (202 and 405 on mcp 2.3.0 and 1.30.0:
a stateless server has no session to end); one flow by hand on each server first, whose answers
(statuses, content types, JSON-RPC keys and error codes) adapted must give as stock does. A flow
counts when all four answers were right; reported: flows per second, server CPU per flow, and the
p50 and p99 of the requests (wrk times requests, not flows). The weather payload, wrk's load
only; in the full run, not in ``--quick`` (``--state flow`` asks for it: ``--quick --state flow``
takes 15 seconds). State ``flow-sessions`` runs the same flow against a server with sessions
(JSON responses): initialize opens a session, the three other requests carry its
``Mcp-Session-Id``, DELETE ends it (200): what a session-per-call client costs a server that keeps
sessions, beside what it costs a stateless one.

The ASGI server (``--asgi``): uvicorn-h11 unless asked (``--http h11``, and uvloop, as the
benchmark ran before the choice was explicit: uvicorn's auto, httptools not being installed);
uvicorn-httptools (``--http httptools --loop uvloop``); gunicorn with uvicorn-worker's
``UvicornWorker`` (a master and its workers); granian (``--interface asgi``: Rust, a main
process and worker processes with threads); hypercorn. Each with its log level at WARNING and no
access log, the same for stock and adapted; the server's CPU is that of its process and all its
descendants, every thread of each. ``scripts/bench-http --asgi NAME`` installs what .venv lacks
(pinned); ``bench_http.py`` alone says what is missing. A run of part of the matrix (``--state``,
``--asgi`` other than the default, ``--payload``, ``--load``) writes under
``build/bench-http-part/``, not over the published results (``--quick`` under its own folder).

Stateful mode with 2 workers is left out: a session lives in the worker that created it, and
uvicorn's workers share one socket with no affinity, so a session's request that reaches another
worker gets 404 "Session not found".

    python benchmarks/bench_http.py [--quick]      # or: scripts/bench-http [--quick]
    python benchmarks/bench_http.py --reliability  # the fault scenarios and RSS over 20,000 calls
    scripts/bench-http --quick --state flow --reps 2 --seconds 3          # the flow alone
    scripts/bench-http --quick --asgi granian --state stateless-2025 --payload weather --load wrk

``--quick`` (about 1.5 minutes): stateless JSON with 1 worker, both frameworks, 2-second
windows, written to ``build/bench-http-quick/``. The full run (about 40 minutes on 2 shared cores) writes
``benchmarks/results/bench_http.json`` and ``docs/bench/bench_http.png``.

With mcp 1.x installed (run with that venv's Python: the servers and the load run on
``sys.executable``), the frameworks are mcp 1.x's FastMCP (``mcp.server.fastmcp``) and fastmcp if
installed; stateless requests are 2025-era requests without a handshake, the load is ``wrk``
alone (the SDK client load is mcp 2.x's ``Client``). ``--framework`` picks frameworks, ``--reps``
and ``--seconds`` set the windows, and ``--log-level`` the servers' ``FASTMCP_LOG_LEVEL``
(fastmcp's setting; ``http_app.py`` passes it to the constructors of FastMCP 1.x and MCPServer,
whose own default, INFO, would override the variable): WARNING unless asked, ``sdk`` for the
SDK's default (INFO, through rich where it is installed).

    .../venv/bin/python benchmarks/bench_http.py --quick --framework "FastMCP 1.x" --reps 2 --log-level sdk
"""

# ruff: noqa: RUF001, RUF002 (speed-ups are written with the multiplication sign)
from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import report  # noqa: E402

# The mcp release line installed, whose frameworks are measured.
MCP_LINE = int(importlib.metadata.version("mcp").split(".")[0])
FRAMEWORKS = (
    {"MCPServer": "mcpserver", "fastmcp": "fastmcp"}
    if MCP_LINE >= 2
    else {"FastMCP 1.x": "fastmcp1", **({"fastmcp": "fastmcp"} if importlib.util.find_spec("fastmcp") else {})}
)
# minimcp (PyPI), a lean framework on mcp 1.x's types that answers a request in one task, as the
# yardstick of what a Python MCP server can do per request: measured where it is installed (its
# "adapted" server is the same one with the adapters installed, which it does not use).
if importlib.util.find_spec("minimcp"):
    FRAMEWORKS["minimcp"] = "minimcp"
# Measured when asked (``--framework``): mcp 2.x's low-level Server, its tools declared by hand
# (``examples/lowlevel_app.py``: no ticking tool, so not in the reliability run).
APPS = {**FRAMEWORKS, **({"low-level Server": "lowlevel"} if MCP_LINE >= 2 else {})}
CALLS = {"weather": "get_weather", "200 records": "list_records"}
FLOWS = ("flow", "flow-sessions")  # the states whose load is a session per call
MODES = ("stock", "adapted")
HANDSHAKE_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}
WRK_CONNECTIONS = 32
# The servers' FASTMCP_LOG_LEVEL (None: unset, the SDK's default); --log-level sets it.
LOG_LEVEL: str | None = "WARNING"
CLIENT_PROCESSES, CLIENTS_PER_PROCESS = 2, 16


# The ASGI servers the apps run on (--asgi), each with its log level at WARNING and no access log,
# the same for stock and adapted. The event loop is uvloop where it is installed (the bench extra
# has it), asyncio elsewhere, on every server that takes Python's loop; uvicorn-h11 is what the
# benchmark ran on before the choice was made explicit (uvicorn's "auto": h11, httptools not being
# installed, and uvloop). gunicorn runs uvicorn's worker class from uvicorn-worker (uvicorn's own
# ``uvicorn.workers`` is deprecated for it), whose "auto" HTTP is httptools where installed.
LOOP = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
ASGI_SERVERS = {
    "uvicorn-h11": f"uvicorn --http h11 --loop {LOOP}",
    "uvicorn-httptools": f"uvicorn --http httptools --loop {LOOP}",
    "gunicorn": "gunicorn -k uvicorn_worker.UvicornWorker (uvicorn's auto: httptools and uvloop where installed)",
    "granian": f"granian --interface asgi --loop {LOOP}",
    "hypercorn": f"hypercorn -k {LOOP}",
}
DEFAULT_ASGI = "uvicorn-h11"
# The distributions each server runs on (their versions go in the results); scripts/bench-http
# installs those .venv lacks when the server is asked for.
ASGI_DISTS = {
    "uvicorn-h11": ["uvicorn", "h11"],
    "uvicorn-httptools": ["uvicorn", "httptools"],
    "gunicorn": ["gunicorn", "uvicorn-worker", "uvicorn", "httptools"],
    "granian": ["granian"],
    "hypercorn": ["hypercorn"],
}


def asgi_dists(asgi: str) -> list[str]:
    """The distributions ``asgi`` runs on, with uvloop where it is the loop; SystemExit if one is
    missing (gunicorn's httptools is optional: its worker uses h11 without it)."""
    dists = [*ASGI_DISTS[asgi], *(["uvloop"] if LOOP == "uvloop" else [])]
    missing = [d for d in dists if importlib.util.find_spec(d.replace("-", "_")) is None]
    if asgi == "gunicorn" and missing == ["httptools"]:
        return [d for d in dists if d != "httptools"]
    if missing:
        raise SystemExit(
            f"--asgi {asgi} needs {', '.join(missing)} installed (scripts/bench-http --asgi {asgi} does it)"
        )
    return dists


@dataclass(frozen=True)
class Config:
    framework: str
    response: str  # json | sse
    # stateful | stateless (2026-07-28 requests on mcp 2.x) | stateless-2025 (2025-era requests) |
    # flow (a stateless server; each call a whole session: initialize, initialized, the call, DELETE)
    # | flow-sessions (the same flow against a server with sessions)
    state: str
    workers: int
    asgi: str = DEFAULT_ASGI

    def label(self) -> str:
        state = {"flow": "session per call", "flow-sessions": "session per call, with sessions"}.get(
            self.state, self.state
        )
        server = "" if self.asgi == DEFAULT_ASGI else f", {self.asgi}"
        return f"{self.framework}, {self.response.upper()}, {state}, {self.workers} worker{'s' * (self.workers > 1)}{server}"


def modern(state: str) -> bool:
    """Whether a stateless request is a 2026-07-28 one (mcp 2.x); mcp 1.x serves 2025-era requests
    without a session when stateless, as mcp 2.x does in state "stateless-2025"."""
    return state == "stateless" and MCP_LINE >= 2


def configs(
    quick: bool, frameworks: list[str] | None = None, states: list[str] | None = None, asgi: str = DEFAULT_ASGI
) -> list[Config]:
    """The configurations measured: ``--quick``'s (stateless JSON, 1 worker) or the whole matrix;
    ``states`` keeps those of these states, from the whole matrix (JSON and 1 worker with ``quick``)."""
    frameworks = frameworks or list(FRAMEWORKS)
    # mcp 2.x serves a stateless server's requests of both eras, each on a path of its own.
    stateless = ["stateless", "stateless-2025"] if MCP_LINE >= 2 else ["stateless"]
    # 2 workers in stateless mode only (see above), and with JSON only: on the 2026-07-28 path an
    # SSE response that completes at once is sent as JSON, so the pair would add nothing.
    shapes = [
        *(("json", state, 1) for state in stateless),
        ("json", "stateless", 2),
        ("json", "stateful", 1),
        ("sse", "stateless", 1),
        # mcp 2.x's 2025-era stateless SSE responses (the SDKs' default) take a path of their own.
        *([("sse", "stateless-2025", 1)] if MCP_LINE >= 2 else []),
        ("sse", "stateful", 1),
        ("json", "flow", 1),
        ("json", "flow-sessions", 1),
    ]
    if states:
        shapes = [s for s in shapes if s[1] in states and (not quick or s[::2] == ("json", 1))]
    elif quick:
        shapes = [("json", state, 1) for state in stateless]
    return [Config(fw, *shape, asgi=asgi) for fw in frameworks for shape in shapes]


# --- Servers ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_command(config: Config, port: int) -> list[str]:
    """The command that serves ``http_app:app`` on ``port`` under ``config.asgi``: log level
    WARNING and no access log on each (gunicorn, granian and hypercorn write none unless asked)."""
    py = [sys.executable, "-m"]
    workers = str(config.workers)
    if config.asgi in ("uvicorn-h11", "uvicorn-httptools"):
        http = "h11" if config.asgi == "uvicorn-h11" else "httptools"
        cmd = [*py, "uvicorn", "--app-dir", str(HERE), "http_app:app", "--port", str(port)]
        cmd += ["--http", http, "--loop", LOOP, "--log-level", "warning", "--no-access-log"]
        return cmd + (["--workers", workers] if config.workers > 1 else [])
    if config.asgi == "gunicorn":
        return [
            *py,
            "gunicorn",
            "--chdir",
            str(HERE),
            "http_app:app",
            "-k",
            "uvicorn_worker.UvicornWorker",
            "-w",
            workers,
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ]
    if config.asgi == "granian":
        return [
            *py,
            "granian",
            "--interface",
            "asgi",
            "--working-dir",
            str(HERE),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            workers,
            "--loop",
            LOOP,
            "--log-level",
            "warning",
            "--no-access-log",
            "http_app:app",
        ]
    if config.asgi == "hypercorn":
        return [
            *py,
            "hypercorn",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            workers,
            "-k",
            LOOP,
            "--log-level",
            "warning",
            "http_app:app",
        ]
    raise ValueError(f"unknown ASGI server {config.asgi!r}")


class Server:
    """``http_app.py`` under ``config.asgi`` (uvicorn unless asked), stock or adapted; its output
    goes to ``log``."""

    def __init__(self, config: Config, mode: str, log: Any) -> None:
        self.config, self.mode, self.port = config, mode, free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.flow_expect: dict[str, Any] | None = None  # state flow: what wrk checks (stock's answers)
        env = {k: v for k, v in os.environ.items() if k != "MCP_NATIVE_ADAPTERS"}
        env.update(
            HTTP_APP=APPS[config.framework],
            HTTP_RESPONSE=config.response,
            HTTP_STATE=config.state,
            FASTMCP_SHOW_CLI_BANNER="false",
        )
        if config.asgi == "hypercorn":  # (no option of its own for where the app is)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
        env.pop("FASTMCP_LOG_LEVEL", None)
        if LOG_LEVEL is not None:
            env["FASTMCP_LOG_LEVEL"] = LOG_LEVEL
        if mode == "adapted":
            env["MCP_NATIVE_ADAPTERS"] = "1"
        self.proc = subprocess.Popen(
            server_command(config, self.port), cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True
        )
        # Up when every worker has answered GET /stats (with its pid): each has imported the app
        # and started it. The master of gunicorn or granian listens before its workers can answer.
        deadline = time.monotonic() + 90
        answered: set[int] = set()
        while len(answered) < config.workers:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{config.label()} ({mode}) did not start; see {getattr(log, 'name', 'its log')}")
            pid = self._stats_pid()
            if pid is None:
                time.sleep(0.1)
            else:
                answered.add(pid)

    def _stats_pid(self) -> int | None:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            conn.request("GET", "/stats")
            r = conn.getresponse()
            return int(json.loads(r.read())["pid"]) if r.status == 200 else None
        except (OSError, ValueError, KeyError, http.client.HTTPException):
            return None
        finally:
            conn.close()

    def pids(self) -> list[int]:
        """The server's process and all its descendants (uvicorn's or gunicorn's workers, granian's
        worker processes, each with its threads)."""
        return [self.proc.pid, *descendants(self.proc.pid)]

    def cpu(self) -> float:
        """User + system CPU seconds of the server's processes so far (all threads of each)."""
        return sum(cpu_seconds(pid) for pid in self.pids())

    def settle(self, timeout: float = 60) -> None:
        """Wait until the server is idle (under 10% of a core over 0.25 s): the calls that the last
        window's load left in flight are done, and their cost (mcp 1.26.0 logs a traceback for
        each one whose client has gone, which can take seconds) is not counted in the next window."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            c0 = self.cpu()
            time.sleep(0.25)
            if self.cpu() - c0 <= 0.025:
                return

    def stop(self) -> None:
        # gunicorn's master ends on SIGTERM at once; on SIGINT it waited out the 20 s below.
        self.proc.send_signal(signal.SIGTERM if self.config.asgi == "gunicorn" else signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        # Workers left behind by a master that died first (their own process group: this one's).
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)


def children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a thread that forks is their parent, as granian's
    may be)."""
    out: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(p) for p in f.read().split()]
    return out


def descendants(pid: int) -> list[int]:
    out = []
    for child in children(pid):
        out += [child, *descendants(child)]
    return out


def cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


# --- JSON-RPC over HTTP, by hand (wrk's session and the reliability checks) -----------------------


def headers(state: str, session: str | None = None) -> dict[str, str]:
    h = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": MODERN_VERSION if modern(state) else HANDSHAKE_VERSION,
    }
    if session:
        h["Mcp-Session-Id"] = session
    return h


def call_body(id_: str, tool: str, arguments: dict[str, Any], state: str) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if modern(state):
        params["_meta"] = MODERN_META
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


def messages(content_type: str, body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a response body: JSON, or the data of each SSE event."""
    if content_type.startswith("application/json"):
        return [json.loads(body)] if body.strip() else []
    return [
        json.loads(line[5:]) for line in body.decode().splitlines() if line.startswith("data:") and line[5:].strip()
    ]


def open_session(url: str) -> str:
    """A 2025-era session (initialize, then notifications/initialized): its Mcp-Session-Id."""
    import http.client
    from urllib.parse import urlsplit

    u = urlsplit(url)
    assert u.hostname is not None
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    conn.request("POST", u.path, json.dumps(init), headers("stateful"))
    r = conn.getresponse()
    r.read()
    session = r.getheader("mcp-session-id")
    assert r.status == 200 and session, (r.status, session)
    conn.request(
        "POST",
        u.path,
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        headers("stateful", session),
    )
    r = conn.getresponse()
    r.read()
    conn.close()
    return session


def flow_answers(url: str, tag: str = "probe") -> list[dict[str, Any]]:
    """One session-per-call flow by hand (initialize, notifications/initialized, a weather call,
    DELETE), each on its own connection as a client that connects per request would: per step
    the status, the content type and the JSON-RPC message (or None)."""
    import http.client
    from urllib.parse import urlsplit

    u = urlsplit(url)
    assert u.hostname is not None
    init = {
        "jsonrpc": "2.0",
        "id": f"{tag}-i",
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    out: list[dict[str, Any]] = []
    version = session = None
    steps: list[tuple[str, dict[str, Any] | None]] = [
        ("POST", init),
        ("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("POST", call_body(tag, "get_weather", {"city": tag}, "stateless-2025")),
        ("DELETE", None),
    ]
    for method, body in steps:
        h = dict(base)
        if version:
            h["Mcp-Protocol-Version"] = version
        if session:
            h["Mcp-Session-Id"] = session
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        try:
            conn.request(method, u.path, json.dumps(body) if body is not None else None, h)
            r = conn.getresponse()
            content = r.read()
            ctype = r.getheader("content-type", "")
            msgs: list[dict[str, Any]] = []
            if ctype.startswith(("application/json", "text/event-stream")):
                with contextlib.suppress(ValueError):
                    msgs = messages(ctype, content)
            out.append({"status": r.status, "content_type": ctype.split(";")[0], "message": msgs[0] if msgs else None})
            if method == "POST" and body is init:
                version = (msgs[0].get("result") or {}).get("protocolVersion") if msgs else None
                session = r.getheader("mcp-session-id")
        finally:
            conn.close()
    return out


def flow_expectations(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """What http_flow.lua checks, from stock's answers to one flow: the protocol version that
    initialize answers, and the statuses of the notification and of DELETE."""
    init, notified, call, delete = answers
    assert init["status"] == 200 and init["content_type"] == "application/json", init
    assert call["status"] == 200 and call["message"]["result"]["structuredContent"]["city"] == "probe", call
    return {
        "version": init["message"]["result"]["protocolVersion"],
        "initialized_status": notified["status"],
        "delete_status": delete["status"],
    }


def flow_shape(answers: list[dict[str, Any]]) -> list[str]:
    """What a client sees of a flow's answers: per step, status, content type and the JSON-RPC
    message's keys (and initialize's protocol version), to compare stock with adapted."""
    shape = []
    for a in answers:
        m = a["message"]
        keys = sorted(m) if isinstance(m, dict) else []
        result = m.get("result") if isinstance(m, dict) else None
        version = result.get("protocolVersion", "") if isinstance(result, dict) else ""
        error = m.get("error") if isinstance(m, dict) else None
        code = str(error.get("code", "")) if isinstance(error, dict) else ""
        shape.append(
            " ".join(filter(None, [str(a["status"]), a["content_type"] or "-", ",".join(keys), version, code]))
        )
    return shape


# --- Load: wrk ---------------------------------------------------------------------------------------


def run_wrk_flow(server: Server, seconds: float) -> dict[str, Any]:
    """wrk with ``http_flow.lua``: a thread per connection, each doing whole flows."""
    expect = server.flow_expect
    assert expect is not None, "flow_expect: stock's answers to a flow, set before the load"
    cmd = [
        "wrk",
        f"-t{WRK_CONNECTIONS}",
        f"-c{WRK_CONNECTIONS}",
        f"-d{seconds:g}s",
        "--timeout",
        "30s",
        "-s",
        str(HERE / "http_flow.lua"),
        server.url,
        "--",
        str(expect["version"]),
        str(expect["initialized_status"]),
        str(expect["delete_status"]),
    ]
    c0 = server.cpu()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    cpu = server.cpu() - c0
    w = json.loads(out.strip().splitlines()[-1])
    bad = {k: w[k] for k in ("bad_initialize", "bad_initialized", "bad_call", "bad_delete")}
    return {
        "calls": w["ok_flows"],  # a call is a whole flow here: 4 requests
        "requests": w["requests"],
        "seconds": w["duration_us"] / 1e6,
        "p50_ms": w["p50_us"] / 1e3,  # of the requests, each of the 4 kinds
        "p99_ms": w["p99_us"] / 1e3,
        "cpu_s": cpu,
        "check": {
            "flows": w["flows"],
            "answered": w["answered"],
            "in_flight_at_stop": w["in_flight"],
            "resent": w["resent"],
            **bad,
            "socket_errors": w["socket_errors"],
        },
        # Every request answered but the one each connection had in flight when wrk stopped. A
        # request is built again before its answer once, at start (wrk builds one on its first
        # thread to check the script, and never sends it), or after a socket error (which fails).
        "ok": w["flows"] == w["ok_flows"] > 0
        and not any(bad.values())
        and w["socket_errors"] == 0
        and w["resent"] <= 1
        and w["sent"] - w["answered"] == w["in_flight"] + w["resent"]
        and w["in_flight"] <= WRK_CONNECTIONS,
    }


def run_wrk(server: Server, tool: str, seconds: float) -> dict[str, Any]:
    if server.config.state in FLOWS:
        return run_wrk_flow(server, seconds)
    h = headers(server.config.state, open_session(server.url) if server.config.state == "stateful" else None)
    args = [f"{k}:{v}" for k, v in h.items() if k in ("Mcp-Protocol-Version", "Mcp-Session-Id")]
    cmd = [
        "wrk",
        "-t1",
        f"-c{WRK_CONNECTIONS}",
        f"-d{seconds:g}s",
        "--timeout",
        "30s",
        "-s",
        str(HERE / "http_wrk.lua"),
        server.url,
        "--",
        tool,
        *args,
    ]
    c0 = server.cpu()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    cpu = server.cpu() - c0
    w = json.loads(out.strip().splitlines()[-1])
    lost = w["sent"] - w["answered"]  # cut short when wrk stops: at most one per connection
    return {
        "calls": w["requests"],
        "seconds": w["duration_us"] / 1e6,
        "p50_ms": w["p50_us"] / 1e3,
        "p99_ms": w["p99_us"] / 1e3,
        "cpu_s": cpu,
        "check": {
            "answered": w["answered"],
            "in_flight_at_stop": lost,
            "wrong": w["bad"] + w["non_2xx"],
            "duplicated": w["duplicated"],
            "unknown": w["unknown"],
            "socket_errors": w["socket_errors"],
        },
        "ok": w["bad"] == w["duplicated"] == w["unknown"] == w["socket_errors"] == w["non_2xx"] == 0
        and 0 <= lost <= WRK_CONNECTIONS + 1,
    }  # wrk builds one request more than it sends, at start


# --- Load: the SDK's client in other processes ------------------------------------------------------


@contextlib.asynccontextmanager
async def counted(transport: Any, sent: Counter[Any], received: Counter[Any]) -> AsyncIterator[Any]:
    """The transport's streams, with the ids of the requests written and of the responses read
    counted on the way."""
    import anyio
    from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

    async with transport as (read, write), anyio.create_task_group() as tg:
        to_client, client_read = anyio.create_memory_object_stream[Any](100)
        client_write, from_client = anyio.create_memory_object_stream[Any](100)

        async def inbound() -> None:
            async with to_client:
                async for m in read:
                    if isinstance(getattr(m, "message", None), JSONRPCResponse | JSONRPCError):
                        received[m.message.id] += 1
                    await to_client.send(m)

        async def outbound() -> None:
            async with from_client:
                async for m in from_client:
                    if isinstance(m.message, JSONRPCRequest):
                        sent[m.message.id] += 1
                    await write.send(m)

        tg.start_soon(inbound)
        tg.start_soon(outbound)
        yield client_read, client_write
        tg.cancel_scope.cancel()


def id_check(sent: Counter[Any], received: Counter[Any]) -> dict[str, int]:
    """Each id sent answered exactly once, and nothing else answered."""
    return {
        "answered": sum(received.values()),
        "lost": sum(1 for i in sent if i not in received),
        "duplicated": sum(n - 1 for n in received.values() if n > 1),
        "unknown": sum(1 for i in received if i not in sent),
    }


async def sdk_clients(url: str, state: str, tool: str, clients: int, tag: str) -> dict[str, Any]:
    """One load process: ``clients`` SDK clients, connected, then calling in a loop over the window
    read from stdin ("START END", wall-clock seconds) after this process prints "ready"."""
    import anyio
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []
    wrong: list[str] = []
    checks: list[dict[str, int]] = []
    connected = anyio.Event()
    window: list[float] = []
    ready = 0

    async def client(k: int) -> None:
        nonlocal ready
        sent: Counter[Any] = Counter()
        received: Counter[Any] = Counter()
        mode = MODERN_VERSION if modern(state) else "legacy"
        async with Client(counted(streamable_http_client(url), sent, received), mode=mode, cache=None) as c:
            await c.call_tool(tool, {"city": "warm-up"} if tool == "get_weather" else {"count": 200})
            ready += 1
            if ready == clients:
                connected.set()
            await connected.wait()
            while not window:
                await anyio.sleep(0.01)
            start, end = window
            await anyio.sleep(max(0.0, start - time.time()))
            n = 0
            while time.time() < end:
                n += 1
                args: dict[str, Any] = {"city": f"{tag}-{k}-{n}"} if tool == "get_weather" else {"count": 200}
                t0 = time.perf_counter()
                r = await c.call_tool(tool, args)
                elapsed = time.perf_counter() - t0
                if time.time() <= end:
                    latencies.append(elapsed)
                s = r.structured_content or {}
                ok = (
                    s.get("city") == args["city"]
                    if tool == "get_weather"
                    else s.get("total") == len(s.get("records", ())) == 200
                )
                if r.is_error or not ok:
                    wrong.append(f"{args}: {str(r)[:200]}")
        checks.append(id_check(sent, received))

    async def start_window() -> None:
        await connected.wait()
        print("ready", flush=True)
        window.extend(map(float, (await anyio.to_thread.run_sync(sys.stdin.readline)).split()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(start_window)
        for k in range(clients):
            tg.start_soon(client, k)
    total = {key: sum(c[key] for c in checks) for key in checks[0]}
    return {"latencies": latencies, "wrong": wrong[:5], "wrong_count": len(wrong), "check": total}


def run_sdk(server: Server, tool: str, seconds: float) -> dict[str, Any]:
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--sdk-clients",
                server.url,
                server.config.state,
                tool,
                str(CLIENTS_PER_PROCESS),
                f"p{i}",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for i in range(CLIENT_PROCESSES)
    ]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready", "an SDK client process failed"
        start = time.time() + 0.2
        end = start + seconds
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(f"{start} {end}\n")
            p.stdin.flush()
        time.sleep(max(0.0, start - time.time()))
        c0 = server.cpu()
        time.sleep(max(0.0, end - time.time()))
        cpu = server.cpu() - c0
        outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    latencies = sorted(x for o in outs for x in o["latencies"])
    check = {key: sum(o["check"][key] for o in outs) for key in outs[0]["check"]}
    check["wrong"] = sum(o["wrong_count"] for o in outs)
    ok = check["lost"] == check["duplicated"] == check["unknown"] == check["wrong"] == 0
    if not ok:
        print(f"  answers FAILED the check: {check}; {[w for o in outs for w in o['wrong']][:3]}", flush=True)
    return {
        "calls": len(latencies),
        "seconds": seconds,
        "p50_ms": percentile(latencies, 50) * 1e3,
        "p99_ms": percentile(latencies, 99) * 1e3,
        "cpu_s": cpu,
        "check": check,
        "ok": ok,
    }


def percentile(sorted_xs: list[float], p: float) -> float:
    if not sorted_xs:
        return float("nan")
    return sorted_xs[min(len(sorted_xs) - 1, int(len(sorted_xs) * p / 100))]


# --- Reliability: answers by id, clients that drop, malformed bodies, memory ------------------------


class Raw:
    """Hand-made JSON-RPC POSTs on an httpx2 connection pool: every answer is kept, by id, to be
    counted (not matched and dropped as an SDK client would)."""

    def __init__(self, server: Server, connections: int = 32, state: str | None = None) -> None:
        """``state``: the server's, or stateless (2026-07-28 requests, which a stateful server
        serves too: the protocol version header routes them)."""
        try:
            client: Any = importlib.import_module("httpx2")
        except ImportError:  # mcp 1.x's venvs have its predecessor, the same API
            client = importlib.import_module("httpx")

        self.server, self.state = server, state or server.config.state
        self.session = open_session(server.url) if self.state == "stateful" else None
        self.http = client.AsyncClient(limits=client.Limits(max_connections=connections), timeout=60)

    async def post(self, body: bytes, tool: str = "get_weather") -> tuple[int, list[dict[str, Any]]]:
        h = headers(self.state, self.session)
        if self.state == "stateless":
            h.update({"Mcp-Method": "tools/call", "Mcp-Name": tool})
        r = await self.http.post(self.server.url, content=body, headers=h)
        return r.status_code, messages(r.headers.get("content-type", ""), r.content)

    async def calls(self, n: int, tag: str, concurrency: int = 32) -> dict[str, int]:
        """``n`` weather calls, ``concurrency`` at a time, each for a city named after its id:
        how many ids were answered once, lost, duplicated, unknown or wrong."""
        import anyio

        answers: Counter[str] = Counter()
        wrong = 0
        limiter = anyio.Semaphore(concurrency)

        async def one(i: int) -> None:
            nonlocal wrong
            id_ = f"{tag}-{i}"
            async with limiter:
                status, msgs = await self.post(
                    json.dumps(call_body(id_, "get_weather", {"city": id_}, self.state)).encode()
                )
            for m in msgs:
                if "id" in m:
                    answers[m["id"]] += 1
                    if status != 200 or m.get("result", {}).get("structuredContent", {}).get("city") != m["id"]:
                        wrong += 1

        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
        sent = {f"{tag}-{i}" for i in range(n)}
        return {
            "once": sum(1 for i in sent if answers[i] == 1),
            "lost": sum(1 for i in sent if answers[i] == 0),
            "duplicated": sum(v - 1 for v in answers.values() if v > 1),
            "unknown": sum(1 for i in answers if i not in sent),
            "wrong": wrong,
        }

    async def dropped(self, n: int, steps: int = 100) -> int:
        """``n`` calls of the ticking tool whose clients close the connection after the first SSE
        event (with JSON responses: 0.2 s into the call, long before its answer): how many got as
        far as an event (as far as the cut)."""
        import anyio

        got = 0
        json_response = self.server.config.response == "json"

        async def one(i: int) -> None:
            nonlocal got
            h = headers(self.state, self.session)
            if self.state == "stateless":
                h.update({"Mcp-Method": "tools/call", "Mcp-Name": "ticking"})
            body = call_body(f"drop-{i}", "ticking", {"steps": steps}, self.state)
            body["params"].setdefault("_meta", {})["progressToken"] = f"drop-{i}"
            if json_response:
                with anyio.move_on_after(0.2) as cut:
                    await self.http.post(self.server.url, content=json.dumps(body), headers=h)
                got += cut.cancelled_caught  # leaving the scope closed the connection mid-call
                return
            async with self.http.stream("POST", self.server.url, content=json.dumps(body), headers=h) as r:
                async for chunk in r.aiter_bytes():
                    if b"data:" in chunk:
                        got += 1
                        break  # leaving the block closes the connection mid-stream

        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
        return got

    async def stats(self) -> dict[str, Any]:
        r = await self.http.get(self.server.url.removesuffix("/mcp") + "/stats")
        return dict(r.json())

    async def aclose(self) -> None:
        await self.http.aclose()


# Bodies a client may send by mistake; stock and adapted must answer each the same way.
MALFORMED = {
    "cut short": b'{"jsonrpc":"2.0","id":"bad-1","method":"tools/call","params":{"name":"get_weather"',
    "not UTF-8": b'{"jsonrpc":"2.0","id":"bad-2","method":"tools/call","params":{"name":"\xff"}}',
    "no method": b'{"jsonrpc":"2.0","id":"bad-3"}',
    "wrong jsonrpc": b'{"jsonrpc":"1.0","id":"bad-4","method":"tools/call","params":{"name":"get_weather","arguments":{"city":"x"}}}',
    "an array": b"[1, 2, 3]",
    "empty": b"",
}


def answer_shape(status: int, msgs: list[dict[str, Any]]) -> str:
    """What a client sees of an answer: the status and the JSON-RPC error code, if any."""
    codes = [str(m["error"]["code"]) for m in msgs if "error" in m]
    return f"{status} " + (",".join(codes) if codes else "no JSON-RPC error")


async def malformed_among_good(raw: Raw, good: int = 100) -> tuple[dict[str, str], dict[str, int]]:
    """Each malformed body sent while ``good`` weather calls run: its answer, and the good calls'
    counts (``Raw.calls``)."""
    import anyio

    answers: dict[str, str] = {}
    counts: dict[str, int] = {}

    async def good_calls() -> None:
        counts.update(await raw.calls(good, "good"))

    async def bad(name: str, body: bytes) -> None:
        answers[name] = answer_shape(*await raw.post(body))

    async with anyio.create_task_group() as tg:
        tg.start_soon(good_calls)
        for name, body in MALFORMED.items():
            tg.start_soon(bad, name, body)
    return answers, counts


async def drop_scenario(raw: Raw, drops: int = 20, good: int = 200) -> dict[str, Any]:
    """Clients dropping mid-SSE among good calls: the good calls' counts, the worker's asyncio
    tasks before and after (once the dropped calls' tools have run out), and a call afterwards."""
    import anyio

    # One stream first: sse-starlette starts a shutdown watcher task per event loop with the first
    # response it streams, kept for the loop's life. An adapted server writes an answer that comes
    # first at once, without such a response, and hands a request's stream to one once its first
    # message is not the answer or a second has gone by: this call's ticks (1.5 s) outlast that
    # second even where they go nowhere (mcp 1.26's FastMCP 1.x does not relate its progress to
    # the request, so its first message is the answer); then its tool has run out.
    await raw.dropped(1, steps=150)
    await anyio.sleep(2.0)
    before = (await raw.stats())["tasks"]
    counts: dict[str, int] = {}
    got = 0

    async def dropping() -> None:
        nonlocal got
        got = await raw.dropped(drops)

    async def good_calls() -> None:
        counts.update(await raw.calls(good, "mid"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(dropping)
        tg.start_soon(good_calls)
    await anyio.sleep(1.5)  # the ticking tool runs 1 s: every handler has finished or been cancelled
    after = (await raw.stats())["tasks"]
    return {
        "dropped_mid_stream": got,
        "good": counts,
        "tasks_before": before,
        "tasks_after": after,
        "after": await raw.calls(10, "after"),
    }


def log_errors(path: Path) -> int:
    """Lines of a server log that report an error or a traceback."""
    return sum(
        1
        for line in path.read_text(errors="replace").splitlines()
        if any(w in line for w in ("Traceback", "ERROR", "Error", "Exception"))
    )


async def rss_over_calls(raw: Raw, calls: int, step: int) -> list[int]:
    """The worker's resident memory (KiB) after each ``step`` weather calls."""
    out = [(await raw.stats())["rss_kib"]]
    for k in range(calls // step):
        counts = await raw.calls(step, f"rss{k}")
        assert counts["once"] == step, counts
        out.append((await raw.stats())["rss_kib"])
    return out


def reliability() -> int:
    """Per framework, stock and adapted, with SSE responses: the scenarios above (stateful and
    stateless; on mcp 2.x also 2025-era stateless, JSON and SSE; on mcp 1.x stateless JSON too),
    and worker RSS over 20,000 calls (stateless JSON, both eras on mcp 2.x)."""
    import anyio

    out_dir = ROOT / "build" / "bench-http-reliability"
    out_dir.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    failed = False
    # SSE streams dropped mid-call on both paths; the stateless request the adapters serve in one
    # pass: on mcp 2.x the 2025-era one, in JSON (its clients cutting the call short) and SSE, on
    # mcp 1.x the JSON one.
    era_2025 = [("json", "stateless-2025"), ("sse", "stateless-2025")] if MCP_LINE >= 2 else [("json", "stateless")]
    shapes = [("sse", "stateless"), ("sse", "stateful"), *era_2025]
    # minimcp serves stateless JSON alone: a yardstick of the speed runs, not checked here.
    frameworks = [fw for fw in FRAMEWORKS if fw != "minimcp"]
    for fw in frameworks:
        for response, state in shapes:
            config = Config(fw, response, state, 1)
            row: dict[str, Any] = {"configuration": config.label()}
            for mode in MODES:
                log_path = out_dir / f"{fw}-{response}-{state}-{mode}.log"
                with open(log_path, "w") as log:
                    server = Server(config, mode, log)
                    try:

                        async def scenarios(server: Server = server) -> dict[str, Any]:
                            raw = Raw(server)
                            try:
                                burst = await raw.calls(2000, "burst", concurrency=64)
                                answers, among = await malformed_among_good(raw)
                                drop = await drop_scenario(raw)
                            finally:
                                await raw.aclose()
                            return {"burst": burst, "malformed": answers, "good_among_malformed": among, "drop": drop}

                        row[mode] = anyio.run(scenarios)
                    finally:
                        server.stop()
                row[mode]["log_errors"] = log_errors(log_path)
                print(f"{config.label()} {mode}: {json.dumps(row[mode])}", flush=True)
            for mode in MODES:
                r = row[mode]
                ok = (
                    r["burst"]["once"] == 2000
                    and r["good_among_malformed"]["once"] == 100
                    and r["drop"]["good"]["once"] == 200
                    and r["drop"]["after"]["once"] == 10
                )
                row[f"{mode}_ok"] = ok
            row["same_malformed_answers"] = row["stock"]["malformed"] == row["adapted"]["malformed"]
            failed |= (
                not row["adapted_ok"] or row["adapted"]["drop"]["tasks_after"] > row["adapted"]["drop"]["tasks_before"]
            )
            failed |= row["adapted"]["log_errors"] > row["stock"]["log_errors"]
            results.append(row)

    memory: list[dict[str, Any]] = []
    states = ("stateless", "stateless-2025") if MCP_LINE >= 2 else ("stateless",)
    for fw, state in ((fw, state) for fw in frameworks for state in states):
        config = Config(fw, "json", state, 1)
        for mode in MODES:
            with open(out_dir / f"{fw}-{state}-rss-{mode}.log", "w") as log:
                server = Server(config, mode, log)
                try:

                    async def rss(server: Server = server) -> list[int]:
                        raw = Raw(server)
                        try:
                            await raw.calls(500, "warm-up")
                            return await rss_over_calls(raw, 20_000, 2_000)
                        finally:
                            await raw.aclose()

                    kib = anyio.run(rss)
                finally:
                    server.stop()
            memory.append({"configuration": config.label(), "mode": mode, "rss_kib": kib})
            print(f"{config.label()} {mode}: RSS KiB every 2,000 calls: {kib}", flush=True)

    (out_dir / "reliability.json").write_text(json.dumps({"scenarios": results, "memory": memory}, indent=2) + "\n")
    print(
        "\n| configuration | server | 2,000 calls, 64 at a time | malformed body answers | 100 good calls among them "
        "| 20 clients dropping mid-SSE among 200 calls | asyncio tasks before → after | error lines in log |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in results:
        for mode in MODES:
            r = row[mode]
            malformed = "; ".join(f"{k}: {v}" for k, v in r["malformed"].items())
            print(
                f"| {row['configuration']} | {mode} | {r['burst']['once']} once, {r['burst']['lost']} lost, "
                f"{r['burst']['duplicated']} duplicated, {r['burst']['wrong']} wrong | {malformed} "
                f"| {r['good_among_malformed']['once']}/100 | {r['drop']['dropped_mid_stream']} dropped, "
                f"{r['drop']['good']['once']}/200 answered once | {r['drop']['tasks_before']} → {r['drop']['tasks_after']} "
                f"| {r['log_errors']} |"
            )
    print("\n| configuration | server | worker RSS, MiB: after warm-up → after 20,000 calls (max) |\n|---|---|---|")
    for m in memory:
        kib = m["rss_kib"]
        print(
            f"| {m['configuration']} | {m['mode']} | {kib[0] / 1024:.1f} → {kib[-1] / 1024:.1f} ({max(kib) / 1024:.1f}) |"
        )
    print(f"\nbench_http --reliability: {out_dir / 'reliability.json'}; {'FAILED' if failed else 'passed'}")
    return 1 if failed else 0


# --- The benchmark ---------------------------------------------------------------------------------

LOADS = {"wrk": run_wrk, "SDK clients": run_sdk}


def measure(
    quick: bool,
    log: Any,
    frameworks: list[str] | None = None,
    reps: int | None = None,
    seconds: float | None = None,
    states: list[str] | None = None,
    asgi: str = DEFAULT_ASGI,
    payloads: list[str] | None = None,
    loads: list[str] | None = None,
) -> list[dict[str, Any]]:
    default_seconds, default_reps = (2.0, 1) if quick else (4.0, 2)
    seconds, reps = seconds or default_seconds, reps or default_reps
    rows = []
    for config in configs(quick, frameworks, states, asgi):
        # The SDK client load is mcp 2.x's Client: on mcp 1.x, wrk's alone; the flow is wrk's
        # (http_flow.lua), with the weather call (checked by the city it names back).
        config_loads = {k: v for k, v in LOADS.items() if k == "wrk" or (MCP_LINE >= 2 and config.state not in FLOWS)}
        config_calls = {k: v for k, v in CALLS.items() if k == "weather" or config.state not in FLOWS}
        config_loads = {k: v for k, v in config_loads.items() if not loads or k in loads}
        config_calls = {k: v for k, v in config_calls.items() if not payloads or k in payloads}
        if not config_loads or not config_calls:
            continue
        print(f"[{config.label()}] starting stock and adapted servers", flush=True)
        servers = {mode: Server(config, mode, log) for mode in MODES}
        try:
            flow_check: dict[str, Any] = {}
            if config.state in FLOWS:
                # What wrk checks is what stock answers; adapted must answer one flow the same way.
                answers = {mode: flow_answers(servers[mode].url) for mode in MODES}
                expect = flow_expectations(answers["stock"])
                for server in servers.values():
                    server.flow_expect = expect
                shapes = {mode: flow_shape(answers[mode]) for mode in MODES}
                flow_check = {"expected": expect, "answers": shapes, "same": shapes["stock"] == shapes["adapted"]}
                print(f"  a flow's answers, stock: {shapes['stock']}", flush=True)
                if not flow_check["same"]:
                    print(f"  adapted answers a flow differently: {shapes['adapted']}", flush=True)
            for payload, tool in config_calls.items():
                for load, run in config_loads.items():
                    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
                    for r in range(reps):
                        for mode in MODES if r % 2 == 0 else MODES[::-1]:
                            for server in servers.values():  # (the other one would take cores from it)
                                server.settle()
                            runs[mode].append(run(servers[mode], tool, seconds))
                    rows.append(summarize(config, payload, load, runs))
                    if flow_check:
                        rows[-1]["flow"] = flow_check
                        rows[-1]["adapted"]["ok"] &= flow_check["same"]
                    print_row(rows[-1])
        finally:
            for s in servers.values():
                s.stop()
    return rows


def summarize(config: Config, payload: str, load: str, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "framework": config.framework,
        "response": config.response,
        "state": config.state,
        "workers": config.workers,
        "asgi": config.asgi,
        "asgi_command": ASGI_SERVERS[config.asgi],
        "payload": payload,
        "load": load,
    }
    # In state "flow" a call is a whole flow (initialize, initialized, tools/call, DELETE): the
    # rates and the CPU are per flow, p50 and p99 are those of its requests.
    for mode, rs in runs.items():
        calls = sum(r["calls"] for r in rs)
        rates = [r["calls"] / r["seconds"] for r in rs]
        row[mode] = {
            "calls_per_s": calls / sum(r["seconds"] for r in rs),
            "calls_per_s_range": [min(rates), max(rates)],
            "p50_ms": statistics.median(r["p50_ms"] for r in rs),
            "p99_ms": statistics.median(r["p99_ms"] for r in rs),
            "cpu_ms_per_call": sum(r["cpu_s"] for r in rs) / calls * 1e3 if calls else float("nan"),
            "calls": calls,
            "checks": [r["check"] for r in rs],
            "ok": all(r["ok"] for r in rs),
        }
        if config.state in FLOWS:
            row[mode]["requests"] = sum(r["requests"] for r in rs)
    row["faster"] = row["adapted"]["calls_per_s"] / row["stock"]["calls_per_s"]
    row["cpu_faster"] = row["stock"]["cpu_ms_per_call"] / row["adapted"]["cpu_ms_per_call"]
    return row


TABLE_HEAD = (
    "| configuration | payload | load | calls/s stock → mcp-native | throughput | p50 ms stock → mcp-native "
    "| p99 ms stock → mcp-native | server CPU ms/call stock → mcp-native | calls per server CPU-second "
    "| answers checked |\n"
    "|---|---|---|---:|---:|---:|---:|---:|---:|---|"
)
# State "flow": each call a whole session (4 requests); latencies are the requests'.
FLOW_TABLE_HEAD = (
    "| configuration | payload | load | flows/s stock → mcp-native | throughput | request p50 ms stock → mcp-native "
    "| request p99 ms stock → mcp-native | server CPU ms/flow stock → mcp-native | flows per server CPU-second "
    "| answers checked |\n"
    "|---|---|---|---:|---:|---:|---:|---:|---:|---|"
)


def row_markdown(r: dict[str, Any]) -> str:
    s, a = r["stock"], r["adapted"]
    conf = Config(r["framework"], r["response"], r["state"], r["workers"], r.get("asgi", DEFAULT_ASGI)).label()
    if r["state"] in FLOWS:
        n = s["calls"] + a["calls"]
        checked = f"{n:,} flows ({4 * n:,} requests), all right" if s["ok"] and a["ok"] else "**FAILED**"
        load = f"{r['load']} ({WRK_CONNECTIONS} connections, a thread each)"
    else:
        checked = f"{s['calls'] + a['calls']:,}, all once and right" if s["ok"] and a["ok"] else "**FAILED**"
        load = r["load"]
    return (
        f"| {conf} | {r['payload']} | {load} | {s['calls_per_s']:,.0f} → {a['calls_per_s']:,.0f} "
        f"| {report.fmt_speedup(r['faster'])} | {s['p50_ms']:.1f} → {a['p50_ms']:.1f} | {s['p99_ms']:.1f} → {a['p99_ms']:.1f} "
        f"| {s['cpu_ms_per_call']:.2f} → {a['cpu_ms_per_call']:.2f} | {report.fmt_speedup(r['cpu_faster'])} | {checked} |"
    )


def print_row(r: dict[str, Any]) -> None:
    print(row_markdown(r), flush=True)


def table(rows: list[dict[str, Any]]) -> str:
    """The calls' table, then the flows' (states "flow" and "flow-sessions") if any were measured."""
    calls = [r for r in rows if r["state"] not in FLOWS]
    flows = [r for r in rows if r["state"] in FLOWS]
    parts = ["\n".join([TABLE_HEAD, *map(row_markdown, calls)])] if calls or not flows else []
    if flows:
        parts.append("\n".join([FLOW_TABLE_HEAD, *map(row_markdown, flows)]))
    return "\n\n".join(parts)


def chart(res: dict[str, Any], path: Path) -> bool:
    """Calls per second of server CPU (what a worker with a core to itself can serve), stock and
    adapted, per configuration (wrk's load), a panel per payload, with adapted/stock over each
    pair. On a shared machine this is steadier than the calls per second measured, which depend
    on how much of a core the server got. The flows (states "flow", "flow-sessions") are the table's alone. Whether
    there was anything to draw."""
    rows = [r for r in res["rows"] if r["load"] == "wrk" and r["state"] not in FLOWS]
    if not rows:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(CALLS), figsize=(11, 1.8 + 0.4 * len(rows)), squeeze=False)
    for ax, payload in zip(axes[0], CALLS, strict=True):
        sub = [r for r in rows if r["payload"] == payload][::-1]
        ys = range(len(sub))
        for offset, mode, label, color in (
            (0.2, "stock", "stock", "#999999"),
            (-0.2, "adapted", "mcp-native", "#2b7bba"),
        ):
            ax.barh(
                [y + offset for y in ys], [1e3 / r[mode]["cpu_ms_per_call"] for r in sub], 0.4, label=label, color=color
            )
        for y, r in zip(ys, sub, strict=True):
            ax.text(1e3 / r["adapted"]["cpu_ms_per_call"], y - 0.2, f" {r['cpu_faster']:.2f}×", va="center", fontsize=8)
        labels = [
            Config(r["framework"], r["response"], r["state"], r["workers"], r.get("asgi", DEFAULT_ASGI)).label()
            for r in sub
        ]
        ax.set_yticks(list(ys), labels if ax is axes[0][0] else [], fontsize=8)
        ax.set_title(f"tools/call, {payload}", fontsize=10)
        ax.set_xlabel("calls per second of server CPU (wrk, 32 connections)")
        ax.margins(x=0.15)
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.text(
        0.5,
        0.01,
        "1 / the server's CPU time per call (all its processes); calls per second measured: the table (bench_http.json)",
        ha="center",
        fontsize=7,
        color="#555555",
    )
    v = res["versions"]
    fig.suptitle(
        f"MCP servers over Streamable HTTP under {res.get('asgi', {}).get('server', 'uvicorn')}: stock vs mcp-native"
        f"{' (quick run)' if res['quick'] else ''}\n"
        f"{res['machine']}, {res['date'][:10]}; Python {v['python']}, mcp {v['mcp']}, fastmcp {v['fastmcp']}",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def main(
    quick: bool,
    frameworks: list[str] | None = None,
    reps: int | None = None,
    seconds: float | None = None,
    states: list[str] | None = None,
    asgi: str = DEFAULT_ASGI,
    payloads: list[str] | None = None,
    loads: list[str] | None = None,
) -> dict[str, Any]:
    # A run of part of the matrix (by state, server, payload or load) is not the published one.
    part = bool(states or payloads or loads) or asgi != DEFAULT_ASGI
    name = "bench-http-quick" if quick else "bench-http-part" if part else None
    out = ROOT / "build" / name if name else HERE / "results"
    out.mkdir(parents=True, exist_ok=True)
    log_path = ROOT / "build" / f"{name or 'bench-http'}-servers.log"  # not beside the published results
    dists = ["mcp", *(["fastmcp"] if importlib.util.find_spec("fastmcp") else []), *asgi_dists(asgi)]
    t = time.monotonic()
    with open(log_path, "w") as log:
        print(f"bench_http: servers' logs in {log_path}; ASGI server: {ASGI_SERVERS[asgi]}", flush=True)
        print(FLOW_TABLE_HEAD if states and set(states) <= set(FLOWS) else TABLE_HEAD, flush=True)
        rows = measure(quick, log, frameworks, reps, seconds, states, asgi, payloads, loads)
    res = {
        **report.result("bench_http", "MCP over Streamable HTTP", [], quick, list(dict.fromkeys(dists)), ["wrk"]),
        "log_level": LOG_LEVEL or "the SDK's default",
        "asgi": {"server": asgi, "command": ASGI_SERVERS[asgi], "log": "WARNING, no access log"},
        "load": {
            "wrk": f"-t1 -c{WRK_CONNECTIONS}; states flow, flow-sessions: -t{WRK_CONNECTIONS} -c{WRK_CONNECTIONS}",
            "SDK clients": f"{CLIENT_PROCESSES} processes x {CLIENTS_PER_PROCESS}",
        },
        "rows": rows,
    }
    (out / "bench_http.json").write_text(json.dumps(res, indent=2) + "\n")
    chart_path = (out if name else ROOT / "docs" / "bench") / "bench_http.png"
    drawn = chart(res, chart_path)
    print(
        f"\n{table(rows)}\n\nbench_http: {out / 'bench_http.json'}{f', {chart_path}' if drawn else ''} "
        f"({time.monotonic() - t:.0f} s)"
    )
    if not all(r[m]["ok"] for r in rows for m in MODES):
        print("bench_http: some answers FAILED the check (lost, duplicated, unknown or wrong)", file=sys.stderr)
    return res


if __name__ == "__main__":
    if sys.argv[1:2] == ["--sdk-clients"]:
        url, state, tool, clients, tag = sys.argv[2:]
        import anyio

        print(json.dumps(anyio.run(sdk_clients, url, state, tool, int(clients), tag)), flush=True)
        sys.exit(0)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a smoke run: about 1.5 minutes")
    ap.add_argument("--reliability", action="store_true", help="the fault scenarios and RSS over 20,000 calls")
    ap.add_argument("--framework", action="append", choices=list(APPS), help="only this one (repeatable)")
    ap.add_argument(
        "--state",
        action="append",
        choices=["stateful", "stateless", "stateless-2025", *FLOWS],
        help="only this state (repeatable); flow, flow-sessions: each call a whole session (against a stateless server, or one with sessions), wrk only (not in --quick unless asked)",
    )
    ap.add_argument(
        "--asgi", default=DEFAULT_ASGI, choices=list(ASGI_SERVERS), help="the ASGI server (default uvicorn-h11)"
    )
    ap.add_argument("--payload", action="append", choices=list(CALLS), help="only this payload (repeatable)")
    ap.add_argument("--load", action="append", choices=list(LOADS), help="only this load (repeatable)")
    ap.add_argument("--reps", type=int, help="windows per server and load, stock and adapted alternating")
    ap.add_argument("--seconds", type=float, help="the length of each window")
    ap.add_argument(
        "--log-level",
        default="WARNING",
        help="the servers' FASTMCP_LOG_LEVEL (default WARNING); sdk: unset, the SDK's default (INFO)",
    )
    args = ap.parse_args()
    LOG_LEVEL = None if args.log_level.lower() == "sdk" else args.log_level.upper()
    if args.reliability:
        sys.exit(reliability())
    res = main(args.quick, args.framework, args.reps, args.seconds, args.state, args.asgi, args.payload, args.load)
    sys.exit(0 if all(r[m]["ok"] for r in res["rows"] for m in MODES) else 1)
