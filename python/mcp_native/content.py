"""Content blocks of MCP results and prompts, as JSON-ready dicts shaped exactly like the schema.

Each builder checks its arguments and raises ``TypeError`` (wrong type) or ``ValueError`` (wrong
value) naming the field. Binary data given as ``bytes`` is base64-encoded natively; data given as
``str`` must already be valid base64. Fields that exist only in some protocol versions (``icons``
appears in 2025-11-25) are checked against ``protocol_version``.
"""

import base64
import binascii
import re
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .protocol import LATEST_PROTOCOL_VERSION as _LATEST
from .protocol import SCHEMA_VERSIONS, ProtocolVersion

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "annotations",
    "audio",
    "embedded_resource",
    "icon",
    "image",
    "resource_link",
    "text",
]

PROTOCOL_VERSIONS = tuple(v.value for v in SCHEMA_VERSIONS)
LATEST_PROTOCOL_VERSION = _LATEST.value
CONTENT_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})

# RFC 3986 scheme, then no whitespace or control characters anywhere (a URI never has them).
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\x00-\x20\x7f]*\Z")
# RFC 6838 type/subtype (restricted-name characters), optional parameters.
_MIME = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+\-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+\-]*(\s*;.*)?\Z", re.S)
_ROLES = ("user", "assistant")
_THEMES = ("light", "dark")


def check_version(protocol_version: object) -> ProtocolVersion:
    """The version named, if the package has its schema."""
    if not isinstance(protocol_version, str) or protocol_version not in PROTOCOL_VERSIONS:
        raise ValueError(
            f"protocol_version: unsupported {protocol_version!r}, expected one of {', '.join(PROTOCOL_VERSIONS)}"
        )
    return ProtocolVersion(protocol_version)


