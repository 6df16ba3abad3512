"""The MCP protocol versions and what tells them apart, and the protocol's error codes: in one
place for the Python layer (``cpp/include/mcp_native/mcp/protocol.hpp`` holds the core's copy).

:class:`ProtocolVersion` members compare by release date, so a rule reads
``version >= ProtocolVersion.V2025_11_25``, never a comparison of strings.
"""

from __future__ import annotations

import enum
from functools import cache
from importlib import resources
from typing import Any

from ._core import loads
from .schema import Validator

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "LATEST_PROTOCOL_VERSION",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "SCHEMA_VERSIONS",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "ProtocolVersion",
    "definition_validator",
    "definitions_key",
    "official_schema",
]


class ProtocolVersion(str, enum.Enum):
    """An MCP protocol version, by its name. The SDKs still negotiate the two oldest; the
    package has the schemas of the three newest (:data:`SCHEMA_VERSIONS`)."""

    V2024_11_05 = "2024-11-05"
    V2025_03_26 = "2025-03-26"
    V2025_06_18 = "2025-06-18"
    V2025_11_25 = "2025-11-25"
    V2026_07_28 = "2026-07-28"

    # Order by release (the order of definition), not as strings.
    def __lt__(self, other: object) -> bool:
        return _ORDER[self] < _ORDER[_version(other)]

    def __le__(self, other: object) -> bool:
        return _ORDER[self] <= _ORDER[_version(other)]

    def __gt__(self, other: object) -> bool:
        return _ORDER[self] > _ORDER[_version(other)]

    def __ge__(self, other: object) -> bool:
        return _ORDER[self] >= _ORDER[_version(other)]

    def __str__(self) -> str:
        return self.value

    @property
    def error_id_required(self) -> bool:
        """Up to 2025-06-18 a JSON-RPC error response must have an id: an answer to a request
        whose id cannot be read says ``"id": null`` (JSON-RPC 2.0). Later schemas make it
        optional and never null."""
        return self <= ProtocolVersion.V2025_06_18

    @property
    def has_structured_content(self) -> bool:
        """Tool results carry ``structuredContent`` and tools an ``outputSchema`` (2025-06-18 on)."""
        return self >= ProtocolVersion.V2025_06_18

    @property
    def has_icons(self) -> bool:
        """``icons`` on tools, resource links and implementations (2025-11-25 on)."""
        return self >= ProtocolVersion.V2025_11_25

    @property
    def restricts_tool_names(self) -> bool:
        """Tool names SHOULD be 1-128 of ``A-Z a-z 0-9 _ - .`` (2025-11-25 on)."""
        return self >= ProtocolVersion.V2025_11_25

    @property
    def argument_errors_are_results(self) -> bool:
        """Invalid tool arguments are answered with an ``isError`` result the model can read
        (2025-11-25 on), not a ``-32602`` error."""
        return self >= ProtocolVersion.V2025_11_25

    @property
    def has_tool_execution(self) -> bool:
        """``Tool.execution`` (``{"taskSupport": ...}``) exists in 2025-11-25 only."""
        return self == ProtocolVersion.V2025_11_25

    @property
    def structured_content_any_json(self) -> bool:
        """``structuredContent`` may be any JSON value (before: an object), every result
        carries ``resultType`` (2026-07-28 on)."""
        return self >= ProtocolVersion.V2026_07_28


_ORDER = {v: i for i, v in enumerate(ProtocolVersion)}


def _version(other: object) -> ProtocolVersion:
    if isinstance(other, ProtocolVersion):
        return other
    return ProtocolVersion(other)  # a name: ValueError if it is none


#: The versions whose schemas the package holds: ``Tool`` and ``content`` check against them.
SCHEMA_VERSIONS = (ProtocolVersion.V2025_06_18, ProtocolVersion.V2025_11_25, ProtocolVersion.V2026_07_28)
LATEST_PROTOCOL_VERSION = ProtocolVersion.V2026_07_28


def _schema_version(version: object) -> ProtocolVersion:
    v = _version(version)
    if v not in SCHEMA_VERSIONS:
        raise ValueError(f"no schema for protocol version {v} (the package has {', '.join(SCHEMA_VERSIONS)})")
    return v


@cache
def _schema_text(version: ProtocolVersion) -> bytes:
    # Package data written by scripts/gen_mcp_schemas.py from the official schema.json files.
    return (resources.files(__package__) / "schemas" / f"{version}.json").read_bytes()


def official_schema(version: ProtocolVersion | str) -> dict[str, Any]:
    """The official ``schema.json`` of ``version`` (one of :data:`SCHEMA_VERSIONS`) without its
    prose (descriptions): the definition of every MCP message under ``$defs``. A new copy on
    each call."""
    return loads(_schema_text(_schema_version(version)))  # type: ignore[no-any-return]


def definition_validator(version: ProtocolVersion | str, name: str) -> Validator:
    """A :class:`~mcp_native.Validator` for the definition ``name`` of ``version``'s official
    schema: ``definition_validator("2025-11-25", "JSONRPCMessage").validate(message)`` checks any
    message, ``"CallToolResult"`` a tool result, and so on. Compiled once per version and name."""
    return _definition_validator(_schema_version(version), name)


@cache
def _definition_validator(version: ProtocolVersion, name: str) -> Validator:
    doc = official_schema(version)
    key = definitions_key(doc)
    if name not in doc[key]:
        raise ValueError(f"the {version} schema has no definition {name!r}")
    doc["$ref"] = f"#/{key}/{name}"
    return Validator(doc)


def definitions_key(doc: dict[str, Any]) -> str:
    """Where an official schema keeps its definitions: ``definitions`` in 2025-06-18 (a
    draft-07 document), ``$defs`` from 2025-11-25 on (2020-12)."""
    return "$defs" if "$defs" in doc else "definitions"


# Standard JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# MCP's own codes, from the schemas: 2025-11-25 (URLElicitationRequiredError) and 2026-07-28
# (HeaderMismatchError, MissingRequiredClientCapabilityError, UnsupportedProtocolVersionError).
URL_ELICITATION_REQUIRED = -32042
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
