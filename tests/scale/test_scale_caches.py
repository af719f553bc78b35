"""Shared caches with real parts: the ``Mcp-Param-*`` annotations one instance learned from a relayed
``tools/list`` are checked by the others (2026-07-28 basic/transports/streamable-http.mdx §Request
Metadata: a mismatch is -32020)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import scale_peers
from scale_peers import modern_request


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[scale_peers.Cluster]:
    with scale_peers.modern_cluster(tmp_path, 2, "2026-07-28") as c:
        yield c


def test_param_header_annotations_learned_anywhere_are_checked_everywhere(cluster: scale_peers.Cluster) -> None:
    a, b = cluster.instances
    call = {"name": "regional", "arguments": {"region": "eu", "count": 7}}
    wrong = {"mcp-param-region": "us", "mcp-param-count": "7"}
    # Before any instance relayed tools/list nothing is known: the header is not checked (the bridge sends the
    # upstream headers mirrored from the arguments, so the call succeeds).
    unchecked = modern_request(b.url, "tools/call", call, 1, headers=wrong)
    assert unchecked["result"]["content"][0]["text"] == "eu/7", unchecked
    listed = modern_request(a.url, "tools/list", {}, 1)
    assert "regional" in [t["name"] for t in listed["result"]["tools"]]
    deadline = time.monotonic() + 120
    while True:  # b merges the shared annotations at its next heartbeat (1 s): poll on the outcome (a hang guard only)
        answer = modern_request(b.url, "tools/call", call, 2, headers=wrong)
        if answer.get("error", {}).get("code") == -32020 and "Mcp-Param-Region" in answer["error"]["message"]:
            break
        assert time.monotonic() < deadline, answer
        time.sleep(0.1)
    right = modern_request(b.url, "tools/call", call, 3, headers={"mcp-param-region": "eu", "mcp-param-count": "7"})
    assert right["result"]["content"][0]["text"] == "eu/7", right
