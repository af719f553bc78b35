"""Direction B through the real CLI with the project's sample peers.

``samples/clients/legacy_client.py`` (mcp 1.29 ClientSession) -> ``python -m mcp_eras.bridge serve`` with a
2025-11-25 front -> ``samples/modern/{everything,mrtr}_server.py`` (mcp 2.3.0 on the 2026 wire; the
everything server with ``--modern-only``, so the 2025 client can only succeed through the bridge).
Both sides over Streamable HTTP and stdio. The expectations are the ones the same legacy client meets
talking to the legacy samples directly (``test_samples_direct``): the bridge must be transparent.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
from test_samples_direct import (
    LEGACY_CLIENT,
    MODERN_EVERYTHING,
    MODERN_MRTR,
    check_basic_common,
    check_errors_common,
    check_logging,
    check_mrtr,
    check_progress,
    check_subscriptions,
    run_client,
    steps,
)

import peers

pytestmark = pytest.mark.legacy_peer

SIDES = [("http", "http"), ("http", "stdio"), ("stdio", "http"), ("stdio", "stdio")]
ALL = ["basic", "progress", "logging", "subscriptions", "errors"]


@contextmanager
def through_bridge(front: str, upstream: str, server: list[str]) -> Iterator[list[str]]:
    """The legacy client's target: the bridge (2025 front, 2026 upstream) in front of ``server``."""
    with ExitStack() as stack:
        if upstream == "http":
            port = peers.free_port()
            stack.enter_context(peers.running([peers.MODERN_PYTHON, *server, "http", "--port", str(port)], port))
            up = ["--upstream", f"http://127.0.0.1:{port}/mcp"]
        else:
            up = ["--", peers.MODERN_PYTHON, *server, "stdio"]
        opts = ["--front-era", "2025-11-25", "--upstream-era", "2026-07-28", "--log-level", "warning"]
        if front == "http":
            port = peers.free_port()
            cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", *opts, *up]
            stack.enter_context(peers.running(cmd, port))
            yield [f"http://127.0.0.1:{port}/mcp"]
        else:
            yield [*peers.bridge_cmd(), "serve", "--stdio", *opts, *up]


@pytest.mark.parametrize("front,upstream", SIDES)
def test_everything_through_bridge(legacy_python: str, front: str, upstream: str) -> None:
    server = [MODERN_EVERYTHING, "--modern-only"]
    with through_bridge(front, upstream, server) as target:
        report = run_client(legacy_python, LEGACY_CLIENT, target, ALL)
    assert report["protocol_version"] == "2025-11-25"
    basic = steps(report, "basic")
    assert basic["ping"] == {}
    srv = basic["server"]
    assert (srv["name"], srv["version"]) == ("modern-everything", "0.1.0")  # discover serverInfo, not the bridge's
    assert srv["instructions"].startswith("Test peer of the mcp-eras project.")
    assert srv["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    assert srv["capabilities"]["tools"] == {"listChanged": True}
    check_basic_common(basic)
    check_progress(steps(report, "progress"))
    check_logging(steps(report, "logging"))
    subs = steps(report, "subscriptions")
    check_subscriptions(subs)  # resources/updated and list_changed arrive on the GET stream / stdout
    assert subs["unsubscribed"] is True
    errors = steps(report, "errors")
    # The 2026 server says -32602 + data.uri; a 2025 client gets the 2025 code for a missing resource.
    assert errors["missing_resource"] == {"code": -32002, "message": "Unknown resource: memo://missing",
                                          "data": {"uri": "memo://missing"}}
    check_errors_common(errors)


@pytest.mark.parametrize("front,upstream", SIDES)
def test_mrtr_through_bridge(legacy_python: str, front: str, upstream: str) -> None:
    """input_required (single, three inputs in one round, two rounds, URL mode, prompt and resource) as real
    server->client requests answered by the ClientSession's callbacks."""
    with through_bridge(front, upstream, [MODERN_MRTR]) as target:
        report = run_client(legacy_python, LEGACY_CLIENT, target, ["mrtr"])
    assert report["protocol_version"] == "2025-11-25"
    check_mrtr(steps(report, "mrtr"))
