"""What several test modules share, as fixtures (test modules import neither each other nor
this file): the reference data in ../shared, checkers built from the official MCP schemas, a
content block of every kind, the lines a peer can send that are no valid message, the walk that
validates while it writes, the environments of subprocesses, and HTTP servers on 127.0.0.1."""

from __future__ import annotations

import base64
import contextlib
import importlib.metadata
import json
import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import mcp_native
from mcp_native import _core
from mcp_native import content as c
from mcp_native.protocol import SCHEMA_VERSIONS


def pytest_addoption(parser: pytest.Parser) -> None:
    default = os.environ.get("MCP_NATIVE_SHARED", str(Path(__file__).resolve().parents[2].parent / "shared"))
    parser.addoption("--shared", default=default, help="the reference data (default: ../shared, $MCP_NATIVE_SHARED)")


@pytest.fixture(scope="session")
def shared(pytestconfig: pytest.Config) -> Path:
    path = Path(pytestconfig.getoption("shared"))
    if not path.is_dir():
        pytest.fail(f"reference data not found at {path}; pass --shared or set MCP_NATIVE_SHARED")
    return path


@pytest.fixture(scope="module", params=[v.value for v in SCHEMA_VERSIONS])
def version(request: pytest.FixtureRequest) -> str:
    """Each protocol version with an official schema (a test that parametrizes `version`
    itself overrides this)."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def sdk_versions() -> dict[str, str]:
    """The installed mcp and fastmcp releases (scripts/sdk-pairs runs the adapters' tests on
    every tested pair), and azure-functions where the test extra brought it."""
    versions = {"mcp": importlib.metadata.version("mcp"), "fastmcp": importlib.metadata.version("fastmcp")}
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        versions["azure-functions"] = importlib.metadata.version("azure-functions")
    return versions


@pytest.fixture(scope="session")
def proven_summary(sdk_versions: dict[str, str]) -> str:
    """The adapters' one line (run's, doctor's last) when every group of every SDK is proven."""
    mcp, fastmcp = sdk_versions["mcp"], sdk_versions["fastmcp"]
    line = f"mcp-native adapters: mcp {mcp}: 21 of 21 groups; fastmcp {fastmcp}: 6 of 6 groups"
    if "azure-functions" in sdk_versions:
        line += f"; azure-functions {sdk_versions['azure-functions']}: 1 of 1 groups"
    return line


@pytest.fixture
def adapters_restored() -> Iterator[None]:
    """Whatever a test installs, the SDKs are stock again after it."""
    yield
    from mcp_native import adapters

    adapters.uninstall()


# --- MCP schema conformance ----------------------------------------------------------------------


@cache
def _spec_checkers(shared: Path, version: str, definition: str) -> tuple[Any, mcp_native.Validator]:
    doc = json.loads((shared / "mcp-schema" / version / "schema.json").read_text())
    defs = "definitions" if "definitions" in doc else "$defs"
    assert definition in doc[defs], (version, definition)
    schema = {**doc, "$ref": f"#/{defs}/{definition}"}
    cls = jsonschema.validators.validator_for(doc)
    cls.check_schema(schema)
    return cls(schema), mcp_native.Validator(schema)


@pytest.fixture(scope="session")
def spec_checkers(shared: Path) -> Callable[[str, str], tuple[Any, mcp_native.Validator]]:
    """`(version, definition)` -> validators of that definition of the official MCP schema:
    python-jsonschema (the reference) and mcp_native.Validator, each on a `$ref` into the
    whole published document."""
    return lambda version, definition: _spec_checkers(shared, version, definition)


@pytest.fixture(scope="session")
def assert_conforms(
    spec_checkers: Callable[[str, str], tuple[Any, mcp_native.Validator]],
) -> Callable[[str, str, Any], None]:
    """`(version, definition, instance)`: both checkers accept the instance."""

    def check(version: str, definition: str, instance: Any) -> None:
        reference, ours = spec_checkers(version, definition)
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in reference.iter_errors(instance)]
        assert not errors, f"{definition} {version}: {errors}"
        assert ours.is_valid(instance), f"{definition} {version}: mcp_native.Validator rejects {instance!r}"
        assert ours.is_valid_json(json.dumps(instance).encode())

    return check


