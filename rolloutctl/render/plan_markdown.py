"""Plans as Markdown for pull-request comments and job summaries: renders on GitHub
(names in code spans, so ``<random>`` is not taken for HTML), one row per phase, the
steps in a collapsible ``<details>``, and under ``BUDGET`` characters in all (a
GitHub comment holds 65,536), with a note of what was folded and how to see it."""

from __future__ import annotations

import re
from typing import Sequence

from ..core.model import Plan
from .markdown_text import code_span
from .plan_common import action_lines, after_line, headline, summary_line
from .plan_view import changes_text, phase_of_step, phase_rows, provenance, waits_lines

MAX_LINES = 20
#: characters for the whole document (GitHub's comment limit is 65,536)
BUDGET = 60_000


def escape(text: str, names: Sequence[str] = ()) -> str:
    """Prose for a table cell: object names (tokens starting with one of ``names``,
    or holding ``<random>``) in code spans, every other ``<``/``>``/``|`` escaped."""
    pattern = "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True) if n)
    token = re.compile(rf"(?<![\w`/-])(?:(?:{pattern})[-\w.<>/]*|[-\w.]*<random>[-\w.]*)" if pattern
                       else r"(?<![\w`/-])[-\w.]*<random>[-\w.]*")
    out, last = [], 0
    for m in token.finditer(text):
        out.append(_plain(text[last:m.start()]))
        out.append(_code(m.group(0)))
        last = m.end()
    out.append(_plain(text[last:]))
    return "".join(out)


def _plain(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
            .replace("\n", "<br>"))


def _code(text: str, in_table: bool = True) -> str:
    return code_span(text, in_table=in_table, limit=10**6)


def _names(p: Plan) -> list[str]:
    names = {p.target.name}
    for s in p.steps:
        for a in s.actions:
            names.add(a.name.removesuffix("-<random>"))
    return [n for n in names if len(n) > 2]


def render(plans: Sequence[Plan], budget: int = BUDGET) -> str:
    heads = [_head(p) for p in plans]
    tails = [_tail(p) for p in plans]
    fixed = sum(len(h) + len(t) for h, t in zip(heads, tails))
    left = max(0, budget - fixed - 200 * len(plans))
    out: list[str] = []
    for i, p in enumerate(plans):
        share = left // max(1, len(plans) - i)
        details = _details(p, share)
        left -= len(details)
        out.append(heads[i] + details + tails[i])
    return "\n".join(out).rstrip("\n") + "\n"


def _head(p: Plan) -> str:
    names = _names(p)
    out = [f"### {escape(headline(p), names)}", "", escape(summary_line(p), names), ""]
    if p.steps and not p.immediate:
        out.append("| Steps | Phase | Changes | Then waits for |")
        out.append("| ---: | --- | --- | --- |")
        for r in phase_rows(p):
            waits = "<br>".join(escape(w, names) for w in waits_lines(r, "see the steps below"))
            out.append(f"| {r.steps} | {escape(r.title, names)} | {changes_text(r.counts)} | {waits} |")
        out.append("")
    return "\n".join(out) + "\n"


def _step_row(p: Plan, s, timed: bool, names: Sequence[str]) -> str:
    groups = action_lines(s.actions)
    lines = [_code(line) for _, line in groups[:MAX_LINES]]
    if len(groups) > MAX_LINES:
        lines.append(f"… {len(groups) - MAX_LINES} more (`-o json` lists all)")
    if not groups:
        lines.append("no action")
    what = escape(s.title, names) + (f"<br>_{escape(after_line(dict(s.after)), names)}_" if s.after else "")
    row = f"| {s.step} |" + (f" {s.time if s.time is not None else ''}s |" if timed else "")
    waits = "<br>".join(escape(w, names) for w in s.wait_for) or "—"
    return row + f" {what} | {'<br>'.join(lines)} | {waits} |"


def _details(p: Plan, budget: int) -> str:
    """The step table (inside ``<details>`` for a whole plan), cut to ``budget``
    characters with a note of the steps left out."""
    if not p.steps:
        return ""
    names = _names(p)
    timed = any(s.time is not None for s in p.steps)
    header = ["| Step |" + (" Time |" if timed else "") + " What happens | Objects | Then waits for |",
              "| ---: |" + (" ---: |" if timed else "") + " --- | --- | --- |"]
    opens = {} if p.immediate else phase_of_step(p)
    rows: list[str] = []
    size = sum(len(h) + 1 for h in header) + 200
    shown = 0
    for s in p.steps:
        ph = opens.get(s.step)
        lines = []
        if ph is not None:
            lines.append("| |" + (" |" if timed else "") + f" **{escape(ph.title, names)}** | | |")
        lines.append(_step_row(p, s, timed, names))
        cost = sum(len(x) + 1 for x in lines)
        if size + cost > budget:
            break
        rows += lines
        size += cost
        shown += 1
    body = header + rows
    if shown < len(p.steps):
        left_out = p.steps[shown:]
        body += ["", f"_Steps {left_out[0].step}–{left_out[-1].step} ({len(left_out)} of {len(p.steps)}) are "
                 f"folded to keep this under GitHub's comment limit; `rolloutctl plan … -o json` or `--steps` "
                 f"lists every step._"]
    table = "\n".join(body) + "\n"
    if p.immediate:
        return table + "\n"
    n = len(p.steps)
    return (f"<details><summary>All {n} step{'s' if n != 1 else ''}</summary>\n\n" + table + "\n</details>\n\n")


def _tail(p: Plan) -> str:
    names = _names(p)
    out: list[str] = []
    if p.stuck:
        st = p.stuck
        out.append(f"**Stuck: {st.reason}** — {escape(st.message, names)}")
        if st.blocked_on:
            out.append("")
            out.append("Blocked on: " + ", ".join(_code(f"{r.kind} {r.name}", False) for r in st.blocked_on))
        for r in st.remedies:
            out.append(f"- remedy: {escape(r, names)}")
        out.append("")
    for w in p.warnings:
        out.append(f"- **warning {w.code}**: {escape(w.message, names)}" + (f" ({_code(w.path, False)})" if w.path else ""))
    if p.warnings:
        out.append("")
    if p.operators:
        out.append(f"<sub>{escape(provenance(p))}</sub>")
        out.append("")
    if p.steps:
        out.append(f"**{escape(headline(p), names)}** — {escape(summary_line(p), names)}")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
