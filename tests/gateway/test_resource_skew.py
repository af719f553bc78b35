"""A fleet's ``[auth] clock_skew``: how many seconds a token's ``exp``/``nbf`` are stretched by, bounded
(``tokens.MAX_SKEW``), reaching the rules every endpoint's tokens are checked by."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from mcp_eras.bridge.fleet.config import ConfigError, parse
from mcp_eras.bridge.gateway import guard
from mcp_eras.bridge.translate.gateway import tokens as tk

ISS, BASE = "http://127.0.0.1:1/", "http://127.0.0.1:2"
SERVER = '[servers.a]\ncommand = "python"\n'


def table(extra: str = "") -> str:
    return f'{SERVER}\n[auth]\nissuer = "{ISS}"\naudience = "{BASE}"\n{extra}'


def test_clock_skew_defaults_and_is_bounded() -> None:
    assert parse(table()).auth.clock_skew == tk.DEFAULT_SKEW  # type: ignore[union-attr]
    for skew in (0, 5, tk.MAX_SKEW):
        assert parse(table(f"clock_skew = {skew}\n")).auth.clock_skew == skew  # type: ignore[union-attr]
    for bad in ("-1", str(tk.MAX_SKEW + 1), '"60"', "1.5"):
        with pytest.raises(ConfigError, match="clock_skew"):
            parse(table(f"clock_skew = {bad}\n"))


class Verdicts:
    """A verifier recording the rules each request was checked by (the signature and claims are not its concern)."""

    def __init__(self) -> None:
        self.rules: list[tk.TokenRules] = []

    async def verify(self, authorization: str | None, rules: tk.TokenRules) -> tk.Accepted | tk.Refused:
        self.rules.append(rules)
        return tk.Refused(401, tk.INVALID_TOKEN, "recorded")

    async def aclose(self) -> None:
        return None


def test_clock_skew_reaches_every_endpoint_rules() -> None:
    config = guard.fleet_config(parse(table("clock_skew = 5\n")).auth)
    assert config.clock_skew == 5
    locate, document = guard.fleet(config)
    verdicts = Verdicts()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("a refused request reached the app")

    gate = guard.ResourceGuard(app, config, locate, document, verifier=verdicts)  # type: ignore[arg-type]
    assert gate.verifier is verdicts
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": "POST", "path": "/servers/a/mcp", "headers": [(b"authorization", b"Bearer x")]}
    anyio.run(gate, scope, receive, send)
    assert [r.skew for r in verdicts.rules] == [5] and sent[0]["status"] == 401
    # the guard's own verifier is built with it too
    own = guard.ResourceGuard(app, config, locate, document)  # type: ignore[arg-type]
    assert own.verifier.rules.skew == 5
    # and the rule it sets: a token expired 4 s ago passes a 5 s skew, one expired 6 s ago does not
    now = time.time()
    rules = verdicts.rules[0]
    claims = {"iss": ISS, "aud": f"{BASE}/servers/a/mcp", "sub": "u"}
    assert isinstance(tk.check_claims({**claims, "exp": now - 4}, now, rules), tk.Accepted)
    refused = tk.check_claims({**claims, "exp": now - 6}, now, rules)
    assert isinstance(refused, tk.Refused) and refused.description == "token expired"
