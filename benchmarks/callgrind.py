"""Instructions per call of the hot entry points, counted by callgrind (stable on a noisy machine,
unlike time): ``dumps``, ``loads``, ``Validator.is_valid``, ``Validator.is_valid_json`` and
``Tool.encode_response`` on the benchmark payloads (``payloads.py``), and MCPServer's text mirror
of a list result (``pydantic_json_text(record, 2)`` for each of the 200 records).

    python benchmarks/callgrind.py            # counts for the mcp_native on sys.path
    PYTHONPATH=DIR python -S benchmarks/callgrind.py   # for the package (with its _core) in DIR
    python benchmarks/callgrind.py --child X  # (internal) one entry point, run under valgrind

Each entry point runs in two processes under ``valgrind --tool=callgrind``: its set-up and a
warm-up call, then that and ``CALLS`` calls more; the figure is the difference of their
instruction counts divided by ``CALLS`` (the installed module is stripped, so collection cannot
be limited to one function by name; a call through the Python loop adds a small constant).
Compare two builds by running this with each on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CALLS = 200
ENTRY_POINTS = ("dumps", "loads", "is_valid", "is_valid_json", "encode_response", "mirror")


def _setup(name: str) -> Any:
    sys.path.insert(0, str(HERE))
    from payloads import call_tool_result

    import mcp_native
    from mcp_native._core import pydantic_json_text

    result = call_tool_result(200)
    data = result["result"]["structuredContent"]
    schema = {
        "type": "object",
        "properties": {
            "records": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "name": {"type": "string"},
                        "active": {"type": "boolean"},
                        "temperature": {"type": "number"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["id", "name"],
                },
            }
        },
        "required": ["records"],
    }
    text = mcp_native.dumps(data)
    validator = mcp_native.Validator(schema)
    tool = mcp_native.Tool("t", output_schema=schema, protocol_version="2025-11-25")
    return {
        "dumps": lambda: mcp_native.dumps(result),
        "loads": lambda: mcp_native.loads(text),
        "is_valid": lambda: validator.is_valid(data),
        "is_valid_json": lambda: validator.is_valid_json(text),
        "encode_response": lambda: tool.encode_response(1, data),
        "mirror": lambda: [pydantic_json_text(record, 2) for record in data["records"]],
    }[name]


def child(name: str, calls: int) -> None:
    call = _setup(name)
    for _ in range(1 + calls):
        call()


def instructions(name: str, calls: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             sys.executable, *(["-S"] if sys.flags.no_site else []), __file__, "--child", name, str(calls)],
            check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        )  # fmt: skip
        for line in out.read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError(f"no summary in callgrind's output for {name}")


def count(name: str) -> float:
    return (instructions(name, CALLS) - instructions(name, 0)) / CALLS


def main() -> None:
    print(json.dumps({name: round(count(name)) for name in ENTRY_POINTS}, indent=2))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
