"""The per-user token store: one JSON file per (upstream resource, client), 0600 in a 0700 directory,
written atomically, never logged (OAuth 2.1 §7.1, MCP 2026-07-28 "Token Theft": secure token storage).

The default directory is the platform's per-user config dir: ``$XDG_CONFIG_HOME/mcp-eras/tokens`` (else
``~/.config/mcp-eras/tokens``), ``~/Library/Application Support/mcp-eras/tokens`` on macOS,
``%APPDATA%\\mcp-eras\\tokens`` on Windows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from mcp_eras.bridge.translate.oauth.model import OAuthError
from mcp_eras.bridge.translate.oauth.wire import canonical_resource

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; one process per store there
    fcntl = None  # type: ignore[assignment]

_SUFFIX = ".json"
_LOCK_SUFFIX = ".lock"
_LOCK_POLL = 0.05


def default_store_dir() -> Path:
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "mcp-eras" / "tokens"


def client_key(client_id: str | None, client_metadata_url: str | None) -> str:
    """Which client an entry belongs to: the operator's pre-registered id, the metadata document URL, or
    ``dynamic`` (whatever dynamic registration gave; the registration is kept in the entry)."""
    return client_id or client_metadata_url or "dynamic"


@dataclass(frozen=True)
class Entry:
    resource: str
    client: str
    tokens: dict[str, Any]
    path: Path


class TokenStore:
    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_store_dir()

    def _path(self, resource: str, client: str) -> Path:
        digest = hashlib.sha256(f"{canonical_resource(resource)}\n{client}".encode()).hexdigest()[:40]
        return self.directory / (digest + _SUFFIX)

    def _ensure_dir(self) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if os.name == "posix":
            mode = stat.S_IMODE(self.directory.stat().st_mode)
            if mode != 0o700:
                os.chmod(self.directory, 0o700)

    def save(self, resource: str, client: str, tokens: dict[str, Any]) -> Path:
        """Write the entry atomically (temporary file created 0600, fsync, rename over the old one)."""
        self._ensure_dir()
        path = self._path(resource, client)
        body = json.dumps({"resource": canonical_resource(resource), "client": client, "tokens": tokens}, sort_keys=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return path

    @contextlib.asynccontextmanager
    async def locked(self, resource: str, client: str, timeout: float) -> AsyncIterator[None]:
        """Hold the entry's advisory lock (``flock`` on a 0600 sibling file) for a refresh: several bridges and
        ``auth login`` may share one store, and a refresh token used twice is refused, and may revoke the whole
        grant, at a server that rotates refresh tokens (OAuth 2.1 §4.3.1). Waits at most ``timeout`` seconds,
        polling, so the event loop never blocks; past it, ``store_busy``."""
        if fcntl is None:
            yield
            return
        self._ensure_dir()
        path = self._path(resource, client).with_suffix(_LOCK_SUFFIX)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise OAuthError("store_busy", f"waited {timeout:.0f}s for the token store's lock") from None
                    await anyio.sleep(_LOCK_POLL)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def load(self, resource: str, client: str) -> dict[str, Any] | None:
        entry = self._read(self._path(resource, client))
        return entry.tokens if entry is not None else None

    def delete(self, resource: str, client: str | None = None) -> int:
        """Remove the entry of (resource, client), or every entry of ``resource`` when client is None."""
        victims = [self._path(resource, client)] if client is not None else [e.path for e in self.entries(resource)]
        removed = 0
        for path in victims:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
            with contextlib.suppress(FileNotFoundError):
                path.with_suffix(_LOCK_SUFFIX).unlink()
        return removed

    def entries(self, resource: str | None = None) -> list[Entry]:
        if not self.directory.is_dir():
            return []
        wanted = canonical_resource(resource) if resource is not None else None
        found = []
        for path in sorted(self.directory.glob("*" + _SUFFIX)):
            entry = self._read(path)
            if entry is not None and (wanted is None or entry.resource == wanted):
                found.append(entry)
        return found

    def _read(self, path: Path) -> Entry | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("tokens"), dict):
            return None
        return Entry(str(data.get("resource", "")), str(data.get("client", "")), data["tokens"], path)
