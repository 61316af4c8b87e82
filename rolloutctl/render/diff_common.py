"""Shared presentation of a Diff (lookups and wording only; nothing is computed here
that is not already in the Diff); ``render.render_diff`` picks the renderer."""

from __future__ import annotations

import json
from typing import Any

from ..core.model import EFFECTS, Change, Diff, Impact, ObjectDiff

STATUS_MARK = {"added": "+", "removed": "-", "changed": "~", "unchanged": "="}
OP_MARK = {"add": "+", "remove": "-", "replace": "~"}
STATUS_STYLE = {"added": "green", "removed": "red", "changed": "yellow", "unchanged": "dim"}
EFFECT_STYLE = {"rejected": "bold red", "teardown": "bold red", "recreate": "red", "rollout": "yellow",
                "scale": "cyan", "in-place": "green", "ignored": "magenta", "none": "dim"}
#: effects listed again after the summary line, most disruptive first
DISRUPTIVE = ("rejected", "teardown", "recreate", "rollout")
MAX_VALUE = 60


def _covers(impact_path: str, change_path: str) -> bool:
    if not impact_path:
        return False
    if impact_path == change_path:
        return True
    for a, b in ((impact_path, change_path), (change_path, impact_path)):
        if b.startswith(a) and b[len(a):len(a) + 1] in (".", "["):
            return True
    return False


def effects_of(change: Change, impacts: tuple[Impact, ...]) -> list[str]:
    """The effects of the impacts that name this change's path, in impact order."""
    out: list[str] = []
    for i in impacts:
        if any(_covers(p, change.path) for p in i.paths) and i.effect not in out:
            out.append(i.effect)
    return out


#: characters kept before the first difference when a long replaced value is shown from there
DIFF_CONTEXT = 24


def _text(v: Any) -> str:
    if v is None:
        return "(none)"
    return v if isinstance(v, str) and v.startswith("***") else json.dumps(v, ensure_ascii=False, separators=(", ", ": "))


def _window(text: str, start: int, limit: int) -> str:
    """``text`` from ``start`` (an ellipsis for what is left out before, after a string's
    opening quote), cut to ``limit``."""
    head = ("\"…" if text.startswith("\"") else "…") if start > 0 else ""
    rest = text[start:]
    room = limit - len(head)
    return head + (rest if len(rest) <= room else rest[: room - 1] + "…")


def value(v: Any, limit: int = MAX_VALUE) -> str:
    return _window(_text(v), 0, limit)


def replaced(old: Any, new: Any, limit: int = MAX_VALUE) -> tuple[str, str]:
    """A replaced value's old and new text, each at most ``limit`` characters. When one
    is longer, both are shown from a little before their first difference, so a long
    value whose end changed (an image tag after a registry path) does not read as the
    same cut text twice."""
    a, b = _text(old), _text(new)
    if len(a) <= limit and len(b) <= limit:
        return a, b
    same = 0
    for x, y in zip(a, b):
        if x != y:
            break
        same += 1
    start = max(0, same - DIFF_CONTEXT)
    if start < 8:  # (an ellipsis to save a few characters says less than they do)
        start = 0
    return _window(a, start, limit), _window(b, start, limit)


def line_diff(c: Change, context: int = 1) -> list[str] | None:
    """A replaced multi-line string (``serveConfigV2``, a script) as a unified diff
    of its changed lines with ``context`` lines around them (``@@`` hunk headers
    kept, file headers dropped); ``None`` for any other change. JSON keeps old and
    new whole; this is for people reading a table or a PR comment."""
    if c.op != "replace" or not isinstance(c.old, str) or not isinstance(c.new, str):
        return None
    if "\n" not in c.old.strip("\n") and "\n" not in c.new.strip("\n"):
        return None
    import difflib

    lines = list(difflib.unified_diff(c.old.splitlines(), c.new.splitlines(), lineterm="", n=context))
    return lines[2:] if len(lines) > 2 else None


def change_text(c: Change) -> str:
    if line_diff(c) is not None:
        n = sum(1 for x in line_diff(c) or () if x[:1] in "+-")
        return f"multi-line text: {n} line{'s' if n != 1 else ''} changed (line diff below)"
    if c.op == "add":
        return value(c.new)
    if c.op == "remove":
        return value(c.old) + " → (removed)"
    old, new = replaced(c.old, c.new)
    return f"{old} → {new}"


def impact_label(o: ObjectDiff, i: Impact) -> tuple[str, str]:
    """(label, note) of an impact line: an added object's ``scale`` reads as the creation
    it is, with the effect (what ``--fail-on`` and the summary count) beside it:
    ``create (scale)``; every other impact is its effect alone."""
    if o.status == "added" and i.effect == "scale":
        return "create", " (scale)"
    return i.effect, ""


def where(c: Change) -> str:
    return f"{c.file}:{c.line}" if c.file else ""


def title(o: ObjectDiff) -> str:
    t = o.target
    return f"{STATUS_MARK[o.status]} {t.kind} {t.namespace}/{t.name} ({o.status})"


def effect_counts(diff: Diff) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in diff.objects:
        for i in o.impact:
            counts[i.effect] = counts.get(i.effect, 0) + 1
    return {e: counts[e] for e in EFFECTS if e in counts}


def summary_line(diff: Diff) -> str:
    s = diff.to_dict()["summary"]
    line = (f"Diff: {s['added']} to add, {s['changed']} to change, {s['removed']} to remove, "
            f"{s['unchanged']} unchanged.")
    counts = effect_counts(diff)
    if counts:
        line += " Effects: " + ", ".join(f"{n} {e}" for e, n in counts.items()) + "."
    if diff.ignored:
        line += f" {diff.ignored} change{'s' if diff.ignored != 1 else ''} ignored by the configuration."
    return line


def disruptive(diff: Diff) -> list[tuple[str, ObjectDiff, Impact]]:
    out = []
    for e in DISRUPTIVE:
        for o in diff.objects:
            for i in o.impact:
                if i.effect == e:
                    out.append((e, o, i))
    return out
