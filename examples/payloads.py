"""The data the example servers return: a small weather report and 200 tabular records."""

from __future__ import annotations

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


def weather(city: str) -> Weather:
    return {"city": city, "temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65, "wind_speed": 12.25}


def records(count: int) -> Records:
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


# A result that violates the weather output schema: humidity as a string.
BAD_WEATHER = {"city": "Paris", "temperature": 22.5, "conditions": "Sunny", "humidity": "65%", "wind_speed": 3.5}
