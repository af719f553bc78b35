"""Acceptance 2 of issue #35: a 2026 and a 2025 client reach an OAuth-protected server of the other era through
``mcp-bridge serve --stdio`` with no token handling of their own.

The parts are real (tests/auth/parts.py): npm oidc-provider as the authorization server with a short access-token
lifetime, the protected sample servers of samples/auth (mcp 1.29 and mcp 2.3.0, each checking audience and scope),
the clients of tests/auth/bridge_client.py (mcp 2.3.0 and mcp 1.29), and ``BROWSER`` set to the headless opener,
which completes the authorization server's page-less sign-in. The authorization server's event log counts the
sign-ins and the tokens it issued. Per direction:

1. a first session signs in once (through the bridge's loopback redirect listener), calls the tool, waits past the
   access token's lifetime, and calls it again: answered, after a refresh, without a second sign-in;
2. a second session finds the stored sign-in: answered, no sign-in;
3. after ``mcp-eras auth logout URL`` the next session is asked to sign in again, and is answered.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from parts import LEGACY, MODERN, AuthServer, auth_server, protected_server

import peers

TTL = 4  # seconds an access token lives
CLIENT = Path(__file__).resolve().parent / "bridge_client.py"
RUN_TIMEOUT = 240.0
BEARER_VALUE = re.compile(r"Bearer [A-Za-z0-9._~+/-]{20,}=*(\s|$)")  # a credential, not a challenge's parameters

pytestmark = [
    pytest.mark.legacy_peer,
    pytest.mark.timeout(900),
]


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[AuthServer, dict[str, str]]]:
    with auth_server(access_token_ttl=TTL) as issuer, protected_server(LEGACY, issuer.issuer) as legacy, \
            protected_server(MODERN, issuer.issuer) as modern:
        yield issuer, {LEGACY: legacy, MODERN: modern}


def session(era: str, url: str, store: Path, calls: int = 1, pause: float = 0.0) -> list[Any]:
    """One client session of ``era`` through the bridge; the ``whoami`` answers (or errors) in order. The bridge logs
    at debug level, and not one line holds a token (a JWT starts ``eyJ``) or a bearer credential."""
    python = peers.MODERN_PYTHON if era == MODERN else peers.legacy_python()
    cmd = [str(python), str(CLIENT), "--era", era, "--upstream", url, "--store", str(store), "--calls", str(calls),
           "--pause", str(pause), "--bridge-python", str(peers.MODERN_PYTHON)]
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT,
                          env={**os.environ, "HEADLESS_OPENER_LOG": str(store.parent / "opener.log")})
    assert proc.returncode == 0, f"the {era} client's session failed:\n{proc.stderr[-3000:]}"
    leaks = [line for line in proc.stderr.splitlines() if "eyJ" in line or BEARER_VALUE.search(line)]
    assert not leaks, f"token material in the bridge's log: {leaks[:3]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])["results"]


def logout(url: str, store: Path) -> None:
    mcp_eras = Path(sys.executable).parent / "mcp-eras"
    proc = subprocess.run([str(mcp_eras), "auth", "logout", url, "--oauth-token-store", str(store)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("client_era,server_era", [(MODERN, LEGACY), (LEGACY, MODERN)],
                         ids=["2026-client-2025-server", "2025-client-2026-server"])
def test_sign_in_call_refresh_and_sign_in_again_after_logout(stack: tuple[AuthServer, dict[str, str]], client_era: str,
                                                             server_era: str, tmp_path: Path) -> None:
    issuer, urls = stack
    url, store = urls[server_era], tmp_path / "tokens"
    answer = f"test-user via {server_era}"
    logins, refreshes = issuer.count("login"), issuer.count("grant refresh_token")

    assert session(client_era, url, store, calls=2, pause=TTL + 1) == [answer, answer]
    assert issuer.count("login") == logins + 1  # one sign-in for both calls
    assert issuer.count("grant refresh_token") > refreshes  # the second call's token came from a refresh
    assert store.is_dir() and store.stat().st_mode & 0o777 == 0o700

    assert session(client_era, url, store) == [answer]
    assert issuer.count("login") == logins + 1  # the stored sign-in served the new session

    logout(url, store)
    assert session(client_era, url, store) == [answer]
    assert issuer.count("login") == logins + 2  # asked to sign in again
