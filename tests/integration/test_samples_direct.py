"""The sample peers work WITHOUT the bridge: each era's client against the same era's servers.

Legacy (mcp 1.29.0) client <-> legacy servers over stdio, Streamable HTTP and (basic) HTTP+SSE;
modern (mcp 2.3.0) client <-> modern servers on the 2026-07-28 wire over stdio and HTTP.
Every client run is a subprocess printing one JSON report; the values are asserted precisely.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import peers

pytestmark = pytest.mark.legacy_peer

CLIENT_TIMEOUT = 240

LEGACY_EVERYTHING = str(peers.SAMPLES / "legacy" / "everything_server.py")
LEGACY_MRTR = str(peers.SAMPLES / "legacy" / "mrtr_server.py")
MODERN_EVERYTHING = str(peers.SAMPLES / "modern" / "everything_server.py")
MODERN_MRTR = str(peers.SAMPLES / "modern" / "mrtr_server.py")
LEGACY_CLIENT = str(peers.SAMPLES / "clients" / "legacy_client.py")
MODERN_CLIENT = str(peers.SAMPLES / "clients" / "modern_client.py")

TOOLS = ["add", "add_tool", "echo", "fail", "log_levels", "slow_count", "touch", "weather"]
WEATHER_SCHEMA_PROPERTIES = {"city", "temperature_c", "conditions"}
LOG_MESSAGES = {
    level: {"data": f"{level} message from log_levels", "level": level, "logger": "log_levels"}
    for level in ["debug", "info", "warning", "error"]
}


def run_client(
    python: str, client: str, target: list[str], scenarios: list[str], expect_ok: bool = True
) -> dict[str, Any]:
    cmd = [python, client, *target[:1]] if target[0].startswith("http") else [python, client]
    for scenario in scenarios:
        cmd += ["--scenario", scenario]
    cmd.append("--json")
    if not target[0].startswith("http"):
        cmd += ["--", *target]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.stdout.strip(), f"no report (rc={proc.returncode}); stderr:\n{proc.stderr[-4000:]}"
    report = json.loads(proc.stdout)
    if not expect_ok:
        assert proc.returncode != 0 and not report["ok"], report
        return report
    failed = {name: s["error"] for name, s in report["scenarios"].items() if not s["ok"]}
    assert proc.returncode == 0 and report["ok"], f"rc={proc.returncode} failed={failed}\n{proc.stderr[-4000:]}"
    assert sorted(report["scenarios"]) == sorted(scenarios)
    return report


@contextmanager
def http_server(python: str, script: str, transport: str = "http", *extra: str) -> Iterator[str]:
    port = peers.free_port()
    with peers.running([python, script, transport, "--port", str(port), *extra], port=port):
        yield f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"


def steps(report: dict[str, Any], scenario: str) -> dict[str, Any]:
    return report["scenarios"][scenario]["steps"]


# --- shared expectations (both eras) -------------------------------------------------------


def check_basic_common(basic: dict[str, Any]) -> None:
    assert basic["tools"] == TOOLS
    schema = basic["weather_output_schema"]
    assert schema["type"] == "object" and set(schema["properties"]) == WEATHER_SCHEMA_PROPERTIES
    assert basic["prompts"] == ["hello", "review"]
    assert basic["resources"] == ["memo://config", "memo://logo", "memo://readme"]
    assert basic["templates"] == ["greeting://{name}"]
    assert basic["echo"] == {"is_error": False, "text": ["hello"]}
    assert basic["add"] == {"is_error": False, "text": ["5"]}
    weather = basic["weather"]
    assert weather["is_error"] is False
    assert weather["structured"] == {"city": "Paris", "temperature_c": 18.5, "conditions": "cloudy"}
    assert json.loads(weather["text"][0]) == weather["structured"]
    assert basic["read_readme"] == [
        {
            "uri": "memo://readme",
            "mime_type": "text/plain",
            "text": "mcp-eras everything server: a small, deterministic peer for bridge tests.\n",
        }
    ]
    [config] = basic["read_config"]
    assert config["mime_type"] == "application/json"
    assert json.loads(config["text"]) == {"name": "everything", "version": 1, "features": ["tools", "resources", "prompts"]}
    assert basic["read_logo"] == [
        {"uri": "memo://logo", "mime_type": "image/png", "blob_hex": "89504e470d0a1a0a0001020304050607"}
    ]
    assert basic["read_greeting"] == [{"uri": "greeting://world", "mime_type": "text/plain", "text": "Hello, world!"}]
    assert basic["prompt_review"] == [{"role": "user", "text": "Please review this rust code:\n\nx = 1"}]
    assert basic["prompt_hello"] == [{"role": "user", "text": "Say hello to the user in one short sentence."}]
    assert basic["complete_language"] == ["python"]
    assert basic["complete_name"] == ["alice"]


def check_progress(progress: dict[str, Any]) -> None:
    assert progress["result"] == {"is_error": False, "text": ["counted to 3"]}
    assert progress["progress"] == [[1, 3, "step 1/3"], [2, 3, "step 2/3"], [3, 3, "step 3/3"]]


def check_logging(logging: dict[str, Any]) -> None:
    assert logging["debug_result"] == {"is_error": False, "text": ["emitted 4 log messages"]}
    assert logging["debug_messages"] == [LOG_MESSAGES[level] for level in ["debug", "info", "warning", "error"]]
    assert logging["warning_result"] == {"is_error": False, "text": ["emitted 2 log messages"]}
    assert logging["warning_messages"] == [LOG_MESSAGES["warning"], LOG_MESSAGES["error"]]


def check_subscriptions(subs: dict[str, Any]) -> None:
    assert subs["add_tool"] == {"is_error": False, "text": ["added tool dyn_tool"]}
    assert subs["events"] == ["resources/list_changed", "resources/updated memo://readme", "tools/list_changed"]
    assert subs["tools_after"] == sorted([*TOOLS, "dyn_tool"])
    assert subs["runtime_tool"] == {"is_error": False, "text": ["dyn_tool was added at runtime"]}


def check_errors_common(errors: dict[str, Any]) -> None:
    assert errors["fail"] == {"result": {"is_error": True, "text": ["Error executing tool fail: intentional failure"]}}
    assert errors["unknown_tool"] == {"result": {"is_error": True, "text": ["Unknown tool: no_such_tool"]}}


# --- legacy client <-> legacy servers --------------------------------------------------------

LEGACY_ALL = ["basic", "progress", "logging", "subscriptions", "errors"]


def check_legacy_everything(report: dict[str, Any], scenarios: list[str]) -> None:
    assert report["client"] == "legacy"
    assert report["protocol_version"] == "2025-11-25"
    basic = steps(report, "basic")
    assert basic["server"]["name"] == "legacy-everything"
    assert basic["server"]["version"] == "0.1.0"
    assert basic["server"]["instructions"].startswith("Test peer of the mcp-eras project.")
    caps = basic["server"]["capabilities"]
    assert caps["logging"] == {} and caps["completions"] == {}
    assert caps["resources"] == {"subscribe": True, "listChanged": True}
    assert caps["tools"] == {"listChanged": True}
    assert basic["ping"] == {}
    check_basic_common(basic)
    if "progress" in scenarios:
        check_progress(steps(report, "progress"))
    if "logging" in scenarios:
        check_logging(steps(report, "logging"))
    if "subscriptions" in scenarios:
        check_subscriptions(steps(report, "subscriptions"))
        assert steps(report, "subscriptions")["unsubscribed"] is True
    if "errors" in scenarios:
        errors = steps(report, "errors")
        assert errors["missing_resource"] == {
            "code": -32002,
            "message": "Resource not found",
            "data": {"uri": "memo://missing"},
        }
        check_errors_common(errors)


def test_legacy_everything_stdio(legacy_python: str) -> None:
    report = run_client(legacy_python, LEGACY_CLIENT, [legacy_python, LEGACY_EVERYTHING], LEGACY_ALL)
    check_legacy_everything(report, LEGACY_ALL)


def test_legacy_everything_http(legacy_python: str) -> None:
    with http_server(legacy_python, LEGACY_EVERYTHING) as url:
        report = run_client(legacy_python, LEGACY_CLIENT, [url], LEGACY_ALL)
    check_legacy_everything(report, LEGACY_ALL)


def test_legacy_everything_sse_basic(legacy_python: str) -> None:
    with http_server(legacy_python, LEGACY_EVERYTHING, "sse") as url:
        report = run_client(legacy_python, LEGACY_CLIENT, [url], ["basic", "errors"])
    check_legacy_everything(report, ["basic", "errors"])


def test_legacy_everything_sdk_not_found(legacy_python: str) -> None:
    """``--not-found sdk`` keeps FastMCP 1.29's own answer to an unknown resource: code 0."""
    report = run_client(
        legacy_python, LEGACY_CLIENT, [legacy_python, LEGACY_EVERYTHING, "--not-found", "sdk"], ["errors"]
    )
    assert steps(report, "errors")["missing_resource"] == {
        "code": 0,
        "message": "Unknown resource: memo://missing",
        "data": None,
    }


