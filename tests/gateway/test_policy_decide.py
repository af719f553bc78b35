"""The per-tool policy as a pure function: (server policy, caller's scopes, tool) -> allow | deny(reason, scope); the
filtered ``tools/list``; the named refusal and its HTTP challenge; the audit record."""

from __future__ import annotations

from mcp_eras.bridge.translate.gateway import policy as gp

NONE: frozenset[str] = frozenset()
POLICY = gp.ToolPolicy.of(allow=["search", "read_*", "write", "admin_*"], deny=["admin_drop"],
                          scopes={"write": "files:write", "admin_*": "admin", "admin_users": "admin users:manage"})


def test_no_policy_allows_everything() -> None:
    assert not gp.ToolPolicy().active
    assert gp.decide(gp.ToolPolicy(), NONE, "anything") == gp.ALLOW


def test_deny_wins_over_allow_and_scope() -> None:
    assert gp.decide(POLICY, frozenset({"admin"}), "admin_drop") == gp.Deny(gp.NOT_ALLOWED)
    assert gp.decide(gp.ToolPolicy.of(deny=["x*"]), NONE, "xray") == gp.Deny(gp.NOT_ALLOWED)
    assert gp.decide(gp.ToolPolicy.of(deny=["x*"]), NONE, "ray") == gp.ALLOW


def test_allow_list_restricts_by_name_and_pattern() -> None:
    assert gp.decide(POLICY, NONE, "search") == gp.ALLOW
    assert gp.decide(POLICY, NONE, "read_file") == gp.ALLOW
    assert gp.decide(POLICY, NONE, "delete") == gp.Deny(gp.NOT_ALLOWED)
    assert gp.decide(gp.ToolPolicy.of(allow=[]), NONE, "search") == gp.Deny(gp.NOT_ALLOWED)  # an empty allow list: nothing


def test_scopes_needed_exact_entry_before_pattern_and_all_of_them() -> None:
    assert gp.decide(POLICY, NONE, "write") == gp.Deny(gp.INSUFFICIENT_SCOPE, "files:write")
    assert gp.decide(POLICY, frozenset({"files:write"}), "write") == gp.ALLOW
    assert gp.decide(POLICY, frozenset({"admin"}), "admin_logs") == gp.ALLOW
    assert gp.decide(POLICY, frozenset({"admin"}), "admin_users") == gp.Deny(gp.INSUFFICIENT_SCOPE, "admin users:manage")
    assert gp.decide(POLICY, frozenset({"admin", "users:manage"}), "admin_users") == gp.ALLOW
    assert gp.decide(gp.ToolPolicy.of(scopes={"t": "a"}), frozenset({"a"}), "other") == gp.ALLOW  # no entry: no scope


def test_listing_shows_each_caller_what_it_may_call_and_becomes_private() -> None:
    tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("search", "write", "admin_logs", "admin_drop", "delete")]
    page = {"resultType": "complete", "tools": tools, "nextCursor": "c2", "ttlMs": 1000, "cacheScope": "public"}
    reader = gp.filter_listing(POLICY, NONE, page)
    writer = gp.filter_listing(POLICY, frozenset({"files:write", "admin"}), page)
    assert [t["name"] for t in reader["tools"]] == ["search"]
    assert [t["name"] for t in writer["tools"]] == ["search", "write", "admin_logs"]
    assert reader["cacheScope"] == writer["cacheScope"] == "private" and reader["nextCursor"] == "c2"
    assert page["cacheScope"] == "public" and len(page["tools"]) == 5  # the upstream's result is not changed
    legacy_page = {"tools": tools}  # a 2025-shaped result has no cacheScope and gets none
    assert "cacheScope" not in gp.filter_listing(POLICY, NONE, legacy_page)
    assert gp.filter_listing(gp.ToolPolicy(), NONE, page) is page


def test_refusals_are_named_and_only_insufficient_scope_challenges() -> None:
    scoped = gp.refusal(7, "write", gp.Deny(gp.INSUFFICIENT_SCOPE, "files:write"))
    assert scoped["id"] == 7 and scoped["error"]["code"] == gp.POLICY_DENIED
    assert scoped["error"]["data"] == {"error": "insufficient_scope", "tool": "write", "httpStatus": 403, "scope": "files:write"}
    assert gp.refused_scope(scoped) == ("insufficient_scope", "files:write")
    status, headers = gp.challenge(scoped, "https://gw/.well-known/oauth-protected-resource/servers/a/mcp") or (0, {})
    assert status == 403
    assert headers["WWW-Authenticate"].startswith('Bearer resource_metadata="https://gw/.well-known/oauth-protected-resource/')
    assert 'scope="files:write"' in headers["WWW-Authenticate"] and 'error="insufficient_scope"' in headers["WWW-Authenticate"]
    blocked = gp.refusal("x", "delete", gp.Deny(gp.NOT_ALLOWED))
    assert gp.refused_scope(blocked) == ("tool_not_allowed", None)
    assert gp.challenge(blocked, "https://gw/m") is None
    assert gp.challenge({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "x"}}, "https://gw/m") is None


def test_audit_record_and_outcome() -> None:
    record = gp.audit_record(principal="https://as|alice", server="files", method="tools/call", tool="write",
                             client_era="2025-11-25", upstream_era="2026-07-28", outcome="ok", duration=0.0123,
                             arguments={"path": "/secret"})
    assert record == {"principal": "https://as|alice", "server": "files", "method": "tools/call", "tool": "write",
                      "client_era": "2025-11-25", "upstream_era": "2026-07-28", "outcome": "ok", "duration_ms": 12.3}
    with_args = gp.audit_record(principal=None, server="s", method="tools/call", tool="t", client_era="2026-07-28",
                                upstream_era=None, outcome="ok", duration=0, arguments={"a": 1}, with_arguments=True)
    assert with_args["arguments"] == {"a": 1}
    assert gp.audit_outcome(gp.refusal(1, "t", gp.Deny(gp.NOT_ALLOWED))) == "denied"
    assert gp.audit_outcome({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}) == "error"
    assert gp.audit_outcome({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}}) == "ok"
