"""Run servers and clients of the official ``mcp`` SDK and of fastmcp on mcp-native.

    import mcp_native.adapters
    mcp_native.adapters.install()

or, with no change to the program: ``python -m mcp_native run server.py [args]``.

:func:`install` patches named attributes of the SDK versions it was tested with, after checking
that each holds the function it expects; on any other version it patches nothing and says why.
:func:`uninstall` puts the originals back. What changes:

- ``transport``: the stdio server transport frames and parses lines natively, answers every
  malformed line with its JSON-RPC error, and writes responses natively (see ``adapters.stdio``);
  with ``client`` too, the stdio client transport frames and parses the server's lines natively
  without relay tasks (see ``adapters.mcp_stdio_client``); both Streamable
  HTTP server paths write responses natively and answer a malformed envelope with ``-32600``;
- ``client``: ``ClientSession.validate_tool_result`` validates ``structuredContent`` with the
  tool's output schema compiled once natively;
- ``server``: MCPServer writes the text mirror of a tool's dict result natively from its
  ``structuredContent``, and the server runner sends such a result without validating and
  dumping it again (see ``adapters.mcp_server``); fastmcp tools validate their
  ``structuredContent`` against their output schema before it is sent (fastmcp does not).

``output_validation`` ("error", "warn" or "off") decides what the client and fastmcp's server
do with a result that violates its output schema.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._patch import Patch, PatchOnImport, UnexpectedTarget

__all__ = ["SUPPORTED_VERSIONS", "Report", "UnsupportedVersion", "install", "report", "uninstall"]

logger = logging.getLogger("mcp_native.adapters")

#: The SDK versions whose patch points were checked, with their test suites run on the adapters.
SUPPORTED_VERSIONS: dict[str, tuple[str, ...]] = {"mcp": ("2.3.0",), "fastmcp": ("4.1.2",)}
_OUTPUT_VALIDATION = ("error", "warn", "off")
_MIRRORS = ("framework", "compact")
# The stdio transports, server and client: (SDK module, function, adapter module, what), and
# the modules that bind the function by name (``from mcp.server.stdio import stdio_server``).
_STDIO = (
    (
        ("mcp.server.stdio", "stdio_server", "stdio", "stdio transport: native framing and writes"),
        {
            "mcp": ("mcp", "mcp.server.mcpserver.server"),
            "fastmcp": ("fastmcp.server.mixins.transport", "fastmcp.server.low_level"),
        },
    ),
    (
        ("mcp.client.stdio", "stdio_client", "mcp_stdio_client", "stdio client transport: native framing, no relays"),
        {"mcp": ("mcp", "mcp.client.client"), "fastmcp": ("fastmcp.client.transports.stdio",)},
    ),
)


class UnsupportedVersion(RuntimeError):
    """``install(strict=True)`` met an SDK version or patch point it was not tested with."""


@dataclass
class Report:
    """What :func:`install` did: the versions found, the patches (applied, or waiting for their
    module to be imported), and why nothing was patched when that is the case."""

    versions: dict[str, str] = field(default_factory=dict)
    patches: list[Patch] = field(default_factory=list)
    refused: str = ""
    output_validation: str = "error"

    @property
    def patched(self) -> list[str]:
        return [p.what for p in self.patches if p.applied]

    @property
    def waiting(self) -> list[str]:
        return [p.what for p in self.patches if not p.applied]

    def __str__(self) -> str:
        found = ", ".join(f"{k} {v}" for k, v in self.versions.items()) or "no MCP SDK installed"
        lines = [f"mcp-native adapters ({found}; output validation: {self.output_validation})"]
        if self.refused:
            lines.append(f"  nothing patched: {self.refused}")
        lines += [f"  patched {w}" for w in self.patched]
        lines += [f"  on import: {w}" for w in self.waiting]
        if not self.patches and not self.refused:
            lines.append("  nothing to patch")
        return "\n".join(lines)


_report: Report | None = None
_hook: PatchOnImport | None = None


def _installed_versions() -> dict[str, str]:
    found = {}
    for dist in SUPPORTED_VERSIONS:
        if importlib.util.find_spec(dist) is not None:
            found[dist] = importlib.metadata.version(dist)
    return found


def _keep(module: str, stock: str | None = None, helpers_of: str = "", **settings: Any) -> Callable[[Any], None]:
    """An ``on_apply`` for a patch: the adapter module (``mcp_native.adapters.<module>``) gets
    the replaced function as ``stock``, which its replacement falls back to, and the options of
    install() it reads. With ``helpers_of``, the SDK module must also hold the helpers the
    adapter calls (its ``STOCK_HELPERS``)."""

    def keep(original: Any) -> None:
        adapter = importlib.import_module(f"{__name__}.{module}")
        for name in adapter.STOCK_HELPERS if helpers_of else ():
            if not callable(getattr(sys.modules[helpers_of], name, None)):
                raise UnexpectedTarget(f"{helpers_of}.{name}: not found")
        if stock is not None:
            setattr(adapter, stock, original)
        for name, value in settings.items():
            setattr(adapter, name, value)

    return keep


def _plan(
    versions: dict[str, str], server: bool, client: bool, transport: bool, output_validation: str, mirror: str
) -> list[Patch]:
    """Every patch for the SDKs found; the replacements learn the originals they call and the
    output-validation mode when they are applied."""
    patches: list[Patch] = []
    if "mcp" not in versions:
        return patches
    for (module, name, adapter, what), bindings in _STDIO if transport else ():
        if module == "mcp.client.stdio" and not client:
            continue
        native = f"{__name__}.{adapter}:{name}"
        first = Patch(module, name, native, what, on_apply=_keep(adapter, f"stock_{name}", helpers_of=module))
        patches.append(first)
        for dist, modules in bindings.items():
            if dist in versions:
                patches += [Patch(m, name, native, f"{m}.{name} (the same transport)", expects=first) for m in modules]
    if transport:
        patches.append(
            Patch(
                "mcp.server.runner",
                "_replay_from_opening_request",
                "mcp_native.adapters.server_runner:replay_from_opening_request",
                "server runner: messages read by the serving loop itself, without a relay task",
                on_apply=_keep("server_runner", "stock_replay"),
            )
        )
        era, modern = "mcp.server.streamable_http", "mcp.server._streamable_http_modern"
        for module, attribute, what, falls_back in (
            (era, "_create_json_response", "response bodies", False),
            (era, "_create_event_data", "SSE events", False),
            (era, "_create_error_response", "-32600 for a malformed envelope", True),
            (modern, "_sse_event", "SSE events", True),
            (modern, "_write", "response bodies", True),
        ):
            name = attribute[1:]
            patches.append(
                Patch(
                    module,
                    attribute if module == modern else f"StreamableHTTPServerTransport.{attribute}",
                    f"mcp_native.adapters.http:{name}",
                    f"Streamable HTTP ({'2026-07-28' if module == modern else '2025 era'}): {what}",
                    on_apply=_keep("http", f"stock_{name}") if falls_back else None,
                )
            )
    if client:
        patches.append(
            Patch(
                "mcp_types.methods",
                "validate_server_result",
                "mcp_native.adapters.mcp_client:validate_server_result",
                "validate_server_result: tools/call results of the common shape checked natively",
                on_apply=_keep("mcp_client", "stock_validate_server_result"),
            )
        )
        patches.append(
            Patch(
                "mcp.client.session",
                "ClientSession.validate_tool_result",
                "mcp_native.adapters.mcp_client:validate_tool_result",
                "ClientSession.validate_tool_result: native output-schema validation",
                on_apply=_keep("mcp_client", mode=output_validation),
            )
        )
    if server:
        indent = None if mirror == "compact" else 2
        patches.append(
            Patch(
                "mcp.server.mcpserver.utilities.func_metadata",
                "FuncMetadata.convert_result",
                "mcp_native.adapters.mcp_server:convert_result",
                "MCPServer tool results: the text mirror written natively from structuredContent",
                on_apply=_keep("mcp_server", "stock_convert_result", mirror_indent=indent),
            )
        )
        patches.append(
            Patch(
                "mcp.server.runner",
                "ServerRunner._serialize",
                "mcp_native.adapters.mcp_server:serialize",
                "server runner: those results sent without a second validation and dump",
                on_apply=_keep("mcp_server", "stock_serialize", mirror_indent=indent),
            )
        )
    if server and "fastmcp" in versions:
        patches.append(
            Patch(
                "fastmcp.tools.base",
                "Tool.convert_result",
                "mcp_native.adapters.fastmcp_server:convert_result",
                "fastmcp Tool.convert_result: output-schema validation before sending",
                on_apply=_keep("fastmcp_server", "stock_convert_result", mode=output_validation),
            )
        )
    return patches


def install(
    *,
    server: bool = True,
    client: bool = True,
    transport: bool = True,
    output_validation: str = "error",
    mirror: str = "framework",
    strict: bool = False,
) -> Report:
    """Patch the installed ``mcp`` and fastmcp; returns a :class:`Report` (also logged at debug
    level). Idempotent: a second call restores the originals first, then applies its options.
    On an SDK version not in :data:`SUPPORTED_VERSIONS`, or a patch point that does not hold
    the expected function, nothing is patched: a warning says why, or with ``strict=True``
    :class:`UnsupportedVersion` is raised.

    ``mirror="compact"`` writes MCPServer's text mirror of a result as compact JSON instead of
    its own pretty-printed layout (fastmcp's is compact already): the same data in about a third
    of the bytes on tabular results, and fewer tokens for a model that reads the text."""
    global _report, _hook
    if output_validation not in _OUTPUT_VALIDATION:
        raise ValueError(f"output_validation: {output_validation!r} is not one of {', '.join(_OUTPUT_VALIDATION)}")
    if mirror not in _MIRRORS:
        raise ValueError(f"mirror: {mirror!r} is not one of {', '.join(_MIRRORS)}")
    uninstall()
    versions = _installed_versions()
    rep = Report(versions=versions, output_validation=output_validation)
    _report = rep

    def refuse(e: UnexpectedTarget) -> None:
        for p in reversed(rep.patches):
            p.restore()
        rep.patches = []
        rep.refused = str(e)
        if _hook is not None:
            sys.meta_path.remove(_hook)
        if strict:
            raise UnsupportedVersion(rep.refused) from None
        warnings.warn(f"mcp_native.adapters.install(): nothing patched: {rep.refused}", RuntimeWarning, stacklevel=3)

    unsupported = [f"{d} {v}" for d, v in versions.items() if v not in SUPPORTED_VERSIONS[d]]
    if unsupported:
        known = "; ".join(f"{d} {', '.join(v)}" for d, v in SUPPORTED_VERSIONS.items())
        refuse(UnexpectedTarget(f"{', '.join(unsupported)} not tested (supported: {known})"))
        return rep
    rep.patches = _plan(versions, server, client, transport, output_validation, mirror)
    try:
        for p in rep.patches:
            if p.module in sys.modules:
                p.apply()
    except UnexpectedTarget as e:
        refuse(e)
        return rep
    if rep.waiting:
        _hook = PatchOnImport([p for p in rep.patches if not p.applied], refuse)
        sys.meta_path.insert(0, _hook)
    logger.debug("%s", rep)
    return rep


def uninstall() -> None:
    """Restore every attribute :func:`install` replaced, in reverse order."""
    global _report, _hook
    if _hook is not None:
        sys.meta_path.remove(_hook)
        _hook = None
    if _report is not None:
        for p in reversed(_report.patches):
            p.restore()
    _report = None


def report() -> Report | None:
    """The report of the installation in force, or None."""
    return _report
