"""Per-tool policy of one server (issue 34), as pure code: which tools a caller may see and call, the refusal of a
call outside policy, and the one audit record of each call.

A server's policy is ``allow_tools`` (when given, only these), ``deny_tools`` (never these; deny wins) and
``tool_scopes`` (a tool needs this scope, or these space-separated scopes, in the caller's token). Names may be
shell-style patterns (``admin_*``); a ``tool_scopes`` entry with the exact name wins over a pattern.

The refusal of a call that more scope would allow is ``insufficient_scope`` with the scope it needs (RFC 6750
section 3.1; 2026-07-28 basic/authorization "Scope Challenge Handling": 403 with ``error="insufficient_scope"`` and
the ``scope`` the request needs); a tool no scope opens is ``tool_not_allowed``. Both are one named JSON-RPC error,
so either era's client reads it; the HTTP front can answer the first with 403 and its challenge (``challenge``).

``tools/list`` shows each caller only the tools it may call, and is marked ``cacheScope: "private"`` then
(2026-07-28 schema ``CacheableResult``: a response that depends on the authorization context MUST NOT be shared
across contexts).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge.translate.gateway.resource import www_authenticate
from mcp_eras.bridge.translate.gateway.tokens import Refused
from mcp_eras.bridge.translate.jsonrpc import Message, error_response
from mcp_eras.bridge.translate.outcomes import outcome_of

POLICY_DENIED = -32003
"""The named JSON-RPC error of a call outside the server's policy (an implementation-defined server error,
JSON-RPC 2.0 section 5.1: -32000 to -32099)."""
FORBIDDEN_STATUS = 403
"""RFC 6750 section 3.1: ``insufficient_scope`` is answered with 403."""
INSUFFICIENT_SCOPE = "insufficient_scope"
NOT_ALLOWED = "tool_not_allowed"


@dataclass(frozen=True)
class ToolPolicy:
    """One server's ``allow_tools``, ``deny_tools`` and ``tool_scopes`` (None for allow: every tool not denied)."""

    allow_tools: tuple[str, ...] | None = None
    deny_tools: tuple[str, ...] = ()
    tool_scopes: Mapping[str, str] = field(default_factory=dict)
    _compiled: tuple[Any, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Each list as exact names plus one regex of its patterns, once (decide runs on every call).
        patterns = [(k, tuple(v.split())) for k, v in self.tool_scopes.items() if _is_pattern(k)]
        compiled = (_Names.of(self.allow_tools or ()), _Names.of(self.deny_tools),
                    tuple((re.compile(fnmatch.translate(k)), v) for k, v in patterns))
        object.__setattr__(self, "_compiled", compiled)

    @classmethod
    def of(cls, allow: Iterable[str] | None = None, deny: Iterable[str] = (), scopes: Mapping[str, str] | None = None) -> ToolPolicy:
        return cls(tuple(allow) if allow is not None else None, tuple(deny), dict(scopes or {}))

    @property
    def active(self) -> bool:
        """Whether the policy can hide or refuse anything."""
        return self.allow_tools is not None or bool(self.deny_tools) or bool(self.tool_scopes)

    def required_scopes(self, tool: str) -> tuple[str, ...]:
        """The scopes ``tool`` needs (its exact entry, else the first pattern that matches it)."""
        spec = self.tool_scopes.get(tool)
        if spec is not None:
            return tuple(spec.split())
        return next((scopes for regex, scopes in self._compiled[2] if regex.match(tool)), ())


@dataclass(frozen=True)
class _Names:
    exact: frozenset[str]
    pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, names: Iterable[str]) -> _Names:
        names = tuple(names)
        patterns = [fnmatch.translate(n) for n in names if _is_pattern(n)]
        return cls(frozenset(n for n in names if not _is_pattern(n)), re.compile("|".join(patterns)) if patterns else None)

    def __contains__(self, tool: object) -> bool:
        return tool in self.exact or (self.pattern is not None and isinstance(tool, str) and self.pattern.match(tool) is not None)


@dataclass(frozen=True)
class Allow:
    pass


@dataclass(frozen=True)
class Deny:
    reason: str
    """``insufficient_scope`` (``scope`` would open it) or ``tool_not_allowed`` (nothing would)."""
    scope: str | None = None
    """The scopes the call needs, space-separated (for ``insufficient_scope``)."""


ALLOW = Allow()


def _is_pattern(name: str) -> bool:
    return any(c in name for c in "*?[")


