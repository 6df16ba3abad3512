"""The official JSON-Schema-Test-Suite, every test through is_valid (Python objects) and
is_valid_json (bytes). Required tests must all pass; optional ones run too, with the known
failures listed (strict xfail: a fixed one shows up)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import mcp_native

DRAFTS = {
    "draft2020-12": "2020-12",
    "draft2019-09": "2019-09",
    "draft7": "draft-07",
    "draft6": "draft-06",
    "draft4": "draft-04",
}

# Known failures of optional tests, by test id -> reason.
CONTENT = "contentMediaType/contentEncoding are annotations only (draft-07 lets them assert)"
XFAIL: dict[str, str] = {
    "draft7/optional/content/0/1": CONTENT,
    "draft7/optional/content/1/1": CONTENT,
    "draft7/optional/content/2/1": CONTENT,
    "draft7/optional/content/2/2": CONTENT,
}


@cache
def registry(suite: Path) -> dict[str, Any]:
    remotes = suite / "remotes"
    return {
        "http://localhost:1234/" + p.relative_to(remotes).as_posix(): json.loads(p.read_text())
        for p in sorted(remotes.rglob("*.json"))
    }


def collect(suite: Path, optional: bool) -> list[Any]:
    params = []
    for draft in DRAFTS:
        base = suite / "tests" / draft
        files = sorted((base / "optional").rglob("*.json")) if optional else sorted(base.glob("*.json"))
        for path in files:
            rel = path.relative_to(base).with_suffix("").as_posix()
            for gi, group in enumerate(json.loads(path.read_text())):
                for ti, _ in enumerate(group["tests"]):
                    key = f"{draft}/{rel}/{gi}/{ti}"
                    marks = [pytest.mark.xfail(reason=XFAIL[key], strict=True)] if key in XFAIL else []
                    params.append(pytest.param(draft, str(path), gi, ti, id=key, marks=marks))
    return params


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The suite's tests, from the reference data that --shared names."""
    suite = Path(metafunc.config.getoption("shared")) / "json-schema-test-suite"
    if not suite.is_dir():
        raise pytest.UsageError(f"JSON-Schema-Test-Suite not found at {suite}; pass --shared or set MCP_NATIVE_SHARED")
    optional = metafunc.function.__name__ == "test_optional"
    metafunc.parametrize(("draft", "path", "gi", "ti"), collect(suite, optional))


@cache
def load(path: str) -> list[Any]:
    groups: list[Any] = json.loads(Path(path).read_text())
    return groups


@cache
def validator(draft: str, path: str, gi: int) -> mcp_native.Validator:
    formats = "/optional/format/" in path
    suite = next(p.parent for p in Path(path).parents if p.name == "tests")  # suite/tests/<draft>/...
    return mcp_native.Validator(
        load(path)[gi]["schema"], dialect=DRAFTS[draft], formats=formats, registry=registry(suite)
    )


def check(draft: str, path: str, gi: int, ti: int, written_valid: Callable[[mcp_native.Validator, Any], bool]) -> None:
    test = load(path)[gi]["tests"][ti]
    v = validator(draft, path, gi)
    assert v.is_valid(test["data"]) is test["valid"], "is_valid"
    assert v.is_valid_json(json.dumps(test["data"]).encode()) is test["valid"], "is_valid_json"
    assert (not list(v.iter_errors(test["data"]))) is test["valid"], "iter_errors"
    assert written_valid(v, test["data"]) is test["valid"], "validated while written (Tool.encode_response)"


def test_required(
    draft: str, path: str, gi: int, ti: int, written_valid: Callable[[mcp_native.Validator, Any], bool]
) -> None:
    check(draft, path, gi, ti, written_valid)


def test_optional(
    draft: str, path: str, gi: int, ti: int, written_valid: Callable[[mcp_native.Validator, Any], bool]
) -> None:
    check(draft, path, gi, ti, written_valid)
