"""The caller a resource-server guard validated, for the front serving the request (one per request: a context
variable set by ``mcp_eras.bridge.gateway.guard`` around the request's handling)."""

from __future__ import annotations

import hashlib
from contextvars import ContextVar
from dataclasses import dataclass, field

from mcp_eras.bridge.translate.gateway.tokens import Accepted


@dataclass(frozen=True)
class Caller:
    subject: str
    scopes: frozenset[str]
    token: str = field(repr=False)

    @property
    def principal(self) -> str:
        """A digest of the subject (not of the token: a refreshed token is the same caller)."""
        return hashlib.sha256(self.subject.encode()).hexdigest()[:32]

    @classmethod
    def of(cls, accepted: Accepted, token: str) -> Caller:
        return cls(accepted.subject, accepted.scopes, token)


CALLER: ContextVar[Caller | None] = ContextVar("mcp_bridge_caller", default=None)
