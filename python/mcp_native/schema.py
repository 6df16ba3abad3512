"""Compiled JSON Schema validation: ``Validator`` and its ``Limits``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ._core import SchemaValidator, loads
from .errors import SchemaError, ValidationError

__all__ = ["Limits", "Validator"]


@dataclass(frozen=True)
class Limits:
    """Bounds against schema and instance bombs; exceeding one raises ``SchemaError`` (while
    compiling) or ``ValidationError`` with ``keyword == "limits"`` (while validating)."""

    #: nesting depth of a schema (subschemas within subschemas)
    max_schema_depth: int = 256
    #: subschemas compiled for one validator (including those reached through ``$ref``)
    max_subschemas: int = 100_000
    #: nesting depth of an instance (lists/dicts, JSON arrays/objects) where validation descends
    max_instance_depth: int = 512
    #: subschema evaluations per call (bounds exponential ``anyOf``/``oneOf`` bombs: the default
    #: stops the worst in ~15 ms; citm_catalog's 550 KB take 12,329 steps)
    max_steps: int = 1_000_000


def _limits(limits: Limits | Mapping[str, int] | None) -> tuple[int, int, int, int]:
    if limits is None:
        return _DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        names = {f.name for f in fields(Limits)}
        unknown = set(limits) - names
        if unknown:
            raise ValueError(f"unknown limits: {', '.join(sorted(unknown))}")
        limits = Limits(**limits)
    values = (limits.max_schema_depth, limits.max_subschemas, limits.max_instance_depth, limits.max_steps)
    for f, v in zip(fields(Limits), values, strict=True):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"limit {f.name} must be a positive integer, not {v!r}")
        if v > _MAXIMA[f.name]:
            raise ValueError(f"limit {f.name} must be at most {_MAXIMA[f.name]}, not {v!r}")
    return values


# The depths bound the engine's recursion on the C++ stack: beyond these, a deep enough document
# could overflow a thread's stack (8 MiB by default) before the limit stopped it. (A release
# build overflowed at max_schema_depth=10**6; one built with AddressSanitizer, whose frames are
# larger, at 2,048 and at max_instance_depth=10,000: these keep a margin for both.)
_MAXIMA = {
    "max_schema_depth": 1024,
    "max_subschemas": 2**32 - 1,
    "max_instance_depth": 2048,
    "max_steps": 2**63 - 1,
}


# Checked once: most validators are built with the defaults.
_DEFAULT_LIMITS = _limits(Limits())


def _document(schema: Any, what: str) -> Any:
    if isinstance(schema, (str, bytes, bytearray, memoryview)):
        # Our parser, not the standard library's: it bounds nesting (1024 levels), so a deeply
        # nested schema text is a SchemaError instead of a RecursionError.
        try:
            return loads(schema)
        except ValueError as e:
            raise SchemaError(f"{what} is not valid JSON: {e}") from None
    return schema


def _extras(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names) + (" was" if len(names) == 1 else " were")


# python-jsonschema's wording, for the keywords whose message needs only the instance and the
# keyword's value.
_MESSAGES = {
    "enum": "{instance!r} is not one of {value!r}",
    "const": "{value!r} was expected",
    "minimum": "{instance!r} is less than the minimum of {value!r}",
    "maximum": "{instance!r} is greater than the maximum of {value!r}",
    "exclusiveMinimum": "{instance!r} is less than or equal to the minimum of {value!r}",
    "exclusiveMaximum": "{instance!r} is greater than or equal to the maximum of {value!r}",
    "multipleOf": "{instance!r} is not a multiple of {value!r}",
    "minProperties": "{instance!r} does not have enough properties",
    "maxProperties": "{instance!r} has too many properties",
    "uniqueItems": "{instance!r} has non-unique elements",
    "pattern": "{instance!r} does not match {value!r}",
    "format": "{instance!r} is not a {value!r}",
    "anyOf": "{instance!r} is not valid under any of the given schemas",
    "not": "{instance!r} should not be valid under {value!r}",
    "contains": "{instance!r} does not contain items matching the given schema",
}


def _message(keyword: str, instance: Any, value: Any, extra: list[str]) -> str:
    """Messages worded like python-jsonschema's."""
    if keyword in ("minimum", "maximum") and extra:  # draft-04, with exclusiveM...imum: true
        keyword = "exclusiveM" + keyword[1:]
    if keyword in _MESSAGES:
        return _MESSAGES[keyword].format(instance=instance, value=value)
    if keyword == "false":
        return f"False schema does not allow {instance!r}"
    if keyword == "type":
        types = value if isinstance(value, list) else [value]
        return f"{instance!r} is not of type {', '.join(repr(t) for t in types)}"
    if keyword == "required":
        return f"{extra[0]!r} is a required property"
    if keyword in ("dependentRequired", "dependencies"):
        return f"{extra[0]!r} is a dependency of {extra[1]!r}"
    if keyword in ("minLength", "minItems"):
        return f"{instance!r} should be non-empty" if value == 1 else f"{instance!r} is too short"
    if keyword in ("maxLength", "maxItems"):
        return f"{instance!r} is expected to be empty" if value == 0 else f"{instance!r} is too long"
    if keyword == "additionalProperties":
        return f"Additional properties are not allowed ({_extras(extra)} unexpected)"
    if keyword in ("additionalItems", "items"):
        return f"Expected at most {len(instance) - int(extra[0])} items but found {extra[0]} extra"
    if keyword == "unevaluatedProperties":
        return f"Unevaluated properties are not allowed ({_extras(extra)} unexpected)"
    if keyword == "unevaluatedItems":
        return f"Unevaluated items are not allowed ({_extras([instance[int(i)] for i in extra])} unexpected)"
    if keyword == "oneOf":
        if extra:  # the later matches first, then the first one, as python-jsonschema words it
            order = [*extra[1:], extra[0]]
            return f"{instance!r} is valid under each of {', '.join(repr(value[int(i)]) for i in order)}"
        return f"{instance!r} is not valid under any of the given schemas"
    return f"{instance!r} is not valid under {keyword!r}"


