"""Acceptance 5: the Dockerfile builds and the container answers a 2026-07-28 server/discover; the
image runs as a non-root user with `mcp-bridge` as its entry point. Skipped (with the reason) when no
docker daemon is reachable."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from product_helpers import META, TINY

import peers

pytestmark = [pytest.mark.slow, pytest.mark.docker]


def _daemon() -> str | None:
    """None when a daemon answers, else why not."""
    if shutil.which("docker") is None:
        return "no docker client on PATH"
    try:
        proc = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"docker info failed: {exc}"
    if proc.returncode != 0 or not proc.stdout.strip():
        return "no docker daemon reachable: " + (proc.stderr.strip().splitlines() or ["docker info failed"])[-1]
    return None


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    why = _daemon()
    if why is not None:
        pytest.skip(why)
    tag = f"mcp-eras-test:{uuid.uuid4().hex[:8]}"
    build = subprocess.run(["docker", "build", "-q", "-t", tag, str(peers.ROOT)], capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout + build.stderr
    try:
        yield tag
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=120)


def test_the_image_runs_as_non_root_with_mcp_bridge_as_entry_point(image: str) -> None:
    uid = subprocess.run(["docker", "run", "--rm", "--entrypoint", "id", image, "-u"], capture_output=True, text=True, timeout=120)
    assert uid.returncode == 0 and uid.stdout.strip() != "0", uid.stdout + uid.stderr
    version = subprocess.run(["docker", "run", "--rm", image, "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("mcp-eras "), version.stdout + version.stderr


def test_the_container_answers_a_2026_server_discover(image: str) -> None:
    port = peers.free_port()
    name = f"mcp-eras-test-{uuid.uuid4().hex[:8]}"
    run = ["docker", "run", "-d", "--rm", "--name", name, "-p", f"127.0.0.1:{port}:8080",
           "-v", f"{TINY}:/srv/tiny_server.py:ro", image,
           "serve", "--host", "0.0.0.0", "--port", "8080", "--", "python", "/srv/tiny_server.py"]
    started = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while True:
            try:
                resp = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}},
                                  headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover",
                                           "Accept": "application/json, text/event-stream"}, timeout=10)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        assert resp.status_code == 200, resp.text
        assert "2026-07-28" in resp.json()["result"]["supportedVersions"]
        # Host allow-list of the image: localhost and 127.0.0.1 only, unless MCP_BRIDGE_ALLOW_HOST says more.
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", headers={"Host": "evil.example"}, timeout=10).status_code == 421
    finally:
        logs = subprocess.run(["docker", "logs", name], capture_output=True, text=True, timeout=60)
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
        print(logs.stdout[-2000:], logs.stderr[-2000:])
