"""A stdio child's start has an end: after (or during) ``aclose`` it refuses at once instead of waiting forever
for a supervisor that will never run (found by the 500-identity stress run, issue #10)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.upstream.process import ChildProcess

pytestmark = pytest.mark.anyio
SILENT = [sys.executable, "-c", "import sys; sys.stdin.read()"]


async def ignore(_msg: object) -> None:
    return None


async def test_start_after_close_is_refused_at_once() -> None:
    child = ChildProcess(SILENT, on_message=ignore, name="silent")
    await child.start()
    assert child.alive
    await child.aclose()
    with pytest.raises(UpstreamError, match="closed"):
        await asyncio.wait_for(child.start(), 5)


async def test_a_child_closed_before_it_ever_started_refuses_to_start() -> None:
    child = ChildProcess(SILENT, on_message=ignore, name="never")
    await child.aclose()
    with pytest.raises(UpstreamError, match="closed"):
        await asyncio.wait_for(child.start(), 5)