# --- modern client <-> modern servers (2026-07-28 wire) --------------------------------------

MODERN_ALL = ["basic", "progress", "logging", "subscriptions", "errors"]


def check_modern_everything(report: dict[str, Any], scenarios: list[str]) -> None:
    assert report["client"] == "modern"
    assert report["protocol_version"] == "2026-07-28"
    basic = steps(report, "basic")
    server = basic["server"]
    assert (server["name"], server["version"]) == ("modern-everything", "0.1.0")
    assert server["instructions"].startswith("Test peer of the mcp-eras project.")
    assert server["supported_versions"] == ["2026-07-28"]
    caps = server["capabilities"]
    assert caps["logging"] == {} and caps["completions"] == {}
    assert caps["resources"] == {"subscribe": True, "listChanged": True}
    assert caps["tools"] == {"listChanged": True}
    assert "ping" not in basic
    check_basic_common(basic)
    if "progress" in scenarios:
        check_progress(steps(report, "progress"))
    if "logging" in scenarios:
        check_logging(steps(report, "logging"))
    if "subscriptions" in scenarios:
        subs = steps(report, "subscriptions")
        check_subscriptions(subs)
        assert subs["honored"] == {
            "toolsListChanged": True,
            "resourcesListChanged": True,
            "resourceSubscriptions": ["memo://readme"],
        }
    if "errors" in scenarios:
        errors = steps(report, "errors")
        assert errors["missing_resource"] == {
            "code": -32602,
            "message": "Unknown resource: memo://missing",
            "data": {"uri": "memo://missing"},
        }
        check_errors_common(errors)


