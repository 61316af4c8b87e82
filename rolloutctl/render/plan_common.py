"""Shared presentation helpers for plan renderers (grouping for display only)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..core.model import Action, Plan
from ..core.quantity import in_largest_unit

VERB_MARK = {"create": "+", "delete": "-", "update": "~", "status": "•"}
VERB_STYLE = {"create": "green", "delete": "red", "update": "yellow", "status": "cyan"}


def grouped(actions: Sequence[Action]) -> list[tuple[Action, list[int]]]:
    """Consecutive actions on the same verb, kind and display name, merged with
    their indices (e.g. the pods of one PodClique)."""
    out: list[tuple[Action, list[int]]] = []
    for a in actions:
        if out:
            prev, idx = out[-1]
            if (prev.verb, prev.kind, prev.name) == (a.verb, a.kind, a.name) and a.index is not None and idx:
                idx.append(a.index)
                continue
        out.append((a, [a.index] if a.index is not None and a.name.endswith("<random>") else []))
    return out


def action_line(a: Action, indices: list[int]) -> str:
    idx = ""
    if indices:
        idx = f" [{compress(indices)}]"
    return f"{VERB_MARK.get(a.verb, '?')} {a.kind} {a.name}{idx}"


def action_lines(actions: Sequence[Action]) -> list[tuple[Action, str]]:
    """The line of each group of ``actions`` (``grouped``, ``action_line``), with
    consecutive lines that read the same (two status writes of the PodCliqueSet in one
    pass) shown once with their count: ``• PodCliqueSet llm ×2``."""
    out: list[tuple[Action, str, int]] = []
    for a, idx in grouped(actions):
        line = action_line(a, idx)
        if out and out[-1][1] == line:
            out[-1] = (out[-1][0], line, out[-1][2] + 1)
        else:
            out.append((a, line, 1))
    return [(a, line if n == 1 else f"{line} ×{n}") for a, line, n in out]


def compress(nums: Iterable[int]) -> str:
    ns = sorted(set(nums))
    parts: list[str] = []
    i = 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        parts.append(str(ns[i]) if i == j else f"{ns[i]}-{ns[j]}" if j > i + 1 else f"{ns[i]},{ns[j]}")
        i = j + 1
    return ",".join(parts)


def headline(p: Plan) -> str:
    """``summary.steps`` counts the whole plan; a ``next`` plan shows only the immediate pass."""
    t = p.target
    total = int(p.summary.get("steps", len(p.steps)))
    n = f"{total} step{'s' if total != 1 else ''}"
    if p.outcome == "converged":
        what = f"converges in {n}"
    elif p.outcome == "noop":
        # (a noop plan may still write status: its steps say so, and the headline with them)
        what = f"nothing to roll out: status only ({n})" if total else "nothing to do"
    else:
        what = f"STUCK after {n}"
    if p.immediate:
        verb = {"converged": what, "noop": f"has {what}"}.get(p.outcome, f"gets {what}")
        what = f"next pass of a plan that {verb}"
    return f"{t.kind} {t.namespace}/{t.name} · strategy {p.strategy} · {what}"


def summary_line(p: Plan) -> str:
    return " · ".join(summary_parts(p))


def summary_lines(p: Plan, width: int) -> str:
    """The summary for a terminal ``width`` wide: broken between items, never inside one
    (``peak memory 648Gi`` stays on one line)."""
    return wrap_items(summary_parts(p), width)


def wrap_items(parts: Sequence[str], width: int, sep: str = " · ") -> str:
    """``parts`` joined by ``sep`` in lines of at most ``width`` characters, broken only
    between parts; a broken line ends with the separator's mark."""
    mark = sep.rstrip()
    lines: list[str] = []
    cur = ""
    for i, part in enumerate(parts):
        more = len(mark) if i < len(parts) - 1 else 0  # room for the mark if a part follows
        if cur and len(cur) + len(sep) + len(part) + more > width:
            lines.append(cur + mark)
            cur = part
        else:
            cur = cur + sep + part if cur else part
    lines.append(cur)
    return "\n".join(lines)


#: longer quantities are shown rounded in the lines people read (JSON keeps them exact)
SHOWN_DIGITS = 20


#: a quantity with a unit and more digits than this is shown in its largest unit
SHORT_DIGITS = 4


def shown_quantity(q: Any) -> str:
    """A quantity as a line a person reads shows it: a long one with a unit in its
    largest unit (``core.quantity.in_largest_unit``: ``655560Mi`` is ``≈640.2Gi``); else as written up
    to ``SHOWN_DIGITS`` characters; a longer whole or milli number (``cpu: 1e400`` summed
    over pods) rounded to three digits with its decimal exponent, marked ``≈``
    (``≈2.00e400``), so that the line still fits the terminal. JSON keeps the exact value."""
    text = str(q)
    readable = in_largest_unit(text, SHORT_DIGITS)
    if readable is not None and len(readable) <= SHOWN_DIGITS:
        return readable
    if len(text) <= SHOWN_DIGITS:
        return text
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    milli = digits.endswith("m")
    digits = digits[:-1] if milli else digits
    if not digits.isdigit():
        return text
    exp = len(digits) - 1 - (3 if milli else 0)
    lead = round(int(digits[:4]) / 10) if len(digits) >= 4 else int(digits)
    if lead >= 1000:  # 9995... rounds up to the next power of ten
        lead, exp = 100, exp + 1
    mantissa = f"{lead // 100}.{lead % 100:02d}"
    return f"≈{sign}{mantissa}e{exp}"


def counted(n: Any, plural: str) -> str:
    """``1 create``, ``0 creates``, ``3 creates`` (``plural`` ends in ``s``)."""
    return f"{n} {plural[:-1] if n == 1 else plural}"


def summary_parts(p: Plan) -> list[str]:
    s = p.summary
    parts = [counted(s.get(k, 0), k) for k in ("creates", "deletes", "updates")] + [
             f"min ready pods {s.get('minReadyPods', 0)}", f"peak pods {s.get('peakPods', 0)}"]
    for r, q in (s.get("peak") or {}).items():
        parts.append(f"peak {r} {shown_quantity(q)}")
    for k, v in s.items():
        if k not in ("steps", "creates", "deletes", "updates", "minReadyPods", "peakPods", "peak") and not isinstance(v, (dict, list)):
            parts.append(f"{k} {v}")
    return parts


def after_line(after: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in after.items() if not isinstance(v, (dict, list)))
