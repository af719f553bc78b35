"""Sealed ``requestState`` tokens (MRTR, direction A), pure: HMAC sealing with the time passed in.

2026-07-28 basic/patterns/mrtr.mdx §Request State: the client echoes ``requestState`` verbatim on its retry, and
an invalid one is answered -32602. The bridge keeps a parked upstream call and seals a token naming it. A token is
``base64url(payload) "." base64url(HMAC-SHA256(key, payload))`` (RFC 4648 §5, RFC 2104). The payload names the
parked call, the bridge instance holding it, the caller's principal, the request it belongs to (method + digest of
its salient params), the round and an expiry. Integrity, expiry and binding are checked here; single use is
enforced by the pool (a parked call is taken once per round).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import orjson

from mcp_eras.bridge.translate.jsonrpc import INVALID_PARAMS, FrameError


@dataclass(frozen=True)
class StateClaims:
    puc: str
    instance: str
    principal: str | None
    method: str
    digest: str
    round: int
    expires_ms: int


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sealer:
    """Seals and opens ``requestState`` tokens for one bridge instance; the time is always passed in."""

    def __init__(self, key: bytes, instance: str, ttl_seconds: float) -> None:
        if len(key) < 16:
            raise ValueError("requestState key must be at least 16 bytes")
        self._key = key
        self.instance = instance
        self.ttl_ms = int(ttl_seconds * 1000)

    def seal(self, *, puc: str, principal: str | None, method: str, digest: str, round: int, now_ms: int) -> str:
        payload = orjson.dumps(
            {"v": 1, "puc": puc, "inst": self.instance, "sub": principal, "m": method, "h": digest, "r": round,
             "exp": now_ms + self.ttl_ms}
        )
        mac = hmac.new(self._key, payload, hashlib.sha256).digest()
        return f"{_b64(payload)}.{_b64(mac)}"

    def issuer(self, token: Any) -> str | None:
        """The instance named by an authentic token (None when it is not one of ours): a scaled-out
        bridge forwards a retry to that instance before opening it there."""
        if not isinstance(token, str) or token.count(".") != 1 or len(token) > 4096:
            return None
        body, sig = token.split(".")
        try:
            payload, mac = _unb64(body), _unb64(sig)
            if not hmac.compare_digest(mac, hmac.new(self._key, payload, hashlib.sha256).digest()):
                return None
            data = orjson.loads(payload)
        except (ValueError, TypeError, orjson.JSONDecodeError):
            return None
        inst = data.get("inst") if isinstance(data, dict) else None
        return inst if isinstance(inst, str) else None

    def open(self, token: Any, *, principal: str | None, method: str, digest: str, now_ms: int) -> StateClaims:
        """Verify a token against the request that carries it; raise -32602 on any failure."""
        if not isinstance(token, str) or token.count(".") != 1 or len(token) > 4096:
            raise _invalid("malformed")
        body, sig = token.split(".")
        try:
            payload, mac = _unb64(body), _unb64(sig)
        except (ValueError, TypeError):
            raise _invalid("malformed") from None
        if not hmac.compare_digest(mac, hmac.new(self._key, payload, hashlib.sha256).digest()):
            raise _invalid("integrity check failed")
        try:
            data = orjson.loads(payload)
        except orjson.JSONDecodeError:
            raise _invalid("malformed") from None
        if not isinstance(data, dict) or data.get("v") != 1:
            raise _invalid("unknown version")
        if not isinstance(data.get("exp"), int) or data["exp"] <= now_ms:
            raise _invalid("expired")
        if data.get("inst") != self.instance:
            raise _invalid("issued by another bridge instance")
        if data.get("sub") != principal:
            raise _invalid("issued to another caller")
        if data.get("m") != method or data.get("h") != digest:
            raise _invalid("issued for another request")
        return StateClaims(
            puc=str(data["puc"]), instance=data["inst"], principal=data["sub"], method=data["m"], digest=data["h"],
            round=int(data["r"]), expires_ms=data["exp"],
        )


def _invalid(why: str) -> FrameError:
    return FrameError(INVALID_PARAMS, f"Invalid requestState: {why}", {"reason": why})
