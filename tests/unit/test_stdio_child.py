"""translate.stdio_child: a stdio upstream's respawn backoff and stdout flow control, with the time passed in."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.stdio_child import HEALTHY_RUN_S, MAX_QUEUED_FRAMES, Backoff, may_resume, over_cap, stdout_frame


def test_a_crash_loop_backs_off_up_to_the_maximum() -> None:
    backoff = Backoff(0.1, 1.0)
    assert [backoff.spawn_failed() for _ in range(3)] == [0.1, 0.2, 0.4]
    assert [backoff.exited(ran_for=0.5) for _ in range(3)] == [0.8, 1.0, 1.0]


def test_a_healthy_run_resets_the_backoff() -> None:
    backoff = Backoff(0.1, 10.0)
    for _ in range(4):
        backoff.exited(ran_for=1.0)
    assert backoff.delay == 1.6
    assert backoff.exited(ran_for=HEALTHY_RUN_S + 1) == 0.1 and backoff.delay == 0.2
    assert backoff.exited(ran_for=HEALTHY_RUN_S) == 0.2  # exactly the threshold is not yet healthy


def test_stdout_lines() -> None:
    assert stdout_frame(b"  \r\n") is None
    assert stdout_frame(b'{"jsonrpc":"2.0","id":1,"result":{}}\r\n') == jsonrpc.result_response(1, {})
    with pytest.raises(FrameError):
        stdout_frame(b"Server starting...\n")  # a server printing to stdout: not an MCP message


def test_the_queue_pauses_at_its_bounds_and_resumes_at_half() -> None:
    assert not over_cap(MAX_QUEUED_FRAMES - 1, 0, 10, 1000)
    assert over_cap(MAX_QUEUED_FRAMES, 0, 10, 1000)
    assert over_cap(0, 995, 10, 1000) and not over_cap(0, 990, 10, 1000)
    assert may_resume(MAX_QUEUED_FRAMES // 2, 500, 1000)
    assert not may_resume(MAX_QUEUED_FRAMES // 2 + 1, 0, 1000) and not may_resume(0, 501, 1000)
