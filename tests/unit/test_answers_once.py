"""bridge.translate.modern_front.answers_once: which 2026 requests can be answered with their response alone
(no notification may reach them: 2026-07-28 basic/utilities/progress.mdx, server/utilities/logging.mdx)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_eras.bridge.translate.modern_front import answers_once

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def request(method: str = "tools/call", **meta: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"name": "echo", "_meta": {**META, **meta}}}


@pytest.mark.parametrize(("msg", "once"), [
    (request(), True),
    (request("resources/read"), True),
    ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, True),  # no _meta at all
    (request(progressToken="p"), False),  # progress notifications may come first
    (request(progressToken=0), False),
    (request(**{"io.modelcontextprotocol/logLevel": "debug"}), False),  # log notifications may come first
    (request("subscriptions/listen"), False),  # a stream of its own
])
def test_only_requests_that_asked_for_nothing_else_are_answered_once(msg: dict[str, Any], once: bool) -> None:
    assert answers_once(msg) is once
