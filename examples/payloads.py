"""The tools of the example servers (the same for MCPServer and fastmcp): a small weather
report, a table of records, and a tool whose result violates its own output schema."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict


class Weather(TypedDict):
    city: str
    temperature: float
    conditions: str
    humidity: int
    wind_speed: float


class Record(TypedDict):
    id: int
    name: str
    email: str
    score: float
    active: bool
    tags: list[str]


class Records(TypedDict):
    records: list[Record]
    total: int


def get_weather(city: str) -> Weather:
    """Current weather for a city."""
    return {"city": city, "temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65, "wind_speed": 12.25}


def list_records(count: int = 200) -> Records:
    """A table of user records."""
    rows: list[Record] = [
        {
            "id": i,
            "name": f"User {i}",
            "email": f"user{i}@example.com",
            "score": round(i * 1.37 % 100, 2),
            "active": i % 3 != 0,
            "tags": ["alpha", "beta"] if i % 2 else ["gamma"],
        }
        for i in range(count)
    ]
    return {"records": rows, "total": count}


def broken_weather(city: str) -> Weather:
    """A tool whose result violates its own output schema (humidity as a string)."""
    bad: Any = {"city": city, "temperature": 22.5, "conditions": "Sunny", "humidity": "65%", "wind_speed": 3.5}
    return bad  # type: ignore[no-any-return]


TOOLS = (get_weather, list_records, broken_weather)
