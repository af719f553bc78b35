"""SDK-free plumbing shared by ``legacy_client.py`` (mcp 1.29.0) and ``modern_client.py`` (mcp 2.3.0).

Command line (both clients)::

    CLIENT TARGET [--scenario NAME ...] [--json]
    CLIENT [--scenario NAME ...] [--json] -- COMMAND [ARGS ...]

``TARGET`` is an ``http(s)://`` URL (Streamable HTTP; the legacy client uses the deprecated
HTTP+SSE transport when the URL path ends in ``/sse``); after ``--`` comes a command that
runs a server on stdio.

Output: a transcript on stdout, or with ``--json`` one JSON object::

    {"client": "legacy"|"modern", "target": str, "protocol_version": str|null, "ok": bool,
     "scenarios": {NAME: {"ok": bool, "error": str|null, "steps": {STEP: value, ...}}, ...}}

The exit status is 1 when any scenario failed unexpectedly, 2 on a connection failure.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

SCENARIOS = ["basic", "progress", "logging", "subscriptions", "mrtr", "errors"]

# Deterministic answers of the clients' input callbacks (elicitation, sampling, roots).
ANSWER_NAME = "Ada"
ANSWER_COLOR = "teal"
SAMPLING_MODEL = "echo-model"
ROOTS = [("file:///tmp/mcp-eras/root-a", "root-a"), ("file:///tmp/mcp-eras/root-b", "root-b")]
RUNTIME_TOOL = "dyn_tool"


BASIC_READS = [
    ("read_readme", "memo://readme"),
    ("read_config", "memo://config"),
    ("read_logo", "memo://logo"),
    ("read_greeting", "greeting://world"),
]
MRTR_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("ask_name", {}),
    ("ask_url", {}),
    ("summarize", {"text": "the quick brown fox"}),
    ("list_my_roots", {}),
    ("two_questions", {}),
    ("ask_all", {}),
    ("wait_then_ask", {"n": 2}),
]
MRTR_PROMPT = "mrtr_prompt"
MRTR_RESOURCE = "mrtr://secret/vault"


def sampling_reply(prompt_text: str) -> str:
    return f"summary of [{prompt_text}]"


class InputAnswers:
    """The clients' deterministic answers to input requests, over wire dicts (era-neutral).

    Every answered request is recorded in ``inputs`` as ``elicitation/form``,
    ``elicitation/url``, ``sampling`` or ``roots``.
    """

    def __init__(self) -> None:
        self.inputs: list[str] = []

    def elicit(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("mode") == "url":
            self.inputs.append("elicitation/url")
            return {"action": "accept"}
        self.inputs.append("elicitation/form")
        properties = set((params.get("requestedSchema") or {}).get("properties", {}))
        if "name" in properties:
            return {"action": "accept", "content": {"name": ANSWER_NAME}}
        if "color" in properties:
            return {"action": "accept", "content": {"color": ANSWER_COLOR}}
        return {"action": "decline"}

    def sample(self, params: dict[str, Any]) -> dict[str, Any]:
        self.inputs.append("sampling")
        content = params["messages"][0]["content"]
        text = content.get("text", "") if isinstance(content, dict) else ""
        return {
            "role": "assistant",
            "content": {"type": "text", "text": sampling_reply(text)},
            "model": SAMPLING_MODEL,
            "stopReason": "endTurn",
        }

    def roots(self) -> dict[str, Any]:
        self.inputs.append("roots")
        return {"roots": [{"uri": uri, "name": name} for uri, name in ROOTS]}


@dataclass
class Options:
    url: str | None
    command: list[str]
    scenarios: list[str]
    as_json: bool

    @property
    def target(self) -> str:
        return self.url if self.url is not None else " ".join(self.command)


def parse_args(argv: list[str], description: str) -> Options:
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("target", nargs="?", help="http(s) URL of the server; or give `-- command args` (stdio)")
    parser.add_argument("--scenario", action="append", choices=SCENARIOS, help="repeatable; default: all")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a transcript")
    args = parser.parse_args(argv)
    if (args.target is None) == (not command):
        parser.error("give exactly one of TARGET (URL) or `-- command args`")
    if args.target is not None and not args.target.startswith(("http://", "https://")):
        parser.error("TARGET must be an http(s) URL")
    return Options(args.target, command, args.scenario or list(SCENARIOS), args.json)


@dataclass
class ScenarioResult:
    steps: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class Report:
    client: str
    target: str
    protocol_version: str | None = None
    scenarios: dict[str, ScenarioResult] = field(default_factory=dict)
    connect_error: str | None = None

    @property
    def ok(self) -> bool:
        return self.connect_error is None and all(result.ok for result in self.scenarios.values())

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "client": self.client,
            "target": self.target,
            "protocol_version": self.protocol_version,
            "ok": self.ok,
            "scenarios": {
                name: {"ok": result.ok, "error": result.error, "steps": result.steps}
                for name, result in self.scenarios.items()
            },
        }
        if self.connect_error is not None:
            data["connect_error"] = self.connect_error
        return data


async def run_scenario(
    report: Report, name: str, body: Callable[[dict[str, Any]], Awaitable[None]]
) -> None:
    """Run one scenario; a raised exception marks it failed and keeps the steps done so far."""
    result = ScenarioResult()
    report.scenarios[name] = result
    try:
        await body(result.steps)
    except Exception as exc:  # report, do not crash: the other scenarios still run
        result.error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc(file=sys.stderr)


async def run_all(
    report: Report, scenarios: list[str], bodies: dict[str, Callable[[dict[str, Any]], Awaitable[None]]]
) -> None:
    for name in scenarios:
        await run_scenario(report, name, bodies[name])


def record_failure(report: Report, exc: BaseException) -> None:
    """A failure outside any scenario: connecting (no scenario ran yet) or shutting down."""
    text = f"{type(exc).__name__}: {exc}"
    if not report.scenarios or report.protocol_version is None:
        report.connect_error = text
    else:
        report.scenarios.setdefault("shutdown", ScenarioResult()).error = text
    print(f"client failed: {exc!r}", file=sys.stderr)


def main(run: Callable[[Options], Awaitable[Report]], description: str) -> int:
    import anyio

    options = parse_args(sys.argv[1:], description)
    report = anyio.run(run, options)
    return emit(report, options.as_json)


def emit(report: Report, as_json: bool) -> int:
    if as_json:
        print(json.dumps(report.as_dict(), sort_keys=True))
    else:
        print(f"{report.client} client -> {report.target} (protocol {report.protocol_version})")
        if report.connect_error:
            print(f"connection failed: {report.connect_error}")
        for name, result in report.scenarios.items():
            print(f"== {name}: {'ok' if result.ok else 'FAILED'}")
            for step, value in result.steps.items():
                print(f"  {step}: {json.dumps(value, sort_keys=True)}")
            if result.error:
                print(f"  error: {result.error}")
        print("ok" if report.ok else "FAILED")
    sys.stdout.flush()
    if report.connect_error is not None:
        return 2
    return 0 if report.ok else 1


def error_dict(code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {"code": code, "message": message, "data": data}


def event_name(method: str, uri: str | None = None) -> str:
    """Normalized change-event label, identical for both eras (``tools/list_changed``, ...)."""
    name = method.removeprefix("notifications/")
    return f"{name} {uri}" if uri else name


# --- result summaries over wire dicts (``model_dump(mode="json", by_alias=True)``), era-neutral ---


def tool_summary(wire: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "is_error": bool(wire.get("isError")),
        "text": [block["text"] for block in wire.get("content", []) if block.get("type") == "text"],
    }
    if wire.get("structuredContent") is not None:
        out["structured"] = wire["structuredContent"]
    return out


def contents_summary(wire: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in wire.get("contents", []):
        entry: dict[str, Any] = {"uri": item["uri"], "mime_type": item.get("mimeType")}
        if "text" in item:
            entry["text"] = item["text"]
        else:
            entry["blob_hex"] = base64.b64decode(item["blob"]).hex()
        out.append(entry)
    return out


def prompt_summary(wire: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": message["role"], "text": message["content"].get("text")} for message in wire.get("messages", [])
    ]


def wire(model: Any) -> dict[str, Any]:
    """A pydantic result model as its JSON wire dict."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