def test_modern_everything_stdio() -> None:
    report = run_client(
        peers.MODERN_PYTHON, MODERN_CLIENT, [peers.MODERN_PYTHON, MODERN_EVERYTHING], MODERN_ALL
    )
    check_modern_everything(report, MODERN_ALL)


def test_modern_everything_http() -> None:
    with http_server(peers.MODERN_PYTHON, MODERN_EVERYTHING) as url:
        report = run_client(peers.MODERN_PYTHON, MODERN_CLIENT, [url], MODERN_ALL)
    check_modern_everything(report, MODERN_ALL)


def test_modern_only_refuses_legacy_client_stdio(legacy_python: str) -> None:
    target = [peers.MODERN_PYTHON, MODERN_EVERYTHING, "--modern-only"]
    refused = run_client(legacy_python, LEGACY_CLIENT, target, ["basic"], expect_ok=False)
    assert refused["protocol_version"] is None and "connect_error" in refused
    report = run_client(peers.MODERN_PYTHON, MODERN_CLIENT, target, ["basic"])
    check_modern_everything(report, ["basic"])


def test_modern_only_refuses_legacy_client_http(legacy_python: str) -> None:
    with http_server(peers.MODERN_PYTHON, MODERN_EVERYTHING, "http", "--modern-only") as url:
        refused = run_client(legacy_python, LEGACY_CLIENT, [url], ["basic"], expect_ok=False)
        assert refused["protocol_version"] is None and "connect_error" in refused
        report = run_client(peers.MODERN_PYTHON, MODERN_CLIENT, [url], ["basic"])
    check_modern_everything(report, ["basic"])


