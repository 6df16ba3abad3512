"""mcp-native beside OpenTelemetry's MCP instrumentation (``opentelemetry-instrumentation-mcp``)
and any other wrapper of a patched function.

End to end (``otel_app.py``, real stdio server and client processes): set up in each order a
user would write (the instrumentor then ``install()``, ``install()`` then the instrumentor,
``opentelemetry-instrument`` with ``MCP_NATIVE_ADAPTERS=1``, the SDK imported before both),
the answers are those of the program with OpenTelemetry alone, so are the spans (names and
count, client and server), every group is patched and in force at every binding, nothing
crashes, and ``uninstall()`` at exit leaves every wrapper where it was and no binding reaching
mcp-native. On mcp 2.x the instrumentor's ``instrument()`` fails by itself (it wraps mcp 1.x's
names) and leaves a re-imported ``mcp`` package behind; on 1.x it works.
``scripts/sdk-pairs`` runs this file on mcp 1.30.0 + fastmcp 3.4.11 too.

In process: a wrapt ``FunctionWrapper`` and a ``functools.wraps`` closure around a patched
function keep their place and call mcp-native's; a wrapper whose call cannot be proven leaves
the patch refused; ``restore()`` is exact in every order.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.instrumentation.mcp")
pytest.importorskip("opentelemetry.sdk")
import wrapt

from mcp_native.adapters._patching.patch import Patch, UnexpectedTarget

APP = Path(__file__).with_name("otel_app.py")
BIN = Path(sys.executable).parent
# opentelemetry-instrument with no exporter configured (the app exports to memory itself).
AUTO = [
    "env",
    "OTEL_TRACES_EXPORTER=none",
    "OTEL_METRICS_EXPORTER=none",
    "OTEL_LOGS_EXPORTER=none",
    str(BIN / "opentelemetry-instrument"),
]


def run(order: str, framework: str, client: str, tmp: Path) -> dict[str, Any]:
    """One client process calling one server process, both set up in ``order`` (otel_app.py's
    steps; ``auto``: under opentelemetry-instrument, ``env``: with MCP_NATIVE_ADAPTERS=1)."""
    steps = order.split(",")
    prefix = AUTO if "auto" in steps else []
    env = {k: v for k, v in os.environ.items() if k != "MCP_NATIVE_ADAPTERS"}
    if "env" in steps:
        env["MCP_NATIVE_ADAPTERS"] = "1"
    server = [
        "env",
        f"OTEL_APP_OUT={tmp / 'server.json'}",
        *prefix,
        sys.executable,
        str(APP),
        "server",
        order,
        framework,
    ]
    out = subprocess.run(
        [*prefix, sys.executable, str(APP), "client", order, client, "--", *server],
        env={**env, "OTEL_APP_OUT": str(tmp / "client.json")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return {
        "answers": json.loads(out.stdout),
        "client": json.loads((tmp / "client.json").read_text()),
        "server": json.loads((tmp / "server.json").read_text()),
    }


_baselines: dict[tuple[str, str, str], dict[str, Any]] = {}


def baseline(order: str, framework: str, client: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    key = (order, framework, client)
    if key not in _baselines:
        _baselines[key] = run(order, framework, client, tmp_path_factory.mktemp("stock"))
    return _baselines[key]


COMBOS = [("mcp", "session"), ("fastmcp", "fastmcp"), ("mcp", "fastmcp"), ("fastmcp", "session")]
CASES = [("otel,native", *c) for c in COMBOS] + [
    (order, *c) for order in ("native,otel", "auto,env", "imports,otel,native") for c in COMBOS[:2]
]


def stock_order(order: str) -> str:
    """The same program with OpenTelemetry alone."""
    return ",".join(step for step in order.split(",") if step not in ("native", "env"))


@pytest.mark.parametrize(("order", "framework", "client"), CASES)
def test_beside_the_instrumentation_as_with_it_alone(
    order: str, framework: str, client: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    stock = baseline(stock_order(order), framework, client, tmp_path_factory)
    got = run(order, framework, client, tmp_path)
    assert got["answers"] == stock["answers"]
    for side in ("client", "server"):
        assert got[side]["spans"] == stock[side]["spans"], side
        groups = got[side]["groups"]
        assert groups and all(state in ("patched", "waiting") for state in groups.values()), groups
        assert got[side]["not_in_force"] == [], side
        assert got[side]["notes"] == [], side
        assert got[side]["not_restored"] == [], side
    server_groups = got["server"]["groups"]
    assert any(server_groups.get(g) == "patched" for g in ("stdio-server", "stdio-server-1x")), server_groups
    # The instrumentation's spans are there to compare: a transport's own (the server's stream
    # writer) where it wraps the transport before the server module binds it, the client's in any case.
    assert stock["client"]["spans"], "no client spans: the comparison would prove nothing"
    if order != "imports,otel,native":
        assert stock["server"]["spans"], "no server spans: the comparison would prove nothing"


@pytest.mark.parametrize(("framework", "client"), COMBOS[:2])
def test_sdk_imported_before_install_is_patched_at_every_binding(
    framework: str, client: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The one line placed after the program's imports: mcp's package, mcp.types' mirror of
    # mcp_types and fastmcp bound the patched functions by name already.
    stock = baseline("imports", framework, client, tmp_path_factory)
    got = run("imports,native", framework, client, tmp_path)
    assert got["answers"] == stock["answers"]
    for side in ("client", "server"):
        assert got[side]["spans"] == stock[side]["spans"], side
        assert got[side]["not_in_force"] == [] and got[side]["notes"] == [], side
        assert got[side]["not_restored"] == [], side
        assert "patched" in got[side]["groups"].values()


# -- In process: wrappers of a patched function ------------------------------------------------

SDK_SOURCE = """
import contextlib

