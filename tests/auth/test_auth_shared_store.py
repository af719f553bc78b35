"""Several processes share one token store (two bridges, or a bridge and ``mcp-eras auth login``): a refresh runs
under the entry's lock, and the second refresher adopts the first one's tokens instead of spending the refresh
token again. npm oidc-provider rotates the refresh tokens of public clients, and a rotated refresh token used
twice is refused (OAuth 2.1 §4.3.1), so without the lock one of two concurrent refreshes fails."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from parts import LEGACY, OPENER, AuthServer, auth_server, protected_server

from mcp_eras.bridge.auth.runner import OAuthOptions, SignInRunner
from mcp_eras.bridge.auth.store import TokenStore
from mcp_eras.bridge.translate.oauth import OAuthError

pytestmark = [pytest.mark.anyio, pytest.mark.legacy_peer, pytest.mark.timeout(240)]
MCP_ERAS = Path(sys.executable).parent / "mcp-eras"


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[AuthServer, str]]:
    with auth_server() as issuer, protected_server(LEGACY, issuer.issuer) as url:
        yield issuer, url


def runner(url: str, store: Path) -> SignInRunner:
    """A bridge's sign-in of its own: its own store object (its own lock descriptor), as a second process has."""
    return SignInRunner(url, OAuthOptions(token_store=str(store)), store=TokenStore(store))


@pytest.fixture
def signed_in(stack: tuple[AuthServer, str], tmp_path: Path) -> Path:
    """A store holding a sign-in made ahead of time with ``mcp-eras auth login``."""
    store = tmp_path / "tokens"
    login = subprocess.run([str(MCP_ERAS), "auth", "login", stack[1], "--timeout", "60", "--oauth-token-store", str(store)],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "BROWSER": str(OPENER)})
    assert login.returncode == 0, login.stderr[-2000:]
    return store


async def test_two_refreshers_of_one_store_spend_the_refresh_token_once(stack: tuple[AuthServer, str], signed_in: Path) -> None:
    issuer, url = stack
    store = signed_in
    first, second = runner(url, store), runner(url, store)
    assert first.usable_token() == second.usable_token() is not None
    refreshes = issuer.count("grant refresh_token")
    got: list[str] = []

    async def refresh(who: SignInRunner) -> None:
        got.append(await who.refresh())

    async with anyio.create_task_group() as tg:
        tg.start_soon(refresh, first)
        tg.start_soon(refresh, second)
    assert len(got) == 2 and got[0] == got[1]
    assert issuer.count("grant refresh_token") == refreshes + 1
    assert TokenStore(store).load(url, "dynamic")["access_token"] == got[0]
    # The rotated refresh token both now hold still works: the grant was not revoked as replayed.
    third = runner(url, store)
    assert third.usable_token() == got[0]
    assert await third.refresh() != got[0]


async def test_a_lock_held_past_the_deadline_is_a_named_error(tmp_path: Path) -> None:
    holder, waiter = TokenStore(tmp_path), TokenStore(tmp_path)
    async with holder.locked("https://mcp.example.com/mcp", "dynamic", timeout=1):
        with pytest.raises(OAuthError) as caught:
            async with waiter.locked("https://mcp.example.com/mcp", "dynamic", timeout=0.3):
                pass
    assert caught.value.error == "store_busy"
    async with waiter.locked("https://mcp.example.com/mcp", "dynamic", timeout=0.3):
        pass  # free again once the holder let go
    locks = await anyio.Path(tmp_path).glob("*.lock").__anext__()
    assert (await locks.stat()).st_mode & 0o777 == 0o600
