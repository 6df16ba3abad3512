"""Named patch points: each replaces one attribute after checking that it holds what we expect.

A patch whose module is not imported yet waits for it: :class:`PatchOnImport` applies it right
after the module has run, so ``install()`` costs no import of an SDK part the program never uses
(importing ``mcp``'s client, say, adds most of a second to a server's start).

Another library may have wrapped the SDK's function already (OpenTelemetry's instrumentations
put a wrapt ``FunctionWrapper`` there; others a ``functools.wraps`` closure). Such a wrapper
copies the name and module of what it wraps, so it is told from the SDK's own function by where
its code lives, and it is kept: the replacement goes underneath it, in the slot that holds the
SDK's function (the proxy's ``__wrapped__``, the closure's cell), so the wrapper, and its spans,
call mcp-native. A wrapper that cannot be proven to call what that slot holds is left alone, and
the patch fails with the reason.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


class UnexpectedTarget(Exception):
    """A patch point does not hold what the tested SDK version holds there."""


def _is_wrapt_proxy(obj: Any) -> bool:
    # wrapt's proxies (and the copies of it some agents vendor) call whatever ``__wrapped__``
    # holds at each call, and let it be reassigned; 2.x's C base class reports module _wrappers.
    return any(
        c.__name__ in ("ObjectProxy", "BaseObjectProxy") and ("wrapt" in c.__module__ or c.__module__ == "_wrappers")
        for c in type(obj).__mro__
    )


class _Slot:
    """Where an object is held: a module or class attribute, a wrapt proxy's ``__wrapped__``, or
    a closure's cell."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name = owner, name

    def get(self) -> Any:
        if isinstance(self.owner, types.CellType):
            return self.owner.cell_contents
        if isinstance(self.owner, type):
            return self.owner.__dict__.get(self.name)
        return getattr(self.owner, self.name, None)

    def set(self, value: Any) -> None:
        if isinstance(self.owner, types.CellType):
            self.owner.cell_contents = value
        else:
            setattr(self.owner, self.name, value)


def _inner_slot(wrapper: Any) -> _Slot | None:
    """The slot through which ``wrapper`` calls the object it wraps, or None where that cannot
    be proven: a wrapt proxy's ``__wrapped__``; a closure's one cell holding ``__wrapped__``."""
    inner = getattr(wrapper, "__wrapped__", None)
    if inner is None:
        return None
    if _is_wrapt_proxy(wrapper):
        return _Slot(wrapper, "__wrapped__")
    if type(wrapper) is types.FunctionType:
        cells = [c for c in wrapper.__closure__ or () if _cell_holds(c, inner)]
        if len(cells) == 1:
            return _Slot(cells[0], "")
    return None


def _cell_holds(cell: types.CellType, obj: Any) -> bool:
    try:
        return cell.cell_contents is obj
    except ValueError:  # an empty cell
        return False


def _layers(slot: _Slot) -> Iterator[tuple[_Slot, Any]]:
    """Each (slot, object) from ``slot`` inwards, through the wrappers found there; the last
    pair's slot is None where a wrapper's inner slot cannot be proven."""
    seen: set[int] = set()
    obj = slot.get()
    while obj is not None and id(obj) not in seen:
        seen.add(id(obj))
        yield slot, obj
        inner = _inner_slot(obj)
        if inner is None:
            return
        slot, obj = inner, inner.get()


def _defined_in(obj: Any, path: str | None) -> bool:
    """Whether ``obj`` is a function whose code is in the file ``path``, directly or under a
    ``contextlib`` decorator (``@asynccontextmanager``, as the SDKs' transports are)."""
    code = getattr(obj, "__code__", None)
    if type(obj) is not types.FunctionType or code is None:  # (a proxy passes isinstance)
        return False
    if code.co_filename == path:
        return True
    return code.co_filename == _CONTEXTLIB and _defined_in(getattr(obj, "__wrapped__", None), path)


_CONTEXTLIB = contextlib.asynccontextmanager.__code__.co_filename


def is_sdk_function(obj: Any, module: str, qualname: str) -> bool:
    """Whether ``obj`` is the SDK's own function ``module:qualname``: its name, and its code in
    the module's file (a copy of the module that a failed import left behind counts too), not a
    wrapper of it."""
    return (
        getattr(obj, "__module__", None) == module
        and getattr(obj, "__qualname__", None) == qualname
        and _defined_in(obj, getattr(sys.modules.get(module), "__file__", None))
    )