def decide(policy: ToolPolicy, scopes: frozenset[str], tool: str) -> Allow | Deny:
    """Whether a caller holding ``scopes`` may call ``tool`` under ``policy``: deny first, then allow, then scopes."""
    allowed, denied, _ = policy._compiled  # noqa: SLF001 - the policy's own precompiled lists
    if tool in denied or (policy.allow_tools is not None and tool not in allowed):
        return Deny(NOT_ALLOWED)
    needed = policy.required_scopes(tool)
    if needed and not set(needed) <= scopes:
        return Deny(INSUFFICIENT_SCOPE, " ".join(needed))
    return ALLOW


def filter_listing(policy: ToolPolicy, scopes: frozenset[str], result: dict[str, Any]) -> dict[str, Any]:
    """A ``tools/list`` result with only the tools the caller may call (private to its authorization context when
    anything could be hidden); the page's other fields (``nextCursor``, ``_meta``) are kept."""
    tools = result.get("tools")
    if not policy.active or not isinstance(tools, list):
        return result
    kept = [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)
            and isinstance(decide(policy, scopes, t["name"]), Allow)]
    out = {**result, "tools": kept}
    if "cacheScope" in result:
        out["cacheScope"] = "private"
    return out


def refusal(rid: Any, tool: str, deny: Deny) -> Message:
    """The named error of a call outside policy (it never reaches the upstream)."""
    data: dict[str, Any] = {"error": deny.reason, "tool": tool, "httpStatus": FORBIDDEN_STATUS}
    if deny.scope is not None:
        data["scope"] = deny.scope
        return error_response(rid, POLICY_DENIED, f"Forbidden: tool {tool!r} needs scope {deny.scope!r}", data)
    return error_response(rid, POLICY_DENIED, f"Forbidden: tool {tool!r} is not allowed on this server", data)


def called_tool(request: Message) -> str | None:
    """The tool a ``tools/call`` request names (None for any other request, or one without a tool name)."""
    params = request.get("params")
    name = params.get("name") if request.get("method") == "tools/call" and isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def scope_refusal(policy: ToolPolicy, scopes: frozenset[str], request: Message) -> Message | None:
    """The refusal of a ``tools/call`` that a scope the caller lacks would open, decided from the request alone (the
    tool's name) and the caller's scopes, so the HTTP front can answer it with 403 and its challenge before any
    response starts (``challenge``); None for any other request: a call the caller may make, or a tool no scope
    opens (the layer answers that one with the named error)."""
    tool = called_tool(request)
    if tool is None:
        return None
    decision = decide(policy, scopes, tool)
    if isinstance(decision, Deny) and decision.reason == INSUFFICIENT_SCOPE:
        return refusal(request.get("id"), tool, decision)
    return None


def refused_scope(response: Message) -> tuple[str, str | None] | None:
    """(error, scope) of a policy refusal, None for any other answer."""
    err = response.get("error")
    data = err.get("data") if isinstance(err, dict) and err.get("code") == POLICY_DENIED else None
    if not isinstance(data, dict) or data.get("error") not in (INSUFFICIENT_SCOPE, NOT_ALLOWED):
        return None
    scope = data.get("scope")
    return data["error"], scope if isinstance(scope, str) else None


def challenge(response: Message, resource_metadata: str) -> tuple[int, dict[str, str]] | None:
    """For the HTTP front: (403, ``WWW-Authenticate``) of an ``insufficient_scope`` refusal, so the client can step
    up (2026-07-28 basic/authorization "Step-Up Authorization Flow"); None for any other answer. A tool no scope
    opens keeps its named JSON-RPC error on an ordinary response: a challenge would send the client to ask for
    scopes that cannot help."""
    refused = refused_scope(response)
    if refused is None or refused[1] is None:
        return None
    value = www_authenticate(resource_metadata, [refused[1]],
                             Refused(FORBIDDEN_STATUS, INSUFFICIENT_SCOPE, "the token lacks the scope this tool needs"))
    return FORBIDDEN_STATUS, {"WWW-Authenticate": value}


# ---- audit ----

AUDIT_KEYS = ("principal", "server", "method", "tool", "client_era", "upstream_era", "outcome", "duration_ms")


def audit_record(*, principal: str | None, server: str, method: str, tool: str | None, client_era: str, upstream_era: str | None,
                 outcome: str, duration: float, arguments: Any = None, with_arguments: bool = False) -> dict[str, Any]:
    """The audit fields of one call (the caller's identity, never its token; its arguments only when the operator
    asked for them)."""
    record: dict[str, Any] = {"principal": principal, "server": server, "method": method, "tool": tool,
                              "client_era": client_era, "upstream_era": upstream_era, "outcome": outcome,
                              "duration_ms": round(duration * 1000.0, 3)}
    if with_arguments and arguments is not None:
        record["arguments"] = arguments
    return record


def audit_outcome(response: Message) -> str:
    """``denied`` for a policy refusal, else the observing layers' outcome (ok, input_required, error)."""
    return "denied" if refused_scope(response) is not None else outcome_of(response)
