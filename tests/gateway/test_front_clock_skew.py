"""``serve --auth-clock-skew SECONDS`` (issue 34, follow-up): the single HTTP front's leeway on a token's ``exp``/``nbf``,
like a fleet's ``[auth] clock_skew``: bounded to 0..300 s, only with ``--auth-issuer``, and reaching the rules every
token of the endpoint is checked by (test_resource_skew.py checks the fleet's)."""

from __future__ import annotations

import subprocess
import time

import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.gateway import guard
from mcp_eras.bridge.translate.gateway import tokens as tk

import peers

ISS, AUD = "http://127.0.0.1:1/", "http://127.0.0.1:2/mcp"


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    """``mcp-bridge serve ARGS`` that must stop at its options (exit 2), before it serves anything."""
    return subprocess.run([*peers.bridge_cmd(), "serve", *args, "--upstream", "http://127.0.0.1:9/mcp"], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("args", "says"), [
    (["--auth-issuer", ISS, "--auth-audience", AUD, "--auth-clock-skew", "301"], "--auth-clock-skew must be 0 to 300 seconds"),
    (["--auth-issuer", ISS, "--auth-audience", AUD, "--auth-clock-skew", "-1"], "--auth-clock-skew must be 0 to 300 seconds"),
    (["--auth-clock-skew", "5"], "need --auth-issuer"),
])
def test_the_option_is_bounded_and_needs_an_issuer(args: list[str], says: str) -> None:
    done = serve(*args)
    assert done.returncode == 2 and says in done.stderr, (done.returncode, done.stderr)


def test_the_skew_reaches_the_rules_of_the_endpoint() -> None:
    from mcp_eras.bridge import cli

    fields = cli._front_auth(ISS, AUD, None, None, stdio=False, clock_skew=120)  # noqa: SLF001 - what serve builds Settings from
    settings = Settings(**fields)
    assert settings.auth_clock_skew == 120 and guard.config_from_settings(settings).clock_skew == 120
    middleware = guard.single_middleware(settings, "/mcp")
    gate = guard.ResourceGuard(lambda *a: None, **middleware.kwargs)  # type: ignore[arg-type]
    rules = gate.verifier.rules
    assert rules.skew == 120
    now = time.time()
    claims = {"iss": ISS, "aud": AUD, "sub": "u"}
    assert isinstance(tk.check_claims({**claims, "exp": now - 100}, now, rules), tk.Accepted)  # a default 60 s would refuse it
    refused = tk.check_claims({**claims, "exp": now - 130}, now, rules)
    assert isinstance(refused, tk.Refused) and refused.description == "token expired"
    default = Settings(**cli._front_auth(ISS, AUD, None, None, stdio=False))  # noqa: SLF001
    assert guard.config_from_settings(default).clock_skew == tk.DEFAULT_SKEW
