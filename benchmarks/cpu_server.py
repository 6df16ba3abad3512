"""An MCP server run as ``python APP`` or ``python -m MODULE ARGS`` would run it, that writes its
own CPU time (user + system, all its threads, in nanoseconds) to OUT when it gets SIGUSR1: the
demo's server CPU per call, at a resolution that fits a few calls (``/proc/<pid>/stat`` counts
10 ms clock ticks). The handler runs before the server answers its next request.

    python benchmarks/cpu_server.py OUT examples/mcpserver_app.py
    python benchmarks/cpu_server.py OUT -m mcp_native run examples/mcpserver_app.py
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
import time
from pathlib import Path

out, *command = sys.argv[1:]


def report(*_: object) -> None:
    Path(out + ".part").write_text(str(time.process_time_ns()))
    os.replace(out + ".part", out)  # whole, for the client that reads it


signal.signal(signal.SIGUSR1, report)
if command[0] == "-m":
    sys.argv = [command[1], *command[2:]]
    runpy.run_module(command[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = command
    sys.path[0] = str(Path(command[0]).resolve().parent)
    runpy.run_path(command[0], run_name="__main__")
