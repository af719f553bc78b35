"""HTTP framing on the real processes (issue #33, acceptance 4): ``mcp-bridge serve`` and a fleet, each over raw
sockets. An ambiguous request is refused and its connection closed (the request smuggled after it never served), a
chunk declared past the cap is refused at once, and a body over the cap gets its 413 rather than a reset. The same
cases on every HTTP protocol in process: tests/inprocess/test_http_framing.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import fleet_peers as fp
import pytest
from http_raw import BODY, CL, SMUGGLED, chunked, exchange, over_cap, post, responses

pytestmark = [pytest.mark.legacy_peer]
CAP = 65536
ECHO = {"command": fp.peers.legacy_python(), "args": [str(fp.peers.SAMPLES / "legacy" / "everything_server.py")]}


@pytest.fixture(scope="module", params=["serve", "fleet"])
def endpoint(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, bytes]]:
    """(port, MCP path) of a bridge with a body cap of ``CAP`` in front of a 2025 stdio server."""
    if request.param == "fleet":
        servers = {"echo": {**ECHO, "limits": {"max_body_bytes": CAP}}}
        with fp.fleet_bridge(Path(tmp_path_factory.mktemp("fleet")), servers) as bridge:
            yield bridge.port, b"/servers/echo/mcp"
        return
    port = fp.peers.free_port()
    cmd = [*fp.peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--max-body-bytes", str(CAP),
           "--log-level", "warning", "--", ECHO["command"], *ECHO["args"]]
    with fp.peers.running(cmd, port):
        yield port, b"/mcp"


def test_content_length_with_chunked_is_refused_and_closes(endpoint: tuple[int, bytes]) -> None:
    port, path = endpoint
    smuggling = post(CL % len(chunked(BODY)) + b"Transfer-Encoding: chunked\r\n", chunked(BODY), path=path)
    raw, closed = asyncio.run(exchange(port, smuggling + SMUGGLED))
    answers = responses(raw)
    assert [a[0] for a in answers] == [400] and answers[0][1]["connection"] == "close" and closed


def test_obs_folded_transfer_encoding_is_refused(endpoint: tuple[int, bytes]) -> None:
    port, path = endpoint
    raw, closed = asyncio.run(exchange(port, post(b"Transfer-Encoding:\r\n chunked\r\n", chunked(BODY), path=path)
                                       + SMUGGLED))
    assert [a[0] for a in responses(raw)] == [400] and closed


def test_a_chunk_of_2_to_the_80_is_refused_at_once(endpoint: tuple[int, bytes]) -> None:
    port, path = endpoint
    raw, closed = asyncio.run(exchange(port, post(b"Transfer-Encoding: chunked\r\n", b"100000000000000000000\r\nab",
                                                  path=path)))
    assert [a[0] for a in responses(raw)] == [413] and closed


@pytest.mark.parametrize("at_once", [True, False], ids=["whole", "body-after-head"])
def test_a_body_just_over_the_cap_gets_413(endpoint: tuple[int, bytes], at_once: bool) -> None:
    port, path = endpoint
    got = over_cap(port, CAP, at_once, path)
    assert isinstance(got, bytes), got
    assert [a[0] for a in responses(got)] == [413]


def test_the_endpoint_still_answers(endpoint: tuple[int, bytes]) -> None:
    port, path = endpoint
    raw, _closed = asyncio.run(exchange(port, post(CL % len(BODY) + b"Connection: close\r\n", BODY, path=path)))
    assert [a[0] for a in responses(raw)] == [200]
