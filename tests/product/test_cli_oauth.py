"""Who the bridge signs in for (issue #35, "Who signs in"): the one local user on ``--stdio``; on an HTTP front nobody
unless the operator opts in with ``--oauth-shared-login`` on a loopback bind (else every caller would borrow one sign-in)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.auth import OAuthOptions
from mcp_eras.bridge.cli_values import sign_in_options
from mcp_eras.bridge.clikit import CliError

URL = "http://127.0.0.1:9/mcp"
NONE: dict[str, object] = {"client_id": None, "client_secret": None, "client_metadata_url": None, "scope": None,
                           "redirect_port": 0, "token_store": None}


def options(**kw: object) -> OAuthOptions | None:
    given = {"stdio": True, "enabled": True, "shared_login": False, "bind_host": None, **NONE, **kw}
    return sign_in_options(given.pop("upstream", URL), **given)  # type: ignore[arg-type]


def test_stdio_front_signs_in_for_its_user() -> None:
    got = options(client_id="abc", scope="files:read", redirect_port=8765, token_store="/t")
    assert got == OAuthOptions(client_id="abc", scope="files:read", redirect_port=8765, token_store="/t")


def test_no_sign_in_without_an_http_upstream_or_when_disabled() -> None:
    assert options(upstream=None) is None
    assert options(enabled=False) is None


def test_http_front_signs_in_only_when_shared_login_is_asked() -> None:
    assert options(stdio=False) is None
    assert options(stdio=False, shared_login=True, bind_host="127.0.0.1") == OAuthOptions()
    assert options(stdio=False, shared_login=True) == OAuthOptions()  # the default bind is loopback


def test_shared_login_refuses_a_public_bind() -> None:
    with pytest.raises(CliError, match="bind to loopback"):
        options(stdio=False, shared_login=True, bind_host="0.0.0.0")


def test_bad_client_identity_is_refused() -> None:
    with pytest.raises(CliError, match="needs --oauth-client-id"):
        options(client_secret="s")
    with pytest.raises(CliError, match="https URL"):
        options(client_metadata_url="http://example.com/client.json")
