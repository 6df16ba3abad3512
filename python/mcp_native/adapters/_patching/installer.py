"""Install, check and uninstall the patch groups of every SDK line (``adapters.mcp2``,
``adapters.fastmcp4``, ``adapters.mcp1``, ``adapters.fastmcp3``, ``adapters.azure_functions.tool_results``):
each group is proven against the tested releases' source, then applied whole or not at all."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import logging
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import azure_functions, fastmcp3, fastmcp4, mcp1, mcp2
from . import proof as _proof
from .patch import Patch, PatchOnImport, UnexpectedTarget
from .spec import NEWEST_LINE, GroupSpec, Target

logger = logging.getLogger("mcp_native.adapters")

#: The environment variable that installs the adapters in every Python process that starts with
#: it set (the startup hook ``mcp_native_adapters.pth``): ``1`` for the defaults, or the options
#: of :func:`install` as ``name=value`` pairs separated by commas
#: (``output_validation=warn,mirror=compact,client=0``); unset, empty, ``0`` or ``off``: nothing.
#: ``python -m mcp_native run`` sets it, so that the program's worker and child processes are
#: adapted as it is.
ENVIRONMENT = "MCP_NATIVE_ADAPTERS"
_OUTPUT_VALIDATION = ("error", "warn", "off")
_MIRRORS = ("framework", "compact")
# The distributions whose code the groups patch, and the import name of each.
_DISTS = {"mcp": "mcp", "fastmcp": "fastmcp", "azure-functions": "azure.functions"}
# The top-level packages of their code, whose modules' bindings of a patched function are patched
# with it (mcp 2.x keeps its types in mcp_types).
_SDK_PACKAGES = ("mcp", "mcp_types", "fastmcp", "azure")

#: Every patch group, in the order they are applied and reported (fastmcp 3.x's group among
#: mcp 1.x's, where it was declared when the two lines shared one table).
GROUPS: tuple[GroupSpec, ...] = (
    *mcp2.GROUPS,
    *fastmcp4.GROUPS,
    *mcp1.GROUPS[:4],
    *fastmcp3.GROUPS,
    *mcp1.GROUPS[4:],
    *azure_functions.GROUPS,
)


class UnsupportedVersion(RuntimeError):
    """``install(strict=True)`` met a patch group it cannot prove on the installed SDK."""


@dataclass
class Group:
    """A group's state after :func:`install` or :func:`check`: ``"patched"``, ``"waiting"``
    (proven; applied when the program imports its modules), ``"stock"`` (``why`` says what
    differs) or ``"off"`` (turned off by an option)."""

    spec: GroupSpec
    state: str
    why: str = ""  # the tested release that proves it, or why it is not patched
    patches: list[Patch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # bindings left alone, with the reason

    def refresh(self) -> None:
        """Updates ``state`` from the patches (a waiting group is patched once they all are)."""
        if self.state in ("patched", "waiting") and self.patches:
            targets = [p for p in self.patches if p.expects is None]
            self.state = "patched" if all(p.applied for p in targets) else "waiting"


@dataclass
class Report:
    """What :func:`install` did, per group: the versions found, which groups are patched, wait
    for their module to be imported, or stay stock, and why."""

    versions: dict[str, str] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    output_validation: str = "error"

    def _named(self, *states: str) -> list[str]:
        for g in self.groups:
            g.refresh()
        return [g.spec.name for g in self.groups if g.state in states]

    @property
    def patched(self) -> list[str]:
        return self._named("patched")

    @property
    def waiting(self) -> list[str]:
        return self._named("waiting")

    @property
    def stock(self) -> list[str]:
        """Groups of an installed SDK that could not be proven (not those turned off)."""
        return self._named("stock")

    def summary(self) -> str:
        """One line: per SDK, how many of its groups are patched (or will be on import)."""
        parts = []
        for dist, version in self.versions.items():
            groups = [g for g in self.groups if g.spec.dist == dist and g.state != "off"]
            if not groups and _line(dist, version) is None:
                # A line with no groups of its own (fastmcp 2.x): mcp's groups serve its servers.
                parts.append(f"{dist} {version}: no groups of its own, its servers run on mcp's")
                continue
            active = [g for g in groups if g.state in ("patched", "waiting")]
            text = f"{dist} {version}: {len(active)} of {len(groups)} groups"
            stock = [g.spec.name for g in groups if g.state == "stock"]
            if stock:
                text += f" (stock: {', '.join(stock)}; see python -m mcp_native doctor)"
            parts.append(text)
        return "mcp-native adapters: " + ("; ".join(parts) or "no MCP SDK installed, nothing to patch")

    def describe(self, at_exit: bool = False) -> str:
        """Every group, its state and why. ``at_exit``: a group still waiting is one whose
        modules the program never imported."""
        for g in self.groups:
            g.refresh()
        found = ", ".join(f"{k} {v}" for k, v in self.versions.items()) or "no MCP SDK installed"
        lines = [f"mcp-native adapters ({found}; output validation: {self.output_validation})"]
        labels = {"waiting": "unused" if at_exit else "on import"}
        for g in self.groups:
            why = "not imported by the program" if at_exit and g.state == "waiting" else g.why
            lines.append(f"  {labels.get(g.state, g.state):9} {g.spec.name}: {g.spec.what}{f' ({why})' if why else ''}")
            lines += [f"            {note}" for note in g.notes]
        if not self.groups:
            lines.append("  nothing to patch")
        return "\n".join(lines)

    __str__ = describe


_report: Report | None = None
_hook: PatchOnImport | None = None


def _installed_versions() -> dict[str, str]:
    found = {}
    for dist, top in _DISTS.items():
        try:
            spec = importlib.util.find_spec(top)  # (imports the parent package of a dotted name)
        except ModuleNotFoundError:  # that parent is not installed
            spec = None
        if spec is not None:
            found[dist] = importlib.metadata.version(dist)
    return found


def _major(version: str) -> int | None:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else None


def _line(dist: str, version: str) -> int | None:
    """The release line whose groups serve ``version``: its major line; for a major release
    newer than any group is written for, the newest line (its groups apply where the code is
    unchanged); for an older line without groups (fastmcp 2.x, served by mcp 1.x's), None."""
    major = _major(version)
    if any(g.dist == dist and g.major == major for g in GROUPS):
        return major
    return NEWEST_LINE[dist] if major is None or major > NEWEST_LINE[dist] else None


def _replaces(spec: GroupSpec, release: Mapping[str, Any]) -> bool:
    """Whether a tested release has every name ``spec`` replaces: one without (a name its line
    added later) proves nothing, and the group is not written for it."""
    return all(release["names"][t.name] != _proof.MISSING for t in spec.targets)


def _prove(spec: GroupSpec, version: str, installed: _proof.Installed) -> tuple[str | None, str]:
    """(the tested release whose source the installed one matches for every name of ``spec``,
    or None; what proves it, or what differs from the nearest tested release)."""
    line = {r: v for r, v in _proof.tested().get(spec.dist, {}).items() if _major(r) == spec.major}
    releases = {r: v for r, v in line.items() if _replaces(spec, v)}
    release, changed = _proof.prove(installed, spec.names, releases, prefer=version)
    if release is not None:
        return release, f"the source of {spec.dist} {release}"
    tested = ", ".join(releases) or "none"
    shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    return None, f"{spec.dist} {version} is not a tested release ({tested}) and its source differs in {shown}"


def check(
    *, server: bool = True, client: bool = True, transport: bool = True, output_validation: str = "error"
) -> Report:
    """What :func:`install` would do, without patching anything or importing the SDKs: every
    group of the installed SDKs, proven (``"waiting"``), ``"stock"`` with what differs from
    the tested releases, or ``"off"``."""
    switches = {"server": server, "client": client, "transport": transport}
    versions = _installed_versions()
    installed = _proof.Installed()
    rep = Report(versions=versions, output_validation=output_validation)
    for spec in GROUPS:
        if spec.dist not in versions or spec.major != _line(spec.dist, versions[spec.dist]):
            continue
        tested = _proof.tested().get(spec.dist, {}).get(versions[spec.dist])
        if tested is not None and not _replaces(spec, tested):
            continue  # (as a group of another line)
        off = [n for n in spec.needs if not switches[n]]
        if off:
            rep.groups.append(Group(spec, "off", f"{off[0]}=False"))
            continue
        release, why = _prove(spec, versions[spec.dist], installed)
        rep.groups.append(Group(spec, "stock" if release is None else "waiting", why))
    return rep


def _keep(target: Target, settings: Mapping[str, Any], names: tuple[str, ...]) -> Callable[[Any], None]:
    """An ``on_apply`` for a target: the adapter module, imported once the target is proven,
    gets the original (which its replacement falls back to) and the install() options it reads."""

    def keep(original: Any) -> None:
        adapter = importlib.import_module(target.adapter)
        if target.stock is not None:
            setattr(adapter, target.stock, original)
        for name in names:
            setattr(adapter, name, settings[name])

    return keep


def _patches(spec: GroupSpec, settings: Mapping[str, Any]) -> list[Patch]:
    patches = []
    for target in spec.targets:
        native = f"{target.adapter}:{target.function}"
        patches.append(
            Patch(
                target.module,
                target.attribute,
                native,
                spec.what,
                holds=target.holds,
                instance_of=target.instance_of,
                on_apply=_keep(target, settings, spec.settings),
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
    """Patch the installed ``mcp`` and fastmcp, each group whose source a tested release proves;
    returns a :class:`Report` (also logged at debug level). Idempotent: a second call restores
    the originals first, then applies its options. A group that cannot be proven stays stock:
    a warning names it, or with ``strict=True`` :class:`UnsupportedVersion` is raised and
    nothing is patched. Groups whose modules are not imported yet are patched when they are.

    ``mirror="compact"`` writes MCPServer's text mirror of a result as compact JSON instead of
    its own pretty-printed layout (fastmcp's is compact already): the same data in about a third
    of the bytes on tabular results, and fewer tokens for a model that reads the text."""
    global _report, _hook
    if output_validation not in _OUTPUT_VALIDATION:
        raise ValueError(f"output_validation: {output_validation!r} is not one of {', '.join(_OUTPUT_VALIDATION)}")
    if mirror not in _MIRRORS:
        raise ValueError(f"mirror: {mirror!r} is not one of {', '.join(_MIRRORS)}")
    uninstall()
    rep = check(server=server, client=client, transport=transport, output_validation=output_validation)
    if strict and rep.stock:
        problems = "; ".join(f"{g.spec.name}: {g.why}" for g in rep.groups if g.state == "stock")
        raise UnsupportedVersion(problems)
    unproven = rep.stock
    settings = {"mode": output_validation, "mirror_indent": None if mirror == "compact" else 2}
    owner: dict[int, Group] = {}
    for group in rep.groups:
        if group.state == "waiting":
            group.patches = _patches(group.spec, settings)
            owner.update((id(p), group) for p in group.patches)
    _report = rep

    def failed(patch: Patch, error: UnexpectedTarget) -> None:
        group = owner[id(patch)]
        if patch.optional:
            group.notes.append(f"left alone: {error}")
            return
        for p in reversed(group.patches):
            p.restore()
        if _hook is not None:
            _hook.forget(group.patches)
        group.state, group.why, group.patches = "stock", str(error), []
        if strict:
            uninstall()
            raise UnsupportedVersion(f"{group.spec.name}: {error}") from None
        warnings.warn(f"mcp_native.adapters: {group.spec.name} left stock: {error}", RuntimeWarning, stacklevel=3)

    def applied(patch: Patch) -> None:
        # The SDK's modules that bound the function by name before it was patched get the
        # replacement too (mcp's package re-exports its transports, mcp.types mirrors
        # mcp_types, fastmcp imports them by name), so that the report's "patched" is true of
        # every place the SDK calls it from.
        group = owner[id(patch)]
        bindings, notes = patch.bindings(_SDK_PACKAGES)
        group.notes += notes
        for b in bindings:
            owner[id(b)] = group
            group.patches.append(b)
            try:
                b.apply()
            except UnexpectedTarget as e:
                failed(b, e)

    waiting = []
    for group in rep.groups:
        for p in list(group.patches):
            if p.module not in sys.modules:
                waiting.append(p)
                continue
            try:
                p.apply()
            except UnexpectedTarget as e:
                failed(p, e)
            else:
                applied(p)
            if group.state == "stock":
                break
    if waiting:
        _hook = PatchOnImport([p for p in waiting if owner[id(p)].state != "stock"], failed, applied)
        sys.meta_path.insert(0, _hook)
    if unproven:
        warnings.warn(f"mcp_native.adapters.install(): {rep.summary()}", RuntimeWarning, stacklevel=2)
    logger.debug("%s", rep)
    return rep


_SWITCHES = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


def options_from_environment(value: str) -> dict[str, Any] | None:
    """The :func:`install` options a value of :data:`ENVIRONMENT` asks for, or None for "do not
    install". Raises ``ValueError`` naming what it does not understand."""
    value = value.strip()
    if value.lower() in ("", "0", "false", "off"):
        return None
    if value.lower() in ("1", "true", "on"):
        return {}
    options: dict[str, Any] = {}
    for item in value.split(","):
        name, eq, setting = (part.strip() for part in item.partition("="))
        if not eq:
            raise ValueError(f"{ENVIRONMENT}: {item.strip()!r} is not name=value")
        if name in ("server", "client", "transport"):
            if setting.lower() not in _SWITCHES:
                raise ValueError(f"{ENVIRONMENT}: {name}={setting!r} is not 1 or 0")
            options[name] = _SWITCHES[setting.lower()]
        elif (name == "output_validation" and setting in _OUTPUT_VALIDATION) or (
            name == "mirror" and setting in _MIRRORS
        ):
            options[name] = setting
        else:
            raise ValueError(f"{ENVIRONMENT}: {item.strip()!r} is not an option of install()")
    return options


def environment_value(**options: Any) -> str:
    """The value of :data:`ENVIRONMENT` that asks for ``options`` (the inverse of
    :func:`options_from_environment`)."""
    items = [f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in options.items()]
    return ",".join(items) or "1"


def uninstall() -> None:
    """Restore every attribute :func:`install` replaced, in reverse order."""
    global _report, _hook
    if _hook is not None:
        if _hook in sys.meta_path:
            sys.meta_path.remove(_hook)
        _hook = None
    if _report is not None:
        for group in reversed(_report.groups):
            for p in reversed(group.patches):
                p.restore()
    _report = None


def report() -> Report | None:
    """The report of the installation in force, or None."""
    return _report
