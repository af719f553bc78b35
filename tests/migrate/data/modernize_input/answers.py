"""What both fixture clients answer (plain data, no SDK import: shared by the 2025 and 2026 clients)."""

from __future__ import annotations

from typing import Any

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("book", {"date": "friday"}),
    ("book", {"date": "never"}),
    ("reserve", {"date": "12-25", "party": 4}),
    ("reserve", {"date": "12-20", "party": 2}),
    ("summarize", {"text": "a long story about eras"}),
    ("workspace", {}),
]


def elicit(message: str) -> dict[str, Any]:
    """Accept with as many seats as the question has words; decline a question about `never`."""
    if "never" in message:
        return {"action": "decline"}
    return {"action": "accept", "content": {"confirm": True, "seats": len(message.split())}}


def sample(prompt: str, max_tokens: int) -> dict[str, Any]:
    return {"role": "assistant", "model": "fixture-model",
            "content": {"type": "text", "text": f"{len(prompt)} chars, at most {max_tokens} tokens"}}


def roots() -> dict[str, Any]:
    return {"roots": [{"uri": "file:///srv/beta", "name": "beta"}, {"uri": "file:///srv/alpha"}]}


def text_of(result: Any) -> dict[str, Any]:
    """A tool result as compared across eras: error flag and text contents."""
    return {"error": bool(result.isError if hasattr(result, "isError") else result.is_error),
            "text": [c.text for c in result.content if getattr(c, "type", None) == "text"]}
