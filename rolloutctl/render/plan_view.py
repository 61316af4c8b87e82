"""What plan renderers show, shared by table, markdown and html: phase rows (with
consecutive phases that did the same thing folded into one row, with their count),
the waits and the stuck point next to their phase, and the provenance line.
Display grouping only: every number comes from the plan."""

from __future__ import annotations

import re
from typing import Sequence

from ..core.model import Phase, Plan, Step
from ..core.records import record

#: distinct waits listed per phase row before "… N more"
MAX_WAITS = 2


@record(frozen=True)
class PhaseRow:
    first_step: int
    last_step: int
    title: str
    phases: int                # how many phases this row stands for (folded rows > 1)
    counts: dict
    waits: tuple[str, ...]     # distinct, in order
    stuck: str | None          # the stuck reason, on the row where the plan stops

    @property
    def steps(self) -> str:
        return str(self.first_step) if self.first_step == self.last_step else f"{self.first_step}–{self.last_step}"


def _split(title: str) -> tuple[str, str]:
    subject, sep, what = title.partition(": ")
    return (subject, what) if sep else ("", title)


def _subjects(first: str, last: str, n: int) -> str:
    """``replica 1`` … ``replica 38`` as ``replicas 1–38``."""
    a, b = re.fullmatch(r"^(.*?)(\d+)$", first), re.fullmatch(r"^(.*?)(\d+)$", last)
    if a and b and a.group(1) == b.group(1) and int(b.group(2)) - int(a.group(2)) == n - 1:
        word = a.group(1).rstrip()
        return f"{word}{'s' if word and not word.endswith('s') else ''} {a.group(2)}–{b.group(2)}"
    return f"{first} … {last}"


def _same_work(a: Phase, b: Phase) -> bool:
    sa, wa = _split(a.title)
    sb, wb = _split(b.title)
    ca = {k: v for k, v in a.counts.items()}
    cb = {k: v for k, v in b.counts.items()}
    return bool(sa) and bool(sb) and wa == wb and ca == cb


def phase_rows(p: Plan, fold: bool = True) -> list[PhaseRow]:
    """One row per phase; with ``fold``, consecutive phases whose work is the same
    (same title after their subject, same counts) share a row that says how many."""
    by_step = {s.step: s for s in p.steps}
    groups: list[list[Phase]] = []
    for ph in p.phases:
        if fold and groups and _same_work(groups[-1][-1], ph):
            groups[-1].append(ph)
        else:
            groups.append([ph])
    rows = []
    last = p.steps[-1].step if p.steps else 0
    for g in groups:
        first, end = g[0], g[-1]
        if len(g) == 1:
            title = first.title
        else:
            subject = _subjects(_split(first.title)[0], _split(end.title)[0], len(g))
            title = f"{subject}, each: {_split(first.title)[1]}"
        counts = dict(first.counts) if len(g) == 1 else {k: sum(ph.counts.get(k, 0) for ph in g) for k in first.counts}
        waits: list[str] = []
        for n in range(first.first_step, end.last_step + 1):
            s = by_step.get(n)
            for w in (s.wait_for if s else ()):
                if w not in waits:
                    waits.append(w)
        stuck = p.stuck.reason if p.stuck is not None and end.last_step == last else None
        rows.append(PhaseRow(first.first_step, end.last_step, title, len(g), counts, tuple(waits), stuck))
    return rows


def changes_text(counts: dict) -> str:
    parts = [f"{counts[k]} {k[:-1] if counts[k] == 1 else k}" for k in ("creates", "deletes", "updates")
             if counts.get(k)]
    text = ", ".join(parts) or "status only"
    if counts.get("pods"):
        text += f" ({counts['pods']} new pod{'s' if counts['pods'] != 1 else ''})"
    return text


def waits_lines(row: PhaseRow, how: str = "--steps shows each step") -> list[str]:
    lines = list(row.waits[:MAX_WAITS])
    if len(row.waits) > MAX_WAITS:
        lines.append(f"… {len(row.waits) - MAX_WAITS} more ({how})")
    if row.stuck:
        lines.append(f"STUCK here: {row.stuck}")
    return lines or ["—"]


def provenance(p: Plan) -> str:
    return "modelled: " + "; ".join(str(o) for o in p.operators) if p.operators else ""


def phase_of_step(p: Plan) -> dict[int, Phase]:
    """The phase each step opens (renderers print the phase title before it)."""
    return {ph.first_step: ph for ph in p.phases}


def step_by_number(p: Plan) -> dict[int, Step]:
    return {s.step: s for s in p.steps}


def min_width(texts: Sequence[str], cap: int) -> int:
    """The longest word of ``texts`` (names are never cut), at most ``cap``."""
    longest = max((len(w) for t in texts for w in str(t).split()), default=1)
    return max(1, min(cap, longest))

