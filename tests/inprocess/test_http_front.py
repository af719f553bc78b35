"""The 2026 Streamable HTTP front in process (Starlette TestClient) over a ``FakeUpstream``: transport
guards (Host, Origin, content type, body size), JSON vs SSE answers, error statuses; every error body
is a schema-valid 2026 JSON-RPC error."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest
from fakes import FakeUpstream
from starlette.testclient import TestClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.translate import eras

import spec

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def upstream() -> FakeUpstream:
    return FakeUpstream()


def client_for(upstream: FakeUpstream, **settings: object) -> TestClient:
    return TestClient(build_app(Settings(front_era="2026-07-28", **settings), upstream), base_url=BASE)


@pytest.fixture
def client(upstream: FakeUpstream) -> Iterator[TestClient]:
    with client_for(upstream) as c:
        yield c


def tools_call(name: str = "echo", rid: int = 1, **meta: object) -> dict:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["id"] = rid
    request["params"].update({"name": name, "arguments": {"text": "hi"}})
    request["params"]["_meta"].update(meta)
    return request


def headers_for(request: dict) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": eras.MODERN, "Mcp-Method": request["method"]}
    if "name" in request.get("params", {}):
        h["Mcp-Name"] = request["params"]["name"]
    return h


def post(client: TestClient, request: dict, **extra: str):  # type: ignore[no-untyped-def]
    return client.post("/mcp", content=json.dumps(request), headers={**headers_for(request), **extra})


def assert_error(response, status: int, code: int) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    body = response.json()
    spec.modern("JSONRPCErrorResponse", body)
    assert body["error"]["code"] == code
    return body


def test_a_call_is_answered_as_json_and_reaches_the_upstream_unchanged(client: TestClient, upstream: FakeUpstream) -> None:
    request = tools_call()
    response = post(client, request)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    spec.modern("CallToolResultResponse", response.json())
    assert upstream.calls[0][0] == request and upstream.started == 1


def test_notifications_first_turn_the_answer_into_an_sse_stream(client: TestClient) -> None:
    request = tools_call("progress", progressToken="tok")
    response = post(client, request)
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = [json.loads(line[len("data: "):]) for line in response.text.splitlines() if line.startswith("data: ")]
    assert [f.get("method") for f in frames] == ["notifications/progress", "notifications/progress", None]
    for note in frames[:2]:
        spec.modern("ProgressNotification", note)
    spec.modern("CallToolResultResponse", frames[2])


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example"])
def test_foreign_host_is_refused_on_every_route(client: TestClient, host: str) -> None:
    for method, path in (("POST", "/mcp"), ("GET", "/healthz"), ("GET", "/mcp")):
        response = client.request(method, path, headers={**headers_for(tools_call()), "Host": host}, content=b"{}")
        body = assert_error(response, 421, -32600)
        assert "id" not in body


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:9"])
def test_loopback_hosts_pass(client: TestClient, host: str) -> None:
    assert post(client, tools_call(), Host=host).status_code == 200


def test_configured_hosts_pass(upstream: FakeUpstream) -> None:
    with client_for(upstream, allowed_hosts=["bridge.example"]) as c:
        assert post(c, tools_call(), Host="bridge.example:443").status_code == 200
        assert post(c, tools_call(), Host="other.example").status_code == 421


def test_foreign_origin_is_refused_loopback_origin_passes(client: TestClient) -> None:
    assert_error(post(client, tools_call(), Origin="https://evil.example"), 403, -32600)
    assert post(client, tools_call(), Origin="http://localhost:3000").status_code == 200


def test_content_type_and_declared_size(upstream: FakeUpstream) -> None:
    with client_for(upstream, max_body_bytes=64) as c:
        assert_error(post(c, tools_call(), **{"Content-Type": "text/plain"}), 415, -32600)
        assert_error(post(c, tools_call()), 413, -32600)  # the example is larger than 64 bytes


def test_header_body_mismatch_is_32020(client: TestClient) -> None:
    body = assert_error(post(client, tools_call(), **{"Mcp-Name": "other"}), 400, -32020)
    spec.modern("HeaderMismatchError", body)


def test_a_named_limit_is_503(client: TestClient) -> None:
    body = assert_error(post(client, tools_call("limited")), 503, -32000)
    assert body["id"] == 1 and body["error"]["data"] == {"limit": "upstream_sessions"}


def test_unknown_method_is_404(client: TestClient) -> None:
    request = tools_call()
    request["method"] = "tools/frobnicate"
    assert_error(post(client, request), 404, -32601)


def test_unparseable_body_gets_an_error_without_id(client: TestClient) -> None:
    response = client.post("/mcp", content=b"{nope", headers=headers_for(tools_call()))
    body = assert_error(response, 400, -32700)
    assert "id" not in body


def test_notification_is_accepted_with_202(client: TestClient) -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/whatever"}
    response = client.post("/mcp", content=json.dumps(note), headers={**headers_for(note)})
    assert response.status_code == 202 and response.content == b""


def test_get_is_not_a_2026_endpoint(client: TestClient) -> None:
    response = client.get("/mcp", headers={"Accept": "text/event-stream"})
    assert_error(response, 405, -32600)
    assert response.headers["allow"] == "POST"


def test_healthz_reports_the_upstream(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "upstream": {"era": eras.MODERN, "calls": 0}}


@pytest.mark.parametrize("depth", [10, 127, 129, 300, 2_000, 100_000])
def test_nesting_depth_is_refused_before_any_work(client: TestClient, upstream: FakeUpstream, depth: int) -> None:
    request = tools_call()
    inner = depth - 3  # request > params > arguments > the nested value
    value = "[" * inner + "]" * inner
    raw = json.dumps(request).replace('"hi"', value).encode()
    response = client.post("/mcp", content=raw, headers=headers_for(request))
    if depth <= 128:
        assert response.status_code == 200, response.text
        return
    body = assert_error(response, 400, -32700 if depth > 1024 else -32600)
    assert "Traceback" not in response.text and "id" not in body
    assert not upstream.calls
    assert post(client, tools_call()).status_code == 200  # a normal call right after
