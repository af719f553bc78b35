"""Issue 31: ``streamablehttp_client(url, headers=...)`` entered outside an ``async with`` (on an
``AsyncExitStack`` or through ``__aenter__``) and its three streams unpacked on a later line or in
another method. Under mcp 2.3.0 the old keywords raise ``TypeError`` and a three-target unpack of the
two streams raises ``ValueError``; after migration both run (the transport is entered without a
server: it connects on the first message)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import MARKER, assert_idempotent, before_and_after, migrate_source

from peers import legacy_python

CLIENT = '''
from contextlib import AsyncExitStack

from mcp.client.streamable_http import streamablehttp_client


class Client:
    def __init__(self) -> None:
        self.stack = AsyncExitStack()

    async def connect(self, url: str) -> None:
        transport = await self.stack.enter_async_context(streamablehttp_client(url, headers={"X-Key": "1"}))
        self.streams = transport

    async def unpack(self) -> int:
        self.read, self.write, _ = self.streams
        return 2

    async def close(self) -> None:
        await self.stack.aclose()


async def direct(url: str) -> str:
    ctx = streamablehttp_client(url, headers={"X-Key": "1"}, timeout=5)
    read, write, get_id = await ctx.__aenter__()
    await ctx.__aexit__(None, None, None)
    return "direct"
'''

RUN = """
import anyio, client
async def main():
    c = client.Client()
    await c.connect("http://127.0.0.1:9/mcp")
    print(await c.unpack())
    await c.close()
    print(await client.direct("http://127.0.0.1:9/mcp"))
anyio.run(main)
"""


def test_an_unpack_in_another_method_drops_the_unused_third_stream() -> None:
    new, findings = migrate_source(CLIENT, "MCP004")
    assert "self.read, self.write = self.streams\n" in new
    assert "read, write = await ctx.__aenter__()\n" in new  # `get_id` is never read
    assert MARKER not in new and {f.status for f in findings} == {"fixed"}


def test_a_third_stream_that_is_read_keeps_the_marker() -> None:
    new, _ = migrate_source("""
        from mcp.client.streamable_http import streamablehttp_client
        async def go(stack, url):
            streams = await stack.enter_async_context(streamablehttp_client(url))
            read, write, get_id = streams
            print(get_id())
        """, "MCP004")
    assert "read, write, get_id = streams" in new and new.count(MARKER) == 1


def test_streams_passed_elsewhere_keep_the_marker() -> None:
    new, _ = migrate_source("""
        from mcp.client.streamable_http import streamablehttp_client
        async def go(stack, url, use):
            streams = await stack.enter_async_context(streamablehttp_client(url))
            read, write, _ = streams
            use(streams)
        """, "MCP004")
    assert "read, write = streams" in new and new.count(MARKER) == 1


def test_headers_on_a_stack_become_a_client_entered_on_the_same_stack() -> None:
    new, _ = migrate_source(CLIENT, "MCP006")
    assert ('        http_client = await self.stack.enter_async_context(httpx2.AsyncClient(headers={"X-Key": "1"}, '
            "timeout=httpx2.Timeout(30, read=300), follow_redirects=True))\n        # TODO(mcp-migrate MCP006)") in new
    assert ("        transport = await self.stack.enter_async_context(streamable_http_client(url, "
            "http_client=http_client))\n") in new
    assert ('ctx = streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"X-Key": "1"}, '
            "timeout=httpx2.Timeout(5, read=300), follow_redirects=True))") in new
    assert "pass headers" not in new
    assert_idempotent(CLIENT)


@pytest.mark.legacy_peer
def test_the_migrated_client_runs_under_v2_as_the_original_under_v1(tmp_path: Path) -> None:
    old, new = before_and_after(tmp_path, "client.py", CLIENT)
    results = []
    for python, folder in ((legacy_python(), old), (sys.executable, new)):
        proc = subprocess.run([python, "-c", RUN], cwd=folder, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        results.append(proc.stdout.split())
    assert results[0] == results[1] == ["2", "direct"]
