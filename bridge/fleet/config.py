"""Fleet configuration: a TOML file, or the ``mcpServers`` JSON desktop hosts use.

TOML::

    [bridge]                      # optional defaults for every server
    request_timeout = 300
    era_cache_ttl = 300
    limits = { pool_max_sessions = 32, tasks_per_principal = 16 }   # README "Limits"; a server may override

    [servers.notes]               # reachable at /servers/notes/mcp
    command = "python"
    args = ["notes_server.py", "stdio"]
    env = { NOTES_DIR = "/srv/notes" }
    env_passthrough = ["PATH", "HOME"]   # only these of the bridge's variables (default: all)
    era = "auto"                  # auto | 2025-11-25 | 2026-07-28

    [servers.search]
    url = "https://search.internal/mcp"
    bearer_env = "SEARCH_TOKEN"   # Authorization: Bearer $SEARCH_TOKEN
    headers = { X-Team = "core" }
    rate = "10/s"                 # per caller (principal): N/s, N/min or N/h; over it 429 (README "Rate limits")
    burst = 20                    # requests at once (default: one second's worth)

    upstream_auth = { mode = "token_exchange", issuer = "https://login.example/", client_id = "gw",
                      client_secret_env = "GW_SECRET" }   # none | header | client_credentials | token_exchange
    deny_tools = ["drop_*"]       # per-tool policy: allow_tools, deny_tools, tool_scopes = { write = "files:write" }
    audit_arguments = false       # the audit line of each call names no arguments unless true

    [auth]                        # optional: require sign-in (each server an OAuth resource server)
    issuer = "https://login.example/"
    audience = "https://gw.example"     # the fleet's public base URL; tokens name {audience}/servers/NAME/mcp

JSON: ``{"mcpServers": {"notes": {"command": ..., "args": [...], "env": {...}, "cwd": ..., "url": ...,
"headers": {...}}}}`` (plus the same optional keys as TOML). Errors name the file, line and key.

Pure: parsing and validation only; nothing is spawned or connected here.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.gateway.upstream_auth import UpstreamCredentials
from mcp_eras.bridge.translate.eras import EraSetting
from mcp_eras.bridge.translate.gateway.policy import ToolPolicy
from mcp_eras.bridge.translate.gateway.ratelimit import RateLimit, limit_of
from mcp_eras.bridge.translate.gateway.tokens import DEFAULT_SKEW, MAX_SKEW
from mcp_eras.bridge.translate.gateway.upstream_auth import UpstreamAuth
from mcp_eras.bridge.upstream.factory import Target

log = logging.getLogger("mcp_bridge.fleet.config")

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class ConfigError(Exception):
    """A fleet config that cannot be used; the message names the file, line and key."""


class LimitsConfig(BaseModel):
    """``limits = { ... }`` in ``[bridge]`` (every server) or in a server's table (that server, key by key): the caps
    of the bridge's settings by their names (README "Limits"); each server has its own sessions, children and tasks."""

    model_config = ConfigDict(extra="forbid")

    pool_max_sessions: int | None = Field(None, gt=0)
    pool_per_identity: int | None = Field(None, gt=0)
    pool_idle_timeout: float | None = Field(None, gt=0)
    parked_total: int | None = Field(None, gt=0)
    parked_per_identity: int | None = Field(None, gt=0)
    parked_timeout: float | None = Field(None, gt=0)
    mrtr_max_rounds: int | None = Field(None, gt=0)
    legacy_sessions_max: int | None = Field(None, gt=0)
    legacy_sessions_per_principal: int | None = Field(None, gt=0)
    legacy_listens_max: int | None = Field(None, gt=0)
    session_idle_timeout: float | None = Field(None, gt=0)
    max_body_bytes: int | None = Field(None, gt=0)
    tasks_per_principal: int | None = Field(None, gt=0)
    tasks_max: int | None = Field(None, gt=0)
    task_sessions_max: int | None = Field(None, gt=0)
    task_sessions_per_principal: int | None = Field(None, gt=0)

    def given(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class Defaults(BaseModel):
    """``[bridge]``: defaults applied to every server (each server may override the timeouts and limits)."""

    model_config = ConfigDict(extra="forbid")

    request_timeout: float = Field(300.0, gt=0)
    probe_timeout: float = Field(5.0, gt=0)
    connect_timeout: float = Field(10.0, gt=0)
    era_cache_ttl: float = Field(300.0, gt=0)
    drain_timeout: float = Field(60.0, gt=0)
    """Seconds a replaced upstream may keep serving its in-flight calls after a reload."""
    respawn_backoff_initial: float = Field(0.1, gt=0)
    respawn_backoff_max: float = Field(10.0, gt=0)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    allow_origin: list[str] = Field(default_factory=list)
    front_era: EraSetting = "auto"
    listen: str | None = None
    """HOST:PORT the fleet serves on (the `reload` command reads it; `serve --listen` wins)."""
    allow_host: list[str] = Field(default_factory=list)
    """Host header values accepted besides the loopback names (``*``: any); others get 421."""
    admin_token: str | None = None
    """Token for /admin/* and /fleet* (default: $MCP_BRIDGE_ADMIN_TOKEN, else generated at start)."""
    admin_token_file: str | None = None
    """Where a generated token is written, mode 0600 (default: the config path + ``.admin-token``)."""
    state_store: str = "memory"
    """``memory`` or ``redis://HOST:PORT/DB`` shared by every fleet instance (README "Scaling out")."""
    state_key: str | None = None
    """The key every instance shares (hex or base64, 16+ bytes); required with a shared store."""
    instance_id: str | None = None
    """This instance's name in the registry (default: host name + pid)."""
    advertise_url: str | None = None
    """Base URL the other instances reach this one at (default: the listen address)."""


class CanaryConfig(BaseModel):
    """``canary = { to = "NAME", weight = 0.1 }``: that share of callers (by principal) goes to NAME."""

    model_config = ConfigDict(extra="forbid")

    to: str
    weight: float = Field(0.0, ge=0.0, le=1.0)


class RollbackConfig(BaseModel):
    """``rollback = { max_error_rate = 0.05, min_requests = 50, max_divergence = 0.01, window = 60 }``."""

    model_config = ConfigDict(extra="forbid")

    max_error_rate: float = Field(0.05, ge=0.0, le=1.0)
    min_requests: int = Field(50, ge=1)
    max_divergence: float | None = Field(None, ge=0.0, le=1.0)
    window: float = Field(60.0, gt=0)


POLICY_KEYS = ("allow_tools", "deny_tools", "tool_scopes", "audit", "audit_arguments")
"""Per-server gateway keys (``mcp_eras.bridge.layers.policy``), applied in place on a reload."""


STAGING_KEYS = {"shadow", "shadow_tools", "shadow_ignore", "shadow_concurrency", "shadow_timeout", "canary", "rollback",
                "rate", "burst", *POLICY_KEYS}
"""Per-server keys a reload applies in place (they never restart the server)."""
SCALE_KEYS = ("state_store", "state_key", "instance_id", "advertise_url")
"""``[bridge]`` keys read once at start (a reload never changes them: restart the instance)."""


class UpstreamAuthConfig(BaseModel):
    """``upstream_auth = { mode = ..., ... }`` (or just ``upstream_auth = "none"``): the bridge's own credential at an
    HTTP server (``mcp_eras.bridge.translate.gateway.upstream_auth``). Secrets may come from environment variables
    (``value_env``, ``client_secret_env``)."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["none", "header", "client_credentials", "token_exchange"] = "none"
    header: str = "Authorization"
    value: str | None = None
    value_env: str | None = None
    token_endpoint: str | None = None
    issuer: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    client_secret_env: str | None = None
    auth_method: Literal["client_secret_basic", "client_secret_post", "none"] | None = None
    resource: str | None = None
    audience: str | None = None
    scope: str | None = None
    cache_entries: int = Field(10_000, ge=0)
    cache_bytes: int = Field(16 << 20, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        return {"mode": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _complete(self) -> UpstreamAuthConfig:
        if self.value is not None and self.value_env is not None or self.client_secret and self.client_secret_env:
            raise ValueError("give a secret or the environment variable holding it, not both")
        if self.mode == "header" and self.value is None and self.value_env is None:
            raise ValueError("mode 'header' needs 'value' or 'value_env'")
        if self.mode in ("client_credentials", "token_exchange") and not self.client_id:
            raise ValueError(f"mode {self.mode!r} needs 'client_id' (the bridge's client at the authorization server)")
        return self

    def resolve(self, name: str, environ: dict[str, str]) -> UpstreamAuth:
        def secret(value: str | None, var: str | None, key: str) -> str | None:
            if var is None:
                return value
            if var not in environ:
                raise ConfigError(f"server {name!r}: environment variable {var} (upstream_auth.{key}) is not set")
            return environ[var]

        fields = self.model_dump(exclude={"value_env", "client_secret_env", "cache_entries", "cache_bytes"})
        fields.update(value=secret(self.value, self.value_env, "value_env"),
                      client_secret=secret(self.client_secret, self.client_secret_env, "client_secret_env"))
        try:
            return UpstreamAuth(**fields, cache_entries=self.cache_entries, cache_bytes=self.cache_bytes)
        except ValueError as exc:
            raise ConfigError(f"server {name!r}: upstream_auth: {exc}") from None


class ServerConfig(BaseModel):
    """One upstream: a stdio command or an HTTP URL."""

    model_config = ConfigDict(extra="forbid")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    env_passthrough: list[str] | None = None
    """Names of the bridge's environment variables the child sees (None: all of them; []: none)."""
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    bearer: str | None = None
    bearer_env: str | None = None
    transport: Literal["auto", "stdio", "http", "streamable-http", "sse"] = "auto"
    type: str | None = None
    """Desktop-host spelling of the transport (stdio | http | streamable-http | sse); informational for stdio."""
    era: EraSetting = "auto"
    request_timeout: float | None = Field(None, gt=0)
    probe_timeout: float | None = Field(None, gt=0)
    connect_timeout: float | None = Field(None, gt=0)
    era_cache_ttl: float | None = Field(None, gt=0)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    disabled: bool = False
    share_child: bool = False
    """All callers share one session of this 2025 server (stdio: one child), whatever their identity."""
    shadow: str | None = None
    """Mirror side-effect-free requests to this server in the background and compare the answers."""
    shadow_tools: list[str] = Field(default_factory=list)
    """Tools mirrored besides those annotated ``readOnlyHint: true``."""
    shadow_ignore: list[str] = Field(default_factory=list)
    """Accept list: dotted result paths (``*`` for any key or index) left out of the comparison."""
    shadow_concurrency: int = Field(16, ge=1)
    shadow_timeout: float = Field(10.0, gt=0)
    canary: CanaryConfig | None = None
    rollback: RollbackConfig | None = None
    rate: str | None = None
    """Requests per caller (principal) at this server: ``N/s``, ``N/min`` or ``N/h`` (over it: 429 / -32000)."""
    burst: int | None = Field(None, ge=1)
    """Requests a caller may send at once under ``rate`` (default: one second's worth, at least 1)."""
    upstream_auth: UpstreamAuthConfig | None = None
    """The bridge's credential at this HTTP server (none | header | client_credentials | token_exchange)."""
    allow_tools: list[str] | None = None
    """Only these tools (names or ``*`` patterns) are listed and callable (default: all not denied)."""
    deny_tools: list[str] = Field(default_factory=list)
    tool_scopes: dict[str, str] = Field(default_factory=dict)
    """Tool (or pattern) -> the scope(s), space-separated, a caller's token needs to see and call it."""
    audit: bool = False
    """One audit line per call (always on behind ``[auth]`` or with a policy)."""
    audit_arguments: bool = False
    """The audit line carries the call's arguments."""

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^/\s]+", value):
            raise ValueError("url must be an http:// or https:// URL")
        return value

    @field_validator("type")
    @classmethod
    def _type(cls, value: str | None) -> str | None:
        if value is not None and value not in ("stdio", "http", "streamable-http", "streamableHttp", "sse"):
            raise ValueError("type must be one of stdio, http, streamable-http, sse")
        return value

    @model_validator(mode="after")
    def _rate_limit(self) -> ServerConfig:
        self.rate_limit()  # a ValueError names what is wrong
        return self

    def rate_limit(self) -> RateLimit | None:
        return limit_of(self.rate, self.burst)

    @model_validator(mode="after")
    def _one_target(self) -> ServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give exactly one of 'command' (stdio) or 'url' (HTTP)")
        if self.url is None:
            for key in ("headers", "bearer", "bearer_env"):
                if getattr(self, key):
                    raise ValueError(f"'{key}' applies to HTTP upstreams ('url'), not to a command")
        else:
            for key in ("args", "env", "cwd", "env_passthrough"):
                if getattr(self, key):
                    raise ValueError(f"'{key}' applies to stdio upstreams ('command'), not to a url")
        if self.bearer and self.bearer_env:
            raise ValueError("give 'bearer' or 'bearer_env', not both")
        if self.upstream_auth is not None and self.upstream_auth.mode != "none":
            if self.url is None:
                raise ValueError("'upstream_auth' applies to HTTP upstreams ('url'), not to a command")
            if self.bearer or self.bearer_env:
                raise ValueError("give 'bearer'/'bearer_env' or 'upstream_auth', not both")
        return self

    def tool_policy(self) -> ToolPolicy:
        return ToolPolicy.of(self.allow_tools, self.deny_tools, self.tool_scopes)

    def http_transport(self) -> str:
        kind = self.type if self.transport == "auto" else self.transport
        if kind in ("http", "streamable-http", "streamableHttp"):
            return "streamable-http"
        if kind == "sse":
            return "sse"
        return "auto"