def target(x):
    return ("stock", x)

@contextlib.asynccontextmanager
async def transport(x):
    yield ("stock", x)
"""


def native(x: Any) -> tuple[str, Any]:
    return ("native", x)


@pytest.fixture
def sdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A module ``fake_sdk`` defined in a file of its own, as an SDK's are."""
    (tmp_path / "fake_sdk.py").write_text(SDK_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("fake_sdk")
    for name in ("fake_sdk", "fake_sdk_binder", "user_module"):
        sys.modules.pop(name, None)


def patch(module: str = "fake_sdk", attribute: str = "target") -> Patch:
    return Patch(module, attribute, f"{__name__}:native", "a test")


def closure_wrapper(inner: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(inner)
    def traced(*args: Any) -> Any:
        return ("traced", inner(*args))

    return traced


def wrapt_wrapper(inner: Callable[..., Any]) -> Any:
    def traced(wrapped: Callable[..., Any], instance: Any, args: Any, kwargs: Any) -> Any:
        return ("traced", wrapped(*args, **kwargs))

    return wrapt.FunctionWrapper(inner, traced)


WRAPPERS = {"wrapt": wrapt_wrapper, "functools.wraps": closure_wrapper}


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_a_wrapper_is_kept_and_calls_the_replacement(sdk: Any, wrap: Callable[..., Any]) -> None:
    stock = sdk.target
    sdk.target = wrapper = wrap(stock)
    p = patch()
    p.apply()
    assert sdk.target is wrapper and p.original is stock
    assert sdk.target(1) == ("traced", ("native", 1))
    p.restore()
    assert sdk.target is wrapper and sdk.target(1) == ("traced", ("stock", 1))


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_a_wrapper_put_over_the_replacement_is_kept_by_restore(sdk: Any, wrap: Callable[..., Any]) -> None:
    # install() first, then the instrumentation wraps what it finds: mcp-native's function.
    p = patch()
    p.apply()
    sdk.target = wrapper = wrap(sdk.target)
    assert sdk.target(1) == ("traced", ("native", 1))
    p.restore()
    assert sdk.target is wrapper and sdk.target(1) == ("traced", ("stock", 1))


def test_a_wrapper_taken_off_after_install_leaves_the_original_on_restore(sdk: Any) -> None:
    # The instrumentation's uninstrument() puts back what its wrapper held: the replacement.
    stock = sdk.target
    sdk.target = wrapper = wrapt_wrapper(stock)
    p = patch()
    p.apply()
    sdk.target = wrapper.__wrapped__
    p.restore()
    assert sdk.target is stock and wrapper.__wrapped__ is stock


def test_layers_of_wrappers_and_the_sdks_own_decorator(sdk: Any) -> None:
    # stdio_server is an @asynccontextmanager: its contextlib helper is the SDK's function.
    stock = sdk.transport
    sdk.transport = outer = closure_wrapper(wrapt_wrapper(stock))
    p = patch(attribute="transport")
    p.apply()
    assert sdk.transport is outer and p.original is stock
    assert outer.__wrapped__.__wrapped__ is native
    p.restore()
    assert outer.__wrapped__.__wrapped__ is stock


def test_a_wrapper_that_cannot_be_proven_is_left_alone(sdk: Any) -> None:
    class Opaque:
        """Has __wrapped__, but nothing shows that calling it calls what that holds."""

        def __init__(self, inner: Callable[..., Any]) -> None:
            self.__wrapped__ = inner
            self.__module__ = inner.__module__
            self.__qualname__ = inner.__qualname__

        def __call__(self, *args: Any) -> Any:
            return ("opaque", args)

    sdk.target = opaque = Opaque(sdk.target)
    p = patch()
    with pytest.raises(UnexpectedTarget, match="cannot prove calls what it wraps"):
        p.apply()
    assert sdk.target is opaque and opaque.__wrapped__.__module__ == "fake_sdk"


def test_a_function_of_that_name_defined_elsewhere_is_refused(sdk: Any) -> None:
    def target(x: Any) -> Any:
        return x

    target.__module__ = "fake_sdk"
    sdk.target = target
    with pytest.raises(UnexpectedTarget, match="expected the function of that name"):
        patch().apply()


def test_bindings_of_the_sdk_are_found_and_the_programs_are_named(sdk: Any) -> None:
    binder = types.ModuleType("fake_sdk_binder")
    binder.target = sdk.target  # type: ignore[attr-defined]
    user = types.ModuleType("user_module")
    user.target = sdk.target  # type: ignore[attr-defined]
    sys.modules["fake_sdk_binder"], sys.modules["user_module"] = binder, user
    p = patch()
    p.apply()
    bindings, notes = p.bindings(("fake_sdk", "fake_sdk_binder"))
    assert [b.module for b in bindings] == ["fake_sdk_binder"]
    assert notes == [
        "left alone: user_module.target was bound to the stock function before install(); calls through it run stock"
    ]
    for b in bindings:
        b.apply()
    assert binder.target(2) == ("native", 2)
    # A module of those packages that binds it after the patch gets the replacement, and the
    # original back on restore.
    late = types.ModuleType("fake_sdk_binder.late")
    late.target = sdk.target  # type: ignore[attr-defined]
    sys.modules["fake_sdk_binder.late"] = late
    for b in bindings:
        b.restore()
    p.restore()
    del sys.modules["fake_sdk_binder.late"]
    assert binder.target(2) == late.target(2) == sdk.target(2) == ("stock", 2)


def test_the_stream_objects_take_a_proxys_attributes() -> None:
    # OpenTelemetry's stream proxies set their tracer through to the stream they wrap.
    from mcp_native.adapters._engines.wire import ReceiveStream, WriteStream

    class Read(ReceiveStream):
        __slots__ = ("x",)

    name = "_tracer"
    for stream in (Read(), WriteStream(None)):  # type: ignore[arg-type]
        setattr(wrapt.ObjectProxy(stream), name, "tracer")
        assert getattr(stream, name) == "tracer"
