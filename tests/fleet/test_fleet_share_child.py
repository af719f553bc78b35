"""Issue #30: a fleet server's ``share_child = true`` reaches its settings (and only its), and a reload applies it."""

from __future__ import annotations

from mcp_eras.bridge.fleet import config as fc
from mcp_eras.bridge.upstream.legacy import limits_of


def test_share_child_is_per_server() -> None:
    cfg = fc.parse('[servers.a]\ncommand = "x"\nshare_child = true\n[servers.b]\ncommand = "y"\n')
    a, b = (fc.server_settings(cfg.bridge, cfg.servers[n]) for n in "ab")
    assert a.share_child and not b.share_child
    shared, own = limits_of(a), limits_of(b)
    assert shared.share_child and (shared.per_identity_sessions, shared.total_sessions) == (1, 1)
    assert not own.share_child and (own.per_identity_sessions, own.total_sessions) == (8, 64)
    before = fc.parse('[servers.a]\ncommand = "x"\n[servers.b]\ncommand = "y"\n')
    assert fc.fingerprint(cfg.bridge, cfg.servers["a"]) != fc.fingerprint(before.bridge, before.servers["a"])