class SdkSteps:
    """The SDK's functions that a replacement runs in stock's place or calls by name, each
    ``(holder, attribute, module, qualname)``: :meth:`intact` says whether every one is still
    the SDK's own (someone else's wrapper, or a test's replacement, sends the call to the stock
    path), proven again only once one of them changes."""

    def __init__(self, *steps: tuple[Any, str, str, str]) -> None:
        self._steps = steps
        self._proven: tuple[Any, ...] = ()

    def intact(self) -> bool:
        current = tuple(
            holder.__dict__.get(name) if isinstance(holder, type) else getattr(holder, name, None)
            for holder, name, _, _ in self._steps
        )
        if current == self._proven:
            return True
        if all(is_sdk_function(obj, m, q) for obj, (_, _, m, q) in zip(current, self._steps, strict=True)):
            self._proven = current
            return True
        return False


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
    slot: _Slot | None = field(default=None, init=False)  # where the replacement was put
    roots: tuple[str, ...] = field(default=(), init=False)  # packages whose bindings follow it

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
        """Check the attribute, then replace it (its module must be imported); under a wrapper
        that another library put there, replace what the wrapper calls."""
        try:
            top = _Slot(self._owner(), self._name)
        except AttributeError as e:
            raise UnexpectedTarget(f"{self.module}.{self.attribute}: not found ({e})") from None
        current = top.get()
        if current is None and self.optional:
            return
        if self.expects is not None:
            found = self._bound(top)
            if found is None:  # it holds the replacement already (imported after, or a wrapper of it)
                return
            slot, original = found
        elif self.holds is not None:
            module, _, name = self.holds.partition(":")
            held = importlib.import_module(module)
            if current is not (getattr(held, name) if name else held):
                raise UnexpectedTarget(f"{self.module}.{self.attribute}: found {current!r}, expected {self.holds}")
            slot, original = top, current
        elif self.instance_of is not None:
            module, _, name = self.instance_of.partition(":")
            if type(current) is not getattr(importlib.import_module(module), name):
                raise UnexpectedTarget(
                    f"{self.module}.{self.attribute}: found {current!r}, expected an instance of {self.instance_of}"
                )
            slot, original = top, current
        else:
            slot, original = self._function(top)
        replacement = self._replacement()
        if self.on_apply is not None:
            self.on_apply(original)
        slot.set(replacement)
        self.slot, self.original, self.new, self.applied = slot, original, replacement, True

    def _is_stock(self, obj: Any) -> bool:
        return is_sdk_function(obj, self.module, self.attribute)

    def _function(self, top: _Slot) -> tuple[_Slot, Any]:
        """The slot holding the SDK's own function of this name: at the attribute, or under the
        wrappers there."""
        for slot, obj in _layers(top):
            if self._is_stock(obj):
                return slot, obj
        current = top.get()
        why = (
            "a wrapper that mcp-native cannot prove calls what it wraps; left as it is"
            if getattr(current, "__wrapped__", None) is not None
            else "expected the function of that name"
        )
        raise UnexpectedTarget(f"{self.module}.{self.attribute}: found {current!r}, {why}")

    def _bound(self, top: _Slot) -> tuple[_Slot, Any] | None:
        """For a binding of ``expects``' function: the slot holding the SDK's function, at the
        attribute or under a wrapper; None where the replacement is in force there already."""
        expects = self.expects
        assert expects is not None
        for slot, obj in _layers(top):
            if expects.applied and obj is expects.new:
                return None
            if obj is expects.original or expects._is_stock(obj):
                return slot, obj
        raise UnexpectedTarget(f"{self.module}.{self.attribute} is not {expects.module}.{expects.attribute}")

    def _modules(self) -> list[tuple[str, ModuleType]]:
        """The other modules of the packages ``roots`` that hold something under the name."""
        return [
            (name, module)
            for name, module in list(sys.modules.items())
            if name.partition(".")[0] in self.roots
            and name != self.module
            and getattr(module, "__dict__", {}).get(self.attribute) is not None
        ]

    def bindings(self, roots: Sequence[str]) -> tuple[list[Patch], list[str]]:
        """After ``apply``, the other modules that hold the SDK's function under the same name
        (bound by ``from module import name`` before it was patched): a patch for each one of the
        packages ``roots``, and a note for each other one (the program's own: left alone).
        Modules of ``roots`` that bind it later get the replacement, and the original back from
        :meth:`restore`."""
        if not self.applied or "." in self.attribute or self.expects or self.holds or self.instance_of:
            return [], []
        self.roots = tuple(roots)
        patches = [
            Patch(name, self.attribute, self.replacement, f"{name}.{self.attribute}", expects=self, optional=True)
            for name, module in self._modules()
            if any(self._is_stock(obj) for _, obj in _layers(_Slot(module, self.attribute)))
        ]
        notes = [
            f"left alone: {name}.{self.attribute} was bound to the stock function before install(); "
            "calls through it run stock"
            for name, module in list(sys.modules.items())
            if name.partition(".")[0] not in roots
            and not name.startswith("mcp_native")
            and getattr(module, "__dict__", {}).get(self.attribute) is self.original
        ]
        return patches, notes

    def restore(self) -> None:
        """Put the original back wherever the replacement is: the slot it was put in, what the
        attribute reaches if it has been rewrapped or unwrapped since, and the modules of
        ``roots`` that bound it by name."""
        if not self.applied:
            return
        self.applied = False
        owners: list[Any] = [module for _, module in self._modules()]
        with contextlib.suppress(AttributeError, KeyError):
            owners.append(self._owner())
        slots = [self.slot] if self.slot is not None else []
        for owner in owners:
            slots += [slot for slot, obj in _layers(_Slot(owner, self._name)) if obj is self.new]
        for slot in slots:
            if slot.get() is self.new:
                slot.set(self.original)


class PatchOnImport(importlib.abc.MetaPathFinder):
    """Applies the patches of a module as soon as it has been imported (first on sys.meta_path:
    it finds the module's spec through the other finders and wraps its loader)."""

    def __init__(
        self,
        patches: Sequence[Patch],
        on_error: Callable[[Patch, UnexpectedTarget], None],
        on_applied: Callable[[Patch], None],
    ) -> None:
        self.waiting: dict[str, list[Patch]] = {}
        for p in patches:
            self.waiting.setdefault(p.module, []).append(p)
        self.on_error = on_error
        self.on_applied = on_applied
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
            else:
                self.on_applied(p)

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
