"""What a patch group declares: the attributes it replaces (:class:`Target`) and every SDK name
it relies on (:class:`GroupSpec`). Each SDK line's package declares its own groups with these."""

from __future__ import annotations

from dataclasses import dataclass

# The newest major line of each distribution, the one the groups without a ``line`` serve.
NEWEST_LINE = {"mcp": 2, "fastmcp": 4, "azure-functions": 2}


@dataclass(frozen=True)
class Target:
    """``module.attribute`` replaced by ``<adapter>.<function>`` (``adapter``: a module's full name); with
    ``stock``, the adapter's attribute of that name receives the original; with ``holds`` or
    ``instance_of``, the attribute is a module global that must be that module or object, or an
    instance of that class (see ``Patch``)."""

    module: str
    attribute: str
    adapter: str
    function: str
    stock: str | None = None
    holds: str | None = None
    instance_of: str | None = None

    @property
    def name(self) -> str:
        return f"{self.module}:{self.attribute}"


@dataclass(frozen=True)
class GroupSpec:
    """Patches that only make sense together, and every SDK name they rely on."""

    name: str
    dist: str  # the distribution whose release proves the group
    part: str  # the part of the support table it belongs to
    needs: tuple[str, ...]  # the install() switches that must all be on
    what: str
    targets: tuple[Target, ...]
    relies_on: tuple[str, ...]  # "module:qualname", beside the targets
    settings: tuple[str, ...] = ()  # install() options the adapter module reads
    # The major release line of ``dist`` it is written for (None: the newest, NEWEST_LINE); a
    # group is only considered for a release of its line, and proven by that line's releases.
    line: int | None = None

    @property
    def major(self) -> int:
        return NEWEST_LINE[self.dist] if self.line is None else self.line

    @property
    def names(self) -> tuple[str, ...]:
        """Every fingerprinted name: the targets, then what they rely on."""
        return tuple(t.name for t in self.targets) + self.relies_on
