"""``mcp-eras auth login / status / logout`` against the real parts: npm oidc-provider and the protected sample
servers of both eras (issue #35: sign in ahead of time, list, revoke).

``BROWSER`` is the headless opener, so ``login`` runs the whole authorization code flow: discovery from the
server's 401, dynamic registration, PKCE, the page-less test sign-in, the code delivered to the command's loopback
listener, the token request. The store keeps one entry per server in a 0700 directory of 0600 files, and no
output line holds a token.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from parts import LEGACY, MODERN, OPENER, AuthServer, auth_server, protected_server

from mcp_eras.bridge.auth.store import TokenStore

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(300)]
MCP_ERAS = Path(sys.executable).parent / "mcp-eras"
URL = "http://127.0.0.1:9/mcp"
TOKEN_LIKE = re.compile(r"eyJ[A-Za-z0-9_-]{10,}")  # a JWT


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[AuthServer, dict[str, str]]]:
    with auth_server() as issuer, protected_server(LEGACY, issuer.issuer) as legacy, \
            protected_server(MODERN, issuer.issuer) as modern:
        yield issuer, {LEGACY: legacy, MODERN: modern}


def auth(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BROWSER": str(OPENER)}
    proc = subprocess.run([str(MCP_ERAS), "auth", *args, "--oauth-token-store", str(store)], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120, env=env)
    assert not TOKEN_LIKE.search(proc.stdout + proc.stderr), "a token in the command's output"
    return proc


def test_login_status_logout(stack: tuple[AuthServer, dict[str, str]], tmp_path: Path) -> None:
    issuer, urls = stack
    store = tmp_path / "tokens"
    logins = issuer.count("login")
    for era in (LEGACY, MODERN):
        proc = auth("login", urls[era], "--timeout", "60", store=store)
        assert proc.returncode == 0, proc.stderr[-2000:]
    assert issuer.count("login") == logins + 2

    assert stat.S_IMODE(store.stat().st_mode) == 0o700
    files = [p for p in store.rglob("*") if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)

    listed = auth("status", "--json", store=store)
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
    assert sorted(r["resource"] for r in rows) == sorted(urls.values())
    assert all(r["issuer"] == issuer.issuer and r["refreshable"] for r in rows)

    kept = next(json.loads(p.read_text())["tokens"] for p in files if json.loads(p.read_text())["resource"] == urls[LEGACY])
    out = auth("logout", urls[LEGACY], store=store)
    assert out.returncode == 0, out.stderr
    assert "revoked at the authorization server" in out.stderr
    rows = [json.loads(line) for line in auth("status", "--json", store=store).stdout.splitlines() if line.strip()]
    assert [r["resource"] for r in rows] == [urls[MODERN]]
    # RFC 7009: the authorization server forgot the grant too, so a copy of the store is worthless.
    refused = refresh(kept)
    assert refused.status_code == 400 and refused.json().get("error") == "invalid_grant", refused.text
    # Forgetting without revoking leaves the grant alive at the server: what the check above tells apart.
    alive = next(json.loads(p.read_text())["tokens"] for p in files if p.exists())
    assert auth("logout", urls[MODERN], "--no-revoke", store=store).returncode == 0
    assert refresh(alive).status_code == 200


def refresh(tokens: dict[str, Any]) -> httpx.Response:
    """A refresh_token grant with a stored sign-in, straight at the token endpoint (the client is public)."""
    form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "resource": tokens["resource"],
            "client_id": tokens["client"]["client_id"]}
    return httpx.post(tokens["token_endpoint"], data=form, timeout=30)


def test_logout_keeps_a_sign_in_whose_revocation_fails(tmp_path: Path) -> None:
    """An unreachable revocation endpoint: the sign-in stays (running logout again can still revoke it), exit 1;
    ``--no-revoke`` forgets it here only."""
    store = TokenStore(tmp_path / "tokens")
    tokens = {"access_token": "at", "refresh_token": "rt", "token_endpoint": "http://127.0.0.1:9/token",
              "revocation_endpoint": "http://127.0.0.1:9/revoke", "client": {"client_id": "c"}, "resource": URL}
    store.save(URL, "c", tokens)
    failed = auth("logout", URL, "--timeout", "2", store=store.directory)
    assert failed.returncode == 1 and "revocation failed" in failed.stderr
    assert store.entries(URL)
    forgot = auth("logout", URL, "--no-revoke", store=store.directory)
    assert forgot.returncode == 0 and "not revoked at the server" in forgot.stderr
    assert not store.entries(URL)