class AuthTable(BaseModel):
    """``[auth]``: the fleet's endpoints as OAuth resource servers (mcp_eras.bridge.gateway). Each
    ``/servers/NAME/mcp`` is its own resource, ``{audience}/servers/NAME/mcp``, with its metadata at
    ``/.well-known/oauth-protected-resource/servers/NAME/mcp`` (RFC 9728 section 3.1). Without the table a
    fleet checks no token (the transparent mode: callers' ``Authorization`` headers are forwarded). A reload applies a
    changed table to the running guard (``serve.Router._reauth``); adding or removing the table needs a restart."""

    model_config = ConfigDict(extra="forbid")

    issuer: str
    """The authorization server whose access tokens every server's endpoint requires."""
    audience: str
    """The fleet's public base URL (``https://gw.example``); a token naming it is accepted by every server."""
    required_scopes: list[str] = Field(default_factory=list)
    introspection_url: str | None = None
    """RFC 7662 endpoint for opaque tokens (client credentials from MCP_BRIDGE_AUTH_CLIENT_ID / _SECRET)."""
    jwks_min_interval: float = Field(30.0, ge=0.0, le=3600.0)
    """Fewest seconds between two fetches of the issuer's keys caused by an unknown key id (rotation)."""
    clock_skew: int = Field(DEFAULT_SKEW, ge=0, le=MAX_SKEW, strict=True)
    """Seconds a token's ``exp`` and ``nbf`` are stretched by for clocks that disagree (RFC 7519 section 4.1.4
    allows "some small leeway"); bounded so that an expired token cannot stay good for long."""

    @field_validator("issuer", "audience", "introspection_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and (urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).hostname):
            raise ValueError(f"{value!r} is not an absolute http(s) URL")
        return value


class FleetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bridge: Defaults = Field(default_factory=Defaults)
    auth: AuthTable | None = None
    servers: dict[str, ServerConfig]

    @field_validator("servers")
    @classmethod
    def _names(cls, value: dict[str, ServerConfig]) -> dict[str, ServerConfig]:
        for name in value:
            if not NAME_RE.match(name):
                raise ValueError(f"server name {name!r} must be 1-64 of A-Z a-z 0-9 . _ - (it becomes a URL path segment)")
        return value

    @model_validator(mode="after")
    def _staging_targets(self) -> FleetConfig:
        for name, server in self.servers.items():
            for key, other in (("shadow", server.shadow), ("canary", server.canary.to if server.canary else None)):
                if other is not None and (other == name or other not in self.servers or self.servers[other].disabled):
                    raise ValueError(f"servers.{name}.{key}: {other!r} must name another enabled server")
        return self

    def enabled(self) -> dict[str, ServerConfig]:
        return {name: s for name, s in self.servers.items() if not s.disabled}


# ---------------------------------------------------------------------------------------------------
# From a config to the bridge's own objects
# ---------------------------------------------------------------------------------------------------


def server_settings(defaults: Defaults, server: ServerConfig) -> Settings:
    return Settings(
        upstream_era=server.era,
        front_era=defaults.front_era,
        allowed_origins=list(defaults.allow_origin),
        request_timeout=server.request_timeout or defaults.request_timeout,
        probe_timeout=server.probe_timeout or defaults.probe_timeout,
        connect_timeout=server.connect_timeout or defaults.connect_timeout,
        era_cache_ttl=server.era_cache_ttl or defaults.era_cache_ttl,
        respawn_backoff_initial=defaults.respawn_backoff_initial,
        respawn_backoff_max=defaults.respawn_backoff_max,
        share_child=server.share_child,
        **{**defaults.limits.given(), **server.limits.given()},
    )


def server_target(name: str, server: ServerConfig, environ: dict[str, str] | None = None, base_dir: Path | None = None) -> Target:
    """The factory's ``Target``; env passthrough and bearer secrets are resolved here (from ``environ``)."""
    environ = dict(os.environ) if environ is None else environ
    if server.url:
        headers = dict(server.headers)
        token = server.bearer
        if server.bearer_env:
            token = environ.get(server.bearer_env)
            if token is None:
                raise ConfigError(f"server {name!r}: environment variable {server.bearer_env} (bearer_env) is not set")
        if token:
            headers["Authorization"] = f"Bearer {token}"
        auth = None
        if server.upstream_auth is not None:
            spec = server.upstream_auth.resolve(name, environ)
            if spec.mode == "header" and spec.value is not None:
                headers[spec.header] = spec.value
            elif spec.obtains_tokens:
                auth = UpstreamCredentials(spec, server.url, name=name)
        return Target(url=server.url, headers=headers, name=name, transport=server.http_transport(), auth=auth)
    assert server.command is not None
    if server.env_passthrough is None:
        env, inherit = dict(server.env), True
    else:
        env = {k: environ[k] for k in server.env_passthrough if k in environ}
        env.update(server.env)
        inherit = False
    cwd = server.cwd
    if cwd is not None and base_dir is not None and not os.path.isabs(cwd):
        cwd = str((base_dir / cwd).resolve())
    return Target(command=[server.command, *server.args], env=env, inherit_env=inherit, cwd=cwd, name=name)


def fingerprint(defaults: Defaults, server: ServerConfig) -> str:
    """What decides whether a reload must replace a server's upstream."""
    return json.dumps({"server": server.model_dump(exclude=STAGING_KEYS),
                       "bridge": defaults.model_dump(exclude={"listen", "drain_timeout", "allow_host", "admin_token", "admin_token_file",
                                                                             *SCALE_KEYS})},
                      sort_keys=True)



# ---------------------------------------------------------------------------------------------------
# Loading, with errors that point at the line
# ---------------------------------------------------------------------------------------------------


def load(path: str | os.PathLike[str]) -> FleetConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse(text, str(p), fmt="json" if p.suffix.lower() == ".json" or text.lstrip().startswith("{") else "toml")


def parse(text: str, source: str = "<config>", fmt: Literal["toml", "json"] = "toml") -> FleetConfig:
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        data = _from_json(data, text, source)
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    try:
        return FleetConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, text, source, fmt)) from None


