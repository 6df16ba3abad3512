"""Run servers and clients of the official ``mcp`` SDK and of fastmcp on mcp-native.

    import mcp_native.adapters
    mcp_native.adapters.install()

or, with no change to the program: ``python -m mcp_native run server.py [args]``.

The patches come in groups that only make sense together (:data:`GROUPS`). :func:`install`
patches a group when the installed SDK's source of every name the group relies on is the source
of a release whose official test suite ran with the adapters (``fingerprints.json``); any other
group stays stock, and the report names what differs. Each patched attribute is checked to hold
the function it should before it is replaced, and :func:`uninstall` puts the originals back.

One package per SDK line, each declaring its groups in its ``__init__`` beside the modules that
replace the SDK's functions:

- ``mcp2``: mcp 2.x (the stdio server and client transports, the server runner, MCPServer's and
  the low-level server's results, the client's result validation, the Streamable HTTP writers);
- ``fastmcp4``: fastmcp 4.x's tool results, tool lookup and its Client's ``.data``;
- ``mcp1``: mcp 1.x (its stdio transports, FastMCP 1.x's results, the low-level ``call_tool``,
  the client's validation, the HTTP writers, the stateless path's initialization options);
- ``fastmcp3``: fastmcp 3.x's tool results (on mcp 1.x);
- ``azure_functions``: the MCP tool trigger's results.

``_engines`` holds what several lines share (the stdio engines, the wire models, the mirror,
validation, the HTTP writers); ``_patching`` the proof and patch machinery. See
docs/how-it-works.md for what each group changes and why it is safe.

``output_validation`` ("error", "warn" or "off") decides what the client and fastmcp's server
do with a result that violates its output schema.
"""

from __future__ import annotations

from ._patching.installer import (
    ENVIRONMENT,
    GROUPS,
    Group,
    Report,
    UnsupportedVersion,
    check,
    environment_value,
    install,
    options_from_environment,
    report,
    uninstall,
)
from ._patching.spec import GroupSpec, Target

__all__ = [
    "ENVIRONMENT",
    "GROUPS",
    "Group",
    "GroupSpec",
    "Report",
    "Target",
    "UnsupportedVersion",
    "check",
    "environment_value",
    "install",
    "options_from_environment",
    "report",
    "uninstall",
]
