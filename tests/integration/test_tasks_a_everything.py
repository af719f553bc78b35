"""Tasks, direction A, on the npm server-everything of the 2025 era (TypeScript SDK, 2026.1.26): its
``simulate-research-query`` tool (taskSupport required) runs as a 2026 task through the bridge -- create,
poll to completion with the report inline, cancel mid-task, and the clarification it asks mid-way (an
elicitation sent outside ``tasks/result`` and without related-task ``_meta``) answered with
``tasks/update``. stdio: the server elicits on stdio only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_tasks_a import Client2026

import peers


@pytest.fixture(scope="module")
def bridge() -> Iterator[str]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2026-07-28", "--log-level", "warning",
           "--upstream-era", "2025-11-25", "--", *peers.server_everything(), "stdio"]
    with peers.running(cmd, port):
        yield f"http://127.0.0.1:{port}/mcp"


def test_research_task_completes_with_the_report_inline(bridge: str) -> None:
    client = Client2026(bridge)
    created = client.create("simulate-research-query", {"topic": "tides"})
    assert created["ttlMs"] == 300000 and created["pollIntervalMs"] == 1000
    done = client.poll(created["taskId"], ("completed", "failed", "cancelled"))
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"].startswith("# Research Report: tides")


def test_research_task_cancelled_mid_way(bridge: str) -> None:
    client = Client2026(bridge)
    created = client.create("simulate-research-query", {"topic": "tides"})
    assert client.result("tasks/cancel", {"taskId": created["taskId"]}) == {"resultType": "complete"}
    assert client.poll(created["taskId"], ("cancelled", "completed", "failed"))["status"] == "cancelled"


def test_clarification_mid_task_through_tasks_update(bridge: str) -> None:
    client = Client2026(bridge)
    created = client.create("simulate-research-query", {"topic": "tides", "ambiguous": True})
    waiting = client.poll(created["taskId"], ("input_required", "completed", "failed"))
    assert waiting["status"] == "input_required", waiting
    [(key, ask)] = waiting["inputRequests"].items()
    assert ask["method"] == "elicitation/create" and "interpretation" in ask["params"]["requestedSchema"]["properties"]
    update = {"taskId": created["taskId"], "inputResponses": {key: {"action": "accept", "content": {"interpretation": "historical"}}}}
    assert client.result("tasks/update", update) == {"resultType": "complete"}
    done = client.poll(created["taskId"], ("completed", "failed", "cancelled"))
    assert done["result"]["content"][0]["text"].startswith("# Research Report: tides (historical)")