_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
_ANN = {"audience": ["user", "assistant"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}


def _all_blocks(version: str) -> list[dict[str, Any]]:
    blocks = [
        c.text('hello "world"\n\u00e9\U0001f600'),
        c.text("", annotations=_ANN, meta={"k": [1, 2]}),
        c.image(_PNG, "image/png"),
        c.image(base64.b64encode(_PNG).decode(), "image/png", annotations={"priority": 1}),
        c.audio(b"RIFF....WAVE", "audio/wav", meta={}),
        c.resource_link("file:///project/src/main.rs", "main.rs"),
        c.resource_link(
            "https://example.com/a.txt",
            "a.txt",
            title="A",
            description="the a",
            mime_type="text/plain",
            size=0,
            annotations={"audience": []},
            meta={"x": None},
            protocol_version=version,
        ),
        c.embedded_resource("file:///x.txt", text="x", mime_type="text/plain", resource_meta={"r": 1}),
        c.embedded_resource("file:///x.bin", blob=b"\x00\xff", annotations=_ANN, meta={"m": True}),
        c.embedded_resource("file:///x.bin", blob="AP8="),
    ]
    if version >= "2025-11-25":
        icon = c.icon(
            "data:image/png;base64,AAAA",
            mime_type="image/png",
            sizes=["48x48", "any"],
            theme="dark",
            protocol_version=version,
        )
        blocks.append(
            c.resource_link(
                "https://example.com/b",
                "b",
                icons=[icon, {"src": "https://example.com/i.svg"}],
                protocol_version=version,
            )
        )
    return blocks


@pytest.fixture(scope="session")
def all_blocks() -> Callable[[str], list[dict[str, Any]]]:
    """`(version)` -> content blocks of every kind and option that the version allows."""
    return _all_blocks


# --- everything a peer can send ------------------------------------------------------------------

_PARSE_ERRORS = [
    b"{bad",
    b"{",
    b"}",
    b'{"jsonrpc":"2.0","method":"m"',
    b'{"jsonrpc":"2.0","method":"m"}}',
    b'{"jsonrpc":"2.0","method":"m"} {"jsonrpc":"2.0","method":"m"}',
    b"{'jsonrpc':'2.0'}",
    b'{"jsonrpc":"2.0","method":"m","params":{"a":NaN}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":01}}',
    b'{"jsonrpc":"2.0","method":"m","params":{"a":"\t"}}',
    b"nul",
    b"\xef\xbb\xbf{}",  # a BOM is not JSON
    # invalid UTF-8: a stray continuation byte, a truncated sequence, an overlong form, a surrogate
    b'{"jsonrpc":"2.0","method":"\x80"}',
    b'{"jsonrpc":"2.0","method":"\xe2\x82"}',
    b'{"jsonrpc":"2.0","method":"\xc0\xaf"}',
    b'{"jsonrpc":"2.0","method":"\xed\xa0\x80"}',
    b'{"jsonrpc":"2.0","method":"m"}\xff',
    b"\x00",
]

_INVALID_REQUESTS: list[tuple[bytes, int | str | None]] = [
    # (line, id the error response carries)
    (b'{"id":1,"method":"m"}', 1),
    (b'{"jsonrpc":"1.0","id":1,"method":"m"}', 1),
    (b'{"jsonrpc":2.0,"id":1,"method":"m"}', 1),
    (b'{"jsonrpc":null,"id":"a","method":"m"}', "a"),
    (b'{"jsonrpc":"2.0","id":1}', 1),
    (b'{"jsonrpc":"2.0"}', None),
    (b"{}", None),
    (b'{"jsonrpc":"2.0","id":1,"method":null}', 1),
    (b'{"jsonrpc":"2.0","id":1,"method":["m"]}', 1),
    (b'{"jsonrpc":"2.0","method":1}', None),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}', 1),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","params":null}', 1),
    (b'{"jsonrpc":"2.0","method":"m","params":"x"}', None),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","result":{}}', 1),
    # bad id types
    (b'{"jsonrpc":"2.0","id":true,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":false,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":1.0,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":1e3,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":null,"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"m"}', None),
    (b'{"jsonrpc":"2.0","id":true,"result":{}}', None),
    (b'{"jsonrpc":"2.0","id":null,"result":{}}', None),
    (b'{"jsonrpc":"2.0","result":{}}', None),
    (b'{"jsonrpc":"2.0","id":[],"error":{"code":1,"message":"m"}}', None),
    # bad responses
    (b'{"jsonrpc":"2.0","id":1,"result":[]}', 1),
    (b'{"jsonrpc":"2.0","id":1,"result":null}', 1),
    (b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":"boom"}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}', 1),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}', 1),
    # not objects; batches
    (b"[]", None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"m"}]', None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"}]', None),
    (b'"text"', None),
    (b"42", None),
    (b"null", None),
    (b"true", None),
]


