"""Streamable HTTP under concurrency, with real uvicorn servers on 127.0.0.1 (``benchmarks/http_app.py``,
adapted by ``MCP_NATIVE_ADAPTERS=1``; stock where the answer is compared): every answer exactly once
with its own id and result, clients dropping mid-SSE, malformed bodies among good calls. The
checks are ``benchmarks/bench_http.py``'s; ``bench_http.py --reliability`` runs them at a larger
scale, with worker RSS over 20,000 calls."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("fastmcp")
pytest.importorskip("uvicorn")

import anyio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_http  # noqa: E402

ALL_ONCE = {"lost": 0, "duplicated": 0, "unknown": 0, "wrong": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str, str], bench_http.Server]]:
    """A running server per (framework, mode), SSE responses, 1 worker, started once. Stateful: it
    serves 2025-era sessions, and 2026-07-28 requests too (the protocol version header routes them)."""
    logs = tmp_path_factory.mktemp("http-servers")
    running: dict[tuple[str, str], bench_http.Server] = {}
    files: list[Any] = []

    def get(framework: str, mode: str) -> bench_http.Server:
        if (framework, mode) not in running:
            log = open(logs / f"{framework}-{mode}.log", "w")  # noqa: SIM115 (closed at teardown)
            files.append(log)
            running[framework, mode] = bench_http.Server(bench_http.Config(framework, "sse", "stateful", 1), mode, log)
        return running[framework, mode]

    yield get
    for s in running.values():
        s.stop()
    for f in files:
        f.close()


def run(server: bench_http.Server, state: str, scenario: Callable[[bench_http.Raw], Any]) -> Any:
    async def go() -> Any:
        raw = bench_http.Raw(server, state=state)
        try:
            return await scenario(raw)
        finally:
            await raw.aclose()

    return anyio.run(go)


def counts_ok(counts: dict[str, int], n: int) -> None:
    assert counts == {"once": n, **ALL_ONCE}


@pytest.mark.parametrize("state", ["stateless", "stateful"])
@pytest.mark.parametrize("framework", list(bench_http.FRAMEWORKS))
def test_every_answer_once_with_its_own_id_and_result(server: Any, framework: str, state: str) -> None:
    counts = run(server(framework, "adapted"), state, lambda raw: raw.calls(150, "c", concurrency=48))
    counts_ok(counts, 150)


@pytest.mark.parametrize("framework", list(bench_http.FRAMEWORKS))
def test_clients_dropping_mid_sse_leave_the_server_serving(server: Any, framework: str) -> None:
    result = run(server(framework, "adapted"), "stateless", lambda raw: bench_http.drop_scenario(raw, 10, 50))
    assert result["dropped_mid_stream"] == 10  # each got an event, then went away
    counts_ok(result["good"], 50)
    counts_ok(result["after"], 10)
    assert result["tasks_after"] <= result["tasks_before"]  # every dropped call's handler is gone


@pytest.mark.parametrize("state", ["stateless", "stateful"])
@pytest.mark.parametrize("framework", list(bench_http.FRAMEWORKS))
def test_a_malformed_body_among_good_calls_is_answered_as_stock_answers_it(
    server: Any, framework: str, state: str
) -> None:
    answers = {}
    for mode in bench_http.MODES:
        answers[mode], good = run(server(framework, mode), state, lambda raw: bench_http.malformed_among_good(raw, 30))
        counts_ok(good, 30)
    assert set(answers["stock"]) == set(bench_http.MALFORMED)
    assert all(a.startswith("400 -32") for a in answers["adapted"].values()), answers["adapted"]
    # One difference, on purpose (adapters/_engines/http.py): a bad envelope on the 2025-era path is
    # -32600 Invalid Request, as the 2026-07-28 path and JSON-RPC say, where stock says -32602.
    assert answers["adapted"] == {k: v.replace("-32602", "-32600") for k, v in answers["stock"].items()}
    if state == "stateful":
        assert answers["stock"]["no method"] == "400 -32602"
