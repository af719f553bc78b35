"""Acceptance 1 (and observability): five sample servers of mixed SDKs, eras and transports behind
one fleet bridge; a 2026 client (mcp 2.3.0) and a 2025 client (mcp 1.29) each reach every server and
call a tool; a broken server affects only itself; /healthz and /metrics tell who speaks what."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import fleet_peers as fp
import httpx
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[fp.FleetBridge]:
    tmp = tmp_path_factory.mktemp("fleet")
    with fp.http_samples() as urls:
        servers = {**fp.mixed_servers(urls), "broken": {"command": str(tmp / "no-such-server")},
                   "mrtr": {"command": fp.peers.legacy_python(), "args": [str(fp.peers.SAMPLES / "legacy" / "mrtr_server.py")]},
                   "hung": {"command": "sleep", "args": ["120"], "era": fp.LEGACY, "connect_timeout": 1, "request_timeout": 2},
                   "traced": {"command": fp.peers.legacy_python(), "args": fp.gate_cmd()[1:],
                              "env_passthrough": ["PATH", "HOME"], "env": {"FLEET_GIVEN": "given"}}}
        with fp.fleet_bridge(tmp, servers, env={"FLEET_SECRET": "s3cret"}) as bridge:
            yield bridge


@pytest.mark.parametrize("server", list(fp.EXPECTED_ERA))
def test_a_2026_client_reaches_every_server(fleet: fp.FleetBridge, server: str) -> None:
    report = fp.run_client("modern", fleet.url(server))
    steps = report["scenarios"]["basic"]["steps"]
    assert report["protocol_version"] == fp.MODERN
    assert steps["server"]["name"] == fp.EXPECTED_NAME[server]
    assert steps["add"] == {"is_error": False, "text": ["5"]}
    assert steps["echo"] == {"is_error": False, "text": ["hello"]}


@fp.needs_legacy_front
@pytest.mark.parametrize("server", list(fp.EXPECTED_ERA))
def test_a_2025_client_reaches_every_server(fleet: fp.FleetBridge, server: str) -> None:
    report = fp.run_client("legacy", fleet.url(server))
    steps = report["scenarios"]["basic"]["steps"]
    assert steps["add"] == {"is_error": False, "text": ["5"]}
    assert steps["echo"] == {"is_error": False, "text": ["hello"]}
    assert steps["server"]["name"] == fp.EXPECTED_NAME[server]


def test_broken_and_unknown_servers_fail_alone(fleet: fp.FleetBridge) -> None:
    import anyio

    async def main() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            frame = await fp.rpc(client, fleet.url("broken"), "tools/call", {"name": "echo", "arguments": {"text": "x"}})
            assert frame["error"]["code"] == -32603 and "broken" in frame["error"]["message"]
            for name in fp.EXPECTED_ERA:
                assert await fp.echo(client, fleet.url(name), f"still {name}") == f"still {name}"
            resp = await client.post(f"{fleet.base}/servers/nope/mcp", json={})
            assert resp.status_code == 404

    anyio.run(main)
    health = fleet.health()["servers"]
    assert health["broken"]["state"] == "down" and health["broken"]["last_error"]
    for name, era in fp.EXPECTED_ERA.items():
        assert health[name]["state"] == "ok", health[name]
        assert health[name]["era"] == era


def test_a_hung_server_does_not_hold_up_the_others(fleet: fp.FleetBridge) -> None:
    """A server that never answers: calls to it fail after its own timeouts; the others answer meanwhile."""
    import anyio

    async def main() -> tuple[dict, list[str]]:
        async with httpx.AsyncClient(timeout=120) as client:
            hung = asyncio.create_task(fp.rpc(client, fleet.url("hung"), "tools/call", {"name": "echo", "arguments": {"text": "x"}}))

            async def hung_in_flight() -> bool:
                return (await client.get(f"{fleet.base}/servers/hung/healthz")).json()["inflight"] >= 1

            await fp.until(hung_in_flight, "the call to the hung server to be in flight")
            answers = [await fp.echo(client, fleet.url(name), name) for name in fp.EXPECTED_ERA]
            return await hung, answers

    frame, answers = anyio.run(main, backend="asyncio")
    assert answers == list(fp.EXPECTED_ERA)
    assert frame["error"]["code"] == -32603


def test_healthz_and_metrics_name_eras(fleet: fp.FleetBridge) -> None:
    import anyio

    async def main() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            for name in fp.EXPECTED_ERA:
                await fp.echo(client, fleet.url(name), "count me")

    anyio.run(main)
    text = fleet.metrics()
    for name, era in fp.EXPECTED_ERA.items():
        assert fp.metric(text, "mcp_bridge_requests_total", server=name, client_era=fp.MODERN, upstream_era=era,
                         method="tools/call", outcome="ok") >= 1
        assert fp.metric(text, "mcp_bridge_request_duration_seconds_count", server=name, method="tools/call") >= 1
        assert fp.metric(text, "mcp_bridge_upstream_era", server=name, era=era) == 1
        assert fp.metric(text, "mcp_bridge_upstream_up", server=name) == 1
    assert fp.metric(text, "mcp_bridge_upstream_up", server="broken") == 0
    assert fp.metric(text, "mcp_bridge_requests_total", server="broken", outcome="unavailable") >= 1
    assert "# TYPE mcp_bridge_parked_calls gauge" in text
    assert "# TYPE mcp_bridge_upstream_restarts_total counter" in text


@fp.needs_legacy_front
def test_metrics_count_2025_clients(fleet: fp.FleetBridge) -> None:
    before = fleet.health()["servers"]["modern-http"]["requests_by_client_era"].get(fp.LEGACY, 0)
    fp.run_client("legacy", fleet.url("modern-http"))
    assert fleet.health()["servers"]["modern-http"]["requests_by_client_era"][fp.LEGACY] >= before + 3
    text = fleet.metrics()
    assert fp.metric(text, "mcp_bridge_requests_total", server="modern-http", client_era=fp.LEGACY,
                     upstream_era=fp.MODERN, method="tools/call", outcome="ok") >= 3



def test_trace_context_crosses_the_translation(fleet: fp.FleetBridge) -> None:
    """W3C trace context from a 2026 client's HTTP headers reaches a legacy server in the request _meta."""
    import json

    import anyio

    trace = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
             "tracestate": "vendor=opaque", "baggage": "tenant=acme"}

    async def main() -> dict:
        async with httpx.AsyncClient(timeout=60) as client:
            frame = await fp.rpc(client, fleet.url("traced"), "tools/call", {"name": "show_trace", "arguments": {}}, headers=trace)
            untraced = await fp.rpc(client, fleet.url("traced"), "tools/call", {"name": "show_trace", "arguments": {}})
            assert json.loads(untraced["result"]["content"][0]["text"]) == {}
            return json.loads(frame["result"]["content"][0]["text"])

    assert anyio.run(main) == trace


