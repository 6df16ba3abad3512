"""Named patch points: each replaces one attribute after checking that it holds what we expect."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any


class UnexpectedTarget(Exception):
    """A patch point does not hold what the tested SDK version holds there."""


@dataclass
class Patch:
    """``owner.attribute`` (a module, or a class in it) replaced by ``replacement``."""

    module: str
    attribute: str  # "name" in the module, or "Class.name"
    replacement: Any
    what: str  # one line for the report
    original: Any = field(default=None, init=False)

    def owner(self) -> Any:
        obj: Any = importlib.import_module(self.module)
        for part in self.attribute.split(".")[:-1]:
            obj = getattr(obj, part)
        return obj

    @property
    def name(self) -> str:
        return self.attribute.rsplit(".", 1)[-1]

    def check(self, expected: Any = None) -> None:
        """The attribute must be the function we tested against: ``expected`` itself when given
        (a name bound by ``from ... import``), else a function of this module and qualified name."""
        try:
            owner = self.owner()
        except (ImportError, AttributeError) as e:
            raise UnexpectedTarget(f"{self.module}.{self.attribute}: not found ({e})") from None
        current = owner.__dict__.get(self.name) if isinstance(owner, type) else getattr(owner, self.name, None)
        if expected is not None:
            if current is not expected:
                raise UnexpectedTarget(f"{self.module}.{self.attribute} is not the expected {expected.__qualname__}")
        elif getattr(current, "__module__", None) != self.module or getattr(current, "__qualname__", None) != self.attribute:
            raise UnexpectedTarget(f"{self.module}.{self.attribute}: found {current!r}, expected the function of that name")
        self.original = current

    def apply(self) -> None:
        setattr(self.owner(), self.name, self.replacement)

    def restore(self) -> None:
        setattr(self.owner(), self.name, self.original)
