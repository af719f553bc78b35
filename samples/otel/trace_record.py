"""What the recording samples of this folder share: the W3C trace keys of ``_meta`` and one JSON line per request."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TRACE_KEYS = ("traceparent", "tracestate", "baggage")


def trace_keys(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """The trace keys of a ``_meta`` mapping (None for each one absent)."""
    return {key: (meta or {}).get(key) for key in TRACE_KEYS}


def append(record: Path, line: dict[str, Any]) -> None:
    with record.open("a") as out:
        out.write(json.dumps(line) + "\n")