def _from_json(data: Any, text: str, source: str) -> dict[str, Any]:
    """Desktop hosts' files as they are (``mcp_eras.bridge.translate.desktop``): their own keys are ignored with one warning each."""
    from mcp_eras.bridge.translate.desktop import normalize

    try:
        out, warnings = normalize(data, set(ServerConfig.model_fields), lambda loc: _find_json_line(text, loc), source)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    for warning in warnings:
        if warning not in _WARNED:
            _WARNED.add(warning)
            log.warning("%s", warning, extra={"event": "config_key_ignored"})
    return out


_WARNED: set[str] = set()
"""Warnings already given (a file is read again on every reload)."""


def _explain(exc: ValidationError, text: str, source: str, fmt: str) -> str:
    lines = []
    for err in exc.errors():
        loc = [str(x) for x in err["loc"]]
        if fmt == "json" and loc and loc[0] == "servers":
            loc[0] = "mcpServers"
        line = _find_json_line(text, loc) if fmt == "json" else _find_toml_line(text, loc)
        where = ".".join(loc) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key" + _did_you_mean(loc)
        elif err["type"] == "missing":
            msg = "required key is missing"
        lines.append(f"{source}:{line or '?'}: {where}: {msg}")
    return "\n".join(lines)


def _did_you_mean(loc: list[str]) -> str:
    """For an unknown key of a server entry: the bridge key it most likely misspells (TOML and JSON alike)."""
    from mcp_eras.bridge.translate.desktop import suggest

    if len(loc) != 3 or loc[0] not in ("servers", "mcpServers"):
        return ""
    near = suggest(loc[2], set(ServerConfig.model_fields))
    return f" (did you mean {near!r}?)" if near else ""


