"""Run at interpreter start-up by ``mcp_native_adapters.pth`` when ``MCP_NATIVE_ADAPTERS`` is
set: installs the SDK adapters in this process, as ``python -m mcp_native run`` does in the
program it starts (uvicorn's and multiprocessing's spawned workers, Python subprocesses, SDK
command lines such as ``fastmcp run``). A start-up hook must never stop the interpreter: a
value it does not understand, or a failure, is a warning."""

from __future__ import annotations

import os
import warnings


def _install() -> None:
    from mcp_native import adapters

    options = adapters.options_from_environment(os.environ.get(adapters.ENVIRONMENT, ""))
    if options is not None:
        adapters.install(**options)


try:
    _install()
except Exception as e:
    warnings.warn(f"mcp-native adapters not installed at start-up: {e}", RuntimeWarning, stacklevel=1)
