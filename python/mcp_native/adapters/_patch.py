"""Named patch points: each replaces one attribute after checking that it holds what we expect.

A patch whose module is not imported yet waits for it: :class:`PatchOnImport` applies it right
after the module has run, so ``install()`` costs no import of an SDK part the program never uses
(importing ``mcp``'s client, say, adds most of a second to a server's start).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


class UnexpectedTarget(Exception):
    """A patch point does not hold what the tested SDK version holds there."""


@dataclass
class Patch:
    """``module.attribute`` (``attribute`` is "name" or "Class.name") replaced by the object
    ``replacement`` names ("package.module:name", imported when the patch is applied).

    ``expects`` names another patch whose original this attribute must hold (a name bound by
    ``from ... import``); ``holds`` names the module (``"json"``) or object (``"module:name"``)
    a module global must be; ``instance_of`` the class (``"module:name"``) whose direct instance
    it must be (an object the module builds, proven by its fingerprint); otherwise it must be a
    function of this module and qualified name.
    The replacement is imported only once the attribute has passed that check. ``on_apply``
    receives the original, for a replacement that calls it. An ``optional`` patch (a binding
    some releases do not have) is skipped where its attribute is absent."""

    module: str
    attribute: str
    replacement: str
    what: str  # one line for the report
    expects: Patch | None = None
    holds: str | None = None
    instance_of: str | None = None
    on_apply: Callable[[Any], None] | None = None
    optional: bool = False
    original: Any = field(default=None, init=False)
    new: Any = field(default=None, init=False)
    applied: bool = field(default=False, init=False)

    def _owner(self) -> Any:
        obj: Any = sys.modules[self.module]
        for part in self.attribute.split(".")[:-1]:
            obj = getattr(obj, part)
        return obj

    @property
    def _name(self) -> str:
        return self.attribute.rsplit(".", 1)[-1]

    def _replacement(self) -> Any:
        module, _, name = self.replacement.partition(":")
        return getattr(importlib.import_module(module), name)

    def apply(self) -> None:
        """Check the attribute, then replace it (its module must be imported)."""
        try:
            owner = self._owner()
        except AttributeError as e:
            raise UnexpectedTarget(f"{self.module}.{self.attribute}: not found ({e})") from None
        current = owner.__dict__.get(self._name) if isinstance(owner, type) else getattr(owner, self._name, None)
        if current is None and self.optional:
            return
        if self.expects is not None:
            # Imported after the patch it copies from: it may already hold the replacement.
            if current is not self.expects.original and (current is None or current is not self.expects.new):
                raise UnexpectedTarget(
                    f"{self.module}.{self.attribute} is not {self.expects.module}.{self.expects.attribute}"
                )
            original = self.expects.original
        elif self.holds is not None:
            module, _, name = self.holds.partition(":")
            held = importlib.import_module(module)
            if current is not (getattr(held, name) if name else held):
                raise UnexpectedTarget(f"{self.module}.{self.attribute}: found {current!r}, expected {self.holds}")
            original = current
        elif self.instance_of is not None:
            module, _, name = self.instance_of.partition(":")
            if type(current) is not getattr(importlib.import_module(module), name):
                raise UnexpectedTarget(
                    f"{self.module}.{self.attribute}: found {current!r}, expected an instance of {self.instance_of}"
                )
            original = current
        elif (
            getattr(current, "__module__", None) != self.module
            or getattr(current, "__qualname__", None) != self.attribute
        ):
            raise UnexpectedTarget(
                f"{self.module}.{self.attribute}: found {current!r}, expected the function of that name"
            )
        else:
            original = current
        replacement = self._replacement()
        if self.on_apply is not None:
            self.on_apply(original)
        setattr(owner, self._name, replacement)
        self.original, self.new, self.applied = original, replacement, True

    def restore(self) -> None:
        if self.applied:
            setattr(self._owner(), self._name, self.original)
            self.applied = False


class PatchOnImport(importlib.abc.MetaPathFinder):
    """Applies the patches of a module as soon as it has been imported (first on sys.meta_path:
    it finds the module's spec through the other finders and wraps its loader)."""

    def __init__(self, patches: Sequence[Patch], on_error: Callable[[Patch, UnexpectedTarget], None]) -> None:
        self.waiting: dict[str, list[Patch]] = {}
        for p in patches:
            self.waiting.setdefault(p.module, []).append(p)
        self.on_error = on_error
        self.dropped: set[int] = set()

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.waiting:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, self, name)
                return spec
        return None

    def loaded(self, name: str) -> None:
        for p in self.waiting.pop(name, []):
            if id(p) in self.dropped:
                continue
            try:
                p.apply()
            except UnexpectedTarget as e:
                self.on_error(p, e)
            except Exception as e:
                # The replacement failed to load. Raised here, it would fail the program's import
                # of the SDK, or be lost where the SDK guards an optional import: the group stays
                # stock, and says why.
                self.on_error(p, UnexpectedTarget(f"{p.replacement}: {type(e).__name__}: {e}"))

    def forget(self, patches: Sequence[Patch]) -> None:
        """Drops waiting patches (of a group that was left stock)."""
        self.dropped.update(id(p) for p in patches)


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, hook: PatchOnImport, name: str) -> None:
        self.loader = loader
        self.hook = hook
        self.name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        self.hook.loaded(self.name)

    def __getattr__(self, name: str) -> Any:  # get_source, is_package, ... of the real loader
        return getattr(self.loader, name)