def _find_toml_line(text: str, loc: list[str]) -> int | None:
    """Best-effort line of a validation error in TOML: the key's line inside the deepest table header on its path
    (``[servers.a.limits]``, else ``[servers.a]``, else ``[servers]`` with ``a = { ... }``), else that header."""
    rows = text.splitlines()
    if not loc:
        return None
    if loc[0] not in ("servers", "bridge"):
        return 1
    names = [part for part in loc if not part.isdigit()]
    for depth in range(len(names) - 1, 0, -1):
        header = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(rf"[\"']?{re.escape(n)}[\"']?" for n in names[:depth]) + r"\s*\]")
        start = next((i for i, row in enumerate(rows) if header.match(row)), None)
        if start is None:
            continue
        key = re.compile(rf"^\s*[\"']?{re.escape(names[depth])}[\"']?\s*=")
        for j in range(start + 1, len(rows)):
            if re.match(r"^\s*\[", rows[j]):
                break
            if key.match(rows[j]):
                return j + 1
        return start + 1
    return 1


def _find_json_line(text: str, loc: list[str]) -> int:
    """Best-effort line of a key path in JSON text: each key searched after the previous one."""
    pos = 0
    found = 0
    for part in loc:
        if part.isdigit():
            continue
        idx = text.find(json.dumps(part), pos)
        if idx < 0:
            break
        pos, found = idx, idx
    return text.count("\n", 0, found) + 1
