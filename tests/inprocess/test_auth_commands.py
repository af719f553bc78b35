"""``mcp-eras auth login / status / logout`` against the test authorization server and resource of
test_auth_flow, served by a real uvicorn on a loopback port (the CLI makes its own HTTP connections).

Why in-process: the CLI is driven through typer's runner, with ``webbrowser.open`` replaced by a headless
agent that follows the authorize redirect to the CLI's listener; the real ``oidc-provider`` peer is the
end-to-end tests' job."""

from __future__ import annotations

import json
import socket
import stat
import threading
import time
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from test_auth_flow import Peer
from typer.testing import CliRunner

from mcp_eras.bridge.auth import redact
from mcp_eras.bridge.auth.cli import app


@pytest.fixture
def served() -> Iterator[Peer]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    peer = Peer(as_url=base, rs_url=base)
    peer.now = time.time()
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=peer.as_routes() + peer.rs_routes()), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield peer
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        redact.uninstall()


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    opened: list[str] = []

    def follow(url: str, new: int = 0, autoraise: bool = True) -> bool:
        opened.append(url)
        with httpx.Client() as agent:
            location = agent.get(url).headers["location"]
            assert agent.get(location).status_code == 200
        return True

    monkeypatch.setattr(webbrowser, "open", follow)
    return opened


def test_login_status_logout(served: Peer, headless: list[str], tmp_path: Path) -> None:
    store = str(tmp_path / "tokens")
    cli = CliRunner()
    login = cli.invoke(app, ["login", served.mcp_url, "--oauth-token-store", store, "--timeout", "20"])
    assert login.exit_code == 0, login.output
    assert f"signed in to {served.mcp_url}" in login.output and "refreshable" in login.output
    assert len(headless) == 1 and served.grants == ["authorization_code"]
    [entry] = list((tmp_path / "tokens").iterdir())
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    token = json.loads(entry.read_text())["tokens"]["access_token"]
    status = cli.invoke(app, ["status", "--oauth-token-store", store, "--json"])
    assert status.exit_code == 0 and token not in status.output
    row = json.loads(status.output.strip().splitlines()[-1])
    assert row["resource"] == served.mcp_url and row["client"] == "dynamic" and row["refreshable"] is True
    text = cli.invoke(app, ["status", "--oauth-token-store", store])
    assert "client=dynamic" in text.output and token not in text.output
    out = cli.invoke(app, ["logout", served.mcp_url.replace("http://", "HTTP://"), "--oauth-token-store", store])
    assert out.exit_code == 0 and "signed out of" in out.output and "offers no revocation endpoint" in out.output
    assert list((tmp_path / "tokens").iterdir()) == []
    again = cli.invoke(app, ["logout", served.mcp_url, "--oauth-token-store", store])
    assert "no stored sign-in" in again.output


def test_login_failure_is_named(served: Peer, headless: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["login", served.mcp_url, "--oauth-token-store", str(tmp_path), "--oauth-scope", "x",
                                      "--oauth-client-metadata-url", "http://not-https.example/c.json"])
    assert result.exit_code == 1 and "bad_config" in result.output and headless == []
