"""No token in any log line, at any level: a logging filter that rewrites each record before a handler
formats it, and a record factory that does the same for records of every logger (OAuth 2.1 §7.1; MCP
2026-07-28 "Token Theft": tokens logged are tokens stolen).

Two nets: every secret the auth shell handles is registered (``remember``) and replaced wherever it
appears; and anything shaped like a credential (``Bearer x``, ``Basic x``, ``access_token=x``,
``"refresh_token": "x"``, ``code_verifier`` ...) is masked even when it was never registered.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any

MASK = "[redacted]"
_SECRET_NAMES = r"access_token|refresh_token|id_token|client_secret|code_verifier|client_assertion"
_PATTERNS = [
    re.compile(r"(?i)\b(bearer|basic|dpop)\s+[A-Za-z0-9\-._~+/]+=*"),
    re.compile(rf"(?i)\b({_SECRET_NAMES})=[^&\s\"',;]+"),
    re.compile(rf"(?i)([\"']?(?:{_SECRET_NAMES})[\"']?\s*:\s*[\"'])[^\"']+"),
]
_known: set[str] = set()
_lock = threading.Lock()


def remember(*secrets: str | None) -> None:
    """Register secrets to be masked wherever they appear (short strings are ignored: too many false hits)."""
    with _lock:
        _known.update(s for s in secrets if s and len(s) >= 8)


def redact(text: str) -> str:
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    text = _PATTERNS[0].sub(lambda m: f"{m.group(1)} {MASK}", text)
    text = _PATTERNS[1].sub(lambda m: f"{m.group(1)}={MASK}", text)
    return _PATTERNS[2].sub(lambda m: f"{m.group(1)}{MASK}", text)


def _scrub(record: logging.LogRecord) -> None:
    if getattr(record, "_mcp_eras_redacted", False):
        return
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: keep what can be kept
        message = f"{record.msg!r} {record.args!r}"
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    record._mcp_eras_redacted = True


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        _scrub(record)
        return True


_previous_factory: Callable[..., logging.LogRecord] | None = None


def install() -> None:
    """Redact every record from now on: the record factory catches all loggers, the filter on the root
    handlers catches records made before (or around) the factory. Idempotent."""
    global _previous_factory
    with _lock:
        if _previous_factory is not None:
            return
        previous = _previous_factory = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _scrub(record)
        return record

    logging.setLogRecordFactory(factory)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def uninstall() -> None:
    """Undo ``install`` (for tests that must leave logging as they found it)."""
    global _previous_factory
    with _lock:
        previous, _previous_factory = _previous_factory, None
        _known.clear()
    if previous is not None:
        logging.setLogRecordFactory(previous)
    for handler in logging.getLogger().handlers:
        for f in [f for f in handler.filters if isinstance(f, RedactingFilter)]:
            handler.removeFilter(f)
