"""mcp_native.loads: strings of every width, the object-key cache and big containers, against json.loads."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_native import loads


def check(doc: str) -> None:
    """loads agrees with json.loads on doc, as text and as UTF-8 bytes, str for str (== on str
    compares the storage kind first, so a str built wider than its widest character differs)."""
    expected = json.loads(doc)
    for data in (doc, doc.encode()):
        got = loads(data)
        assert got == expected, doc[:200]
        assert repr(got) == repr(expected)


# Characters at the edges of CPython's 1-, 2- and 4-byte storage and of UTF-8's sequence lengths.
EDGES = [
    "\x00",
    "\x1f",
    " ",
    "~",
    "\x7f",
    "\x80",
    "\xa0",
    "é",
    "\xff",
    "\u0100",
    "\u07ff",
    "\u0800",
    "日",
    "\ufeff",
    "\uffff",
    "\U00010000",
    "😀",
    "\U0010ffff",
]


@pytest.mark.parametrize("ch", EDGES)
@pytest.mark.parametrize("ensure_ascii", [False, True])  # raw UTF-8, or \u escapes for simdjson to decode
def test_string_widths(ch: str, ensure_ascii: bool) -> None:
    for text in (ch, "a" + ch, ch * 3, "x" * 40 + ch + "y" * 40, ch + "é" * 5 + "日", "\xff" * 20 + ch):
        doc = json.dumps({text: [text, {"k": text}]}, ensure_ascii=ensure_ascii)
        check(doc)
        value = loads(doc)[text][0]
        assert len(value) == len(text) and max(map(ord, value)) == max(map(ord, text))


def test_single_characters() -> None:
    # One-character strings come from CPython's shared singletons; every ASCII one, escaped or not.
    for c in map(chr, range(128)):
        check(json.dumps([c, {c: c}]))
        check(json.dumps([c, {c: c}], ensure_ascii=False))
    check('["\\u0041", "\\/", "", {"": ""}]')


@settings(max_examples=800, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=["Cs"]), max_size=60), max_size=8), st.booleans())
def test_strings_like_stdlib(texts: list[str], ensure_ascii: bool) -> None:
    check(json.dumps([texts, dict.fromkeys(texts, 1)], ensure_ascii=ensure_ascii))


# --- the object-key cache: short ASCII keys are kept between calls ------------------------------


def test_keys_that_share_a_cache_slot() -> None:
    # A slot is chosen from the length and the first and last 8 bytes of a key: these keys differ
    # only in the middle, so they compete for one slot, in one document and across documents.
    keys = ["prefix__" + "x" * i + m + "x" * (20 - i) + "__suffix" for i in range(21) for m in "ab"]
    doc = json.dumps({k: i for i, k in enumerate(keys)})
    for _ in range(3):
        check(doc)
    for i, k in enumerate(keys):
        check(json.dumps({k: i}))
        assert list(loads(json.dumps({k: i}))) == [k]


@pytest.mark.parametrize("n", range(1, 17))
def test_short_keys_differing_in_any_byte(n: int) -> None:
    # Keys of each length below 17 bytes, differing in one position: each must come back as itself
    # whichever was cached before it.
    base = "abcdefghijklmnop"[:n]
    keys = [base] + [base[:i] + "Z" + base[i + 1 :] for i in range(n)]
    for _ in range(2):
        for k in keys:
            assert list(loads(b'{"%s":0}' % k.encode())) == [k]
    check(json.dumps(dict.fromkeys(keys, 0)))


def test_keys_not_cached() -> None:
    # Non-ASCII keys and keys beyond 64 bytes are built each time; the boundary lengths too.
    for k in ["é", "clé", "日本", "😀", "k" * 63, "k" * 64, "k" * 65, "k" * 200, "é" * 40, ""]:
        for _ in range(2):
            check(json.dumps({k: k, "v": {k: [k]}}))


def test_cached_keys_are_shared() -> None:
    # The cache is in use (so the tests above exercise it): a key repeated across documents is the
    # same str object, with its hash already computed.
    a, b = loads(b'{"name":1}'), loads(b'[{"name":2}]')
    (ka,), (kb,) = list(a), list(b[0])
    assert ka == kb == "name" and ka is kb


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.dictionaries(st.text("ab\x00é~", max_size=20), st.integers(0, 9), max_size=8), min_size=1, max_size=6)
)
def test_colliding_keys_like_stdlib(docs: list[dict[str, int]]) -> None:
    # Few distinct characters: many keys of equal length and near-equal bytes, one document after
    # another through the same cache.
    for d in docs:
        check(json.dumps(d, ensure_ascii=False))


# --- containers --------------------------------------------------------------------------------


def test_nested_containers() -> None:
    check('{"a":[],"b":{},"c":[[],[{}],{"d":[1,[2,[3]]]}],"e":[{"f":{}}],"g":[1.5,-2,18446744073709551615,true,null]}')
    check("[" + ",".join(f'{{"k{i}":[{i},"{i}"]}}' for i in range(3000)) + "]")


def test_list_longer_than_the_tape_count() -> None:
    # simdjson stores an item count of at most 2**24 - 1 with each container; longer lists are
    # counted item by item (numbers take two tape words, containers are skipped whole).
    n = 2**24
    got = loads(b"[" + b"0," * n + b'"a",true,[1,[2]],{"k":[3]},-1.5]')
    assert len(got) == n + 5
    assert got[0] == got[n - 1] == 0 and got[n:] == ["a", True, [1, [2]], {"k": [3]}, -1.5]
