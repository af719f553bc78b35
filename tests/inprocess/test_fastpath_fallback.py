"""The fast paths on a library they were not tested on: each checks the versions and private attributes it relies
on when it is set up, and then either refuses loudly (the header deadline, which has no fallback) or steps aside for
the normal path with one warning on stderr naming the library, its version and what is missing."""

from __future__ import annotations

import asyncio
from typing import Any

import httpcore
import httpx
import pytest
from starlette.responses import StreamingResponse

from mcp_eras.bridge import _perf
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front import fast_post, h11_guard, sse_response
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.sse import SSE_HEADERS
from mcp_eras.bridge.upstream import http_pool, lean_http

TIMEOUT = httpx.Timeout(5.0)
SHORTCUT_METHODS = ("on_headers_complete", "on_body", "on_message_complete")
"""What the protocol class overrides only when the shortcut is wired in."""


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new process would: nothing said yet."""
    monkeypatch.setattr(_perf, "_fallen_back", set())


def pretend(monkeypatch: pytest.MonkeyPatch, dist: str, version: str) -> None:
    real = _perf.version
    monkeypatch.setattr(_perf, "version", lambda name: version if name == dist else real(name))


def warnings_in(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if "warning" in line]


# --- the MCP endpoint's HTTP shortcut (fast_post, on httptools' protocol) ---------------------------------------


@pytest.fixture
def httptools_protocol() -> type[Any]:
    impl = pytest.importorskip("uvicorn.protocols.http.httptools_impl", reason="httptools (mcp-eras[fast])")
    return impl.HttpToolsProtocol  # type: ignore[no-any-return]


def shortcut() -> fast_post.FastPost:
    from fakes import FakeUpstream

    app = build_app(Settings(), FakeUpstream(), None)
    return fast_post.FastPost(app.state.front, "/mcp")


def test_on_the_tested_uvicorn_the_shortcut_is_wired_in(httptools_protocol: type[Any],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert fast_post.unsupported(httptools_protocol) is None
    cls = h11_guard.header_timeout_protocol(10, httptools_protocol, fast=shortcut())
    assert all(name in vars(cls) for name in SHORTCUT_METHODS)
    assert warnings_in(capsys) == []


def test_a_uvicorn_without_start_asgi_task_falls_back_with_one_warning(httptools_protocol: type[Any],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delattr(httptools_protocol, "_start_asgi_task")
    for _ in range(3):  # every app of a process (fleet mode builds several): still one warning
        cls = h11_guard.header_timeout_protocol(10, httptools_protocol, fast=shortcut())
        assert not any(name in vars(cls) for name in SHORTCUT_METHODS)  # uvicorn serves every request
    [warning] = warnings_in(capsys)
    assert f"uvicorn {_perf.version('uvicorn')}" in warning and "HttpToolsProtocol._start_asgi_task" in warning


def test_a_request_cycle_without_an_attribute_the_shortcut_sets_falls_back(httptools_protocol: type[Any],
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

    monkeypatch.delattr(RequestResponseCycle, "send_500_response")
    cls = h11_guard.header_timeout_protocol(10, httptools_protocol, fast=shortcut())
    assert not any(name in vars(cls) for name in SHORTCUT_METHODS)
    [warning] = warnings_in(capsys)
    assert "RequestResponseCycle.send_500_response" in warning


@pytest.mark.parametrize(("dist", "version"), [("uvicorn", "0.56.0"), ("uvicorn", "0.54.9"), ("starlette", "1.11.0")])
def test_an_untested_version_falls_back_naming_it(httptools_protocol: type[Any], monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], dist: str, version: str) -> None:
    pretend(monkeypatch, dist, version)
    cls = h11_guard.header_timeout_protocol(10, httptools_protocol, fast=shortcut())
    assert not any(name in vars(cls) for name in SHORTCUT_METHODS)
    [warning] = warnings_in(capsys)
    assert f"{dist} {version}" in warning and "tested on" in warning


def test_a_protocol_without_what_the_header_deadline_needs_is_refused_at_start() -> None:
    class Bare(asyncio.Protocol):
        pass

    with pytest.raises(RuntimeError, match=r"lacks Bare\.cycle, Bare\.loop"):
        h11_guard.header_timeout_protocol(10, Bare)


# --- SSE responses without a watcher task (sse_response) -------------------------------------------------------


async def _chunks() -> Any:
    yield b"data: 1\n\n"


def test_a_starlette_whose_streaming_response_changed_falls_back(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sse_response, "WATCHED", True)  # (restored after the test)
    assert sse_response.check() is True and warnings_in(capsys) == []
    monkeypatch.delattr(StreamingResponse, "stream_response")
    assert sse_response.check() is False
    assert sse_response.check() is False
    [warning] = warnings_in(capsys)
    assert f"starlette {_perf.version('starlette')}" in warning and "StreamingResponse.stream_response" in warning
    response = sse_response.SSEResponse(_chunks(), media_type="text/event-stream", headers=SSE_HEADERS)
    assert response.raw_headers and response.body_iterator is not None  # made by Starlette's own __init__


def test_a_starlette_that_sets_more_in_its_response_falls_back(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sse_response, "WATCHED", True)
    real = StreamingResponse.__init__

    def grown(self: Any, *args: Any, **kwargs: Any) -> None:
        real(self, *args, **kwargs)
        self.something_new = 1

    monkeypatch.setattr(StreamingResponse, "__init__", grown)
    assert sse_response.check() is False
    [warning] = warnings_in(capsys)
    assert "StreamingResponse sets something_new" in warning


# --- the upstream keep-alive pool and lean HTTP/1.1 client (http_pool, lean_http) -------------------------------


@pytest.mark.anyio
async def test_on_the_tested_httpx_the_upstream_client_is_the_lean_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert http_pool.unsupported() is None
    async with http_pool.upstream_client(TIMEOUT, 5.0) as client:
        assert lean_http.lean_pool(client) is not None
        assert isinstance(lean_http.post(client, "http://127.0.0.1:9/mcp", b"{}", {}, TIMEOUT), lean_http._Post)  # noqa: SLF001
    assert warnings_in(capsys) == []


def renamed(init: Any) -> Any:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        vars(self)["origin"] = vars(self).pop("_origin")

    return __init__


@pytest.mark.anyio
@pytest.mark.parametrize("change", ["httpcore _origin", "httpx get_environment_proxies", "httpx 0.30.0",
                                    "httpcore 1.1.0"])
async def test_an_untested_httpx_or_httpcore_gets_the_plain_httpx_client(change: str, monkeypatch: pytest.MonkeyPatch,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    dist, what = change.split()
    if what == "_origin":  # an httpcore whose connection keeps its origin under another name
        monkeypatch.setattr(httpcore.AsyncHTTPConnection, "__init__", renamed(httpcore.AsyncHTTPConnection.__init__))
    elif what == "get_environment_proxies":
        monkeypatch.setattr(http_pool, "_environment_proxies", None)
    else:
        pretend(monkeypatch, dist, what)
    for _ in range(2):
        async with http_pool.upstream_client(TIMEOUT, 5.0) as client:
            assert lean_http.lean_pool(client) is None  # httpx's own transport and pool
            assert not isinstance(lean_http.post(client, "http://127.0.0.1:9/mcp", b"{}", {}, TIMEOUT), lean_http._Post)  # noqa: SLF001
    [warning] = warnings_in(capsys)
    assert f"{dist} {_perf.version(dist)}" in warning and (what in warning or "tested on" in warning)
