"""Content block builders: conformance to each protocol version's schema, and bad inputs."""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from mcp_native import content as c

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
SpecCheckers = Callable[[str, str], tuple[Any, Any]]


def assert_rejected(spec_checkers: SpecCheckers, version: str, definition: str, instance: Any) -> None:
    """The checkers can fail: a broken instance is rejected by both."""
    reference, ours = spec_checkers(version, definition)
    assert not reference.is_valid(instance)
    assert not ours.is_valid(instance)


def test_blocks_conform(
    version: str,
    all_blocks: Callable[[str], list[dict[str, Any]]],
    assert_conforms: Callable[[str, str, Any], None],
) -> None:
    for block in all_blocks(version):
        assert_conforms(version, "ContentBlock", block)
        # The block also matches the specific definition for its type.
        name = {
            "text": "TextContent",
            "image": "ImageContent",
            "audio": "AudioContent",
            "resource_link": "ResourceLink",
            "resource": "EmbeddedResource",
        }[block["type"]]
        assert_conforms(version, name, block)


def test_checkers_reject(version: str, spec_checkers: SpecCheckers) -> None:
    assert_rejected(spec_checkers, version, "ContentBlock", {"type": "image", "data": "AAAA"})
    assert_rejected(
        spec_checkers, version, "ContentBlock", {"type": "text", "text": "x", "annotations": {"priority": 2}}
    )


def test_exact_shapes() -> None:
    assert c.text("hi") == {"type": "text", "text": "hi"}
    assert c.image(b"\x00\x01\x02", "image/png") == {"type": "image", "data": "AAEC", "mimeType": "image/png"}
    assert c.audio("AAEC", "audio/wav") == {"type": "audio", "data": "AAEC", "mimeType": "audio/wav"}
    assert c.image(PNG, "image/png")["data"] == base64.b64encode(PNG).decode()
    assert c.embedded_resource("file:///a", blob=b"hi") == {
        "type": "resource",
        "resource": {"uri": "file:///a", "blob": "aGk="},
    }
    assert c.embedded_resource("file:///a", text="hi", mime_type="text/plain") == {
        "type": "resource",
        "resource": {"uri": "file:///a", "text": "hi", "mimeType": "text/plain"},
    }
    assert c.resource_link("file:///a", "a", size=3) == {
        "type": "resource_link",
        "uri": "file:///a",
        "name": "a",
        "size": 3,
    }
    assert c.text("t", annotations={"priority": 0}, meta={"a": 1}) == {
        "type": "text",
        "text": "t",
        "annotations": {"priority": 0},
        "_meta": {"a": 1},
    }
    assert c.image(bytearray(b"ab"), "image/gif")["data"] == "YWI="
    assert c.image(memoryview(b"ab"), "image/gif")["data"] == "YWI="


def test_annotations_builder() -> None:
    when = datetime(2025, 1, 12, 15, 0, 58, tzinfo=timezone.utc)
    assert c.annotations(audience=("user",), priority=1, last_modified=when) == {
        "audience": ["user"],
        "priority": 1,
        "lastModified": "2025-01-12T15:00:58+00:00",
    }
    assert c.annotations() == {}
    assert (
        c.annotations(last_modified=datetime(2025, 1, 1, tzinfo=timezone(timedelta(hours=2))))["lastModified"]
        == "2025-01-01T00:00:00+02:00"
    )