def test_modern_everything_serves_legacy_client_too(legacy_python: str) -> None:
    """mcp 2.3.0 is dual-era: without --modern-only the legacy client gets the same surface."""
    scenarios = ["basic", "logging", "subscriptions"]
    report = run_client(legacy_python, LEGACY_CLIENT, [peers.MODERN_PYTHON, MODERN_EVERYTHING], scenarios)
    basic = steps(report, "basic")
    assert report["protocol_version"] == "2025-11-25"
    assert basic["server"]["name"] == "modern-everything"
    assert basic["server"]["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    check_basic_common(basic)
    check_logging(steps(report, "logging"))
    check_subscriptions(steps(report, "subscriptions"))


# --- MRTR servers: the server asks the client mid-call ---------------------------------------

SUMMARY = "summary of [Summarize in one line: the quick brown fox] (model echo-model)"
ROOTS_TEXT = "root-a: file:///tmp/mcp-eras/root-a\nroot-b: file:///tmp/mcp-eras/root-b"
ASK_ALL_TEXT = "name=Ada; sample=summary of [Summarize in one line: everything at once] (model echo-model); roots=2"
MRTR_EXPECTED: dict[str, tuple[str, list[str]]] = {
    "ask_name": ("Hello, Ada!", ["elicitation/form"]),
    "ask_url": ("url accepted", ["elicitation/url"]),
    "summarize": (SUMMARY, ["sampling"]),
    "list_my_roots": (ROOTS_TEXT, ["roots"]),
    "two_questions": ("Ada likes teal", ["elicitation/form", "elicitation/form"]),
    "ask_all": (ASK_ALL_TEXT, ["elicitation/form", "roots", "sampling"]),
    "wait_then_ask": ("Hello, Ada!", ["elicitation/form"]),
}


def check_mrtr(mrtr: dict[str, Any]) -> None:
    for tool, (text, inputs) in MRTR_EXPECTED.items():
        assert mrtr[tool]["is_error"] is False, (tool, mrtr[tool])
        assert mrtr[tool]["text"] == [text], tool
        assert mrtr[tool]["inputs"] == inputs, tool
    assert mrtr["wait_then_ask"]["progress"] == [[1, 2, "waiting 1/2"], [2, 2, "waiting 2/2"]]
    assert mrtr["mrtr_prompt"] == [{"role": "user", "text": "Write a short poem for Ada."}]
    assert mrtr["mrtr_prompt_inputs"] == ["elicitation/form"]
    assert mrtr["mrtr_resource"] == [
        {"uri": "mrtr://secret/vault", "mime_type": "text/plain", "text": "The vault opens with teal."}
    ]
    assert mrtr["mrtr_resource_inputs"] == ["elicitation/form"]


def test_legacy_mrtr_stdio(legacy_python: str) -> None:
    report = run_client(legacy_python, LEGACY_CLIENT, [legacy_python, LEGACY_MRTR], ["mrtr"])
    assert report["protocol_version"] == "2025-11-25"
    check_mrtr(steps(report, "mrtr"))


def test_legacy_mrtr_http(legacy_python: str) -> None:
    with http_server(legacy_python, LEGACY_MRTR) as url:
        report = run_client(legacy_python, LEGACY_CLIENT, [url], ["mrtr"])
    check_mrtr(steps(report, "mrtr"))


def check_modern_rounds(mrtr: dict[str, Any]) -> None:
    """The 2026 wire shows the rounds: one input each, three in one round, two rounds."""
    for tool in ["ask_name", "ask_url", "summarize", "list_my_roots", "wait_then_ask"]:
        assert mrtr[tool]["rounds"] == [MRTR_EXPECTED[tool][1]], tool
    assert mrtr["ask_all"]["rounds"] == [["elicitation/form", "roots", "sampling"]]
    assert mrtr["two_questions"]["rounds"] == [["elicitation/form"], ["elicitation/form"]]


def test_modern_mrtr_stdio() -> None:
    report = run_client(peers.MODERN_PYTHON, MODERN_CLIENT, [peers.MODERN_PYTHON, MODERN_MRTR], ["mrtr"])
    assert report["protocol_version"] == "2026-07-28"
    check_mrtr(steps(report, "mrtr"))
    check_modern_rounds(steps(report, "mrtr"))


def test_modern_mrtr_http(legacy_python: str) -> None:
    with http_server(peers.MODERN_PYTHON, MODERN_MRTR) as url:
        report = run_client(peers.MODERN_PYTHON, MODERN_CLIENT, [url], ["mrtr"])
        refused = run_client(legacy_python, LEGACY_CLIENT, [url], ["mrtr"], expect_ok=False)
    check_mrtr(steps(report, "mrtr"))
    check_modern_rounds(steps(report, "mrtr"))
    assert "connect_error" in refused


class RawStdio:
    """Newline-delimited JSON-RPC with a server subprocess: the 2026 wire, byte for byte."""

    def __init__(self, cmd: list[str]) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
            },
        }
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            assert line, "server closed stdout"
            frame = json.loads(line)
            if frame.get("id") == self.next_id:
                return frame

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


