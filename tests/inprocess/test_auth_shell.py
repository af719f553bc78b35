"""The auth shell's parts on their own: the token store's file modes and atomic writes, the loopback
listener's state check, one-shot and deadline, the browser fallback, and log redaction at every level.
(In-process: these are the bridge's own sockets and files; no peer is involved.)"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mcp_eras.bridge.auth import TokenStore, default_store_dir, redact
from mcp_eras.bridge.auth.browser import open_in_browser
from mcp_eras.bridge.auth.listener import ListenerTimeout, RedirectListener

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


@pytest.fixture(autouse=True)
def _logging_as_found() -> Iterator[None]:
    yield
    redact.uninstall()


def test_store_modes_atomic_write_and_entries(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "a" / "tokens")
    path = store.save("HTTPS://MCP.example.com/mcp", "dynamic", {"access_token": "t1"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    store.save("https://mcp.example.com/mcp", "dynamic", {"access_token": "t2"})  # same entry, replaced
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind
    assert store.load("https://mcp.example.com/mcp", "dynamic") == {"access_token": "t2"}
    store.save("https://mcp.example.com/mcp", "pre-1", {"access_token": "t3"})
    store.save("https://other.example.com", "dynamic", {"access_token": "t4"})
    assert sorted(e.client for e in store.entries("https://mcp.example.com/mcp")) == ["dynamic", "pre-1"]
    assert store.delete("https://mcp.example.com/mcp") == 2
    assert [e.resource for e in store.entries()] == ["https://other.example.com"]
    assert store.load("https://mcp.example.com/mcp", "dynamic") is None


def test_store_tightens_a_loose_directory_and_skips_garbage(tmp_path: Path) -> None:
    loose = tmp_path / "tokens"
    loose.mkdir(mode=0o755)
    os.chmod(loose, 0o755)
    store = TokenStore(loose)
    store.save("https://a.example.com", "c", {"access_token": "x"})
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700
    (loose / "broken.json").write_text("{not json")
    (loose / "list.json").write_text(json.dumps([1]))
    assert [e.client for e in store.entries()] == ["c"]


def test_default_store_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_store_dir() == tmp_path / "mcp-eras" / "tokens"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_store_dir() == tmp_path / "home" / ".config" / "mcp-eras" / "tokens"


async def _get(url: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(url)


def test_listener_checks_state_and_is_one_shot() -> None:
    async def scenario() -> None:
        async with RedirectListener() as listener:
            assert listener.port != 0 and listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
            listener.expect("good-state")
            waiting = asyncio.ensure_future(listener.wait("good-state", 5))
            forged = await _get(listener.redirect_uri + "?code=evil&state=forged")
            missing = await _get(listener.redirect_uri + "?code=evil")
            wrong_path = await _get(f"http://127.0.0.1:{listener.port}/other?state=good-state")
            assert (forged.status_code, missing.status_code, wrong_path.status_code) == (400, 400, 400)
            assert not waiting.done()
            good = await _get(listener.redirect_uri + "?code=c1&state=good-state&iss=https%3A%2F%2Fas")
            assert good.status_code == 200 and "close this window" in good.text
            assert await waiting == {"code": "c1", "state": "good-state", "iss": "https://as"}
            with pytest.raises(httpx.ConnectError):  # one shot: the port is closed after the answer
                await _get(listener.redirect_uri + "?code=c2&state=good-state")

    asyncio.run(scenario())


def test_listener_deadline() -> None:
    async def scenario() -> None:
        async with RedirectListener() as listener:
            with pytest.raises(ListenerTimeout, match="no authorization response"):
                await listener.wait("s", 0.2)

    asyncio.run(scenario())


def test_browser_fallback_prints_the_url(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(url: str, new: int = 0, autoraise: bool = True) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", broken)
    open_in_browser("https://as.example.com/authorize?x=1")
    assert "open this URL to sign in:\n  https://as.example.com/authorize?x=1" in capsys.readouterr().err
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0, autoraise=True: opened.append(url) or True)
    open_in_browser("https://as.example.com/a")
    assert opened == ["https://as.example.com/a"] and "no browser" not in capsys.readouterr().err


def test_redaction_at_every_level_in_args_exceptions_and_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    logger = logging.getLogger("test.redaction")
    handler = logging.StreamHandler()  # a handler added before install: the record factory still covers it
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        redact.install()
        redact.remember("registered-secret-value-123")
        for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.CRITICAL):
            logger.log(level, "plain %s", "registered-secret-value-123")
            logger.log(level, "form access_token=abc.def.ghi&x=1 json %s", json.dumps({"refresh_token": "rrr-123"}))
            logger.log(level, "Authorization: Bearer eyJhbGciOi.J9.xyz and Basic dXNlcjpwYXNz")
        try:
            raise ValueError("code_verifier=verifier-secret-000 registered-secret-value-123")
        except ValueError:
            logger.exception("boom")
        logger.warning("%(client_secret)s", {"client_secret": "dict-arg-secret"})
    finally:
        logger.removeHandler(handler)
    err = capsys.readouterr().err
    for secret in ("registered-secret-value-123", "abc.def.ghi", "rrr-123", "eyJhbGciOi", "dXNlcjpwYXNz", "verifier-secret-000"):
        assert secret not in err, secret
    assert err.count("[redacted]") >= 20 and "CRITICAL plain [redacted]" in err and "ValueError" in err
    assert "dict-arg-secret" in err  # only named secrets and credential shapes are masked, not every value