def _build(raw: list[tuple[Any, ...]]) -> list[ValidationError]:
    return [
        ValidationError(_message(kw, inst, value, extra), ipath, spath, kw, inst)
        for kw, ipath, spath, inst, value, extra in raw
    ]


class Validator(SchemaValidator):
    """A JSON Schema compiled once; immutable and safe to share between threads.

    ``schema`` is a dict or bool, or JSON text (``str``/``bytes``). ``dialect`` (a metaschema URI
    or ``"2020-12"``, ``"2019-09"``, ``"draft-07"``, ``"draft-06"``, ``"draft-04"``) applies to a
    schema without ``$schema``; the default is 2020-12. ``formats=True`` makes ``format`` an
    assertion (in every dialect; otherwise it is an annotation). ``registry`` maps URIs to the
    documents ``$ref`` may reach (nothing is fetched). ``limits`` is a ``Limits`` or a mapping
    of some of its fields. Raises ``SchemaError``.
    """

    # Instances keep their attributes in the native base's __dict__. A second, Python-managed
    # one would hide reference cycles through the validator from the garbage collector.
    __slots__ = ()

    def __init__(
        self,
        schema: Any,
        *,
        dialect: str | None = None,
        formats: bool = False,
        registry: Mapping[str, Any] | None = None,
        limits: Limits | Mapping[str, int] | None = None,
    ) -> None:
        docs = None
        if registry is not None:
            docs = {str(uri): _document(doc, f"registry document {uri!r}") for uri, doc in registry.items()}
        super().__init__(_document(schema, "schema"), dialect, bool(formats), docs, _limits(limits))

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        """Every error of the instance (Python objects)."""
        if self.is_valid(instance):
            return iter(())
        return iter(_build(self._errors(instance)))

    def validate(self, instance: Any) -> None:
        """Raise ``ValidationError`` (with ``errors`` listing all of them) unless valid."""
        if not self.is_valid(instance):
            _raise(_build(self._errors(instance)))

    def iter_errors_json(self, data: bytes | bytearray | memoryview | str) -> Iterator[ValidationError]:
        """Every error of the instance given as JSON text."""
        if self.is_valid_json(data):
            return iter(())
        return iter(_build(self._errors_json(data)))

    def validate_json(self, data: bytes | bytearray | memoryview | str) -> None:
        """Raise ``ValidationError`` unless the JSON text is valid (``JSONDecodeError`` if it is
        not JSON)."""
        if not self.is_valid_json(data):
            _raise(_build(self._errors_json(data)))


def _raise(errors: list[ValidationError]) -> None:
    if not errors:  # cannot happen unless the engine disagrees with itself
        raise ValidationError("instance is invalid")
    first = errors[0]
    first.errors = errors
    raise first
