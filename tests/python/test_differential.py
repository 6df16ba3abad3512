"""Differential test: mcp_native.Validator against valijson on draft-07 schemas.

The schemas are the official suite's draft-07 groups (tests/draft7/*.json and optional/*.json, not
optional/format/) that need no remote document, messages of the official MCP schema (2025-06-18,
draft-07) and the draft-07 benchmark schemas. The instances are each group's own test data (or
hand-written MCP messages) plus deterministic mutations of it (drop/add properties, change types,
tweak numbers and strings, reorder/duplicate array items, nest) and the schema's own constants.
Both sides see the same JSON bytes: valijson through `valijson_oracle` (built by scripts/test into
build/cpp-tests), ours through `is_valid` on the Python objects and `is_valid_json` on the bytes.
Every verdict must agree, except the cases listed in KNOWN, where valijson is known to be wrong;
that list is checked strictly, so it stays true.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import mcp_native

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(os.environ.get("MCP_NATIVE_VALIJSON_ORACLE", ROOT / "build" / "cpp-tests" / "valijson_oracle"))
BENCH_SCHEMAS = {
    # schema file: instance files (draft-07 only; fhir is draft-06 and has its own schema tests)
    "fast_schema.json": ["fast_valid.json", "fast_invalid.json"],
    "citm_catalog_schema.json": ["citm_catalog.json"],
    "geojson.json": ["canada.json"],
    "recursive_schema.json": ["recursive_instance.json"],
}
# Messages of the official MCP schema (2025-06-18, draft-07): definition -> seed instances.
MCP_VERSION = "2025-06-18"
MCP_SEEDS: dict[str, list[Any]] = {
    "CallToolResult": [
        {"content": [{"type": "text", "text": "42 files"}], "structuredContent": {"count": 42}, "isError": False},
        {
            "content": [
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png", "annotations": {"priority": 0.5}},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"}},
                {"type": "resource_link", "uri": "file:///b.md", "name": "b.md"},
            ]
        },
    ],
    "ListToolsResult": [
        {
            "tools": [
                {
                    "name": "search",
                    "description": "Search files",
                    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                    "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}}},
                    "annotations": {"readOnlyHint": True, "title": "Search"},
                }
            ],
            "nextCursor": "c2",
        },
    ],
    "InitializeResult": [
        {
            "protocolVersion": MCP_VERSION,
            "capabilities": {"tools": {"listChanged": True}, "logging": {}},
            "serverInfo": {"name": "demo", "version": "1.0.0", "title": "Demo"},
            "instructions": "Be brief.",
        },
    ],
    "JSONRPCRequest": [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", "arguments": {"q": "x"}}},
    ],
    "ReadResourceResult": [
        {
            "contents": [
                {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"},
                {"uri": "file:///b.png", "blob": "aGk="},
            ]
        },
    ],
    "CreateMessageRequest": [
        {
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 100,
                "modelPreferences": {"hints": [{"name": "claude"}], "intelligencePriority": 0.8},
            },
        },
    ],
}
# Instances bigger than this get only a few mutations: each one is another full copy on the wire.
BIG_INSTANCE = 64 * 1024
# valijson needs seconds per instance of the recursive benchmark (its oneOf branches re-validate
# whole subtrees), so that schema gets only a couple of mutations.
MUTATION_BUDGET = {"bench-data/recursive_schema.json": 2}


# --- Where valijson is known to be wrong -----------------------------------------------------
# (case id, instance label) -> reason; label None means "valijson rejects the schema, we load it",
# label "*" means "valijson throws while validating" (on each instance it throws on).
# Every listed case must still diverge, and every divergence must be listed. The labels come from
# the seeded generator below: changing the generator means reviewing this list again.

_NO_ID_REFS = (
    "valijson resolves $ref only as a JSON pointer into the same document (or by fetching): "
    "$id-based, location-independent and URN references fail to load"
)
_NO_METASCHEMA = "valijson has no built-in draft-07 metaschema; a $ref to it needs fetching"
_DECIMAL_LIMIT = "valijson rejects a min/max length/items/properties written as a decimal (2.0)"
_INTEGRAL_FLOAT = (
    "valijson's integer type rejects floats with a zero fractional part (1.0 is an integer since draft-06)"
)
_BIGNUM = "nlohmann::json reads integers beyond 64 bits as doubles, which valijson's integer type rejects"
_ROUNDED_LIMIT = (
    "nlohmann::json reads a limit beyond 64 bits as a double: minimum -18446744073709551615 rounds "
    "to -2**64, which then passes"
)
_UINT64_LIMIT = "valijson reads a maximum above INT64_MAX (a uint64 in nlohmann::json) as a wrapped negative"
_INT_MULTIPLE = "valijson's integer multipleOf truncates a fractional instance to int64 first (30.5 counts as 30)"
_FLOAT_MULTIPLE = "valijson's decimal multipleOf compares remainder() with DBL_EPSILON, wrong for big quotients"
_FLOAT_OVERFLOW = "valijson's multipleOf fails when the quotient overflows a double (1e308 / 0.5)"
_CONST_DOUBLE = "valijson compares const/enum numbers as doubles: 2**53 + 1 equals 2**53"
_STD_REGEX = (
    "std::regex (ECMAScript grammar) matches bytes, not code points: no Unicode \\s/\\S/\\W, "
    "no \\c escapes, and a quantifier binds to the last byte of a non-ASCII character"
)
_PROPERTY_ESCAPES = "std::regex has no \\p{..} property escapes: valijson throws on every string it matches"


def _known(reason: str, case_id: str, *labels: str | None) -> dict[tuple[str, str | None], str]:
    return {(case_id, label): reason for label in labels}


_SUITE = "draft7/"
_REGEX = "draft7/optional/ecmascript-regex.json::"
_DRAGONS = "\U0001f432\U0001f432"
KNOWN: dict[tuple[str, str | None], str] = {
    **_known(_NO_METASCHEMA, _SUITE + "definitions.json::validate definition against metaschema", None),
    **_known(_NO_METASCHEMA, _SUITE + "ref.json::remote ref, containing refs itself", None),
    **{
        (_SUITE + "ref.json::" + d, None): _NO_ID_REFS
        for d in [
            "Location-independent identifier",
            "Reference an anchor with a non-relative URI",
            "refs with relative uris and defs",
            "relative refs with absolute uris and defs",
            "$id must be resolved against nearest parent, not just immediate parent",
            "simple URN base URI with $ref via the URN",
            "URN base URI with URN and JSON pointer ref",
            "URN base URI with URN and anchor ref",
            "ref to if",
            "ref to then",
            "ref to else",
            "ref with absolute-path-reference",
            "empty tokens in $ref json-pointer",
        ]
    },
    **{
        (f"{_SUITE}{k}.json::{k} validation with a decimal", None): _DECIMAL_LIMIT
        for k in ["maxItems", "maxLength", "maxProperties", "minItems", "minLength", "minProperties"]
    },
    **_known(_INTEGRAL_FLOAT, _SUITE + "type.json::integer type matches integers", "t1", "t1~:+1", "t1~:neg"),
    **_known(
        _BIGNUM,
        _SUITE + "optional/bignum.json::integer",
        "t0",
        "t1",
        "t0~:-1",
        "t0~:+.5",
        "t0~:+1",
        "t0~:x10",
        "t1~:x10",
        "t1~:+.5",
        "t1~:-1",
        "t1~:+1",
    ),
    **_known(_UINT64_LIMIT, _SUITE + "optional/bignum.json::maximum integer comparison", "t0~:retype:2.5"),
    **_known(_ROUNDED_LIMIT, _SUITE + "optional/bignum.json::minimum integer comparison", "t0~:+.5"),
    **_known(_INT_MULTIPLE, _SUITE + "allOf.json::allOf combined with anyOf, oneOf", "t7~:+.5"),
    **_known(_INT_MULTIPLE, _SUITE + "contains.json::items + contains", "t2~/0:+.5", "t2~/1:+.5"),
    **_known(_INT_MULTIPLE, _SUITE + "if-then-else.json::if and else without then", "t1~:+.5"),
    **_known(
        _INT_MULTIPLE,
        _SUITE + "if-then-else.json::validate against correct branch, then vs else",
        "t0~:retype:2.5",
        "t2~:+.5",
    ),
    **_known(_INT_MULTIPLE, _SUITE + "multipleOf.json::by int", "t0~:+.5", "t0~:retype:2.5"),
    **_known(_INT_MULTIPLE, _SUITE + "oneOf.json::oneOf", "t1~:+.5", "t3~:+.5"),
    **_known(_FLOAT_MULTIPLE, _SUITE + "multipleOf.json::by small number", "t1~:retype:-7"),
    **_known(
        _FLOAT_MULTIPLE,
        _SUITE + "multipleOf.json::small multiple of large integer",
        "t0",
        "t0~:+1",
        "t0~:-1",
        "t0~:x10",
        "t0~:neg",
    ),
    **_known(
        _FLOAT_OVERFLOW,
        _SUITE + "optional/float-overflow.json::all integers are multiples of 0.5, if overflow is handled",
        "t0",
        "t0~:neg",
        "t0~:half",
    ),
    **_known(
        _CONST_DOUBLE, _SUITE + "const.json::float and integers are equal up to 64-bit representation limits", "t0~:+1"
    ),
    **_known(_STD_REGEX, _REGEX + "ECMA 262 regex escapes control codes with \\c and upper letter", "t1"),
    **_known(_STD_REGEX, _REGEX + "ECMA 262 regex escapes control codes with \\c and lower letter", "t1"),
    **_known(_STD_REGEX, _REGEX + "ECMA 262 \\D matches everything but ascii digits", "t1"),
    **_known(_STD_REGEX, _REGEX + "ECMA 262 \\W matches everything but ascii letters", "t1", "t1~:upper"),
    **_known(_STD_REGEX, _REGEX + "ECMA 262 \\s matches whitespace", "t4", "t5", "t7", "t8"),
    **_known(_STD_REGEX, _REGEX + "ECMA 262 \\S matches everything but whitespace", "t10"),
    **_known(
        _STD_REGEX,
        _SUITE + "optional/non-bmp-regex.json::Proper UTF-16 surrogate pair handling: pattern",
        "t0",
        "t2",
        "t2~:twice",
    ),
    **_known(
        _STD_REGEX,
        _SUITE + "optional/non-bmp-regex.json::Proper UTF-16 surrogate pair handling: patternProperties",
        "t4",
        't0~/:retype:""',
        "t0~/:retype:{}",
        "t0~/:retype:2.5",
        "t0~/:+.5",
        "t4~:add:zz",
        *(f"t2~/{_DRAGONS}:{m}" for m in ["+.5", 'retype:[1, "a"]', 'retype:{"a": 1}', "retype:[]"]),
        *(
            f"t4~/{_DRAGONS}:{m}"
            for m in [
                "upper",
                "retype:true",
                "+astral",
                "+x",
                "chop",
                "empty",
                'retype:"abc"',
                "retype:null",
                "twice",
                "+e-acute",
            ]
        ),
    ),
    **{
        (_REGEX + d, "*"): _PROPERTY_ESCAPES
        for d in [
            "patterns always use unicode semantics with pattern",
            "pattern with non-ASCII digits",
            "patterns always use unicode semantics with patternProperties",
            "patternProperties with non-ASCII digits",
        ]
    },
}


@dataclass
class Case:
    """One schema with the instances both sides judge."""

    case_id: str
    schema: Any
    labels: list[str] = field(default_factory=list)
    instances: list[Any] = field(default_factory=list)


# --- Instance generation -----------------------------------------------------------------------

_SAMPLES: list[Any] = [None, True, False, 0, -7, 2.5, "", "abc", [], {}, [1, "a"], {"a": 1}]


def _paths(value: Any, limit: int = 64) -> list[tuple[Any, ...]]:
    """Paths to the nodes of value, breadth first (so the first ones are the shallow ones)."""
    out: list[tuple[Any, ...]] = []
    queue: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while queue and len(out) < limit:
        path, node = queue.pop(0)
        out.append(path)
        if isinstance(node, dict):
            queue.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            queue.extend(((*path, i), v) for i, v in enumerate(node))
    return out


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of value with the node at path replaced; only the containers on the path are copied."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


def _schema_pool(schema: Any) -> tuple[list[str], list[Any]]:
    """Property names and constants (enum and const values) found anywhere in a schema."""
    names: list[str] = []
    consts: list[Any] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("properties", "patternProperties", "dependencies"):
                if isinstance(node.get(key), dict):
                    names.extend(k for k in node[key] if key != "patternProperties")
            if isinstance(node.get("required"), list):
                names.extend(n for n in node["required"] if isinstance(n, str))
            if "const" in node:
                consts.append(node["const"])
            if isinstance(node.get("enum"), list):
                consts.extend(node["enum"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return sorted(set(names)), consts


def _node_mutations(node: Any, names: list[str], rng: random.Random) -> list[tuple[str, Any]]:
    """Replacements for one node: (short label, new value)."""
    out: list[tuple[str, Any]] = [(f"retype:{json.dumps(s)}", s) for s in rng.sample(_SAMPLES, 3)]
    if isinstance(node, bool) or node is None:
        out.append(("flip", not node))
    elif isinstance(node, int):
        out += [("+1", node + 1), ("-1", node - 1), ("neg", -node), ("x10", node * 10), ("+.5", node + 0.5)]
    elif isinstance(node, float):
        out += [("+1", node + 1), ("neg", -node), ("half", node / 2), ("+.5", node + 0.5)]
    elif isinstance(node, str):
        out += [
            ("empty", ""),
            ("+x", node + "x"),
            ("chop", node[:-1]),
            ("twice", node * 2),
            ("+e-acute", node + "\u00e9"),
            ("+astral", node + "\U0001f600"),
            ("upper", node.upper()),
        ]
    elif isinstance(node, list):
        if node:
            out += [
                ("drop-first", node[1:]),
                ("drop-last", node[:-1]),
                ("dup-first", node + node[:1]),
                ("reverse", node[::-1]),
            ]
        out += [("append-null", [*node, None]), ("append-1", [*node, 1])]
    elif isinstance(node, dict):
        keys = list(node)
        for k in rng.sample(keys, min(3, len(keys))):
            out.append((f"drop:{k}", {kk: v for kk, v in node.items() if kk != k}))
        out.append(("add:zz", {**node, "zz": None}))
        for name in rng.sample(names, min(3, len(names))):
            value = rng.choice(_SAMPLES)
            out.append((f"add:{name}={json.dumps(value)}", {**node, name: value}))
    return out


def mutations(seed: Any, names: list[str], consts: list[Any], rng: random.Random, budget: int) -> list[tuple[str, Any]]:
    """Deterministic variations of seed: (label, instance)."""
    out: list[tuple[str, Any]] = [("wrap-array", [seed]), ("wrap-object", {"a": seed})]
    paths = _paths(seed)
    chosen = [(), *rng.sample(paths[1:], min(3, len(paths) - 1))]
    for path in chosen:
        where = "".join(f"/{step}" for step in path)  # a JSON pointer: "" is the root
        for label, new in _node_mutations(_get(seed, path), names, rng):
            out.append((f"{where}:{label}", _replace(seed, path, new)))
        for c in rng.sample(consts, min(2, len(consts))):
            out.append((f"{where}:const:{json.dumps(c)[:20]}", _replace(seed, path, c)))
    rng.shuffle(out)
    return out[:budget]


def _canonical(value: Any) -> str:
    # json.dumps keeps 1 and 1.0 and True apart, which the validators must also do.
    return json.dumps(value, sort_keys=True)


def _add(case: Case, label: str, instance: Any, seen: set[str]) -> None:
    key = _canonical(instance)
    if key not in seen:
        seen.add(key)
        case.labels.append(label)
        case.instances.append(instance)


def _uses_remote_refs(schema: Any) -> bool:
    """True when the schema refers to the suite's remote documents (served as localhost:1234)."""
    return "localhost:1234" in json.dumps(schema)


