"""Per tool call through azure-functions' MCP tool trigger, stock against adapted: the function the
app indexes, called as the Python worker calls it (the trigger's context text in, awaited, the
return value encoded by the trigger's converter) for a weather report and for the 200 records of
benchmarks/payloads.py, each tool annotated with a TypedDict (so the adapted call also validates
the result against the schema derived from it), and for the same records as an ``@mcp_content``
dataclass of 200 dataclass records (stock converts it with ``dataclasses.asdict``, adapted
directly; both validated likewise). Needs azure-functions beside mcp-native:

    build/azure/venv311/bin/python benchmarks/bench_azure_functions.py   # scripts/azure-functions bench
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.metadata
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NotRequired

import azure.functions as func
from azure.functions.mcp import _MCPToolTriggerConverter
from typing_extensions import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from payloads import call_tool_result

from mcp_native import adapters


class Weather(TypedDict):
    city: str
    temperature: float
    conditions: str
    humidity: int
    wind_speed: float


class Location(TypedDict):
    lat: float
    lon: float


class Record(TypedDict):
    id: int
    name: str
    active: bool
    temperature: float
    humidity: int
    tags: list[str]
    location: Location
    updated: str
    note: NotRequired[str | None]


class Records(TypedDict):
    records: list[Record]
    total: int
    page: int


@dataclasses.dataclass
class LocationObject:
    lat: float
    lon: float


@dataclasses.dataclass
class RecordObject:
    id: int
    name: str
    active: bool
    temperature: float
    humidity: int
    tags: list[str]
    location: LocationObject
    updated: str
    note: str | None = None


@func.mcp_content
@dataclasses.dataclass
class RecordSet:
    records: list[RecordObject]
    total: int
    page: int


RECORDS: Any = call_tool_result(200)["result"]["structuredContent"]
RECORD_SET = RecordSet(
    [RecordObject(**{**r, "location": LocationObject(**r["location"])}) for r in RECORDS["records"]],
    RECORDS["total"],
    RECORDS["page"],
)
WEATHER: Any = {
    "city": "Paris",
    "temperature": 22.5,
    "conditions": "Partly cloudy",
    "humidity": 65,
    "wind_speed": 12.25,
}


def app() -> Any:
    fa = func.FunctionApp()

    @fa.mcp_tool(use_result_schema=True)
    def get_weather(city: str) -> Weather:
        return {**WEATHER, "city": city}  # type: ignore[typeddict-item]

    @fa.mcp_tool(use_result_schema=True)
    def list_records() -> Records:
        return RECORDS  # type: ignore[no-any-return]

    @fa.mcp_tool(use_result_schema=True)
    def list_record_objects() -> RecordSet:
        return RECORD_SET

    return {f.get_function_name(): f.get_user_function() for f in fa.get_functions()}


def per_call(fn: Any, calls: int) -> float:
    """Seconds per call, the worker's way, in one event loop."""
    context = json.dumps({"name": "tool", "arguments": {"city": "Paris"}})
    loop = asyncio.new_event_loop()
    try:
        t = time.perf_counter()
        for _ in range(calls):
            _MCPToolTriggerConverter.encode(loop.run_until_complete(fn(context=context)))
        return (time.perf_counter() - t) / calls
    finally:
        loop.close()


def main() -> None:
    stock = app()
    adapters.install()
    adapted = app()
    adapters.uninstall()
    first = {
        name: _MCPToolTriggerConverter.encode(asyncio.run(fn(context='{"arguments": {"city": "Paris"}}')))
        for name, fn in adapted.items()
    }
    assert all(json.loads(d.value)["structuredContent"] for d in first.values()), "an adapted result was refused"
    print(
        f"azure-functions {importlib.metadata.version('azure-functions')}, Python {platform.python_version()}; "
        f"{platform.processor() or platform.machine()}, per call: the best of 7 batches, and the spread of the 7"
    )
    print("| payload | stock ms/call | mcp-native ms/call | speed-up | McpToolResult bytes |")
    print("|---|---:|---:|---:|---:|")
    for label, name, calls in (
        ("weather", "get_weather", 3000),
        ("200 records", "list_records", 200),
        ("200 records, @mcp_content dataclasses", "list_record_objects", 100),
    ):
        times: dict[str, list[float]] = {"stock": [], "adapted": []}
        for _ in range(7):  # alternating, so that both see the same load
            times["stock"].append(per_call(stock[name], calls))
            times["adapted"].append(per_call(adapted[name], calls))
        s, a = min(times["stock"]), min(times["adapted"])
        spread = {k: f"{min(v) * 1e3:.3f}-{max(v) * 1e3:.3f}" for k, v in times.items()}
        size = len(first[name].value)
        print(
            f"| {label} | {s * 1e3:.3f} ({spread['stock']}) | {a * 1e3:.3f} ({spread['adapted']}) | "
            f"{s / a:.2f}× faster | {size:,} |"  # noqa: RUF001
        )
        print(
            f"  median: stock {statistics.median(times['stock']) * 1e3:.3f}, adapted {statistics.median(times['adapted']) * 1e3:.3f} ms",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
