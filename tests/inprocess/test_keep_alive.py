"""The HTTP fronts idle out after their clients: an idle keep-alive connection is closed by the header deadline
(bridge.front.h11_guard), never by uvicorn's own keep-alive timer at httpx's default idle expiry. With both at 5 s
a loaded machine had a client reuse a connection the bridge was closing at that moment: a ReadError on a POST
(tests/fleet/test_fleet_reload.py saw it on 1 of 3 runs under load)."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

from mcp_eras.bridge import clikit
from mcp_eras.bridge.front.h11_guard import DEFAULT_HEADER_TIMEOUT


@pytest.mark.parametrize("header_timeout", [DEFAULT_HEADER_TIMEOUT, 0.5, 30.0])
def test_idle_connections_outlive_the_clients_idle_expiry(header_timeout: float) -> None:
    config = clikit.server_config(Starlette(), header_timeout)
    client_expiry = httpx.Limits().keepalive_expiry
    assert client_expiry is not None
    assert config.timeout_keep_alive > client_expiry  # uvicorn's timer never closes before the client lets go
    assert config.timeout_keep_alive > header_timeout  # the header deadline is the idle bound (it may be shorter)
    assert config.http.__name__ == "HeaderTimeoutH11"  # that deadline is armed on every connection
    assert config.proxy_headers is False and config.server_header is False  # secure by default (see server_config)
