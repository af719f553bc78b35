"""2026-07-28 client (run with mcp 2.x): calls the fixture's tools over stdio and answers each
``input_required`` round with ``answers`` (the same answers the 2025 client gives); prints a JSON report
with the input kinds of every round."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import answers  # noqa: E402

DEADLINE = 240.0
MAX_ROUNDS = 6


def _answer(request: Any) -> Any:
    if isinstance(request, types.ElicitRequest):
        return "elicitation", types.ElicitResult.model_validate(answers.elicit(request.params.message))
    if isinstance(request, types.CreateMessageRequest):
        prompt = request.params.messages[0].content.text
        return "sampling", types.CreateMessageResult.model_validate(answers.sample(prompt, request.params.max_tokens))
    return "roots", types.ListRootsResult.model_validate(answers.roots())


async def _unused(*args: Any) -> Any:
    """Declares the capability; the rounds are answered in ``main``, where each one is seen."""
    raise AssertionError("input requests are answered by the loop in main(), not by a callback")


async def main(command: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {"calls": []}
    client = Client(StdioServerParameters(command=command[0], args=command[1:]), mode="2026-07-28",
                    elicitation_callback=_unused, sampling_callback=_unused, list_roots_callback=_unused)
    with anyio.fail_after(DEADLINE):
        async with client:
            report["protocol"] = client.protocol_version
            for name, arguments in answers.CALLS:
                asked: list[str] = []
                responses: dict[str, Any] | None = None
                state: str | None = None
                try:
                    for _ in range(MAX_ROUNDS):
                        result = await client.session.call_tool(
                            name, arguments, input_responses=responses, request_state=state, allow_input_required=True
                        )
                        if not isinstance(result, types.InputRequiredResult):
                            break
                        responses = {}
                        for key, request in (result.input_requests or {}).items():
                            kind, answer = _answer(request)
                            asked.append(kind)
                            responses[key] = answer
                        state = result.request_state
                    entry = answers.text_of(result)
                except MCPError as exc:
                    entry = {"error": True, "text": [exc.error.message]}
                entry["asked"] = asked
                report["calls"].append(entry)
    return report


if __name__ == "__main__":
    print(json.dumps(anyio.run(main, sys.argv[1:])))
