"""Plans and comparisons as one self-contained HTML page (``-o html``): no network,
no script, inline SVG charts. Per plan: ready and total pods over the steps, each
requested resource over the steps, the phases as bands, the stuck point marked; for
``plan --compare``: every strategy on one chart per measure.

Every point is a step's ``after`` numbers (``pods``, ``readyPods``, ``requests``) as
the JSON output has them; each ``<svg>`` carries its scale (``data-x-min``,
``data-x-max``, ``data-y-max`` and the plot box ``data-plot``) so a reader — or a
test — can turn coordinates back into numbers.
"""

from __future__ import annotations

from html import escape
from typing import Any, Sequence

from ..core.model import Comparison, Plan
from ..core.quantity import parse_quantity
from .plan_common import headline, summary_line
from .plan_view import changes_text, phase_rows, provenance, waits_lines

W, H = 760, 256
LEFT, TOP, RIGHT, BOTTOM = 56, 44, 16, 36
DASHES = ("", "6 3", "2 2", "8 3 2 3", "4 4", "1 3")
PALETTE = ("#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
BANDS = ("#f3f6fb", "#e6edf7")

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1b1f24;max-width:1000px}
h1{font-size:20px} h2{font-size:17px;margin-top:32px} .dim{color:#57606a} .stuck{color:#b3261e;font-weight:600}
table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa} td.n{text-align:right;white-space:nowrap} code{font-size:12px;background:#f6f8fa;padding:0 3px}
svg{display:block;margin:8px 0 16px;background:#fff;border:1px solid #d0d7de}
svg text{font:11px system-ui,sans-serif;fill:#57606a} .warn{color:#7d4e00}
"""


def _num(q: Any) -> float:
    """A requests value in units (``648Gi`` -> bytes, ``500m`` -> 0.5)."""
    try:
        return parse_quantity(q) / 1000
    except (ValueError, TypeError):
        return 0.0


def _fmt(v: float) -> str:
    return f"{v:.2f}"


def _nice(v: float) -> str:
    if v >= 1 << 30 and v % (1 << 30) == 0:
        return f"{int(v) >> 30}Gi"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def chart(title: str, series: Sequence[tuple[str, Sequence[tuple[float, float]]]], x_max: float,
          bands: Sequence[tuple[float, float, str]] = (), stuck: tuple[float, str] | None = None,
          x_label: str = "step", stuck_points: Sequence[tuple[str, float, float, str]] = ()) -> str:
    """An SVG line chart: ``series`` of (name, points), x from 1 to ``x_max``."""
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    y_max = max([y for _, pts in series for _, y in pts] + [1.0])
    x_min = 1.0
    span = max(x_max - x_min, 1.0)

    def X(x: float) -> float:
        return LEFT + (x - x_min) / span * pw

    def Y(y: float) -> float:
        return TOP + ph - y / y_max * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" '
           f'data-chart="{escape(title)}" data-x-min="{_fmt(x_min)}" data-x-max="{_fmt(x_min + span)}" '
           f'data-y-max="{_fmt(y_max)}" data-plot="{LEFT} {TOP} {pw} {ph}">',
           f'<title>{escape(title)}</title>']
    for i, (a, b, label) in enumerate(bands):
        x0, x1 = X(max(x_min, a - 0.5)), X(min(x_min + span, b + 0.5))
        out.append(f'<rect class="phase" x="{_fmt(x0)}" y="{TOP}" width="{_fmt(max(x1 - x0, 1))}" height="{ph}" '
                   f'fill="{BANDS[i % 2]}"><title>{escape(label)}</title></rect>')
    out.append(f'<line x1="{LEFT}" y1="{TOP + ph}" x2="{LEFT + pw}" y2="{TOP + ph}" stroke="#8c959f"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + ph}" stroke="#8c959f"/>')
    for frac in (0, 0.5, 1):
        y = y_max * frac
        out.append(f'<text x="{LEFT - 6}" y="{_fmt(Y(y) + 4)}" text-anchor="end">{escape(_nice(y))}</text>')
    out.append(f'<text x="{LEFT}" y="{H - 12}">1</text>')
    out.append(f'<text x="{LEFT + pw}" y="{H - 12}" text-anchor="end">{escape(_nice(x_min + span))} {x_label}s</text>')
    out.append(f'<text x="{LEFT}" y="16" style="font-weight:600;fill:#1b1f24">{escape(title)}</text>')
    lx = LEFT
    for i, (name, pts) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        coords = " ".join(f"{_fmt(X(x))},{_fmt(Y(y))}" for x, y in pts)
        dash = DASHES[i % len(DASHES)]
        out.append(f'<polyline data-series="{escape(name)}" fill="none" stroke="{color}" stroke-width="2" '
                   + (f'stroke-dasharray="{dash}" ' if dash else "")
                   + f'points="{coords}"><title>{escape(name)}</title></polyline>')
        if len(pts) == 1:
            x, y = pts[0]
            out.append(f'<circle cx="{_fmt(X(x))}" cy="{_fmt(Y(y))}" r="3" fill="{color}"/>')
        out.append(f'<rect x="{lx}" y="{TOP - 19}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{lx + 14}" y="{TOP - 10}">{escape(name)}</text>')
        lx += 24 + 7 * len(name)
    if stuck is not None:
        x, reason = stuck
        sx = X(x)
        out.append(f'<line class="stuck" data-step="{_fmt(x)}" x1="{_fmt(sx)}" y1="{TOP}" x2="{_fmt(sx)}" '
                   f'y2="{TOP + ph}" stroke="#b3261e" stroke-width="2" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{_fmt(sx - 4)}" y="{TOP + 12}" text-anchor="end" style="fill:#b3261e">'
                   f'stuck: {escape(reason)}</text>')
    for name, x, y, reason in stuck_points:
        # a strategy that gets stuck: a red cross where its line ends
        cx, cy = X(x), Y(y)
        out.append(f'<g class="stuck-point" data-series="{escape(name)}" data-step="{_fmt(x)}">'
                   f'<path d="M{_fmt(cx - 5)},{_fmt(cy - 5)}L{_fmt(cx + 5)},{_fmt(cy + 5)}M{_fmt(cx - 5)},{_fmt(cy + 5)}'
                   f'L{_fmt(cx + 5)},{_fmt(cy - 5)}" stroke="#b3261e" stroke-width="2.5"/>'
                   f'<title>{escape(name)} stuck: {escape(reason)}</title></g>')
    out.append("</svg>")
    return "\n".join(out)


def _resources(plans: Sequence[Plan]) -> list[str]:
    return sorted({r for p in plans for s in p.steps for r in (s.after.get("requests") or {})})


def plan_charts(p: Plan) -> str:
    if not p.steps:
        return '<p class="dim">No steps: nothing to chart.</p>'
    n = p.steps[-1].step
    bands = [(ph.first_step, ph.last_step, ph.title) for ph in p.phases]
    stuck = (float(n), p.stuck.reason) if p.stuck is not None else None
    pods = [("ready pods", [(s.step, float(s.after.get("readyPods", 0))) for s in p.steps]),
            ("total pods", [(s.step, float(s.after.get("pods", 0))) for s in p.steps])]
    out = [chart("pods", pods, n, bands, stuck)]
    for r in _resources([p]):
        pts = [(s.step, _num((s.after.get("requests") or {}).get(r, 0))) for s in p.steps]
        out.append(chart(f"requested {r}", [(r, pts)], n, bands, stuck))
    return "\n".join(out)


def _page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n" + "\n".join(body) +
            "\n</body></html>\n")


def render_plans(plans: Sequence[Plan]) -> str:
    body = ["<h1>rolloutctl plan</h1>"]
    for p in plans:
        body.append(f'<section class="plan" data-target="{escape(str(p.target))}">')
        body.append(f"<h2>{escape(headline(p))}</h2>")
        body.append(f'<p class="dim">{escape(summary_line(p))}</p>')
        if p.stuck is not None:
            body += _stuck(p.stuck, "stuck")
        body.append(plan_charts(p))
        if p.phases and not p.immediate:
            body.append("<table><tr><th>Steps</th><th>Phase</th><th>Changes</th><th>Then waits for</th></tr>")
            for r in phase_rows(p):
                waits = "<br>".join(escape(w) for w in waits_lines(r, "-o json lists every step"))
                body.append(f'<tr><td class="n">{escape(r.steps)}</td><td>{escape(r.title)}</td>'
                            f"<td>{escape(changes_text(r.counts))}</td><td>{waits}</td></tr>")
            body.append("</table>")
        elif p.steps:
            s = p.steps[0]
            body.append(f"<p>{escape(s.title)}</p><p class=\"dim\">then waits for: "
                        f"{escape('; '.join(s.wait_for) or '—')}</p>")
        body += _notes(p.warnings)
        if p.operators:
            body.append(f'<p class="dim">{escape(provenance(p))}</p>')
        body.append("</section>")
    return _page("rolloutctl plan", body)


def _stuck(st: Any, label: str) -> list[str]:
    """Why a plan stops, what it is blocked on and the remedies, as the table shows them."""
    out = [f'<p class="stuck">{escape(label)}: {escape(st.reason)}: {escape(st.message)}</p>']
    if st.blocked_on:
        out.append('<p class="dim">blocked on: ' + escape(", ".join(f"{r.kind} {r.name}" for r in st.blocked_on))
                   + "</p>")
    if st.remedies:
        out.append('<ul class="remedies">' + "".join(f"<li>remedy: {escape(r)}</li>" for r in st.remedies) + "</ul>")
    return out


def _notes(warnings: Sequence[Any]) -> list[str]:
    if not warnings:
        return []
    return ["<ul>"] + [f'<li class="warn"><b>{escape(w.code)}</b>: {escape(w.message)}'
                       + (f' <span class="dim">({escape(w.path)})</span>' if w.path else "") + "</li>"
                       for w in warnings] + ["</ul>"]


def render_comparisons(comparisons: Sequence[Comparison]) -> str:
    from .comparison_common import cells, header, title

    body = ["<h1>rolloutctl plan --compare</h1>"]
    for c in comparisons:
        body.append(f'<section class="comparison" data-target="{escape(str(c.target))}">')
        body.append(f"<h2>{escape(title(c))}</h2>")
        body.append("<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header(c)) + "</tr>")
        for row in c.rows:
            body.append("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in cells(c, row)) + "</tr>")
        body.append("</table>")
        body += compare_charts(c)
        for row in c.rows:
            if row.stuck is not None:
                body += _stuck(row.stuck, f"{row.strategy} stuck")
        body += _notes(c.warnings)
        body.append("</section>")
    return _page("rolloutctl plan --compare", body)


def strategy_steps(row: Any) -> list[Any]:
    """A row's steps in order across its plans (a strategy may take several)."""
    return [s for p in row.plans for s in p.steps]


def compare_charts(c: Comparison) -> list[str]:
    rows = [r for r in c.rows if strategy_steps(r)]
    if not rows:
        return ['<p class="dim">No steps under any strategy: nothing to chart.</p>']
    n = max(len(strategy_steps(r)) for r in rows)

    def series(value: Any) -> list[tuple[str, list[tuple[float, float]]]]:
        return [(r.strategy, [(float(i), value(s)) for i, s in enumerate(strategy_steps(r), start=1)]) for r in rows]

    def marks(value: Any) -> list[tuple[str, float, float, str]]:
        return [(r.strategy, float(len(strategy_steps(r))), value(strategy_steps(r)[-1]), r.stuck.reason)
                for r in rows if r.stuck is not None]

    def one(title: str, value: Any) -> str:
        return chart(title, series(value), n, stuck_points=marks(value))

    out = [one("ready pods, every strategy", lambda s: float(s.after.get("readyPods", 0))),
           one("total pods, every strategy", lambda s: float(s.after.get("pods", 0)))]
    for res in _resources([p for r in rows for p in r.plans]):
        out.append(one(f"requested {res}, every strategy",
                       lambda s, res=res: _num((s.after.get("requests") or {}).get(res, 0))))
    return out