def test_env_passthrough_control(fleet: fp.FleetBridge) -> None:
    """A server with env_passthrough sees only the listed variables of the bridge, plus its own env."""
    import anyio

    async def main() -> list[str]:
        async with httpx.AsyncClient(timeout=60) as client:
            return [(await fp.tool(client, fleet.url("traced"), "show_env", {"name": n}))[0]
                    for n in ("FLEET_SECRET", "FLEET_GIVEN", "PATH")]

    secret, given, path = anyio.run(main)
    assert (secret, given) == ("<unset>", "given")
    assert path and path != "<unset>"


@fp.needs_legacy_front
def test_2025_clients_of_2025_http_servers_pass_through_untranslated(fleet: fp.FleetBridge) -> None:
    """Same era, Streamable HTTP: the session, the GET stream and every frame are the server's own."""
    report = fp.run_client("legacy", fleet.url("legacy-http"), ("basic", "progress", "logging", "subscriptions", "errors"))
    steps = report["scenarios"]
    assert steps["errors"]["steps"]["missing_resource"]["code"] == -32002  # the server's own 2025 code
    assert "resources/updated memo://readme" in steps["subscriptions"]["steps"]["events"]
    assert [m["level"] for m in steps["logging"]["steps"]["warning_messages"]] == ["warning", "error"]
    text = fleet.metrics()
    # the handshake itself reached the server: only the passthrough forwards `initialize`
    assert fp.metric(text, "mcp_bridge_requests_total", server="legacy-http", client_era=fp.LEGACY, method="initialize") >= 1
    assert fp.metric(text, "mcp_bridge_requests_total", server="legacy-http", method="resources/read", outcome="error") >= 1
    for translated in ("legacy-stdio", "legacy-sse", "modern-http"):
        assert fp.metric(text, "mcp_bridge_requests_total", server=translated, method="initialize") == 0


def test_parked_mrtr_calls_are_reported(fleet: fp.FleetBridge) -> None:
    """A legacy server asking its client mid-call: the 2026 client gets input_required, the call is parked."""
    import anyio

    async def main() -> dict:
        async with httpx.AsyncClient(timeout=60) as client:
            return await fp.rpc(client, fleet.url("mrtr"), "tools/call", {"name": "ask_name", "arguments": {}},
                                capabilities={"elicitation": {"form": {}}})

    frame = anyio.run(main)
    assert frame["result"]["resultType"] == "input_required", frame
    text = fleet.metrics()
    assert fp.metric(text, "mcp_bridge_parked_calls", server="mrtr") >= 1
    assert fp.metric(text, "mcp_bridge_requests_total", server="mrtr", method="tools/call", outcome="input_required") >= 1
    assert fleet.health()["servers"]["mrtr"]["parked"] >= 1
