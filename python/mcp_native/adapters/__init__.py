"""Run servers and clients of the official ``mcp`` SDK and of fastmcp on mcp-native.

    import mcp_native.adapters
    mcp_native.adapters.install()

or, with no change to the program: ``python -m mcp_native run server.py [args]``.

:func:`install` patches named attributes of the SDK versions it was tested with, after checking
that each holds the function it expects; on any other version it patches nothing and says why.
:func:`uninstall` puts the originals back. What changes:

- ``transport``: the stdio server transport frames and parses lines natively, answers every
  malformed line with its JSON-RPC error, and writes responses natively (see ``adapters.stdio``);
- ``client``: ``ClientSession.validate_tool_result`` validates ``structuredContent`` with the
  tool's output schema compiled once natively;
- ``server``: fastmcp tools validate their ``structuredContent`` against their output schema
  before it is sent (fastmcp does not).

``output_validation`` ("error", "warn" or "off") decides what the client and fastmcp's server
do with a result that violates its output schema.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import logging
import warnings
from dataclasses import dataclass, field

from ._patch import Patch, UnexpectedTarget

__all__ = ["SUPPORTED_VERSIONS", "Report", "UnsupportedVersion", "install", "uninstall"]

logger = logging.getLogger("mcp_native.adapters")

#: The SDK versions whose patch points were checked, with their test suites run on the adapters.
SUPPORTED_VERSIONS: dict[str, tuple[str, ...]] = {"mcp": ("2.3.0",), "fastmcp": ("4.1.2",)}
_OUTPUT_VALIDATION = ("error", "warn", "off")
# Modules that bind the stdio transport by name (``from mcp.server.stdio import stdio_server``).
_STDIO_BINDINGS = {
    "mcp": ("mcp", "mcp.server.mcpserver.server"),
    "fastmcp": ("fastmcp.server.mixins.transport", "fastmcp.server.low_level"),
}
# The stock transport's helpers that the native one reuses to claim fd 0 and 1.
_STDIO_HELPERS = ("_claim_fd", "_is_backed_by_fd", "_open_stdin_diversion", "_open_stdout_diversion")


class UnsupportedVersion(RuntimeError):
    """``install(strict=True)`` met an SDK version or patch point it was not tested with."""


@dataclass
class Report:
    """What :func:`install` did: the versions found, each patch applied, and why nothing was
    patched when that is the case."""

    versions: dict[str, str] = field(default_factory=dict)
    patched: list[str] = field(default_factory=list)
    refused: str = ""
    output_validation: str = "error"

    def __str__(self) -> str:
        found = ", ".join(f"{k} {v}" for k, v in self.versions.items()) or "no MCP SDK installed"
        lines = [f"mcp-native adapters ({found}; output validation: {self.output_validation})"]
        if self.refused:
            lines.append(f"  nothing patched: {self.refused}")
        lines += [f"  patched {p}" for p in self.patched]
        if not self.patched and not self.refused:
            lines.append("  nothing to patch")
        return "\n".join(lines)


_applied: list[Patch] = []
_report: Report | None = None


def _installed_versions() -> dict[str, str]:
    found = {}
    for dist in SUPPORTED_VERSIONS:
        if importlib.util.find_spec(dist) is not None:
            found[dist] = importlib.metadata.version(dist)
    return found


def _plan(versions: dict[str, str], server: bool, client: bool, transport: bool, output_validation: str) -> list[Patch]:
    """Every patch for the SDKs found, each checked against what it replaces; the replacements
    learn the originals they call and the output-validation mode."""
    patches: list[Patch] = []
    if "mcp" not in versions:
        return patches
    if transport:
        from . import stdio

        stock = importlib.import_module("mcp.server.stdio")
        for name in _STDIO_HELPERS:
            if not callable(getattr(stock, name, None)):
                raise UnexpectedTarget(f"mcp.server.stdio.{name}: not found")
        first = Patch("mcp.server.stdio", "stdio_server", stdio.stdio_server, "stdio transport: native framing and writes")
        first.check()
        stdio.stock_stdio_server = first.original
        patches.append(first)
        for dist, modules in _STDIO_BINDINGS.items():
            if dist in versions:
                for module in modules:
                    p = Patch(module, "stdio_server", stdio.stdio_server, f"{module}.stdio_server (the same transport)")
                    p.check(expected=first.original)
                    patches.append(p)
    if client:
        from . import mcp_client

        p = Patch("mcp.client.session", "ClientSession.validate_tool_result", mcp_client.validate_tool_result,
                  "ClientSession.validate_tool_result: native output-schema validation")
        p.check()
        mcp_client.mode = output_validation
        patches.append(p)
    if server and "fastmcp" in versions:
        from . import fastmcp_server

        p = Patch("fastmcp.tools.base", "Tool.convert_result", fastmcp_server.convert_result,
                  "fastmcp Tool.convert_result: output-schema validation before sending")
        p.check()
        fastmcp_server.mode = output_validation
        fastmcp_server.stock_convert_result = p.original
        patches.append(p)
    return patches


def install(
    *,
    server: bool = True,
    client: bool = True,
    transport: bool = True,
    output_validation: str = "error",
    strict: bool = False,
) -> Report:
    """Patch the installed ``mcp`` and fastmcp; returns a :class:`Report` (also logged at debug
    level). Idempotent: a second call restores the originals first, then applies its options.
    On an SDK version not in :data:`SUPPORTED_VERSIONS`, or a patch point that does not hold
    the expected function, nothing is patched: a warning says why, or with ``strict=True``
    :class:`UnsupportedVersion` is raised."""
    global _report
    if output_validation not in _OUTPUT_VALIDATION:
        raise ValueError(f"output_validation: {output_validation!r} is not one of {', '.join(_OUTPUT_VALIDATION)}")
    uninstall()
    versions = _installed_versions()
    rep = Report(versions=versions, output_validation=output_validation)
    unsupported = [f"{d} {v}" for d, v in versions.items() if v not in SUPPORTED_VERSIONS[d]]
    try:
        if unsupported:
            known = "; ".join(f"{d} {', '.join(v)}" for d, v in SUPPORTED_VERSIONS.items())
            raise UnexpectedTarget(f"{', '.join(unsupported)} not tested (supported: {known})")
        patches = _plan(versions, server, client, transport, output_validation)
    except UnexpectedTarget as e:
        rep.refused = str(e)
        if strict:
            raise UnsupportedVersion(rep.refused) from None
        warnings.warn(f"mcp_native.adapters.install(): nothing patched: {rep.refused}", RuntimeWarning, stacklevel=2)
        _report = rep
        return rep

    for p in patches:
        p.apply()
        _applied.append(p)
        rep.patched.append(p.what)
    _report = rep
    logger.debug("%s", rep)
    return rep


def uninstall() -> None:
    """Restore every attribute :func:`install` replaced, in reverse order."""
    global _report
    while _applied:
        _applied.pop().restore()
    _report = None


def report() -> Report | None:
    """The report of the installation in force, or None."""
    return _report
