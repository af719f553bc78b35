"""2025-11-25 client (run with mcp 1.x): calls the fixture's tools over stdio, answering elicitation,
sampling and roots requests with ``answers``; prints a JSON report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import answers  # noqa: E402

DEADLINE = 240.0


async def main(command: list[str]) -> dict[str, Any]:
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append("elicitation")
        return types.ElicitResult.model_validate(answers.elicit(params.message))

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append("sampling")
        content = params.messages[0].content
        return types.CreateMessageResult.model_validate(answers.sample(content.text, params.maxTokens))

    async def roots(context: Any) -> types.ListRootsResult:
        asked.append("roots")
        return types.ListRootsResult.model_validate(answers.roots())

    report: dict[str, Any] = {"calls": []}
    params = StdioServerParameters(command=command[0], args=command[1:])
    with anyio.fail_after(DEADLINE):
        async with stdio_client(params) as (read, write), ClientSession(
            read, write, sampling_callback=sample, elicitation_callback=elicit, list_roots_callback=roots
        ) as session:
            init = await session.initialize()
            report["protocol"] = init.protocolVersion
            for name, arguments in answers.CALLS:
                asked.clear()
                entry = answers.text_of(await session.call_tool(name, arguments))
                entry["asked"] = list(asked)
                report["calls"].append(entry)
    return report


if __name__ == "__main__":
    print(json.dumps(anyio.run(main, sys.argv[1:])))
