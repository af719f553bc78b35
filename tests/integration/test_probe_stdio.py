"""The stdio era probe against real children: readiness-based timeouts, the initialize re-probe, one spawn.

2026-07-28 basic/transports/stdio.mdx §Backward Compatibility: probe with server/discover, fall back on a
non-modern answer or silence; basic/versioning.mdx §Backward Compatibility with Initialization-Based Versions:
a modern-only server names its versions in its error to initialize, and a cached verdict is re-probed when it fails.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.upstream import factory

import peers

MODERN_SERVER = str(Path(peers.SAMPLES) / "modern" / "everything_server.py")

SLOW_MODERN = (
    "import runpy, sys, time\n"
    "time.sleep(float(sys.argv[1]))  # loading, silently (an npx download, a cold cache)\n"
    "sys.argv = [sys.argv[2], 'stdio', '--modern-only']\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)

# A modern-only server that says it is loading at once but answers server/discover only after the probe timeout,
# and refuses initialize naming its (modern) versions, like mcp 2.3.0 once its connection locked modern.
LATE_MODERN = (
    "import json, sys, time\n"
    "print('loading...', file=sys.stderr, flush=True)\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if msg.get('method') == 'server/discover':\n"
    "        continue\n"
    "    if msg.get('method') == 'initialize':\n"
    "        err = {'code': -32022, 'message': 'serving 2026-07-28 only',\n"
    "               'data': {'supported': ['2026-07-28'], 'requested': msg['params']['protocolVersion']}}\n"
    "        print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'error': err}), flush=True)\n"
)


@pytest.fixture
def spawns(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every child the event loop starts (``create_subprocess_exec`` goes through ``subprocess_exec`` too)."""
    seen: list[Any] = []
    original = asyncio.base_events.BaseEventLoop.subprocess_exec

    async def counting(loop: Any, protocol_factory: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        return await original(loop, protocol_factory, *args, **kwargs)

    monkeypatch.setattr(asyncio.base_events.BaseEventLoop, "subprocess_exec", counting)
    return seen


def test_a_slow_modern_server_is_modern_with_one_spawn(spawns: list[Any]) -> None:
    settings = Settings(probe_timeout=1.0, probe_start_timeout=60.0, connect_timeout=30.0, request_timeout=60.0)
    target = factory.Target(command=[sys.executable, "-c", SLOW_MODERN, "3", MODERN_SERVER], name="slow")

    async def main() -> None:
        upstream = factory.AutoUpstream(target, settings)
        try:
            await upstream.start()
            assert upstream.era == "2026-07-28", upstream.probe_result
            tools = await upstream.call({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}}, CallContext(), discard)
            assert tools["result"]["tools"], tools
        finally:
            await upstream.aclose()

    asyncio.run(main())
    assert len(spawns) == 1  # the probe's child serves


def test_a_late_modern_server_is_reprobed_through_initialize(spawns: list[Any]) -> None:
    # the server never answers server/discover, so the probe timeout always runs out (the test's point); it also bounds
    # the answer to the confirming initialize, which must come: 3 s, not 0.5 s, for a loaded machine
    settings = Settings(probe_timeout=3.0, probe_start_timeout=30.0, connect_timeout=10.0)
    target = factory.Target(command=[sys.executable, "-c", LATE_MODERN], name="late")
    result = asyncio.run(factory.probe(target, settings))
    assert result.era == "2026-07-28", result
    assert "no-answer" in result.detail and "initialize-refused-modern" in result.detail
    assert len(spawns) == 1


@pytest.mark.legacy_peer
def test_a_legacy_server_is_legacy(legacy_python: str) -> None:
    settings = Settings(probe_timeout=5.0, probe_start_timeout=30.0, connect_timeout=10.0)
    server = str(Path(peers.SAMPLES) / "legacy" / "everything_server.py")
    result = asyncio.run(factory.probe(factory.Target(command=[legacy_python, server], name="legacy"), settings))
    assert result.era == "2025-11-25", result
    assert result.detail.endswith("initialize-result")


# A 2025-style server that names its process in every InitializeResult (serverInfo.version = its pid).
PID_SERVER = (
    "import json, os, sys\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if msg.get('method') == 'initialize':\n"
    "        result = {'protocolVersion': '2025-11-25', 'capabilities': {}, 'serverInfo': {'name': 'pid', 'version': str(os.getpid())}}\n"
    "        print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': result}), flush=True)\n"
)


@pytest.mark.parametrize("same_identity", [True, False])
def test_an_adopted_child_serves_only_the_identity_it_was_initialized_for(same_identity: bool) -> None:
    """The probe's handshake is reused for a session of the same capabilities and clientInfo; another one gets a
    child of its own (2025-11-25 basic/lifecycle.mdx §Initialization: one initialize per connection)."""
    from mcp_eras.bridge.translate import jsonrpc
    from mcp_eras.bridge.upstream.legacy_transport import Handshake, StdioTransport
    from mcp_eras.bridge.upstream.process import ChildProcess

    async def main() -> tuple[str, str]:
        answers: asyncio.Queue[Any] = asyncio.Queue()

        async def deliver(msg: Any, _related: Any) -> None:
            answers.put_nowait(msg)

        async def ignore(_msg: Any) -> None:
            return None

        probe = ChildProcess([sys.executable, "-c", PID_SERVER], on_message=ignore, name="probe")
        await probe.start()
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}
        probed = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "pid", "version": str(probe.pid)}}
        transport = StdioTransport([sys.executable, "-c", PID_SERVER], child=probe, handshake=Handshake(params, probed))
        transport.bind(deliver, lambda _why: asyncio.sleep(0))
        try:
            await transport.open()
            asked = params if same_identity else {**params, "clientInfo": {"name": "b", "version": "1"}}
            await transport.send(jsonrpc.request(1, "initialize", asked))
            answer = await asyncio.wait_for(answers.get(), 30)
            return str(probe.pid), answer["result"]["serverInfo"]["version"]
        finally:
            await transport.close()
            await probe.aclose()

    probe_pid, serving_pid = asyncio.run(main())
    assert (serving_pid == probe_pid) is same_identity


@pytest.mark.parametrize("how", ["pinned", "probed-unconfirmed"])
def test_a_2025_upstream_started_before_its_first_caller_spawns_once(how: str, spawns: list[Any]) -> None:
    """Pinned 2025 (``--upstream-era``) and the fleet's probe (no caller known at load, ``confirm=False``): start()
    leaves the child uninitialized and the first caller's session initializes it (its serverInfo names that pid)."""
    # the server prints nothing before initialize: its silence is "no-answer" after probe_start_timeout
    settings = Settings(probe_timeout=0.5, probe_start_timeout=1.0, connect_timeout=10.0, request_timeout=30.0)
    target = factory.Target(command=[sys.executable, "-c", PID_SERVER], name="pid")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "caller", "version": "1"}}

    async def main() -> dict[str, Any]:
        result = None
        if how == "probed-unconfirmed":
            result = await factory.probe(target, settings, keep_child=True, confirm=False)
            assert result.era == "2025-11-25" and result.child is not None and result.handshake is None, result
            assert "initialize-result" not in result.detail
        upstream = factory.legacy_upstream(target, settings, adopt=result)
        try:
            await upstream.start()
            assert len(spawns) == 1
            return await upstream.discover(CallContext(identity=meta))
        finally:
            await upstream.aclose()

    discovered = asyncio.run(main())
    assert len(spawns) == 1
    # answered from the InitializeResult the one child gave the caller's session
    assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "pid", discovered
