"""mcp 1.x: ``Server.create_initialization_options`` without reading the ``mcp`` distribution's
metadata on every call.

Stock, a server created without a version (FastMCP 1.x's low-level server is, and so is a
low-level ``Server(name)``) gets ``importlib.metadata.version("mcp")`` as its version each time
the options are built: its nested ``pkg_version`` finds the distribution and reads and parses
its ``METADATA`` file. The Streamable HTTP session manager builds them for every stateless
request (and for every new session; the SSE transport for every connection): on FastMCP 1.26.0
with ``stateless_http=True, json_response=True`` under uvicorn, that lookup was 26% of the
server's CPU.

Here the lookup is made once per package name for the process, and its answer kept: stock's
answer, ``"unknown"`` where the lookup fails included. The version of the code the process
runs cannot change while it runs (after an upgrade on disk, stock would name the new release
while running the old code). Everything else is stock's, line for line: the same
``InitializationOptions`` and ``NotificationOptions`` of the server's module, looked up at each
call as stock's globals are, a new object each call.
"""

from __future__ import annotations

import sys
from typing import Any

_versions: dict[str, str] = {}


def pkg_version(package: str) -> str:
    """Stock's nested ``pkg_version``, its answer kept per package name."""
    try:
        return _versions[package]
    except KeyError:
        pass
    try:
        from importlib.metadata import version

        found = version(package)
    except Exception:
        found = "unknown"
    _versions[package] = found
    return found


def create_initialization_options(
    self: Any,
    notification_options: Any = None,
    experimental_capabilities: dict[str, dict[str, Any]] | None = None,
) -> Any:
    """``Server.create_initialization_options``: stock's, with the version looked up once."""
    server = sys.modules["mcp.server.lowlevel.server"]  # stock's globals, as the method sees them
    return server.InitializationOptions(
        server_name=self.name,
        server_version=self.version if self.version else pkg_version("mcp"),
        capabilities=self.get_capabilities(
            notification_options or server.NotificationOptions(),
            experimental_capabilities or {},
        ),
        instructions=self.instructions,
        website_url=self.website_url,
        icons=self.icons,
    )
