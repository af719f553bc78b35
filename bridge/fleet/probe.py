"""``mcp-bridge probe``: the era inventory of one or many servers.

Per server: the protocol versions it speaks, its era, serverInfo, capabilities, how many tools,
prompts, resources and templates it lists, and the features that need the bridge's translation (or
cannot be translated) for clients of the other era. The report is JSON (``probe.schema.json``) or a
table; ``exit_code`` turns it into a CI verdict.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import httpx

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, served_by
from mcp_eras.bridge.fleet import canon
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.upstream.factory import (
    ProbeResult,
    Target,
    legacy_upstream,
    make_upstream,
    modern_upstream,
    probe,
    probe_stdio,
)

SCHEMA_PATH = Path(__file__).with_name("probe.schema.json")

NATIVE, TRANSLATED, UNTRANSLATABLE = "native", "translated", "untranslatable"


@dataclass
class ProbeJob:
    name: str
    target: Target
    settings: Settings


# ---------------------------------------------------------------------------------------------------
# Pure: features from what a server declares
# ---------------------------------------------------------------------------------------------------


def features(era: str, capabilities: dict[str, Any], tools: list[dict[str, Any]] | None = None) -> list[dict[str, str]]:
    """What a client of the *other* era needs the bridge for, from the server's (era-native) capabilities."""
    out: list[dict[str, str]] = []

    def add(name: str, status: str, detail: str) -> None:
        out.append({"name": name, "status": status, "detail": detail})

    caps = capabilities if isinstance(capabilities, dict) else {}
    legacy = era == eras.LEGACY
    resources = caps.get("resources") if isinstance(caps.get("resources"), dict) else {}
    list_changed = [k for k in ("tools", "prompts", "resources") if isinstance(caps.get(k), dict) and caps[k].get("listChanged")]
    if legacy:
        add("server-requests", TRANSLATED,
            "possible on any call (not visible statically): sampling/elicitation/roots requests from the server "
            "become input_required results for 2026 clients")
        if resources.get("subscribe") or list_changed:
            parts = (["resources/subscribe"] if resources.get("subscribe") else []) + [f"{k} listChanged" for k in list_changed]
            add("subscriptions", TRANSLATED, ", ".join(parts) + " -> subscriptions/listen")
        if "logging" in caps:
            add("logging", TRANSLATED, "logging/setLevel per session <-> logLevel per request")
        add("sessions", TRANSLATED, "initialize handshake and Mcp-Session-Id pooled by the bridge")
    else:
        add("input-required", TRANSLATED, "possible on any call (not visible statically): input_required results (MRTR) "
            "become server->client requests for 2025 clients")
        if resources.get("subscribe") or list_changed:
            add("subscriptions", TRANSLATED, "subscriptions/listen -> resources/subscribe and list_changed notifications")
        if "logging" in caps:
            add("logging", TRANSLATED, "logLevel per request <-> logging/setLevel per session")
    if "completions" in caps:
        add("completions", NATIVE, "completion/complete exists in both eras")
    if "tasks" in caps:
        add("tasks", UNTRANSLATABLE, "the tasks extension is not translated between eras")
    for key in sorted(caps.get("experimental") or {}):
        add(f"experimental:{key}", UNTRANSLATABLE, "experimental capability passed through without translation")
    for key in sorted(caps.get("extensions") or {}):
        add(f"extension:{key}", UNTRANSLATABLE, "extension passed through without translation")
    task_tools = [t.get("name") for t in tools or []
                  if isinstance(t.get("execution"), dict) and t["execution"].get("taskSupport") == "required"]
    if task_tools:
        add("task-only-tools", UNTRANSLATABLE, "tools requiring task execution: " + ", ".join(map(str, task_tools)))
    return out


def exit_code(report: dict[str, Any], fail_on_untranslatable: bool = False, expect_era: str | None = None) -> int:
    """0 every server answered (and matched the expectations), 1 otherwise."""
    for s in report["servers"]:
        if not s["ok"]:
            return 1
        if expect_era and s["era"] != expect_era:
            return 1
        if fail_on_untranslatable and any(f["status"] == UNTRANSLATABLE for f in s["features"]):
            return 1
    return 0