ALL_INPUT_CAPS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def test_modern_mrtr_wire_shape_multi_round() -> None:
    raw = RawStdio([peers.MODERN_PYTHON, MODERN_MRTR])
    try:
        first = raw.request("tools/call", {"name": "two_questions", "arguments": {}}, ALL_INPUT_CAPS)["result"]
        assert first["resultType"] == "input_required"
        assert list(first["inputRequests"]) == ["name"]
        ask_name = first["inputRequests"]["name"]
        assert ask_name["method"] == "elicitation/create"
        assert ask_name["params"]["message"] == "What is your name?"
        assert list(ask_name["params"]["requestedSchema"]["properties"]) == ["name"]
        assert "requestState" not in first

        answer_name = {"name": {"action": "accept", "content": {"name": "Ada"}}}
        second = raw.request(
            "tools/call", {"name": "two_questions", "arguments": {}, "inputResponses": answer_name}, ALL_INPUT_CAPS
        )["result"]
        assert second["resultType"] == "input_required"
        assert list(second["inputRequests"]) == ["color"]
        state = second["requestState"]
        assert isinstance(state, str) and "Ada" not in state  # sealed by the SDK, not plaintext

        answer_color = {"color": {"action": "accept", "content": {"color": "teal"}}}
        params = {"name": "two_questions", "arguments": {}, "inputResponses": answer_color, "requestState": state}
        third = raw.request("tools/call", params, ALL_INPUT_CAPS)["result"]
        assert third["resultType"] == "complete"
        assert third["content"] == [{"type": "text", "text": "Ada likes teal"}]

        forged = raw.request("tools/call", {**params, "requestState": state[:-4] + "AAAA"}, ALL_INPUT_CAPS)
        assert "error" in forged and "result" not in forged
    finally:
        raw.close()


def test_modern_mrtr_wire_shape_three_inputs_and_missing_capability() -> None:
    raw = RawStdio([peers.MODERN_PYTHON, MODERN_MRTR])
    try:
        result = raw.request("tools/call", {"name": "ask_all", "arguments": {}}, ALL_INPUT_CAPS)["result"]
        assert result["resultType"] == "input_required"
        requests = result["inputRequests"]
        assert {key: request["method"] for key, request in requests.items()} == {
            "name": "elicitation/create",
            "summary": "sampling/createMessage",
            "roots": "roots/list",
        }
        assert requests["summary"]["params"]["maxTokens"] == 50
        assert requests["summary"]["params"]["messages"][0]["content"] == {
            "type": "text",
            "text": "Summarize in one line: everything at once",
        }

        url = raw.request("tools/call", {"name": "ask_url", "arguments": {}}, ALL_INPUT_CAPS)["result"]
        assert url["inputRequests"]["url"]["params"] == {
            "mode": "url",
            "message": "Please authorize the demo application.",
            "url": "https://example.com/authorize?demo=1",
        }

        refused = raw.request("tools/call", {"name": "ask_name", "arguments": {}}, {})
        assert refused["error"]["code"] == -32021
        assert refused["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
        form_only = raw.request("tools/call", {"name": "ask_url", "arguments": {}}, {"elicitation": {"form": {}}})
        assert form_only["error"]["code"] == -32021
        assert form_only["error"]["data"] == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    finally:
        raw.close()


def test_legacy_mrtr_sse(legacy_python: str) -> None:
    with http_server(legacy_python, LEGACY_MRTR, "sse") as url:
        report = run_client(legacy_python, LEGACY_CLIENT, [url], ["mrtr"])
    check_mrtr(steps(report, "mrtr"))


def test_modern_mrtr_refuses_legacy_client_stdio(legacy_python: str) -> None:
    refused = run_client(legacy_python, LEGACY_CLIENT, [peers.MODERN_PYTHON, MODERN_MRTR], ["mrtr"], expect_ok=False)
    assert refused["protocol_version"] is None and "connect_error" in refused
