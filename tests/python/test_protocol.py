"""mcp_native.protocol: the versions compare by release, and the rules that tell them apart."""

from __future__ import annotations

import pytest

from mcp_native import jsonrpc, protocol
from mcp_native.protocol import ProtocolVersion as V


def test_versions_compare_by_release_not_as_strings() -> None:
    assert list(V) == sorted(V, key=lambda v: v.value)  # the names are ISO dates: the same order
    assert V.V2024_11_05 < V.V2025_03_26 < V.V2025_06_18 < V.V2025_11_25 < V.V2026_07_28
    assert V.V2025_11_25 >= "2025-06-18" and V.V2025_06_18 <= "2025-06-18" and not V.V2025_06_18 > "2025-11-25"
    assert V("2025-11-25") is V.V2025_11_25 and str(V.V2025_11_25) == "2025-11-25"
    assert V.V2025_11_25 == "2025-11-25"  # type: ignore[comparison-overlap]  # a str subclass: equal to its name
    with pytest.raises(ValueError):
        V("2025-11-26")
    with pytest.raises(ValueError):
        _ = V.V2025_11_25 < "latest"


def test_the_rules_per_version() -> None:
    rows = {
        v.value: (
            v.error_id_required,
            v.has_structured_content,
            v.has_icons,
            v.argument_errors_are_results,
            v.has_tool_execution,
            v.structured_content_any_json,
        )
        for v in V
    }
    assert rows == {
        "2024-11-05": (True, False, False, False, False, False),
        "2025-03-26": (True, False, False, False, False, False),
        "2025-06-18": (True, True, False, False, False, False),
        "2025-11-25": (False, True, True, True, True, False),
        "2026-07-28": (False, True, True, True, False, True),
    }
    assert [v.value for v in protocol.SCHEMA_VERSIONS] == ["2025-06-18", "2025-11-25", "2026-07-28"]


def test_one_home_for_the_error_codes() -> None:
    for name in (
        "PARSE_ERROR",
        "INVALID_REQUEST",
        "METHOD_NOT_FOUND",
        "INVALID_PARAMS",
        "INTERNAL_ERROR",
        "URL_ELICITATION_REQUIRED",
        "HEADER_MISMATCH",
        "MISSING_REQUIRED_CLIENT_CAPABILITY",
        "UNSUPPORTED_PROTOCOL_VERSION",
    ):
        assert getattr(jsonrpc, name) is getattr(protocol, name)


@pytest.mark.parametrize("version", list(V))
def test_the_decoder_reads_every_version_but_the_one_with_batches(version: V) -> None:
    if version is V.V2025_03_26:
        with pytest.raises(ValueError, match="batches"):
            jsonrpc.Decoder(protocol_version=version.value)
        return
    (item,) = jsonrpc.Decoder(protocol_version=version.value).feed(b"[1]\n")
    assert isinstance(item, jsonrpc.Invalid)
    assert item.code == jsonrpc.INVALID_REQUEST and "batches" in item.error["data"]
    assert (b'"id":null' in item.response) == version.error_id_required
