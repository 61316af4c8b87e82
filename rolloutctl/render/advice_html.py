"""``advise`` as one self-contained HTML page (``-o html``), with the plan renderer's
charts (``plan_html.chart``): the recommendation and its patch, the frontier table,
ready pods, total pods and the peak resource over the steps of every frontier
candidate (and the manifest as given), why the other strategies fail, the search."""

from __future__ import annotations

from html import escape
from typing import Any, Sequence

from ..core.advice import Advice, Candidate
from .advice_common import (AS_IS, PROPOSED_NOTE, as_is_line, constraints_line, frontier_cells, header, label, patch_yaml, search_line,
                            summary_line, title)
from .plan_html import _notes, _num, _page, chart


def _series(cands: Sequence[tuple[str, Candidate]], value: Any) -> list[tuple[str, list[tuple[float, float]]]]:
    return [(name, [(float(s.step), value(s)) for s in c.plan.steps]) for name, c in cands if c.plan and c.plan.steps]


def _charts(a: Advice) -> list[str]:
    cands = [(f"{i + 1}. {c.strategy}", c) for i, c in enumerate(a.frontier)]
    if a.current is not None:
        cands.append(("as is", a.current))
    cands = [(n, c) for n, c in cands if c.plan is not None and c.plan.steps]
    if not cands:
        return []
    n = max(c.plan.steps[-1].step for _, c in cands)
    res = a.peak_resource
    out = [chart("ready pods", _series(cands, lambda s: float(s.after.get("readyPods", 0))), n),
           chart("total pods", _series(cands, lambda s: float(s.after.get("pods", 0))), n)]
    if any((s.after.get("requests") or {}).get(res) for _, c in cands for s in c.plan.steps):
        out.append(chart(f"requested {res}",
                         _series(cands, lambda s: _num((s.after.get("requests") or {}).get(res, 0))), n))
    return out


def render(advices: Sequence[Advice]) -> str:
    body = ["<h1>rolloutctl advise</h1>"]
    for a in advices:
        body.append(f'<section class="advice" data-target="{escape(str(a.target))}">')
        body.append(f"<h2>{escape(title(a))}</h2>")
        body.append(f"<p>{escape(constraints_line(a))}</p>")
        r = a.recommendation
        if r is None:
            body.append('<p class="stuck">No candidate meets the constraints.</p>')
        else:
            body.append(f'<p class="recommendation"><b>Recommendation: {escape(label(r))}</b>: '
                        f"{escape(summary_line(r, a))}</p>")
            body.append(f'<pre class="patch"><code>{escape(patch_yaml(r))}</code></pre>' if r.patch
                        else f"<p>{escape(AS_IS)}</p>")
        if a.current is not None:
            body.append(f'<p class="dim">{escape(as_is_line(a))}</p>')
        if a.frontier:
            body.append("<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header(a)) + "</tr>")
            for i, c in enumerate(a.frontier):
                body.append("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in frontier_cells(a, i, c)) + "</tr>")
            body.append("</table>")
            if any(c.proposed for c in a.frontier):
                body.append(f'<p class="dim">{escape(PROPOSED_NOTE)}</p>')
        body += _charts(a)
        for rej in a.rejected:
            body.append(f'<p class="stuck">{escape(rej.strategy)}{" (proposed)" if rej.proposed else ""} cannot meet '
                        f"the constraints: {escape(rej.reason)}: {escape(rej.message)}</p>")
        body.append(f"<p>{escape(search_line(a))}</p>")
        body += _notes(a.warnings)
        body.append("</section>")
    return _page("rolloutctl advise", body)
