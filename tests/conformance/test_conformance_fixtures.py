"""The fixture servers of the MRTR legs, checked directly on their own wire (no bridge, no harness).

- samples/conformance/legacy_input_required_server.py (mcp 1.29.0): every tool and the prompt of the
  2026-07-28 input-required scenarios asks its questions as 2025 server->client requests.
- samples/conformance/modern_elicitation_server.py (mcp 2.3.0): the 2025-11-25 elicitation/sampling
  tools answer on the 2026 wire with input_required, and the endpoint refuses the legacy handshake.
"""

from __future__ import annotations

from typing import Any

import harness
import httpx
import mcp.types as t
import pytest
from mcp import Client

import peers

pytestmark = [pytest.mark.conformance, pytest.mark.anyio, pytest.mark.timeout(120)]

LEGACY_FIXTURE = peers.ROOT / "samples" / "conformance" / "legacy_input_required_server.py"
MODERN_FIXTURE = peers.ROOT / "samples" / "conformance" / "modern_elicitation_server.py"


class Peer:
    """Client-side answers to input requests; records what was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any]] = []

    async def sampling(self, ctx: Any, params: t.CreateMessageRequestParams) -> t.CreateMessageResult:
        first = params.messages[0].content
        self.asked.append(("sampling/createMessage", first.text if isinstance(first, t.TextContent) else None))
        return t.CreateMessageResult(role="assistant", content=t.TextContent(type="text", text="Paris"),
                                     model="test-model", stop_reason="endTurn")

    async def elicitation(self, ctx: Any, params: Any) -> t.ElicitResult:
        self.asked.append(("elicitation/create", params.message))
        schema = params.requested_schema
        content: dict[str, Any] = {}
        for key, prop in schema.get("properties", {}).items():
            if prop.get("type") == "boolean":
                content[key] = True
            elif prop.get("type") == "array":
                content[key] = []
            elif prop.get("type") in ("integer", "number"):
                content[key] = 1
            elif "enum" in prop:
                content[key] = prop["enum"][0]
            elif "oneOf" in prop:
                content[key] = prop["oneOf"][0]["const"]
            else:
                content[key] = "Alice"
        return t.ElicitResult(action="accept", content=content)

    async def roots(self, ctx: Any) -> t.ListRootsResult:
        self.asked.append(("roots/list", None))
        return t.ListRootsResult(roots=[t.Root(uri="file:///test/root", name="Test Root")])


def _text(result: t.CallToolResult) -> str:
    assert not result.is_error, result
    first = result.content[0]
    assert isinstance(first, t.TextContent)
    return first.text


@pytest.mark.legacy_peer
@pytest.mark.parametrize("plain_roots", [False, True], ids=["roots-on-call-stream", "roots-on-get-stream"])
async def test_legacy_fixture_asks_with_server_requests(plain_roots: bool) -> None:
    port = peers.free_port()
    cmd = [peers.legacy_python(), str(LEGACY_FIXTURE), "--port", str(port)]
    if plain_roots:
        cmd.append("--plain-list-roots")
    peer = Peer()
    with harness.serving(cmd, port) as url:
        async with Client(url, mode="legacy", sampling_callback=peer.sampling,
                          elicitation_callback=peer.elicitation, list_roots_callback=peer.roots) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == {
                "test_input_required_result_elicitation", "test_input_required_result_sampling",
                "test_input_required_result_list_roots", "test_input_required_result_request_state",
                "test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
                "test_input_required_result_tampered_state", "test_input_required_result_capabilities",
            }
            call = client.call_tool
            assert _text(await call("test_input_required_result_elicitation", {})) == "Hello, Alice!"
            assert _text(await call("test_input_required_result_sampling", {})) == "Model said: Paris"
            assert "file:///test/root" in _text(await call("test_input_required_result_list_roots", {}))
            assert "state-ok" in _text(await call("test_input_required_result_request_state", {}))
            peer.asked.clear()
            assert _text(await call("test_input_required_result_multiple_inputs", {})).startswith("All inputs")
            assert sorted(m for m, _ in peer.asked) == ["elicitation/create", "roots/list", "sampling/createMessage"]
            peer.asked.clear()
            assert _text(await call("test_input_required_result_multi_round", {})) == "Alice likes Alice."
            assert peer.asked == [("elicitation/create", "Step 1: What is your name?"),
                                  ("elicitation/create", "Step 2: What is your favorite color?")]
            prompt = await client.get_prompt("test_input_required_result_prompt")
            first = prompt.messages[0].content
            assert isinstance(first, t.TextContent) and first.text == "Use the following context: Alice"


@pytest.mark.legacy_peer
async def test_legacy_fixture_respects_client_capabilities() -> None:
    port = peers.free_port()
    peer = Peer()
    with harness.serving([peers.legacy_python(), str(LEGACY_FIXTURE), "--port", str(port)], port) as url:
        async with Client(url, mode="legacy", sampling_callback=peer.sampling) as client:
            assert _text(await client.call_tool("test_input_required_result_capabilities", {})) == "Answers: Paris"
    assert peer.asked == [("sampling/createMessage", "Say hello")]


async def test_modern_fixture_uses_input_required_on_the_2026_wire() -> None:
    port = peers.free_port()
    peer = Peer()
    with harness.serving([peers.MODERN_PYTHON, str(MODERN_FIXTURE), "--port", str(port)], port) as url:
        async with Client(url, mode="2026-07-28", sampling_callback=peer.sampling,
                          elicitation_callback=peer.elicitation) as client:
            assert _text(await client.call_tool("test_sampling", {"prompt": "Hi?"})) == "LLM response: Paris"
            text = _text(await client.call_tool("test_elicitation", {"message": "Who?"}))
            assert text == 'User response: action=accept, content={"username": "Alice", "email": "Alice"}'
            text = _text(await client.call_tool("test_elicitation_sep1034_defaults", {}))
            assert text.startswith("Elicitation completed: action=accept")
            text = _text(await client.call_tool("test_elicitation_sep1330_enums", {}))
            assert '"titledSingle": "value1"' in text
            # Round one by hand: the question travels as input_required, not as a server request.
            first = await client.session.call_tool("test_elicitation", {"message": "Who?"}, allow_input_required=True)
            assert isinstance(first, t.InputRequiredResult) and first.input_requests is not None
            assert [r.method for r in first.input_requests.values()] == ["elicitation/create"]
        assert [m for m, _ in peer.asked] == ["sampling/createMessage"] + ["elicitation/create"] * 3

        # The legacy handshake is refused: this endpoint is 2026-07-28 only.
        async with httpx.AsyncClient() as http:
            response = await http.post(url, headers={"Accept": "application/json, text/event-stream"}, json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "legacy", "version": "1"}}})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32022
        assert response.json()["error"]["data"]["supported"] == ["2026-07-28"]
