"""Issue #33 item 8, direction B: the bridge as a client of a 2026 server's ``subscriptions/listen`` (behind 2025
sessions' GET streams) tells the two endings apart -- the server's completion result is an orderly end (logged as
such), a listen that ends without it is an abrupt drop (a warning naming why) -- and re-listens after both, through
the real HTTP front over the in-process ``ListeningUpstream``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import legacy_front_fakes as fakes
import pytest
from test_legacy_front_http import Env, make_env

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.translate.jsonrpc import Message

pytestmark = pytest.mark.anyio


class DroppingUpstream(fakes.ListeningUpstream):
    """A listen whose id is in ``dropping`` ends without its completion (the transport failed)."""

    def __init__(self) -> None:
        super().__init__()
        self.dropping: set[Any] = set()

    async def _listen(self, rid: Any, params: dict[str, Any], emit: Any) -> Message:
        resp = await super()._listen(rid, params, emit)
        if rid in self.dropping:
            raise UpstreamError("upstream connection reset")
        return resp


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    async with make_env(DroppingUpstream()) as e:
        yield e


async def test_a_completion_is_an_orderly_end_a_close_without_it_a_drop(env: Env, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcp_bridge.front.legacy")
    upstream = env.upstream
    assert isinstance(upstream, DroppingUpstream)
    client = env.client("Bearer alice")
    await client.initialize()
    await client.get_stream()
    (first,) = upstream.listens
    upstream.end_listen(first)  # the server completes the listen
    await upstream.wait_listens(lambda listens: bool(listens) and first not in listens)
    assert env.front.listens.ends == {"complete": 1, "dropped": 0}
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("completed listen" in r.getMessage() for r in caplog.records)

    (second,) = upstream.listens
    upstream.dropping.add(upstream.listens[second]["id"])
    upstream.end_listen(second)  # the stream ends without the completion
    await upstream.wait_listens(lambda listens: bool(listens) and second not in listens)
    assert env.front.listens.ends == {"complete": 1, "dropped": 1}
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert "dropped without its completion" in warning and "upstream connection reset" in warning