def _raises(exc: type[Exception], field: str, fn: Callable[..., object], *args: Any, **kw: Any) -> None:
    with pytest.raises(exc) as info:
        fn(*args, **kw)
    assert field in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("exc", "field", "fn", "args", "kw"),
    [
        (TypeError, "text", c.text, (b"bytes",), {}),
        (TypeError, "text", c.text, (None,), {}),
        (TypeError, "data", c.image, (123, "image/png"), {}),
        (ValueError, "data", c.image, ("not base64!", "image/png"), {}),
        (ValueError, "data", c.image, ("AAE", "image/png"), {}),  # bad padding
        (ValueError, "data", c.audio, ("AA\nAA", "audio/wav"), {}),
        (ValueError, "mimeType", c.image, (b"x", "png"), {}),
        (ValueError, "mimeType", c.image, (b"x", ""), {}),
        (TypeError, "mimeType", c.audio, (b"x", None), {}),
        (ValueError, "annotations.priority", c.text, ("t",), {"annotations": {"priority": 1.5}}),
        (ValueError, "annotations.priority", c.text, ("t",), {"annotations": {"priority": -0.1}}),
        (ValueError, "annotations.priority", c.text, ("t",), {"annotations": {"priority": float("nan")}}),
        (TypeError, "annotations.priority", c.text, ("t",), {"annotations": {"priority": True}}),
        (TypeError, "annotations.priority", c.text, ("t",), {"annotations": {"priority": "1"}}),
        (ValueError, "annotations.audience[1]", c.text, ("t",), {"annotations": {"audience": ["user", "system"]}}),
        (TypeError, "annotations.audience", c.text, ("t",), {"annotations": {"audience": "user"}}),
        (ValueError, "annotations.lastModified", c.text, ("t",), {"annotations": {"lastModified": "yesterday"}}),
        (TypeError, "annotations.lastModified", c.text, ("t",), {"annotations": {"lastModified": 1700000000}}),
        (ValueError, "annotations", c.text, ("t",), {"annotations": {"priorty": 1}}),
        (TypeError, "annotations", c.text, ("t",), {"annotations": ["user"]}),
        (TypeError, "_meta", c.text, ("t",), {"meta": [1]}),
        (TypeError, "_meta", c.text, ("t",), {"meta": {1: "x"}}),
        (ValueError, "uri", c.resource_link, ("not a uri", "n"), {}),
        (ValueError, "uri", c.resource_link, ("relative/path", "n"), {}),
        (TypeError, "name", c.resource_link, ("file:///a", None), {}),
        (TypeError, "size", c.resource_link, ("file:///a", "a"), {"size": 1.5}),
        (TypeError, "size", c.resource_link, ("file:///a", "a"), {"size": True}),
        (ValueError, "size", c.resource_link, ("file:///a", "a"), {"size": -1}),
        (TypeError, "title", c.resource_link, ("file:///a", "a"), {"title": 1}),
        (TypeError, "description", c.resource_link, ("file:///a", "a"), {"description": 1}),
        (ValueError, "icons", c.resource_link, ("file:///a", "a"), {"icons": [], "protocol_version": "2025-06-18"}),
        (ValueError, "icons[0].src", c.resource_link, ("file:///a", "a"), {"icons": [{"mimeType": "image/png"}]}),
        (ValueError, "icons[0].src", c.resource_link, ("file:///a", "a"), {"icons": [{"src": "no scheme"}]}),
        (
            ValueError,
            "icons[0].theme",
            c.resource_link,
            ("file:///a", "a"),
            {"icons": [{"src": "https://x/i", "theme": "blue"}]},
        ),
        (
            TypeError,
            "icons[0].sizes",
            c.resource_link,
            ("file:///a", "a"),
            {"icons": [{"src": "https://x/i", "sizes": "48x48"}]},
        ),
        (
            ValueError,
            "icons[0]",
            c.resource_link,
            ("file:///a", "a"),
            {"icons": [{"src": "https://x/i", "mime_type": "image/png"}]},
        ),
        (TypeError, "icons", c.resource_link, ("file:///a", "a"), {"icons": {"src": "https://x/i"}}),
        (ValueError, "protocol_version", c.resource_link, ("file:///a", "a"), {"protocol_version": "2024-11-05"}),
        (ValueError, "icons", c.icon, ("https://x/i",), {"protocol_version": "2025-06-18"}),
        (ValueError, "text or blob", c.embedded_resource, ("file:///a",), {}),
        (ValueError, "text or blob", c.embedded_resource, ("file:///a",), {"text": "t", "blob": b"b"}),
        (ValueError, "resource.uri", c.embedded_resource, ("a b",), {"text": "t"}),
        (ValueError, "resource.blob", c.embedded_resource, ("file:///a",), {"blob": "%%%"}),
        (TypeError, "resource.text", c.embedded_resource, ("file:///a",), {"text": 5}),
        (ValueError, "resource.mimeType", c.embedded_resource, ("file:///a",), {"text": "t", "mime_type": "text"}),
        (TypeError, "resource._meta", c.embedded_resource, ("file:///a",), {"text": "t", "resource_meta": "m"}),
    ],
)
def test_bad_inputs_name_the_field(
    exc: type[Exception], field: str, fn: Callable[..., object], args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    _raises(exc, field, fn, *args, **kw)


def test_naive_datetime_rejected() -> None:
    _raises(ValueError, "timezone", c.annotations, last_modified=datetime(2025, 1, 1))