def _str(field: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{field}: expected str, got {type(value).__name__}")
    return value


def _nonempty(field: str, value: object) -> str:
    if not _str(field, value):
        raise ValueError(f"{field}: must not be empty")
    return value  # type: ignore[return-value]


def _uri(field: str, value: object) -> str:
    if not _URI.match(_str(field, value)):
        raise ValueError(f"{field}: {value!r} is not an absolute URI (scheme:..., no spaces)")
    return value  # type: ignore[return-value]


def _mime(field: str, value: object) -> str:
    if not _MIME.match(_str(field, value)):
        raise ValueError(f"{field}: {value!r} is not a MIME type (type/subtype)")
    return value  # type: ignore[return-value]


def _base64(field: str, value: object) -> str:
    """bytes-like -> base64 text; str -> checked to be strict, padded base64."""
    if isinstance(value, str):
        try:
            # validate=True: only the alphabet, right padding, nothing after it; the same verdicts
            # as a2b_base64's strict_mode, which Python 3.10 lacks.
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as e:
            raise ValueError(f"{field}: not valid base64 ({e})") from None
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return binascii.b2a_base64(value, newline=False).decode("ascii")
    raise TypeError(f"{field}: expected bytes or a base64 str, got {type(value).__name__}")


def _meta(field: str, value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{field}: expected a dict, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str):
            raise TypeError(f"{field}: keys must be str, got {type(k).__name__}")
    return dict(value)


def _known_keys(field: str, value: object, allowed: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{field}: expected a dict, got {type(value).__name__}")
    for k in value:
        if k not in allowed:
            raise ValueError(f"{field}: unknown field {k!r} (allowed: {', '.join(allowed)})")
    return value


def annotations(
    *,
    audience: Sequence[str] | None = None,
    priority: float | None = None,
    last_modified: str | datetime | None = None,
) -> dict[str, Any]:
    """An ``Annotations`` object. ``audience`` ⊆ {"user", "assistant"}; ``priority`` in [0, 1];
    ``last_modified`` an ISO 8601 string or a timezone-aware ``datetime``."""
    out: dict[str, Any] = {}
    if audience is not None:
        if isinstance(audience, (str, bytes)) or not isinstance(audience, Sequence):
            raise TypeError(f"annotations.audience: expected a list of roles, got {type(audience).__name__}")
        for i, role in enumerate(audience):
            if role not in _ROLES:
                raise ValueError(f"annotations.audience[{i}]: {role!r} is not a role (expected 'user' or 'assistant')")
        out["audience"] = list(audience)
    if priority is not None:
        if isinstance(priority, bool) or not isinstance(priority, (int, float)):
            raise TypeError(f"annotations.priority: expected a number, got {type(priority).__name__}")
        if not (0 <= priority <= 1):  # also rejects NaN
            raise ValueError(f"annotations.priority: {priority!r} is not in [0, 1]")
        out["priority"] = priority
    if last_modified is not None:
        if isinstance(last_modified, datetime):
            if last_modified.utcoffset() is None:
                raise ValueError("annotations.lastModified: datetime must be timezone-aware")
            out["lastModified"] = last_modified.isoformat()
        else:
            text = _str("annotations.lastModified", last_modified)
            try:
                # Python 3.10's fromisoformat reads only isoformat()'s own output, not the "Z"
                # of UTC that the spec's example (2025-01-12T15:00:58Z) has.
                datetime.fromisoformat(
                    text[:-1] + "+00:00" if sys.version_info < (3, 11) and text.endswith("Z") else text
                )
            except ValueError:
                raise ValueError(f"annotations.lastModified: {last_modified!r} is not an ISO 8601 date-time") from None
            out["lastModified"] = last_modified
    return out


def _annotations(value: object) -> dict[str, Any]:
    """Check an annotations dict given in schema spelling (audience, priority, lastModified)."""
    a = _known_keys("annotations", value, ("audience", "priority", "lastModified"))
    return annotations(audience=a.get("audience"), priority=a.get("priority"), last_modified=a.get("lastModified"))


def icon(
    src: str,
    *,
    mime_type: str | None = None,
    sizes: Sequence[str] | None = None,
    theme: str | None = None,
    protocol_version: str = LATEST_PROTOCOL_VERSION,
) -> dict[str, Any]:
    """An ``Icon`` (2025-11-25 and later): ``src`` an http(s) or ``data:`` URI, ``sizes`` like "48x48"
    or "any", ``theme`` "light" or "dark"."""
    if not check_version(protocol_version).has_icons:
        raise ValueError(f"icons: not part of protocol version {protocol_version}")
    return _icon("icon", {"src": src, "mimeType": mime_type, "sizes": sizes, "theme": theme})


def _icon(field: str, value: object) -> dict[str, Any]:
    i = _known_keys(field, value, ("src", "mimeType", "sizes", "theme"))
    if "src" not in i:
        raise ValueError(f"{field}.src: required")
    out: dict[str, Any] = {"src": _uri(f"{field}.src", i["src"])}
    if i.get("mimeType") is not None:
        out["mimeType"] = _mime(f"{field}.mimeType", i["mimeType"])
    sizes = i.get("sizes")
    if sizes is not None:
        if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence):
            raise TypeError(f"{field}.sizes: expected a list of str, got {type(sizes).__name__}")
        out["sizes"] = [_str(f"{field}.sizes[{n}]", s) for n, s in enumerate(sizes)]
    if i.get("theme") is not None:
        if i["theme"] not in _THEMES:
            raise ValueError(f"{field}.theme: {i['theme']!r} is not 'light' or 'dark'")
        out["theme"] = i["theme"]
    return out


def check_icons(field: str, value: object, protocol_version: ProtocolVersion) -> list[dict[str, Any]]:
    """Check a list of icons for ``protocol_version`` (they exist from 2025-11-25 on)."""
    if not protocol_version.has_icons:
        raise ValueError(f"{field}: not part of protocol version {protocol_version}")
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise TypeError(f"{field}: expected a list of icons, got {type(value).__name__}")
    return [_icon(f"{field}[{n}]", v) for n, v in enumerate(value)]


def _finish(out: dict[str, Any], annotations: object, meta: object) -> dict[str, Any]:
    if annotations is not None:
        out["annotations"] = _annotations(annotations)
    if meta is not None:
        out["_meta"] = _meta("_meta", meta)
    return out


def text(
    text: str, *, annotations: Mapping[str, Any] | None = None, meta: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A ``TextContent`` block."""
    return _finish({"type": "text", "text": _str("text", text)}, annotations, meta)


def image(
    data: bytes | bytearray | memoryview | str,
    mime_type: str,
    *,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``ImageContent`` block: ``data`` raw bytes (encoded here) or base64 text."""
    out = {"type": "image", "data": _base64("data", data), "mimeType": _mime("mimeType", mime_type)}
    return _finish(out, annotations, meta)


def audio(
    data: bytes | bytearray | memoryview | str,
    mime_type: str,
    *,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``AudioContent`` block: ``data`` raw bytes (encoded here) or base64 text."""
    out = {"type": "audio", "data": _base64("data", data), "mimeType": _mime("mimeType", mime_type)}
    return _finish(out, annotations, meta)


def resource_link(
    uri: str,
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    icons: Sequence[Mapping[str, Any]] | None = None,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    protocol_version: str = LATEST_PROTOCOL_VERSION,
) -> dict[str, Any]:
    """A ``ResourceLink`` block. ``size`` is the raw size in bytes; ``icons`` (2025-11-25 and later)
    are dicts as made by :func:`icon`."""
    version = check_version(protocol_version)
    out: dict[str, Any] = {"type": "resource_link", "uri": _uri("uri", uri), "name": _str("name", name)}
    if title is not None:
        out["title"] = _str("title", title)
    if description is not None:
        out["description"] = _str("description", description)
    if mime_type is not None:
        out["mimeType"] = _mime("mimeType", mime_type)
    if size is not None:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"size: expected int, got {type(size).__name__}")
        if size < 0:
            raise ValueError(f"size: {size} is negative")
        out["size"] = size
    if icons is not None:
        out["icons"] = check_icons("icons", icons, version)
    return _finish(out, annotations, meta)


def embedded_resource(
    uri: str,
    *,
    text: str | None = None,
    blob: bytes | bytearray | memoryview | str | None = None,
    mime_type: str | None = None,
    resource_meta: Mapping[str, Any] | None = None,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``EmbeddedResource`` block holding exactly one of ``text`` (``TextResourceContents``) or
    ``blob`` (``BlobResourceContents``: raw bytes, encoded here, or base64 text).
    ``resource_meta`` is the contents' own ``_meta``; ``meta`` the block's."""
    if (text is None) == (blob is None):
        raise ValueError("embedded_resource: give exactly one of text or blob")
    resource: dict[str, Any] = {"uri": _uri("resource.uri", uri)}
    if text is not None:
        resource["text"] = _str("resource.text", text)
    else:
        resource["blob"] = _base64("resource.blob", blob)
    if mime_type is not None:
        resource["mimeType"] = _mime("resource.mimeType", mime_type)
    if resource_meta is not None:
        resource["_meta"] = _meta("resource._meta", resource_meta)
    return _finish({"type": "resource", "resource": resource}, annotations, meta)


def check_block(field: str, block: object) -> None:
    """Light check of a content block given by the caller: a dict with a known ``type``."""
    if not isinstance(block, Mapping):
        raise TypeError(f"{field}: expected a content block dict, got {type(block).__name__}")
    if block.get("type") not in CONTENT_TYPES:
        raise ValueError(f"{field}.type: {block.get('type')!r} is not one of {', '.join(sorted(CONTENT_TYPES))}")
