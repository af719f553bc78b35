"""SDK-free test hooks shared by ``variant_server.py`` (mcp 1.29) and ``modern_twin.py`` (mcp 2.3.0):
record each ``tools/call`` to a file, and fail while a file exists."""

from __future__ import annotations

import json

import anyio

FAIL_MESSAGE = "failing on purpose (fail file present)"


async def before_tool_call(name: object, record: str | None, fail_file: str | None) -> bool:
    """Record the call (one JSON line ``{"tool": NAME}``); True when the call must fail."""
    if record:
        async with await anyio.open_file(record, "a", encoding="utf-8") as out:
            await out.write(json.dumps({"tool": name}) + "\n")
    return bool(fail_file) and await anyio.Path(str(fail_file)).exists()
