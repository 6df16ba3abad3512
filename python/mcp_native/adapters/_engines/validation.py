"""Output schemas compiled once into native validators, shared by the client and server patches."""

from __future__ import annotations

import logging
from typing import Any

from ...errors import ValidationError
from ...schema import Validator

logger = logging.getLogger("mcp_native.adapters")

# A tool's output schema is a long-lived dict (the tool's own, or the one a client keeps from
# tools/list), so it is looked up by identity: a new listing or a changed tool brings a new dict
# and so a new compile. The entry holds the schema, so an id is never reused while it is cached.
_CACHE_SIZE = 1024
_compiled: dict[int, tuple[Any, Validator]] = {}


def output_validator(schema: Any) -> Validator:
    """The compiled validator of ``schema`` (raises ``SchemaError`` if it is not a valid schema
    or a ``$ref`` leaves it: nothing is fetched)."""
    hit = _compiled.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    validator = Validator(schema)
    if len(_compiled) >= _CACHE_SIZE:
        _compiled.clear()
    _compiled[id(schema)] = (schema, validator)
    return validator


def first_error(validator: Validator, instance: Any) -> ValidationError | None:
    """None when ``instance`` is valid, else its first error (found only on the invalid path)."""
    if validator.is_valid(instance):
        return None
    return next(iter(validator.iter_errors(instance)), None)


def mismatch(tool: str, error: ValidationError) -> str:
    """What a tool's result that violates its output schema is told: the value and its pointer."""
    return f"Output validation error: the result of tool {tool!r} does not match its output schema: {error}"


def no_structured(tool: str) -> str:
    """What a server says of a result without structured content from a tool with an output schema."""
    return f"Output validation error: tool {tool!r} has an output schema but returned no structured content"


def client_refuses(problem: str, mode: str) -> None:
    """The client's answer to a result that fails its tool's output schema: the SDK's
    ``RuntimeError``, or in mode "warn" a warning and the result as it is."""
    if mode == "warn":
        logger.warning("%s", problem)
        return
    raise RuntimeError(problem)
