"""The shared, SDK-free surface of the sample "everything" and "mrtr" servers.

Both eras' servers (``legacy/*`` under mcp 1.29.0, ``modern/*`` under mcp 2.3.0) import their
texts, data and pure helpers from here, so the two halves of each faithful pair cannot drift
apart. The sample clients import the expected values from here too. Nothing in this module
imports ``mcp``: it must load under either SDK.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

INSTRUCTIONS = (
    "Test peer of the mcp-eras project. Tools: echo, add, weather, slow_count, log_levels, fail, "
    "add_tool, touch. Resources: memo://readme, memo://config, memo://logo and greeting://{name}. "
    "Prompts: review, hello."
)
SERVER_VERSION = "0.1.0"

README_URI = "memo://readme"
README_TEXT = "mcp-eras everything server: a small, deterministic peer for bridge tests.\n"
CONFIG_URI = "memo://config"
CONFIG_DATA: dict[str, object] = {"name": "everything", "version": 1, "features": ["tools", "resources", "prompts"]}
CONFIG_TEXT = json.dumps(CONFIG_DATA, sort_keys=True)
LOGO_URI = "memo://logo"
LOGO_MIME = "image/png"
LOGO_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(8))
GREETING_TEMPLATE = "greeting://{name}"
MISSING_URI = "memo://missing"

LANGUAGES = ["go", "python", "rust", "typescript"]
NAMES = ["alice", "bob", "carol"]

WEATHER: dict[str, tuple[float, str]] = {"Paris": (18.5, "cloudy"), "Tokyo": (24.0, "sunny")}
DEFAULT_WEATHER = (20.0, "clear")

FAIL_MESSAGE = "intentional failure"
LOG_LEVELS = ["debug", "info", "warning", "error"]
SEVERITY = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def greeting(name: str) -> str:
    return f"Hello, {name}!"


def weather_of(city: str) -> dict[str, object]:
    temperature, conditions = WEATHER.get(city, DEFAULT_WEATHER)
    return {"city": city, "temperature_c": temperature, "conditions": conditions}


def review_text(code: str, language: str) -> str:
    return f"Please review this {language} code:\n\n{code}"


HELLO_TEXT = "Say hello to the user in one short sentence."


def complete_values(candidates: list[str], prefix: str) -> list[str]:
    return [value for value in candidates if value.startswith(prefix)]


def log_message(level: str) -> str:
    return f"{level} message from log_levels"


def at_or_above(level: str, threshold: str | None) -> bool:
    """Whether ``level`` passes a session/request threshold (``None`` = no threshold set)."""
    if threshold is None:
        return True
    return SEVERITY.index(level) >= SEVERITY.index(threshold)


def runtime_tool_text(name: str) -> str:
    return f"{name} was added at runtime"


# --- MRTR servers -------------------------------------------------------------------------

MRTR_INSTRUCTIONS = (
    "Test peer of the mcp-eras project for server-to-client input: ask_name, ask_url, summarize, "
    "list_my_roots, two_questions, ask_all, wait_then_ask; prompt mrtr_prompt; resource mrtr://secret/{label}."
)
ASK_NAME_MESSAGE = "What is your name?"
ASK_COLOR_MESSAGE = "What is your favourite colour?"
ASK_URL_MESSAGE = "Please authorize the demo application."
ASK_URL = "https://example.com/authorize?demo=1"
SUMMARIZE_PROMPT = "Summarize in one line: {text}"
SAMPLING_MAX_TOKENS = 50
ASK_ALL_TEXT = "everything at once"
SECRET_TEMPLATE = "mrtr://secret/{label}"
SECRET_MESSAGE = "Which colour unlocks {label}?"
DECLINED = "declined"
URL_ACCEPTED = "url accepted"


def sampled_text(reply: str, model: str) -> str:
    return f"{reply} (model {model})"


def roots_text(roots: list[tuple[str, str]]) -> str:
    return "\n".join(f"{name}: {uri}" for name, uri in roots)


def likes(name: str, color: str) -> str:
    return f"{name} likes {color}"


def all_text(name: str | None, sampled: str, roots: str) -> str:
    return f"name={name or DECLINED}; sample={sampled}; roots={len(roots.splitlines())}"


def poem_request(name: str | None) -> str:
    return f"Write a short poem for {name or 'someone'}."


def secret_text(label: str, color: str | None) -> str:
    return f"The {label} opens with {color}." if color else f"The {label} stays locked."


class Weather(BaseModel):
    """Structured weather report (the tool's outputSchema)."""

    city: str
    temperature_c: float
    conditions: str


def register_common(app: Any, tool_error: type[Exception]) -> None:
    """Register the context-free part of the everything surface on a FastMCP or MCPServer.

    Both SDKs' ``tool``/``resource``/``prompt`` decorators take the same arguments; what needs
    a request context (progress, logging, change notifications) stays in each server.
    """

    @app.tool(description="Echo the text back.", structured_output=False)
    def echo(text: str) -> str:
        return text

    @app.tool(description="Add two integers.", structured_output=False)
    def add(a: int, b: int) -> int:
        return a + b

    @app.tool(description="Current weather for a city (structured output).")
    def weather(city: str) -> Weather:
        return Weather.model_validate(weather_of(city))

    @app.tool(description="Always fails.", structured_output=False)
    def fail() -> str:
        raise tool_error(FAIL_MESSAGE)

    @app.resource(README_URI, name="readme", description="Plain text memo.", mime_type="text/plain")
    def readme() -> str:
        return README_TEXT

    @app.resource(CONFIG_URI, name="config", description="JSON memo.", mime_type="application/json")
    def config() -> str:
        return CONFIG_TEXT

    @app.resource(LOGO_URI, name="logo", description="Binary memo.", mime_type=LOGO_MIME)
    def logo() -> bytes:
        return LOGO_BYTES

    @app.resource(GREETING_TEMPLATE, name="greeting", description="Greets name.", mime_type="text/plain")
    def greeting_resource(name: str) -> str:
        return greeting(name)

    @app.prompt(description="Ask for a code review.")
    def review(code: str, language: str = "python") -> str:
        return review_text(code, language)

    @app.prompt(description="A prompt without arguments.")
    def hello() -> str:
        return HELLO_TEXT


def stderr_logging() -> None:
    """Send Python logging to stderr (stdout is the protocol on stdio)."""
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


def samples_dir() -> Path:
    return Path(__file__).resolve().parent


def stdio_or_http_args(description: str, argv: list[str] | None = None) -> tuple[str, str, int | None]:
    """``[stdio] | http --port N [--host H]`` for the tasks samples: (transport, host, port)."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, help="TCP port (http)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    args = parser.parse_args(argv)
    if args.transport == "http" and args.port is None:
        parser.error("http needs --port")
    return args.transport, args.host, args.port
