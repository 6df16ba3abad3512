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

The one pass (``http_one_pass``) goes one step further for the session it builds per stateless
request, which reads its options only to answer ``initialize``: ``stateless_options`` builds
them once per server and builds them again when what they are built of changes.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

_versions: dict[str, str] = {}

# What the options a server built last were built of, and the options (see ``stateless_options``).
_built: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()

# The requests whose handlers stock's ``get_capabilities`` looks for, one capability each.
_CAPABILITY_REQUESTS = (
    "ListPromptsRequest",
    "ListResourcesRequest",
    "ListToolsRequest",
    "SetLevelRequest",
    "CompleteRequest",
)


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


def stateless_options(app: Any) -> Any:
    """What ``app.create_initialization_options()`` returns, for a stateless session: built once
    per server, and again when what stock builds them of has changed since.

    Built by stock's ``get_capabilities`` (the group's proof) and this module's
    ``create_initialization_options`` with the defaults, the options are the server's name,
    version, instructions and website, and which of five request types have handlers: those are
    the key. A server the key does not cover builds them as before, per request: one whose class
    builds them or its capabilities its own way (fastmcp 3.x's), with icons (a list, changed in
    place unseen) or experimental handlers (task support, which adds to the capabilities). The
    options are shared by the sessions built with them, which only read them (to answer
    ``initialize``): 6.6 us of a FastMCP 1.x call (mcp 1.30.0) that the cache takes out.
    """
    server = sys.modules["mcp.server.lowlevel.server"]
    cls = type(app)
    if (
        cls.create_initialization_options is not create_initialization_options
        or cls.get_capabilities is not server.Server.get_capabilities
        or app.icons is not None
        or app._experimental_handlers is not None
    ):
        return app.create_initialization_options()
    types = sys.modules["mcp.types"]
    handlers = app.request_handlers
    key = (
        app.name,
        app.version,
        app.instructions,
        app.website_url,
        *(getattr(types, name) in handlers for name in _CAPABILITY_REQUESTS),
    )
    built = _built.get(app)
    if built is None or built[0] != key:
        built = _built[app] = (key, create_initialization_options(app))
    return built[1]