@pytest.fixture(params=_PARSE_ERRORS)
def parse_error(request: pytest.FixtureRequest) -> bytes:
    """A line that is not JSON (or not UTF-8)."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(params=_INVALID_REQUESTS)
def invalid_request(request: pytest.FixtureRequest) -> tuple[bytes, int | str | None]:
    """A JSON line that is no valid message, and the id its error response carries."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def bad_lines() -> list[bytes]:
    """Every parse_error and invalid_request line."""
    return _PARSE_ERRORS + [line for line, _ in _INVALID_REQUESTS]


# --- validation while a tool response is written -------------------------------------------------


class _Verdict(_core.ResponseWriter):
    """Answers an invalid payload with None."""

    def _encode_invalid(self, *args: Any) -> None:
        return None


def _written_valid(v: mcp_native.Validator, instance: Any) -> bool:
    line = _Verdict(v, "2026-07-28").encode_response(7, instance)
    if line is None:
        return False
    assert line == _core.ResponseWriter(None, "2026-07-28").encode_response(7, instance)
    return True


@pytest.fixture(scope="session")
def written_valid() -> Callable[[mcp_native.Validator, Any], bool]:
    """`(validator, instance)` -> the verdict of the walk that validates while it writes a tool
    response; a valid instance must come out exactly as without a schema."""
    return _written_valid


# --- subprocesses --------------------------------------------------------------------------------

_SANITIZER_ENV = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")


@pytest.fixture
def sanitizer_env() -> dict[str, str]:
    """What a subprocess needs of this process's environment to load the sanitized module
    (scripts/test --sanitize): the SDK's stdio client starts servers with a scrubbed one."""
    return {k: os.environ[k] for k in _SANITIZER_ENV if k in os.environ}


@pytest.fixture
def tool_env() -> dict[str, str]:
    """This process's environment without the sanitizer runtime, for tools that are not ours
    (cmake, make): under scripts/test --sanitize, ASan would check them too."""
    return {k: v for k, v in os.environ.items() if k not in _SANITIZER_ENV}


@contextlib.contextmanager
def _served(cmd: Callable[[int], list[str]], cwd: Path, env: dict[str, str]) -> Iterator[int]:
    """The port of a server started as ``cmd(port)`` on a free port of 127.0.0.1, once it accepts
    connections (within 60 s); stopped at the end, its workers with it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen(cmd(port), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    # A server still starting (or its workers) holds stderr open: what it wrote so far.
                    os.set_blocking(proc.stderr.fileno(), False)
                    said = (proc.stderr.read() or b"").decode(errors="replace")[-2000:]
                    raise AssertionError(f"server did not start within 60 s or exited: {said}") from None
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.fixture(scope="session")
def served() -> Callable[[Callable[[int], list[str]], Path, dict[str, str]], contextlib.AbstractContextManager[int]]:
    """``with served(lambda port: [...], cwd, env) as port:`` an HTTP server's process on 127.0.0.1."""
    return _served


@pytest.fixture(scope="module")
def canned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The MCP endpoint of ``http_canned``'s server, which answers each POST with the body its
    case names (the client transports' tests, both SDK lines)."""
    from http_canned import CANNED_APP, stock_env, uvicorn

    tmp_path = tmp_path_factory.mktemp("canned")
    (tmp_path / "canned_app.py").write_text(CANNED_APP)
    with _served(uvicorn("canned_app:app"), tmp_path, stock_env()) as port:
        yield f"http://127.0.0.1:{port}/mcp"
