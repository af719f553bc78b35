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

import pytest
from parts import LEGACY, MODERN, OPENER, AuthServer, auth_server, protected_server

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(300)]
MCP_ERAS = Path(sys.executable).parent / "mcp-eras"
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

    out = auth("logout", urls[LEGACY], store=store)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in auth("status", "--json", store=store).stdout.splitlines() if line.strip()]
    assert [r["resource"] for r in rows] == [urls[MODERN]]
