"""mcp_eras.bridge.translate.errors: every code<->code and code<->status row, with the spec's own example errors.

Every error a mapping emits is validated against the receiving era's schema (tests/data/spec).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcp_eras.bridge.translate import errors

import spec

SPEC_CITATION = re.compile(r"20(25-11-25|26-07-28) [\w/.-]+\.mdx §")

MODERN_EXAMPLE_ERRORS = [
    (kind, name, msg.get("error", msg)) for kind in ("HeaderMismatchError", "InternalError", "InvalidParamsError", "MethodNotFoundError",
                                   "MissingRequiredClientCapabilityError", "ParseError", "UnsupportedProtocolVersionError")
    for name, msg in spec.examples(kind)
]


def _legacy_frame(error: dict[str, Any], rid: Any = 1) -> dict[str, Any]:
    frame = {"jsonrpc": "2.0", "id": rid, "error": error}
    spec.legacy("JSONRPCErrorResponse", frame)
    return frame


def _modern_frame(error: dict[str, Any], rid: Any = 1) -> dict[str, Any]:
    frame = {"jsonrpc": "2.0", "id": rid, "error": error}
    spec.modern("JSONRPCErrorResponse", frame)
    return frame


def test_every_row_cites_the_public_spec() -> None:
    for rule in (*errors.TO_MODERN, *errors.TO_LEGACY):
        assert SPEC_CITATION.search(rule.spec), rule


@pytest.mark.parametrize("kind,name,msg", MODERN_EXAMPLE_ERRORS)
def test_modern_example_errors_reach_a_legacy_client_unchanged(kind: str, name: str, msg: dict[str, Any]) -> None:
    """No spec example is a resources/read not-found, so none is renumbered (issue: never re-map what needs no map)."""
    for method in ("tools/call", "prompts/get", "resources/read", None):
        out = errors.to_legacy_error(msg, method, {"uri": "file:///some"})
        assert out == msg
        _legacy_frame(out)


@pytest.mark.parametrize("kind,name,msg", MODERN_EXAMPLE_ERRORS)
def test_modern_http_status_of_spec_examples(kind: str, name: str, msg: dict[str, Any]) -> None:
    expected = {"HeaderMismatchError": 400, "UnsupportedProtocolVersionError": 400,
                "MissingRequiredClientCapabilityError": 400, "MethodNotFoundError": 404}.get(kind, 200)
    assert errors.modern_http_status(_modern_frame(msg)) == expected


def test_modern_not_found_becomes_2025_resource_not_found() -> None:
    # 2026-07-28 server/resources.mdx §Error Handling example, as a 2026 server sends it.
    err = {"code": -32602, "message": "Resource not found", "data": {"uri": "file:///nonexistent.txt"}}
    out = errors.to_legacy_error(err, "resources/read", {"uri": "file:///nonexistent.txt"})
    assert out == {"code": -32002, "message": "Resource not found", "data": {"uri": "file:///nonexistent.txt"}}
    _legacy_frame(out)


@pytest.mark.parametrize("err,method,params", [
    # A 2025-era TypeScript server's missing resource: already 2025 terms, no data -> untouched, no data added.
    ({"code": -32602, "message": "Resource file:///x not found"}, "resources/read", {"uri": "file:///x"}),
    ({"code": -32602, "message": "Invalid cursor"}, "resources/read", {"uri": "x"}),
    ({"code": -32602, "message": "Resource not found", "data": {"uri": "file:///other"}}, "resources/read", {"uri": "file:///x"}),
    ({"code": -32602, "message": "Resource not found", "data": {"uri": "file:///x"}}, "tools/call", {"uri": "file:///x"}),
    ({"code": -32002, "message": "Resource not found", "data": {"uri": "file:///x"}}, "resources/read", {"uri": "file:///x"}),
    ({"code": -32021, "message": "needs elicitation", "data": {"requiredCapabilities": {"elicitation": {}}}}, "tools/call", {}),
])
def test_legacy_direction_passes_what_the_spec_does_not_map(err: dict[str, Any], method: str, params: Any) -> None:
    assert errors.to_legacy_error(err, method, params) == err


def test_modern_direction_renumbers_2025_resource_not_found_keeping_data() -> None:
    err = {"code": -32002, "message": "Resource not found", "data": {"uri": "file:///x"}}
    out = errors.to_modern_error(err, "resources/read", {"uri": "file:///x"})
    assert out == {"code": -32602, "message": "Resource not found", "data": {"uri": "file:///x"}}
    _modern_frame(out)
    # ... and a 2025 client behind the 2025 front gets its own code back (round trip through the canonical form).
    assert errors.to_legacy_error(out, "resources/read", {"uri": "file:///x"}) == err


def test_modern_direction_repairs_the_sdk_code_zero_not_found() -> None:
    err = {"code": 0, "message": "Unknown resource: memo://missing"}
    out = errors.to_modern_error(err, "resources/read", {"uri": "memo://missing"})
    assert out == {"code": -32602, "message": "Resource not found", "data": {"uri": "memo://missing"}}
    assert errors.to_modern_error(err, "tools/call", {"uri": "memo://missing"}) == err


@pytest.mark.parametrize("code", [-32042, -32050, -32099, -32023])
def test_modern_direction_never_emits_undefined_reserved_codes(code: int) -> None:
    err = {"code": code, "message": "m", "data": {"x": 1}}
    out = errors.to_modern_error(err, "tools/call")
    assert out == {"code": -32603, "message": "m", "data": {"upstreamError": err}}
    _modern_frame(out)


@pytest.mark.parametrize("code", [-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32019, -32020, -32021, -32022,
                                  -1, 1, 42])
def test_modern_direction_passes_codes_already_in_2026_terms(code: int) -> None:
    err = {"code": code, "message": "m"}
    assert errors.to_modern_error(err, "tools/call") == err


@pytest.mark.parametrize("bad", [None, "oops", {"message": "no code"}, {"code": "1", "message": "m"}, {"code": True}])
def test_malformed_errors_become_internal_errors(bad: Any) -> None:
    for fn in (errors.to_modern_error, errors.to_legacy_error):
        out = fn(bad, "tools/call")
        assert out["code"] == -32603 and out["data"] == bad


def test_legacy_unsupported_version_is_the_2025_lifecycle_shape() -> None:
    code, message, data = errors.legacy_unsupported_version(["2025-11-25"], "1.0.0")
    assert (code, data) == (-32602, {"supported": ["2025-11-25"], "requested": "1.0.0"})
    _legacy_frame({"code": code, "message": message, "data": data})


def test_upstream_status_errors() -> None:
    assert errors.modern_upstream_status_error(404)[0] == -32601
    code, _msg, data = errors.modern_upstream_status_error(401, 'Bearer realm="x"')
    assert (code, data) == (-32603, {"httpStatus": 401, "wwwAuthenticate": 'Bearer realm="x"'})
    assert errors.modern_upstream_status_error(500)[2] == {"httpStatus": 500}
    assert errors.legacy_upstream_status_error(404)[2] == {"httpStatus": 404, "sessionExpired": True}
    assert errors.legacy_upstream_status_error(503)[2] == {"httpStatus": 503}


def test_legacy_front_statuses() -> None:
    # 2025-11-25 basic/transports.mdx: the values a 2025 client acts on.
    assert errors.LEGACY_SESSION_NOT_FOUND_STATUS == 404  # re-initialize
    assert errors.LEGACY_SESSION_REQUIRED_STATUS == 400
    assert errors.LEGACY_ACCEPTED_STATUS == 202
    assert errors.LEGACY_RPC_ERROR_STATUS != errors.LEGACY_SESSION_NOT_FOUND_STATUS
