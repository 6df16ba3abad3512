"""Exceptions raised by mcp-native. Each subclasses the built-in users already catch."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JSONDecodeError", "SchemaError", "ValidationError"]


class JSONDecodeError(json.JSONDecodeError):
    """Invalid JSON text. A ``json.JSONDecodeError`` (so a ``ValueError``) with ``msg``, ``pos``,
    ``lineno`` and ``colno`` like the standard library's."""


class SchemaError(ValueError):
    """The schema is invalid for its dialect, uses an unsupported dialect, has an unresolvable
    ``$ref`` or exceeds the configured limits. ``schema_path`` locates the problem."""

    def __init__(self, message: str, schema_path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.schema_path = tuple(schema_path)


def _pointer(path: tuple[str | int, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


class ValidationError(ValueError):
    """An instance does not conform to its schema.

    ``instance_path`` and ``schema_path`` are tuples of keys and indices in JSON Pointer order;
    ``keyword`` is the failing keyword; ``instance`` is the failing value; ``errors`` holds every
    error found (on the exception raised by ``validate``, including this one).
    """

    def __init__(
        self,
        message: str,
        instance_path: tuple[str | int, ...] = (),
        schema_path: tuple[str | int, ...] = (),
        keyword: str = "",
        instance: Any = None,
        errors: list[ValidationError] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.instance_path = tuple(instance_path)
        self.schema_path = tuple(schema_path)
        self.keyword = keyword
        self.instance = instance
        self.errors = errors if errors is not None else [self]

    def __str__(self) -> str:
        where = _pointer(self.instance_path)
        return f"{self.message} at {where}" if where else self.message

    def __repr__(self) -> str:
        return f"ValidationError({self.message!r}, instance_path={self.instance_path!r}, keyword={self.keyword!r})"
