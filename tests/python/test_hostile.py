"""Hostile inputs at every public entry point: each gets a clear exception a user can catch (or a
correct answer), never a crash, a hang, a RuntimeError from a failed conversion or a lost line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_native import JSONDecodeError, SchemaError, Tool, ValidationError, Validator, dumps, jsonrpc, loads, sse

DEEP = 100_000


def nested_list(depth: int) -> Any:
    x: Any = []
    for _ in range(depth):
        x = [x]
    return x


def nested_dict(depth: int) -> Any:
    x: Any = {}
    for _ in range(depth):
        x = {"a": x}
    return x


def test_deep_nesting_everywhere() -> None:
    text = "[" * DEEP + "]" * DEEP
    with pytest.raises(JSONDecodeError, match="nesting"):
        loads(text)
    for obj in (nested_list(DEEP), nested_dict(DEEP)):
        with pytest.raises(ValueError, match="Nesting deeper than 1024"):
            dumps(obj)
        with pytest.raises(SchemaError, match="max_schema_depth"):
            Validator({"const": obj})
    with pytest.raises(ValidationError, match="max_instance_depth") as info:
        Validator({}).is_valid_json(text)
    assert info.value.keyword == "limits"
    dec = jsonrpc.Decoder()
    line = b'{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":' + text.encode() + b"}}\n"
    bad, ok = dec.feed(line + b'{"jsonrpc":"2.0","id":8,"method":"m"}\n')
    assert isinstance(bad, jsonrpc.Invalid) and bad.code == jsonrpc.PARSE_ERROR
    assert ok == jsonrpc.Request(8, "m")
    assert sse.Decoder().feed(b"data: " + text.encode() + b"\n\n")[0].data == text


def test_max_instance_depth_applies_where_validation_descends() -> None:
    # A fuzz finding: is_valid_json refused a document deeper than max_instance_depth that
    # is_valid accepted as an object, because the parse enforced the limit on the whole text.
    # The limit applies where validation descends, the same for objects and for JSON text.
    shallow = Validator({"uniqueKtems": True}, limits={"max_instance_depth": 1})
    assert shallow.is_valid([{"fed": ["bar"]}]) and shallow.is_valid_json('[{"fed": ["bar"]}]')
    nested: Any = "x"
    for _ in range(5):
        nested = [nested]
    recursive = {"$defs": {"n": {"type": ["array", "string"], "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}
    for depth, fits in ((4, False), (5, True)):
        v = Validator(recursive, limits={"max_instance_depth": depth})
        for instance, check in ((nested, v.is_valid), (dumps(nested), v.is_valid_json)):
            if fits:
                assert check(instance)
            else:
                with pytest.raises(ValidationError, match="max_instance_depth"):
                    check(instance)


def test_limits_apply_to_the_walk_each_call_makes() -> None:
    # A fuzz finding: is_valid stops at the first failure; iter_errors and validate walk on to
    # collect every error, and may meet a limit is_valid never reached.
    v = Validator({"items": {"items": {"items": {"type": "number"}}}}, limits={"max_instance_depth": 2})
    instance = [["a"], [[[1]]]]
    assert not v.is_valid(instance)
    with pytest.raises(ValidationError, match="max_instance_depth") as e:
        list(v.iter_errors(instance))
    assert e.value.keyword == "limits"


def test_depth_limits_are_capped_below_the_stack() -> None:
    # At their maxima the limits still stop a 100,000-deep document (beyond them, the recursion
    # would overflow the C++ stack first: it did, with max_schema_depth=10**6).
    deep_schema: Any = {"type": "integer"}
    for _ in range(DEEP):
        deep_schema = {"allOf": [deep_schema]}
    with pytest.raises(SchemaError, match="max_schema_depth=1024"):
        Validator(deep_schema, limits={"max_schema_depth": 1024})
    v = Validator({"uniqueItems": True}, limits={"max_instance_depth": 2048})
    with pytest.raises(ValidationError, match="max_instance_depth=2048"):
        v.is_valid([nested_list(DEEP), nested_list(DEEP)])
    with pytest.raises(ValidationError, match="max_instance_depth=2048"):
        v.is_valid_json("[" * DEEP + "]" * DEEP)
    with pytest.raises(ValidationError, match="max_instance_depth=2048"):
        Validator({"items": {"$ref": "#"}}, limits={"max_instance_depth": 2048}).is_valid(nested_list(DEEP))
    for name, too_big in (
        ("max_schema_depth", 1025),
        ("max_instance_depth", 2049),
        ("max_subschemas", 2**32),
        ("max_steps", 2**63),
    ):
        with pytest.raises(ValueError, match=f"limit {name} must be at most"):
            Validator({}, limits={name: too_big})


def test_long_line_to_a_decoder_stays_bounded() -> None:
    # 100 MB without a newline against a 16 MiB limit: never buffered whole, one Invalid, and
    # the next line decodes.
    dec = jsonrpc.Decoder(max_message_bytes=16 << 20)
    chunk = b"x" * (1 << 20)
    out: list[Any] = []
    for _ in range(100):
        out += dec.feed(chunk)
        assert dec.pending_bytes <= 16 << 20
    out += dec.feed(b'\n{"jsonrpc":"2.0","method":"after"}\n')
    assert len(out) == 2 and isinstance(out[0], jsonrpc.Invalid)
    assert out[1] == jsonrpc.Notification("after")


def test_numbers_with_10000_digits() -> None:
    big = "1" * 10_000
    # CPython bounds int <-> str conversions (4300 digits): loads and dumps raise what json does
    # (3.10 words it "limit (4300)", 3.11 "limit (4300 digits)").
    for text in (big, "-" + big, "[" + big + "]"):
        with pytest.raises(ValueError, match=r"limit \(4300"):
            json.loads(text)
        with pytest.raises(ValueError, match=r"limit \(4300"):
            loads(text)
    with pytest.raises(ValueError, match=r"limit \(4300"):
        dumps(10**10_000)
    for text in ("1." + big, big + ".5", "0." + big + "e-5", big + "e5", "1e" + big):
        assert loads(text) == json.loads(text)
    assert Validator({"maximum": 2}).is_valid_json("1." + big)
    for text in (big + ".5", "1e400"):  # valid JSON beyond the double range: a float inf to Python
        with pytest.raises(ValueError, match="float inf is not a JSON number"):
            Validator({"type": "integer"}).is_valid_json(text)
    with pytest.raises(ValueError, match=r"limit \(4300"):
        Validator({"type": "integer"}).is_valid_json(big)
    with pytest.raises(SchemaError, match="more digits than Python converts to text at '/maximum'"):
        Validator({"maximum": 10**10_000})
    # The decoder never raises: a line Python cannot read is a parse error, whatever holds it.
    dec = jsonrpc.Decoder()
    for line in (
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":' + big.encode() + b"}}\n",
        b'{"jsonrpc":"2.0","id":' + big.encode() + b',"method":"m"}\n',
    ):
        (msg,) = dec.feed(line)
        assert isinstance(msg, jsonrpc.Invalid) and msg.code == jsonrpc.PARSE_ERROR
    assert isinstance(msg, jsonrpc.Invalid)  # for the type checker: the loop's last item
    assert msg.id is None and big.encode() in msg.response  # echoed as written


def test_non_json_floats_in_instances() -> None:
    # json.loads reads [{"min":15}, -18e446744073709551600] (a fuzz input) as a schema and -inf.
    # Validation reads only the values its keywords check: a value JSON cannot hold raises
    # ValueError when a keyword meets it, and is not looked at otherwise (as python-jsonschema).
    for instance in (float("-inf"), float("nan"), [float("inf")]):
        with pytest.raises(ValueError):
            dumps(instance)
        assert Validator({"min": 15}).is_valid(instance)  # an unknown keyword: nothing checked
    assert Validator({"type": "array"}).is_valid([float("inf")])  # the items are not checked
    for instance in (float("-inf"), float("nan")):
        for schema in ({"type": "array"}, {"minimum": 15}):
            with pytest.raises(ValueError, match="not a JSON number"):
                Validator(schema).is_valid(instance)
        with pytest.raises(ValueError, match="not a JSON number"):
            Validator({"items": {"type": "number"}}).is_valid([instance])


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"properties": {"\ud800": {}}}, "/properties"),
        ({"\udfff": 1}, ""),
        ({"const": "\ud800"}, "/const"),
        ({"pattern": "a\ud800"}, "/pattern"),
        ({"enum": [1, ["\ud800"]]}, "/enum/1/0"),
        ('{"properties": {"\\ud800": {}}}', "/properties"),
    ],
)
def test_lone_surrogates_in_schemas(schema: Any, where: str) -> None:
    # A str without UTF-8 text used to escape as RuntimeError from a failed pybind11 cast.
    with pytest.raises(SchemaError, match="not valid Unicode") as info:
        Validator(schema)
    assert f"at '{where}'" in str(info.value)
    if isinstance(schema, dict):
        with pytest.raises(SchemaError, match="not valid Unicode"):
            Tool("t", input_schema={"type": "object", "properties": {"a": schema}})


def test_lone_surrogates_in_arguments() -> None:
    with pytest.raises(SchemaError, match="registry URI"):
        Validator({}, registry={"\ud800": {}})
    with pytest.raises(SchemaError, match="unsupported dialect"):
        Validator({}, dialect="\ud800")
    with pytest.raises(ValueError, match="protocol_version '\\\\ud800' is not supported"):
        jsonrpc.Decoder(protocol_version="\ud800")
    with pytest.raises(ValueError, match="below 2\\*\\*63"):
        jsonrpc.Decoder(max_message_bytes=2**70)
    for kwargs in ({"title": "\ud800"}, {"description": "\udc00"}, {"meta": {"k": "\ud800"}}):
        with pytest.raises(ValueError, match="surrogates not allowed"):
            Tool("t", **kwargs)
    with pytest.raises(TypeError, match="_meta"):
        Tool("t", meta={"k": {1, 2}})
    with pytest.raises(ValueError, match=r"name: .*surrogates"), pytest.warns(UserWarning):
        Tool("\ud800")
    with pytest.raises(ValueError, match="surrogates"):
        jsonrpc.encode_request(1, "\ud800")
    with pytest.raises(ValueError, match="surrogates"):
        sse.encode_event(b"x", event="\ud800")
    with pytest.raises(ValueError, match="surrogates"):
        dumps({"\ud800": 1})
    with pytest.raises(JSONDecodeError):
        loads('"\ud800"')
    assert loads('"\\ud800"') == "\ud800"  # escaped: valid JSON, as json.loads reads it


def test_invalid_utf8_everywhere() -> None:
    for bad in (b'"\xff"', b'{"\xc3\x28": 1}', b'["\xed\xa0\x80"]', b'"\xf4\x90\x80\x80"'):
        with pytest.raises(JSONDecodeError):
            loads(bad)
        with pytest.raises(JSONDecodeError):
            Validator({}).is_valid_json(bad)
        (msg,) = jsonrpc.Decoder().feed(b'{"jsonrpc":"2.0","method":"m","params":{"a":' + bad + b"}}\n")
        assert isinstance(msg, jsonrpc.Invalid) and msg.code == jsonrpc.PARSE_ERROR
        with pytest.raises(JSONDecodeError):
            Tool("t", protocol_version="2025-11-25").check_result(b'{"jsonrpc":"2.0","id":1,"result":' + bad + b"}")
    with pytest.raises(SchemaError, match="not valid JSON"):
        Validator(b'{"const": "\xff"}')
    assert sse.Decoder().feed(b"data: a\xffb\n\n")[0].data == "a\ufffdb"
    with pytest.raises(ValueError, match="data: 'utf-8' codec can't decode"):
        sse.encode_event(b"\xff")


@pytest.mark.parametrize("pattern", ["^(a+)+$", "^(a|a)*$", "^(a*)*b$", "^(\\w+\\s?)*$", "(x+x+)+y"])
def test_redos_patterns(pattern: str) -> None:
    subject = "a" * 20_000 + "!"
    checks: list[tuple[Any, Any]] = [
        (Validator({"pattern": pattern}).is_valid, subject),
        (Validator({"patternProperties": {pattern: False}}).is_valid, {subject: 1}),
        (Validator({"propertyNames": {"pattern": pattern}}).is_valid_json, json.dumps({subject: 1})),
    ]
    for call, arg in checks:
        try:
            assert call(arg) in (True, False)
        except ValidationError as e:  # PCRE2's match limits stopped it
            assert e.keyword == "limits" and "regex engine's match limits" in str(e)
    assert Validator({"format": "regex"}, formats=True).is_valid(pattern)  # compiled, never run


def test_schema_bombs() -> None:
    # The default max_steps stops an exponential $defs bomb (it ran 1.3 s at 50,000,000 steps).
    defs: dict[str, Any] = {
        f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]} for i in range(40)
    }
    defs["l40"] = {"type": "string"}
    v = Validator({"$defs": defs, "$ref": "#/$defs/l0"})
    for call in (v.is_valid, v.validate, lambda x: list(v.iter_errors(x))):
        with pytest.raises(ValidationError, match="max_steps=1000000") as info:
            call(1)
        assert info.value.keyword == "limits"
    with pytest.raises(ValidationError, match="max_steps=1000000"):
        v.is_valid_json(b"1")
    assert v.is_valid("x")
    deep: Any = True
    for _ in range(10_000):
        deep = {"allOf": [deep]}
    with pytest.raises(SchemaError, match="max_schema_depth"):
        Validator(deep)
    for cycle in (
        {"$ref": "#"},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"$id": "http://x/s", "$ref": "http://x/s"},
    ):
        with pytest.raises(SchemaError, match="cycle"):
            Validator(cycle)
    huge = Validator({"enum": [*range(200_000), "x"]})
    assert huge.is_valid(199_999) and huge.is_valid("x") and not huge.is_valid(-1)
    assert huge.is_valid_json(b"123456.0") and not huge.is_valid_json(b"0.5")


@pytest.mark.parametrize(
    "ref",
    [
        "http://127.0.0.1/s.json",
        "https://169.254.169.254/latest/meta-data",
        "file:///etc/passwd",
        "http://[::1]/x",
        "http://10.0.0.1/s#/a",
        "https://example.com/schema.json",
        "//localhost/x",
        "../../etc/passwd",
    ],
)
def test_remote_refs_are_refused(ref: str) -> None:
    # Nothing is fetched: only the schema itself, the registry and the metaschemas resolve.
    with pytest.raises(
        SchemaError, match=r"unresolvable reference '.*' \(not in the schema, the registry or the metaschemas\)"
    ):
        Validator({"$ref": ref})
    with pytest.raises(SchemaError, match="unresolvable reference"):
        Validator({"$id": "file:///etc/", "properties": {"a": {"$ref": ref}}})
