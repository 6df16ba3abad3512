"""An MCP server whose tools return the same data in each common return shape, for the shapes
table (``bench_shapes.py``): a TypedDict, a pydantic model (nested, with ``$defs``, an alias,
``Optional`` and defaults), a dataclass and a list of models, at two sizes (a weather report;
200 records of ``payloads.records``), and a bare ``float``.

    python benchmarks/shapes_server.py mcpserver|fastmcp

Each tool returns objects built once at start-up, so that a call measures the framework's path
for the shape, not the tool building its objects.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from payloads import records

N = 200


class LocationDict(TypedDict):
    lat: float
    lon: float


class RecordDict(TypedDict):
    id: int
    name: str
    active: bool
    temperature: float
    humidity: int
    tags: list[str]
    location: LocationDict
    updated: str
    note: str | None


class RecordsDict(TypedDict):
    records: list[RecordDict]
    total: int
    page: int


class Location(BaseModel):
    lat: float
    lon: float


class Record(BaseModel):
    id: int
    name: str
    active: bool = True
    temperature: float
    humidity: int
    tags: list[str] = []
    location: Location
    updated: str = Field(alias="updatedAt")
    note: str | None = None


class Records(BaseModel):
    records: list[Record]
    total: int
    page: int = 1


@dataclasses.dataclass
class LocationData:
    lat: float
    lon: float


@dataclasses.dataclass
class RecordData:
    id: int
    name: str
    active: bool
    temperature: float
    humidity: int
    tags: list[str]
    location: LocationData
    updated: str
    note: str | None = None


@dataclasses.dataclass
class RecordsData:
    records: list[RecordData]
    total: int
    page: int = 1


class WeatherDict(TypedDict):
    city: str
    temperature: float
    conditions: str
    humidity: int
    wind_speed: float


class Weather(BaseModel):
    city: str
    temperature: float
    conditions: str
    humidity: int
    wind_speed: float = Field(alias="windSpeed")


@dataclasses.dataclass
class WeatherData:
    city: str
    temperature: float
    conditions: str
    humidity: int
    wind_speed: float


_ROWS = records(N)
_WEATHER: dict[str, Any] = {
    "city": "Paris",
    "temperature": 22.5,
    "conditions": "Partly cloudy",
    "humidity": 65,
    "wind_speed": 12.25,
}
_RECORDS_DICT: RecordsDict = {"records": _ROWS, "total": N, "page": 1}  # type: ignore[typeddict-item]
_RECORDS_MODEL = Records(records=[Record(**{**r, "updatedAt": r["updated"]}) for r in _ROWS], total=N, page=1)
_RECORDS_DATA = RecordsData(
    records=[RecordData(**{**r, "location": LocationData(**r["location"])}) for r in _ROWS], total=N
)
_WEATHER_MODEL = Weather(**{**_WEATHER, "windSpeed": _WEATHER["wind_speed"]})
_WEATHER_DATA = WeatherData(**_WEATHER)


def records_typeddict() -> RecordsDict:
    return _RECORDS_DICT


def records_model() -> Records:
    return _RECORDS_MODEL


def records_dataclass() -> RecordsData:
    return _RECORDS_DATA


def records_list() -> list[Record]:
    return _RECORDS_MODEL.records


def weather_typeddict() -> WeatherDict:
    return _WEATHER  # type: ignore[return-value]


def weather_model() -> Weather:
    return _WEATHER_MODEL


def weather_dataclass() -> WeatherData:
    return _WEATHER_DATA


def weather_list() -> list[Weather]:
    return [_WEATHER_MODEL]


def weather_float() -> float:
    return 22.5


TOOLS = (
    records_typeddict,
    records_model,
    records_dataclass,
    records_list,
    weather_typeddict,
    weather_model,
    weather_dataclass,
    weather_list,
    weather_float,
)

if __name__ == "__main__":
    if sys.argv[1:] == ["fastmcp"]:
        from fastmcp import FastMCP

        fast = FastMCP("shapes")
        for tool in TOOLS:
            fast.tool(tool)
        fast.run("stdio", show_banner=False)
    else:
        from mcp.server.mcpserver import MCPServer

        app = MCPServer("shapes")
        for tool in TOOLS:
            app.tool()(tool)
        app.run("stdio")