def render_table(report: dict[str, Any]) -> str:
    head = ("SERVER", "ERA", "VERSIONS", "SERVER INFO", "TOOLS", "PROMPTS", "RES", "TPL", "TRANSLATED", "UNTRANSLATABLE")
    rows: list[tuple[str, ...]] = [head]
    for s in report["servers"]:
        if not s["ok"]:
            rows.append((s["name"], "ERROR", "-", s.get("error") or "", "", "", "", "", "", ""))
            continue
        info = s.get("serverInfo") or {}
        c = s["counts"]
        rows.append((
            s["name"], s["era"] or "?", ",".join(s["versions"]), f"{info.get('name', '?')} {info.get('version', '')}".strip(),
            *(str(c.get(k, "-")) if c.get(k) is not None else "-" for k in ("tools", "prompts", "resources", "resourceTemplates")),
            ",".join(f["name"] for f in s["features"] if f["status"] == TRANSLATED) or "-",
            ",".join(f["name"] for f in s["features"] if f["status"] == UNTRANSLATABLE) or "-",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]
    summary = report["summary"]
    lines.append("")
    lines.append(f"{summary['total']} servers: {summary['ok']} answered ({summary['modern']} on 2026-07-28, "
                 f"{summary['legacy']} on 2025-11-25), {summary['failed']} failed")
    return "\n".join(lines)


def summarize(servers: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "total": len(servers),
        "ok": sum(1 for s in servers if s["ok"]),
        "failed": sum(1 for s in servers if not s["ok"]),
        "modern": sum(1 for s in servers if s["ok"] and s["era"] == eras.MODERN),
        "legacy": sum(1 for s in servers if s["ok"] and s["era"] == eras.LEGACY),
        "untranslatable": sum(1 for s in servers if any(f["status"] == UNTRANSLATABLE for f in s["features"])),
    }


# ---------------------------------------------------------------------------------------------------
# Shell: talk to the servers
# ---------------------------------------------------------------------------------------------------


def _legacy_init(up: Upstream) -> dict[str, Any]:
    """The InitializeResult a 2025 upstream's first initialized session got (``up`` or the upstream it chose)."""
    real = served_by(up)
    for session in real.live.values() if real is not None else ():
        if session.init_result:
            return dict(session.init_result)
    return {}


async def _speaks_legacy(target: Target, settings: Settings) -> str | None:
    """Does a 2026 server also accept the 2025 handshake? The version it negotiates, or None."""
    up = legacy_upstream(target, settings.model_copy(update={"connect_timeout": settings.probe_timeout,
                                                             "request_timeout": settings.probe_timeout * 2}),
                         None if target.url is None else "streamable-http")
    try:
        async def handshake() -> None:
            await up.start()
            await up.discover(CallContext())  # a stdio start() only spawns: the first session initializes

        await asyncio.wait_for(handshake(), settings.probe_timeout * 3)
        version = _legacy_init(up).get("protocolVersion")
        return version if isinstance(version, str) else None
    except Exception:  # noqa: BLE001 - refusing the handshake is the answer
        return None
    finally:
        with contextlib.suppress(Exception):
            await up.aclose()


def _serving(target: Target, settings: Settings, era: str, result: ProbeResult | None) -> Upstream:
    """The upstream that lists the server: on the probed stdio child when there is one (one spawn)."""
    if result is None or result.child is None:
        return make_upstream(target, settings)
    if era == eras.MODERN:
        return modern_upstream(target, settings, result.child)
    return legacy_upstream(target, settings, adopt=result)


async def probe_one(job: ProbeJob) -> dict[str, Any]:
    started = time.monotonic()
    entry: dict[str, Any] = {
        "name": job.name, "target": job.target.describe(), "ok": False, "error": None, "era": None, "transport": None,
        "versions": [], "serverInfo": None, "capabilities": {}, "counts": {}, "features": [], "elapsed_ms": 0,
    }
    up: Upstream | None = None
    result: ProbeResult | None = None
    first = canon.request("server/discover")
    try:
        settings = job.settings
        if settings.upstream_era == "auto":
            # A stdio child is confirmed for the identity the listing's requests carry, and then serves them.
            result = await (probe_stdio(job.target, settings, keep_child=True, first_request=first) if job.target.command
                            else probe(job.target, settings))
            era = result.era or eras.LEGACY
            entry["transport"] = result.transport
            settings = settings.model_copy(update={"upstream_era": era})
        else:
            era = settings.upstream_era
            entry["transport"] = "stdio" if job.target.command else job.target.transport
        entry["era"] = era
        if era == eras.LEGACY and job.target.url and entry["transport"] in ("sse", "streamable-http"):
            target = Target(url=job.target.url, headers=job.target.headers, name=job.target.name, transport=entry["transport"])
        else:
            target = job.target
        up = _serving(target, settings, era, result)
        if result is None or result.child is None or era == eras.MODERN:
            await up.start()  # (an adopted 2025 child is running and initialized already)
        discovered = await up.discover(CallContext(identity=eras.request_meta(first)))
        meta = discovered.get("_meta") if isinstance(discovered.get("_meta"), dict) else {}
        if era == eras.LEGACY:
            init = _legacy_init(up)
            caps = init.get("capabilities") or {}
            entry["serverInfo"] = init.get("serverInfo")
            entry["versions"] = [init["protocolVersion"]] if isinstance(init.get("protocolVersion"), str) else []
        else:
            caps = discovered.get("capabilities") or {}
            entry["serverInfo"] = meta.get(eras.META_SERVER_INFO) or discovered.get("serverInfo")
            entry["versions"] = [v for v in discovered.get("supportedVersions", []) if isinstance(v, str)]
            if not any(v in eras.LEGACY_VERSIONS for v in entry["versions"]):
                also = await _speaks_legacy(job.target, job.settings)
                if also:
                    entry["versions"].append(also)
        entry["capabilities"] = caps
        tools: list[dict[str, Any]] = []
        for kind, (method, key) in canon.LISTS.items():
            if canon.CAPABILITY_OF[kind] not in caps:
                entry["counts"][kind] = None
                continue
            try:
                items = await canon.list_all(up, method, key)
            except canon.CallFailed as exc:
                if exc.error.get("code") == -32601:
                    entry["counts"][kind] = None
                    continue
                raise
            entry["counts"][kind] = len(items)
            if kind == "tools":
                tools = items
        entry["features"] = features(era, caps, tools)
        entry["ok"] = True
    except Exception as exc:  # noqa: BLE001 - a failing server is a row in the report, not a crash
        entry["error"] = f"{exc.__class__.__name__}: {exc}" if str(exc) else exc.__class__.__name__
        if job.target.url:
            # What the URL itself answered says more than what a client of either era made of it (a 404 reads as an
            # expired 2025 session, an unfollowed redirect as a stream closed without an answer).
            answered = await _http_answer(job.target.url, job.target.headers, job.settings.probe_timeout)
            if answered is not None:
                entry["error"] = answered
    finally:
        if up is not None:
            with contextlib.suppress(Exception):
                await up.aclose()
        elif result is not None and result.child is not None:
            await result.child.aclose()
        entry["elapsed_ms"] = int((time.monotonic() - started) * 1000)
    return entry


async def _http_answer(url: str, headers: dict[str, str], timeout: float) -> str | None:
    """The URL's own answer to a plain JSON-RPC POST when it is not a success, with a hint; None otherwise."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            resp = await client.post(url, json=body, headers={**headers, "Accept": "application/json, text/event-stream"})
    except httpx.HTTPError:
        return None
    return http_refusal(url, resp.status_code, resp.headers.get("location"))


def http_refusal(url: str, status: int, location: str | None) -> str | None:
    """The report line of a URL that refused a JSON-RPC POST (an auth challenge is a server's ordinary answer)."""
    if status < HTTPStatus.MULTIPLE_CHOICES or status == HTTPStatus.UNAUTHORIZED:
        return None
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    line = f"{url} answered HTTP {status} {phrase}".rstrip()
    path = urlsplit(url).path
    if location:
        hint = f"it redirects to {location}: probe that URL (clients do not follow a redirect of a POST)"
    elif status in (HTTPStatus.NOT_FOUND, HTTPStatus.METHOD_NOT_ALLOWED) and path in ("", "/"):
        hint = f"no MCP endpoint at the root: the endpoint usually has a path, e.g. {url.rstrip('/')}/mcp"
    elif status in (HTTPStatus.NOT_FOUND, HTTPStatus.METHOD_NOT_ALLOWED) and path.endswith("/"):
        hint = f"the path must match the server's exactly: try it without the trailing slash, {url.rstrip('/')}"
    elif status in (HTTPStatus.NOT_FOUND, HTTPStatus.METHOD_NOT_ALLOWED):
        hint = "no MCP endpoint at this path: check the server's documented URL (often ending in /mcp)"
    else:
        hint = "the server refused the request before speaking MCP"
    return f"{line} ({hint})"


async def probe_all(jobs: Sequence[ProbeJob], progress: Callable[[int, int, dict[str, Any]], None] | None = None,
                    concurrency: int = 8) -> dict[str, Any]:
    sem = asyncio.Semaphore(concurrency)
    done = 0

    async def run(job: ProbeJob) -> dict[str, Any]:
        nonlocal done
        async with sem:
            entry = await probe_one(job)
        done += 1
        if progress is not None:
            progress(done, len(jobs), entry)
        return entry

    servers = list(await asyncio.gather(*(run(j) for j in jobs)))
    return {"bridge": "mcp-bridge", "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "servers": servers, "summary": summarize(servers)}


def stderr_progress(stream: TextIO = sys.stderr) -> Callable[[int, int, dict[str, Any]], None]:
    def show(done: int, total: int, entry: dict[str, Any]) -> None:
        verdict = entry["era"] if entry["ok"] else f"FAILED ({entry['error']})"
        stream.write(f"[{done}/{total}] {entry['name']}: {verdict} in {entry['elapsed_ms']} ms\n")
        stream.flush()

    return show


def validate(report: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError when the report does not match ``probe.schema.json``."""
    import jsonschema

    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
