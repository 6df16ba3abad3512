"""An MCP server script run on the adapters (as ``python -m mcp_native run`` does), profiled by
cProfile between SIGUSR1 and SIGUSR2, so that start-up and imports stay out of the profile.

    python benchmarks/profiled_server.py OUT.prof examples/mcpserver_app.py
"""

from __future__ import annotations

import cProfile
import os
import runpy
import signal
import sys
from pathlib import Path

from mcp_native import adapters

out, app = sys.argv[1], sys.argv[2]
profile = cProfile.Profile()


def stop(*_: object) -> None:
    profile.disable()
    profile.dump_stats(out + ".part")
    os.replace(out + ".part", out)  # whole, for the client that waits for it


signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
signal.signal(signal.SIGUSR2, stop)
adapters.install()
sys.argv = [app]
sys.path[0] = str(Path(app).resolve().parent)
runpy.run_path(app, run_name="__main__")