def build_cases(shared: Path) -> list[Case]:
    suite = shared / "json-schema-test-suite" / "tests" / "draft7"
    cases: list[Case] = []
    files = sorted(suite.glob("*.json")) + sorted((suite / "optional").glob("*.json"))
    for path in files:
        rel = path.relative_to(suite.parent).as_posix()
        for group in json.loads(path.read_text(encoding="utf-8")):
            if _uses_remote_refs(group["schema"]):
                continue
            cases.append(
                _case(
                    f"{rel}::{group['description']}",
                    group["schema"],
                    [(f"t{i}", t["data"]) for i, t in enumerate(group["tests"])],
                )
            )
    mcp = json.loads((shared / "mcp-schema" / MCP_VERSION / "schema.json").read_text(encoding="utf-8"))
    for definition, seeds in MCP_SEEDS.items():
        # allOf rather than a root $ref: in draft-07 a $ref's siblings are ignored.
        schema = {
            "$schema": mcp["$schema"],
            "allOf": [{"$ref": f"#/definitions/{definition}"}],
            "definitions": mcp["definitions"],
        }
        cases.append(
            _case(f"mcp-schema/{MCP_VERSION}::{definition}", schema, [(f"s{i}", seed) for i, seed in enumerate(seeds)])
        )
    bench = shared / "bench-data"
    for schema_file, instance_files in BENCH_SCHEMAS.items():
        schema = json.loads((bench / schema_file).read_text(encoding="utf-8"))
        seeds = [(f, json.loads((bench / f).read_text(encoding="utf-8"))) for f in instance_files]
        cases.append(_case(f"bench-data/{schema_file}", schema, seeds))
    return cases


