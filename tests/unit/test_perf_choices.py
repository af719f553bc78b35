"""bridge._perf: mcp-eras[fast] (uvloop, httptools) is used when importable unless MCP_BRIDGE_FAST=0."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from mcp_eras.bridge import _perf
from mcp_eras.bridge.front.h11_guard import default_base

FAST = importlib.util.find_spec("uvloop") is not None and importlib.util.find_spec("httptools") is not None


async def _loop_class() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_opt_out_keeps_asyncio_and_h11(monkeypatch: pytest.MonkeyPatch) -> None:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    monkeypatch.setenv("MCP_BRIDGE_FAST", "0")
    assert _perf.loop_name() == "asyncio"
    assert default_base() is H11Protocol
    assert _perf.run(_loop_class()).startswith("asyncio")


@pytest.mark.skipif(not FAST, reason="mcp-eras[fast] is not installed")
def test_fast_extra_is_used_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    monkeypatch.delenv("MCP_BRIDGE_FAST", raising=False)
    assert _perf.loop_name() == "uvloop"
    assert default_base() is HttpToolsProtocol
    assert _perf.run(_loop_class()).startswith("uvloop")


@pytest.mark.skipif(FAST, reason="mcp-eras[fast] is installed")
def test_without_the_extra_the_defaults_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_BRIDGE_FAST", raising=False)
    assert _perf.loop_name() == "asyncio"


@pytest.mark.parametrize("fast", ["0", "1"])
def test_current_task_is_asyncio_s(monkeypatch: pytest.MonkeyPatch, fast: str) -> None:
    """``_perf.current_task(loop)`` answers as ``asyncio.current_task(loop)``: the task running on the loop, None in a
    plain callback, on either loop."""
    monkeypatch.setenv("MCP_BRIDGE_FAST", fast)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        task = _perf.current_task(loop)
        assert task is asyncio.current_task() and task is not None
        other = loop.create_task(asyncio.sleep(0, _perf.current_task(loop)))
        seen = await other
        assert seen is task  # the argument was taken while ``main`` ran
        in_callback: list[object] = []
        done = loop.create_future()
        loop.call_soon(lambda: (in_callback.append(_perf.current_task(loop)), done.set_result(None)))
        await done
        assert in_callback == [None]

        async def inner() -> object:
            return _perf.current_task(loop)

        child = loop.create_task(inner())
        assert await child is child

    _perf.run(main())


def test_serving_freezes_start_up_and_raises_the_young_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    before = gc.get_threshold()
    try:
        monkeypatch.setenv("MCP_BRIDGE_GC", "default")
        _perf.serving()
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        monkeypatch.delenv("MCP_BRIDGE_GC")
        _perf.serving()
        assert gc.get_threshold() == (_perf.GC_YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
