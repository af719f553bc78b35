"""Differential: a session's response shortcut (``LegacySession.take_response``, which claims a response frame
before the generic router runs) against the rule it shortcuts (``route_inbound``, the pure core's first rule).

Property-style over a table: every response-shaped frame (ids of every JSON type, results, errors, neither) against
every set of calls in flight and every wire attribution; the shortcut must hand the frame to exactly the call
``route_inbound`` names (the same ``LiveCall`` object, once), or to none when it says "drop", and always report the
frame consumed.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from mcp_eras.bridge.translate.legacy_server.pool import route_inbound
from mcp_eras.bridge.upstream.legacy_driver import LegacySession, LiveCall

IDS: list[Any] = [1, 2, 7, 0, -1, 2**70, True, False, 1.0, 2.5, "1", "", None, [1], {"id": 1}]
BODIES: list[dict[str, Any]] = [
    {"result": {}},
    {"result": {"content": [], "isError": False}},
    {"error": {"code": -32601, "message": "Method not found"}},
    {},  # neither (malformed, still not a request)
]
CALL_SETS: list[dict[int, bool | None]] = [
    {},
    {1: False},
    {1: True, 2: None},  # a call that opted into logs, and one of the bridge's own requests
    {0: False, 1: None, 2: True, 2**70: False},
]
RELATED: list[Any] = [None, 1, 2, 7]


def frames() -> list[dict[str, Any]]:
    out = [{"jsonrpc": "2.0", "id": rid, **body} for rid, body in itertools.product(IDS, BODIES)]
    out += [{"jsonrpc": "2.0", **body} for body in BODIES]  # no id at all
    return out


def session_with(calls: dict[int, bool | None]) -> LegacySession:
    """A session holding these calls (only ``calls`` is read by ``take_response``)."""
    session = LegacySession.__new__(LegacySession)
    session.calls = {cid: LiveCall(cid, "tools/call" if logs is not None else "ping") for cid, logs in calls.items()}
    return session


def received(session: LegacySession) -> list[tuple[int, Any]]:
    """(call id, frame) for every frame now queued to a call."""
    out = []
    for cid, call in session.calls.items():
        while not call.queue.empty():
            out.append((cid, call.queue._items.popleft()))  # noqa: SLF001 - drained synchronously
    return out


@pytest.mark.parametrize("calls", CALL_SETS, ids=lambda c: "calls=" + ",".join(map(str, c)) or "none")
def test_take_response_routes_every_response_as_route_inbound(calls: dict[int, bool | None]) -> None:
    checked = 0
    for frame, related in itertools.product(frames(), RELATED):
        kind, target = route_inbound(frame, related, calls, None)
        assert kind in ("call", "drop"), frame  # a frame without "method" is a response to the core as well
        session = session_with(calls)
        assert session.take_response(frame) is True
        got = received(session)
        if kind == "drop":
            assert got == [], f"{frame!r}: the shortcut delivered what route_inbound drops"
        else:
            # the call route_inbound names, found as the session finds it (``calls[target]``), got this very frame
            expected_call = session.calls[target]
            assert [(session.calls[cid], msg) for cid, msg in got] == [(expected_call, frame)], frame
            assert got[0][1] is frame
        checked += 1
    assert checked == len(frames()) * len(RELATED)


def test_the_table_reaches_both_outcomes() -> None:
    """The property above is not vacuous: the table holds frames routed to a call and frames dropped, among them
    the ones a loose id check gets wrong (a boolean or a float equal to a call's integer id)."""
    calls: dict[int, bool | None] = {0: False, 1: None}
    outcomes = {repr(frame.get("id")): route_inbound(frame, None, calls, None)[0] for frame in frames()}
    assert outcomes["1"] == outcomes["0"] == "call"
    assert outcomes["True"] == outcomes["False"] == outcomes["1.0"] == outcomes["'1'"] == outcomes["None"] == "drop"
