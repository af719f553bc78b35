"""The ``/fleet`` dashboard: one self-contained HTML page rendered from the ``/fleet/status`` document.

Pure: status dict in, HTML text out. No external assets, no JavaScript; the page reloads itself with a
meta refresh. The chart is inline SVG: requests per minute over the last hour by client era and by
upstream era, so an operator sees when the last 2025 client is gone.
"""

from __future__ import annotations

import html
import json
from typing import Any

LEGACY, MODERN = "2025-11-25", "2026-07-28"
COLORS = {LEGACY: "#d97706", MODERN: "#0f766e"}
LABELS = {LEGACY: "2025-11-25 (sessions)", MODERN: "2026-07-28 (stateless)"}
REFRESH_S = 10

CSS = """
:root { color-scheme: light; --ink: #1f2933; --muted: #52606d; --line: #d9e2ec; --bg: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); background: var(--bg); }
header { background: #102a43; color: #f0f4f8; padding: 18px 28px; display: flex; align-items: baseline; gap: 18px; }
header h1 { margin: 0; font-size: 21px; font-weight: 650; }
header .meta { color: #bcccdc; font-size: 13px; }
main { padding: 20px 28px 32px; max-width: 1280px; }
.cards { display: flex; gap: 14px; flex-wrap: wrap; margin-bottom: 18px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; min-width: 170px; }
.card .n { font-size: 24px; font-weight: 650; }
.card .l { color: var(--muted); font-size: 13px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin-bottom: 18px; }
h2 { font-size: 16px; margin: 0 0 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: middle; font-size: 14px; }
th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
tr:last-child td { border-bottom: 0; }
.era { display: inline-block; white-space: nowrap; padding: 2px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; color: #fff; }
.health { font-weight: 600; }
.ok { color: #0e7c3a; } .degraded { color: #b45309; } .down { color: #b91c1c; } .idle { color: var(--muted); }
.mix { display: flex; height: 10px; width: 140px; border-radius: 5px; overflow: hidden; background: #e4e7eb; }
.mixrow { display: flex; align-items: center; gap: 8px; }
.small { color: var(--muted); font-size: 12px; }
.legend { display: flex; gap: 16px; font-size: 13px; color: var(--muted); margin: 4px 0 8px; }
.sw { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.charts { display: flex; gap: 24px; flex-wrap: wrap; }
pre { background: #f0f4f8; border-radius: 6px; padding: 8px 10px; font-size: 12px; overflow-x: auto; margin: 6px 0 12px; }
.del { color: #b91c1c; } .add { color: #0e7c3a; }
a { color: #2563eb; }
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def era_badge(era: str | None) -> str:
    if era not in COLORS:
        return '<span class="era" style="background:#7b8794">unknown</span>'
    return f'<span class="era" style="background:{COLORS[era]}">{esc(era)}</span>'


def mix_cell(by_era: dict[str, int]) -> str:
    total = sum(by_era.get(e, 0) for e in COLORS)
    if not total:
        copies = by_era.get("shadow", 0)
        return f'<span class="small">{f"mirrored copies only: {copies}" if copies else "no client traffic yet"}</span>'
    parts = "".join(f'<span style="width:{100 * by_era.get(e, 0) / total:.1f}%;background:{c}"></span>'
                    for e, c in COLORS.items() if by_era.get(e))
    legacy_share = 100 * by_era.get(LEGACY, 0) / total
    return (f'<div class="mixrow"><div class="mix" title="2025: {by_era.get(LEGACY, 0)}, 2026: {by_era.get(MODERN, 0)}">'
            f'{parts}</div><span class="small">{legacy_share:.0f}% 2025 &middot; {total} calls</span></div>')


def shadow_cell(shadow: dict[str, Any] | None) -> str:
    if not shadow:
        return '<span class="small">&ndash;</span>'
    rate = shadow.get("match_rate")
    shown = "no copies yet" if rate is None else f"{100 * rate:.1f}% match"
    cls = "idle" if rate is None else ("ok" if rate >= 0.999 else "degraded" if rate >= 0.95 else "down")
    return (f'<span class="health {cls}">{esc(shown)}</span><br><span class="small">vs {esc(shadow["twin"])}: '
            f'{shadow["mirrored"]} compared, {shadow["diverged"]} diverged</span>')


def canary_cell(canary: dict[str, Any] | None) -> str:
    if not canary:
        return '<span class="small">&ndash;</span>'
    state = canary["state"]
    cls = {"active": "ok", "rolled back": "down", "idle": "idle"}.get(state, "idle")
    share = canary.get("share")
    line = f'{100 * canary["weight"]:.0f}% to {esc(canary["to"])}'
    extra = f'observed {100 * share:.1f}%' if share is not None else "no traffic yet"
    if canary.get("rollback_reason"):
        extra = f'rolled back: {esc(canary["rollback_reason"])}'
    return f'<span class="health {cls}">{esc(state)}</span> {line}<br><span class="small">{extra}</span>'


def short_target(target: str, limit: int = 60) -> str:
    """A command line with each path cut to its file name (``python everything_server.py stdio``); URLs as they are."""
    if "://" in target:
        return target[:limit]
    words = [w.rsplit("/", 1)[-1] if "/" in w else w for w in target.split()]
    text = " ".join(words)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def server_row(s: dict[str, Any]) -> str:
    state = s.get("state", "unknown")
    cls = {"ok": "ok", "degraded": "degraded", "down": "down"}.get(state, "idle")
    error = f'<br><span class="small">{esc(s["last_error"][:80])}</span>' if s.get("last_error") else ""
    return (f'<tr><td><strong>{esc(s["name"])}</strong><br><span class="small">{esc(short_target(str(s.get("target", ""))))}</span></td>'
            f'<td>{era_badge(s.get("era"))}</td><td>{esc(s.get("transport"))}</td>'
            f'<td><span class="health {cls}">{esc(state)}</span>{error}</td><td>{s.get("restarts", 0)}</td>'
            f'<td>{mix_cell(s.get("requests_by_client_era") or {})}</td>'
            f'<td>{shadow_cell(s.get("shadow"))}</td><td>{canary_cell(s.get("canary"))}</td></tr>')


def bars_svg(title: str, series: dict[str, list[int]], step: int, chart_id: str) -> str:
    """Stacked bars, one per ``step`` seconds, oldest on the left."""
    width, height, left, bottom, top = 560, 170, 44, 24, 10
    n = max((len(v) for v in series.values()), default=0) or 1
    totals = [sum(series.get(e, [0] * n)[i] for e in COLORS) for i in range(n)]
    peak = max(max(totals), 1)
    plot_w, plot_h = width - left - 8, height - top - bottom
    bar_w = plot_w / n
    out = [f'<svg id="{esc(chart_id)}" class="era-chart" role="img" aria-label="{esc(title)}" width="{width}" height="{height}"'
           f' viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="11">',
           f"<title>{esc(title)}</title>"]
    for frac in (0.0, 0.5, 1.0):
        y = top + plot_h * (1 - frac)
        out.append(f'<line x1="{left}" x2="{width - 8}" y1="{y:.1f}" y2="{y:.1f}" stroke="#d9e2ec"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#52606d">{round(peak * frac)}</text>')
    for i in range(n):
        y = top + plot_h
        for era, color in COLORS.items():
            value = series.get(era, [0] * n)[i]
            if not value:
                continue
            h = plot_h * value / peak
            y -= h
            ago = (n - i) * step // 60
            out.append(f'<rect x="{left + i * bar_w + 0.5:.1f}" y="{y:.1f}" width="{max(bar_w - 1, 1):.1f}" height="{h:.1f}" '
                       f'fill="{color}"><title>{value} calls from {era}, {ago} min ago</title></rect>')
    for i, label in ((0, f"-{n * step // 60} min"), (n // 2, f"-{n * step // 120} min"), (n, "now")):
        anchor = "start" if i == 0 else "end" if i == n else "middle"
        out.append(f'<text x="{left + i * bar_w:.1f}" y="{height - 6}" text-anchor="{anchor}" fill="#52606d">{label}</text>')
    out.append("</svg>")
    return "".join(out)


def panel(kind: str, series: dict[str, list[int]], step: int) -> str:
    return f'<div><div class="small">by {kind} era</div>{bars_svg(f"Requests by {kind} era", series, step, f"era-chart-{kind}")}</div>'


def legend() -> str:
    return '<div class="legend">' + "".join(
        f'<span><span class="sw" style="background:{c}"></span>{esc(LABELS[e])}</span>' for e, c in COLORS.items()) + "</div>"


def diff_html(lines: list[str]) -> str:
    rows = []
    for line in lines:
        cls = ""
        if line.startswith("-") and not line.startswith("---"):
            cls = "del"
        elif line.startswith("+") and not line.startswith("+++"):
            cls = "add"
        rows.append(f'<span class="{cls}">{esc(line)}</span>' if cls else esc(line))
    return "<pre>" + "\n".join(rows) + "</pre>"


def render(status: dict[str, Any], divergences: list[dict[str, Any]] | None = None) -> str:
    servers = status.get("servers", [])
    hist = status.get("history") or {}
    client, upstream = hist.get("client") or {}, hist.get("upstream") or {}
    step = int(hist.get("step") or 60)
    hour = {e: sum(client.get(e, [])) for e in COLORS}
    speaking = {e: sum(1 for s in servers if s.get("era") == e) for e in COLORS}
    cards = [(len(servers), "servers"), (speaking[LEGACY], "servers still on 2025"), (speaking[MODERN], "servers on 2026"),
             (hour[LEGACY], "2025 client calls, last hour"), (hour[MODERN], "2026 client calls, last hour"),
             (status.get("divergences", 0), "divergences kept")]
    body = [f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{REFRESH_S}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1"><title>mcp-bridge fleet</title>',
            f"<style>{CSS}</style></head><body>",
            f'<header><h1>mcp-bridge fleet</h1><span class="meta">{esc(status.get("config"))} &middot; '
            f'updated {esc(status.get("generated_at"))} &middot; refreshes every {REFRESH_S} s</span></header><main>',
            '<div class="cards">' + "".join(f'<div class="card"><div class="n">{n}</div><div class="l">{esc(label)}</div></div>'
                                            for n, label in cards) + "</div>",
            '<section><h2>Servers</h2><table><thead><tr><th>Server</th><th>Era</th><th>Transport</th><th>Health</th>'
            "<th>Restarts</th><th>Client eras</th><th>Shadow</th><th>Canary</th></tr></thead><tbody>",
            "".join(server_row(s) for s in servers) or '<tr><td colspan="8">no servers configured</td></tr>',
            "</tbody></table></section>",
            '<section id="eras"><h2>Requests per minute, last hour</h2>', legend(), '<div class="charts">',
            panel("client", client, step), panel("upstream", upstream, step),
            "</div></section>"]
    if divergences:
        body.append('<section><h2>Latest divergences</h2><p class="small">Full list as JSON: '
                    '<a href="/fleet/divergences">/fleet/divergences</a></p>')
        for d in divergences:
            subject = f'{d["method"]} {d["tool"]}'.strip()
            body.append(f'<div><strong>{esc(d["server"])}</strong> vs <strong>{esc(d["twin"])}</strong>: {esc(subject)} '
                        f'<span class="small">{esc(json.dumps(d.get("params"), sort_keys=True, default=str)[:200])}</span></div>')
            body.append(diff_html(d.get("diff") or []))
        body.append("</section>")
    body.append('<p class="small">JSON: <a href="/fleet/status">/fleet/status</a> &middot; '
                '<a href="/metrics">/metrics</a></p></main></body></html>')
    return "".join(body)
