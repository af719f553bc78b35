"""The fleet's operator routes: ``/fleet`` (dashboard), ``/fleet/status`` (JSON, ``status.schema.json``),
``/fleet/divergences`` (JSON) and ``POST /admin/canary``. All of them are closed by default:
loopback clients with the admin token only (``mcp_eras.bridge.fleet.guard``); the pages also accept the token
once as ``?token=``, which is swapped for a same-site cookie and a redirect to the clean URL.
"""

from __future__ import annotations

import json
import math
import time
from collections import deque
from collections.abc import Mapping
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from mcp_eras.bridge.fleet import dashboard, guard
from mcp_eras.bridge.fleet.history import EraHistory
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.front.bounded_body import bounded_body

DIVERGENCES_SHOWN = 5
DIVERGENCES_DEFAULT = 50
ADMIN_BODY_LIMIT = 64 * 1024  # an admin form is a few fields


class Router(Protocol):
    """What these routes read and change of the running fleet (``fleet.serve.Router`` is the one), declared here
    so that this module needs nothing from the module that serves it."""

    @property
    def path(self) -> Path: ...
    @property
    def loaded_at(self) -> float | None: ...
    @property
    def admin_token(self) -> str | None: ...
    @property
    def entries(self) -> Mapping[str, Any]: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def history(self) -> EraHistory: ...
    @property
    def divergences(self) -> deque[Any]: ...
    def allowed_origins(self) -> list[str]: ...
    def log_event(self, msg: str, *args: Any, extra: dict[str, Any]) -> None: ...


def status_schema() -> dict[str, Any]:
    return json.loads(resources.files("mcp_eras.bridge.fleet").joinpath("status.schema.json").read_text(encoding="utf-8"))


def transport_of(router: Router, name: str) -> str:
    entry = router.entries[name]
    slot = entry.upstream.slot
    if slot.target.command:
        return "stdio"
    probed = slot.probe.transport if slot.probe is not None else None
    return str(probed or slot.target.transport or "http")


def fleet_status(router: Router, now: float | None = None) -> dict[str, Any]:
    now = time.time() if now is None else now
    servers = []
    for name, entry in sorted(router.entries.items()):
        st = entry.upstream.status()
        by_era = {era: int(n) for era, n in sorted(router.metrics.totals("requests_total", "client_era", server=name).items())}
        staged = entry.staged.stage_status() or {}
        servers.append({
            "name": name, "era": st["era"], "configured_era": st["configured_era"], "transport": transport_of(router, name),
            "target": st["target"], "state": st["state"], "restarts": int(st["restarts"]), "generation": int(st["generation"]),
            "inflight": int(st["inflight"]), "last_error": st["last_error"], "requests_by_client_era": by_era,
            "shadow": staged.get("shadow"), "canary": staged.get("canary"),
        })
    return {"generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), "config": str(router.path),
            "loaded_at": router.loaded_at, "servers": servers, "history": router.history.series(now),
            "divergences": len(router.divergences)}


def divergences(router: Router, limit: int) -> list[dict[str, Any]]:
    kept = list(router.divergences)
    return [d.to_json() for d in reversed(kept[-limit:])] if limit > 0 else []


def _denied(router: Router, request: Request, page: bool) -> Response | None:
    return guard.admin_denied(request, router.admin_token, router.allowed_origins(), cookie_ok=page)


def _token_in_query(router: Router, request: Request) -> Response | None:
    """``?token=T`` on a page: set the cookie and redirect to the URL without it (when T is right)."""
    given = request.query_params.get("token")
    if given is None or not guard.token_matches(given, router.admin_token):
        return None
    query = "&".join(f"{k}={v}" for k, v in request.query_params.multi_items() if k != "token")
    resp = RedirectResponse(request.url.path + (f"?{query}" if query else ""), status_code=HTTPStatus.SEE_OTHER)
    resp.set_cookie(guard.TOKEN_COOKIE, given, httponly=True, samesite="strict", path="/")
    return resp


async def fleet_page(router: Router, request: Request) -> Response:
    redirect = _token_in_query(router, request)
    if redirect is not None and request.client and request.client.host in guard.LOOPBACK_CLIENTS:
        return redirect
    denied = _denied(router, request, page=True)
    if denied is not None:
        return denied
    page = dashboard.render(fleet_status(router), divergences(router, DIVERGENCES_SHOWN))
    return HTMLResponse(page, headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                       "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:"})


async def fleet_status_endpoint(router: Router, request: Request) -> Response:
    denied = _denied(router, request, page=True)
    return denied or JSONResponse(fleet_status(router), headers={"Cache-Control": "no-store"})


async def divergences_endpoint(router: Router, request: Request) -> Response:
    denied = _denied(router, request, page=True)
    if denied is not None:
        return denied
    text = request.query_params.get("limit", str(DIVERGENCES_DEFAULT))
    limit = int(text) if text.isdigit() else DIVERGENCES_DEFAULT
    return JSONResponse({"kept": len(router.divergences), "divergences": divergences(router, limit)},
                        headers={"Cache-Control": "no-store"})


async def canary_endpoint(router: Router, request: Request) -> Response:
    """``POST /admin/canary {"server": NAME, "weight": W}``: a new weight, arming the canary again."""
    denied = _denied(router, request, page=False)
    if denied is not None:
        return denied
    raw = await bounded_body(request, ADMIN_BODY_LIMIT)
    if not isinstance(raw, bytes):
        return JSONResponse({"ok": False, "error": raw.phrase}, status_code=raw)
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        return JSONResponse({"ok": False, "error": "the body must be JSON"}, status_code=HTTPStatus.BAD_REQUEST)
    name = body.get("server") if isinstance(body, dict) else None
    weight = body.get("weight") if isinstance(body, dict) else None
    if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not math.isfinite(weight) or not 0 <= weight <= 1:
        return JSONResponse({"ok": False, "error": "'weight' must be a number between 0 and 1"}, status_code=HTTPStatus.BAD_REQUEST)
    entry = router.entries.get(name) if isinstance(name, str) else None
    stage = entry.staged.stage if entry is not None else None
    if entry is None or stage is None or stage.cfg.canary_to is None:
        return JSONResponse({"ok": False, "error": f"no server {name!r} with a canary"}, status_code=HTTPStatus.NOT_FOUND)
    before = stage.weight
    stage.set_weight(float(weight))
    router.log_event("canary weight of %s: %s -> %s", name, before, stage.weight,
                     extra={"event": "canary_weight", "server": name, "before": before, "weight": stage.weight})
    return JSONResponse({"ok": True, "server": name, **(entry.staged.stage_status() or {})})


ROUTES = (
    ("/admin/canary", canary_endpoint, "POST"),
    ("/fleet", fleet_page, "GET"),
    ("/fleet/status", fleet_status_endpoint, "GET"),
    ("/fleet/divergences", divergences_endpoint, "GET"),
)