def _case(case_id: str, schema: Any, seeds: list[tuple[str, Any]]) -> Case:
    # Seed the generator from the case id, so that labels are stable from run to run.
    rng = random.Random(hashlib.sha256(case_id.encode()).hexdigest())
    names, consts = _schema_pool(schema)
    case = Case(case_id, schema)
    seen: set[str] = set()
    for label, seed in seeds:
        _add(case, label, seed, seen)
    for label, seed in seeds:
        budget = MUTATION_BUDGET.get(case_id, 6 if len(_canonical(seed)) > BIG_INSTANCE else 30)
        for mlabel, instance in mutations(seed, names, consts, rng, budget):
            _add(case, f"{label}~{mlabel}", instance, seen)
    for i, c in enumerate(consts[:10]):
        _add(case, f"const{i}", c, seen)
    return case


# --- The two sides -----------------------------------------------------------------------------


def _encode(instance: Any) -> bytes:
    return json.dumps(instance, ensure_ascii=False, allow_nan=False).encode("utf-8")


_ANNOTATIONS = {"enum", "const", "default", "examples"}


def without_format(schema: Any) -> Any:
    """The schema less its `format` keywords, for valijson.

    In draft-07 `format` is an annotation unless assertion is asked for, so dropping it must not
    change our verdict; valijson cannot be told so (it asserts date, time and date-time, and throws
    on arrays and objects for the other formats).
    """
    if isinstance(schema, list):
        return [without_format(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        k: v if k in _ANNOTATIONS else without_format(v)
        for k, v in schema.items()
        if not (k == "format" and isinstance(v, str))
    }


def run_oracle(cases: list[Case], tmp_path: Path) -> list[dict[str, Any]]:
    if not ORACLE.is_file():
        pytest.fail(
            f"valijson oracle not found at {ORACLE}: run scripts/test (it builds build/cpp-tests), "
            "or set MCP_NATIVE_VALIJSON_ORACLE"
        )
    payload = (
        b"["
        + b",".join(
            b'{"schema":'
            + _encode(without_format(c.schema))
            + b',"instances":['
            + b",".join(map(_encode, c.instances))
            + b"]}"
            for c in cases
        )
        + b"]"
    )
    cases_file = tmp_path / "cases.json"
    cases_file.write_bytes(payload)
    proc = subprocess.run([str(ORACLE), str(cases_file)], capture_output=True, timeout=600)
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, f"valijson_oracle failed ({proc.returncode}): {stderr}"
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == len(cases), f"valijson_oracle answered {len(lines)} of {len(cases)} cases"
    return [json.loads(line) for line in lines]


def our_verdicts(case: Case) -> list[bool] | str:
    """Our verdict per instance, or the schema error's message; is_valid and is_valid_json must agree."""
    try:
        validator = mcp_native.Validator(case.schema, dialect="draft-07")
    except mcp_native.SchemaError as e:
        return f"schema error: {e}"
    out = []
    for instance in case.instances:
        on_objects = validator.is_valid(instance)
        on_bytes = validator.is_valid_json(_encode(instance))
        assert on_objects == on_bytes, (
            f"{case.case_id}: is_valid={on_objects} but is_valid_json={on_bytes} on {instance!r:.200}"
        )
        out.append(on_objects)
    return out


# --- The test ----------------------------------------------------------------------------------


def find_divergences(
    cases: list[Case], theirs: list[dict[str, Any]], ours: list[list[bool] | str]
) -> tuple[list[str], list[str], set[tuple[str, str | None]]]:
    """(unlisted divergences, listed cases that agree, the KNOWN keys that were met)."""
    unlisted: list[str] = []
    stale: list[str] = []
    met: set[tuple[str, str | None]] = set()

    def judge(key: tuple[str, str | None], diverges: bool, what: str) -> None:
        if key in KNOWN:
            met.add(key)
            if not diverges:
                stale.append(f"{what} (listed: {KNOWN[key]})")
        elif diverges:
            unlisted.append(what)

    for case, their, our in zip(cases, theirs, ours, strict=False):
        their_error = their.get("schema_error")
        our_error = our if isinstance(our, str) else None
        judge(
            (case.case_id, None),
            (their_error is None) != (our_error is None),
            f"{case.case_id}: valijson {their_error or 'loads the schema'!r}, ours {our_error or 'loads it'!r}",
        )
        if their_error is not None or our_error is not None:
            continue
        assert isinstance(our, list)
        threw = (case.case_id, "*")
        for label, instance, v, o in zip(case.labels, case.instances, their["valid"], our, strict=False):
            if isinstance(v, dict) and threw in KNOWN:
                met.add(threw)
                continue
            judge(
                (case.case_id, label),
                v != o,
                f"{case.case_id} [{label}] {_canonical(instance)[:120]}: valijson {v}, ours {o}",
            )
        if threw in KNOWN and threw not in met:
            stale.append(f"{case.case_id}: valijson no longer throws (listed: {KNOWN[threw]})")
    return unlisted, stale, met


def test_valijson_agrees(shared: Path, tmp_path: Path) -> None:
    cases = build_cases(shared)
    assert sum(len(c.instances) for c in cases) > 5000  # the generator did produce a real workload
    theirs = run_oracle(cases, tmp_path)
    ours = [our_verdicts(c) for c in cases]
    unlisted, stale, met = find_divergences(cases, theirs, ours)
    assert not unlisted, f"{len(unlisted)} verdicts differ from valijson:\n" + "\n".join(unlisted[:40])
    assert not stale, f"{len(stale)} cases listed in KNOWN no longer diverge:\n" + "\n".join(stale[:40])
    unmet = sorted(map(str, set(KNOWN) - met))
    assert not unmet, "KNOWN cases that no longer exist:\n" + "\n".join(unmet)


def test_oracle_reports_bad_schemas_and_bad_input(tmp_path: Path) -> None:
    cases = [Case("bad", {"minLength": -1}, ["x"], ["x"]), Case("ok", {"type": "string"}, ["a", "b"], ["a", 1])]
    theirs = run_oracle(cases, tmp_path)
    assert "schema_error" in theirs[0]
    assert theirs[1] == {"valid": [True, False]}
    garbage = tmp_path / "garbage.json"
    garbage.write_text("[{")
    proc = subprocess.run([str(ORACLE), str(garbage)], capture_output=True, timeout=60)
    assert proc.returncode == 2 and b"garbage.json" in proc.stderr


def test_known_list_is_checked_both_ways() -> None:
    case_id, label = "draft7/type.json::integer type matches integers", "t1"
    assert (case_id, label) in KNOWN
    case = Case(case_id, {"type": "integer"}, [label, "t0"], [1.0, 1])
    # listed and diverging, unlisted and agreeing: clean
    assert find_divergences([case], [{"valid": [False, True]}], [[True, True]]) == ([], [], {(case_id, label)})
    # listed but agreeing: stale
    unlisted, stale, _ = find_divergences([case], [{"valid": [True, True]}], [[True, True]])
    assert not unlisted and len(stale) == 1 and "[t1]" in stale[0]
    # unlisted and diverging
    unlisted, stale, _ = find_divergences([case], [{"valid": [False, False]}], [[True, True]])
    assert len(unlisted) == 1 and "[t0]" in unlisted[0] and not stale
    # a schema one side rejects
    unlisted, _, _ = find_divergences([case], [{"schema_error": "bad"}], [[True, True]])
    assert len(unlisted) == 1 and "bad" in unlisted[0]
    # "*": the instances valijson throws on, and only those
    throws = Case(next(c for c, lbl in KNOWN if lbl == "*"), {}, ["t0", "t1"], ["x", 1])
    assert find_divergences([throws], [{"valid": [{"error": "regex"}, True]}], [[True, True]])[:2] == ([], [])
    unlisted, stale, _ = find_divergences([throws], [{"valid": [True, False]}], [[True, True]])
    assert len(unlisted) == 1 and "[t1]" in unlisted[0] and len(stale) == 1 and "no longer throws" in stale[0]


def test_mutations_are_deterministic_and_varied() -> None:
    seed = {"a": [1, "x", {"b": 2.5}], "c": None}
    first = mutations(seed, ["a", "q"], [3, "k"], random.Random("s"), 30)
    again = mutations(seed, ["a", "q"], [3, "k"], random.Random("s"), 30)
    assert first == again
    labels = " ".join(label for label, _ in first)
    assert len({_canonical(i) for _, i in first}) > 20
    for kind in ("retype", "drop:", "add:", "wrap-"):
        assert kind in labels
    assert seed == {"a": [1, "x", {"b": 2.5}], "c": None}  # mutations never touch the seed
