"""The real parts of the sign-in tests: the authorization server (npm ``oidc-provider``, tests/auth/as_server.mjs)
and the protected MCP servers of samples/auth (a 2025 one on mcp 1.29, a 2026 one on mcp 2.3.0).

Every wait is bounded; every process started here is stopped (terminate, then kill) when its block ends.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import peers

HERE = Path(__file__).resolve().parent
AS_SCRIPT = HERE / "as_server.mjs"
OIDC_MODULES = peers.ROOT / ".venvs" / "oidc" / "node_modules"
SAMPLES = peers.ROOT / "samples" / "auth"
OPENER = peers.ROOT / "tests" / "conformance" / "headless_opener.py"
CONFORMANCE_RUNNER = peers.ROOT / "tests" / "conformance" / "run-harness.sh"
MODERN, LEGACY = "2026-07-28", "2025-11-25"
SCOPE = "mcp:tools"
READY_TIMEOUT = 60.0
SERVER_TIMEOUT = 60.0


@functools.cache
def node() -> str:
    """A Node.js for the authorization server: ``MCP_ERAS_NODE``, else the Node 22 the conformance runner keeps
    (oidc-provider 9 supports 22 and later), else the ``node`` on PATH (Node 20 runs it, with a warning)."""
    if os.environ.get("MCP_ERAS_NODE"):
        return os.environ["MCP_ERAS_NODE"]
    with contextlib.suppress(subprocess.SubprocessError, OSError):
        proc = subprocess.run(["bash", str(CONFORMANCE_RUNNER), "--print-paths"], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=600)
        lines = proc.stdout.strip().splitlines()
        if proc.returncode == 0 and len(lines) == 2:
            return lines[0]
    found = shutil.which("node")
    if not found:
        pytest.skip("node is not installed (.ci/bootstrap.sh installs it)")
    return found


def require_oidc_provider() -> None:
    if not (OIDC_MODULES / "oidc-provider" / "package.json").exists():
        pytest.skip("npm oidc-provider is not installed in .venvs/oidc (run .ci/bootstrap.sh)")


@dataclass
class AuthServer:
    issuer: str
    proc: subprocess.Popen[bytes]
    events: Path
    """One line per sign-in (``login``), per token issued (``grant <grant_type>``) and per key set request (``jwks``)."""

    def count(self, event: str) -> int:
        return self.events.read_text().splitlines().count(event) if self.events.exists() else 0


@contextlib.contextmanager
def auth_server(access_token_ttl: int = 600, scopes: str = SCOPE, deny: bool = False, *, port: int | None = None,
                signing_key: Path | None = None, client_credentials: bool = False) -> Iterator[AuthServer]:
    """Start as_server.mjs on a free loopback port (or ``port``: a restart keeps the issuer); yield once it has
    written its issuer; stop it after. ``signing_key``: a file with the private RSA JWK it signs with (its ``kid``
    names it); ``client_credentials``: the client credentials grant is enabled. The events count ``jwks`` requests."""
    require_oidc_provider()
    with tempfile.TemporaryDirectory(prefix="as-") as tmp:
        ready = Path(tmp) / "issuer"
        env = {"AS_NODE_MODULES": str(OIDC_MODULES), "AS_ACCESS_TOKEN_TTL": str(access_token_ttl), "AS_SCOPES": scopes,
               "AS_DENY": "1" if deny else "0", "AS_READY_FILE": str(ready), "AS_EVENT_LOG": str(Path(tmp) / "events")}
        if port is not None:
            env["AS_PORT"] = str(port)
        if signing_key is not None:
            env["AS_SIGNING_KEY"] = str(signing_key)
        if client_credentials:
            env["AS_CLIENT_CREDENTIALS"] = "1"
        with peers.running([node(), str(AS_SCRIPT)], env=env) as proc:
            deadline = time.monotonic() + READY_TIMEOUT
            while not ready.exists() or not ready.read_text():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the authorization server did not start (exit {proc.returncode})")
                time.sleep(0.05)
            yield AuthServer(ready.read_text(), proc, Path(tmp) / "events")


@contextlib.contextmanager
def protected_server(era: str, issuer: str, scope: str = SCOPE) -> Iterator[str]:
    """Run the sample protected server of ``era`` against ``issuer``; yield its MCP URL."""
    port = peers.free_port()
    script = SAMPLES / ("modern_protected_server.py" if era == MODERN else "legacy_protected_server.py")
    python = peers.MODERN_PYTHON if era == MODERN else peers.legacy_python()
    cmd = [str(python), str(script), "--port", str(port), "--issuer", issuer, "--scope", scope]
    with peers.running(cmd, port, timeout=SERVER_TIMEOUT):
        yield f"http://127.0.0.1:{port}/mcp"
