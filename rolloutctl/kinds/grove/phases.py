"""Phases of a PodCliqueSet plan, as a person follows a Grove rollout: one phase per
PodCliqueSet replica being updated (the rolling update goes one replica at a time,
``currentlyUpdating`` in the PodCliqueSet status), and the steps that act on every
replica at once (creation, the template propagated to every PodClique).

Display names only: nothing here decides what the operator does. The names parsed
are the operator's own (``names.py``: ``<pcs>-<replica>-<clique>``,
``<pcs>-<replica>-<group>-<groupReplica>-<clique>``, pods ``<pclq>-<random>``).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from ...core.model import Action, Obj, Step, describe_actions


def compress(nums: Iterable[int]) -> str:
    """``0,1,2,5`` as ``0-2,5``."""
    ns, out, i = sorted(set(nums)), [], 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        out.append(str(ns[i]) if i == j else f"{ns[i]}-{ns[j]}")
        i = j + 1
    return ",".join(out)
from .spec import PCS

_REPLICA = re.compile(r"^(\d+)(?:-(.+))?$")
ALL = ("all replicas",)


def _parts(pcs: PCS, a: Action) -> tuple[int, str | None, int | None, str | None] | None:
    """(PodCliqueSet replica, scaling group, group replica, clique) of an action's
    object, from its name; ``None`` for objects of the whole PodCliqueSet."""
    prefix = pcs.name + "-"
    if not a.name.startswith(prefix):
        return None
    m = _REPLICA.fullmatch(a.name[len(prefix):])
    if m is None:
        return None
    rest = (m.group(2) or "").removesuffix("-<random>")
    for g in pcs.groups:
        gm = re.fullmatch(rf"^{re.escape(g.name)}(?:-(\d+)(?:-(.+))?)?$", rest)
        if gm is not None:
            return int(m.group(1)), g.name, int(gm.group(1)) if gm.group(1) else None, gm.group(2)
    return int(m.group(1)), None, None, rest or None


def phase_of(desired: Obj, step: Step, pcs: PCS | None = None) -> Any:
    """The replica a step works on: the one the rolling update is on
    (``updatingReplica``), else the one replica its actions touch; ``ALL`` when they
    touch several; ``None`` (join the phase before) for PodCliqueSet-level writes.
    ``pcs``: ``PCS(desired)``, when the caller has it."""
    cur = step.after.get("updatingReplica")
    if isinstance(cur, int):
        return ("replica", cur)
    pcs = pcs if pcs is not None else PCS(desired)
    replicas = set()
    for a in step.actions:
        if a.verb != "status" and (p := _parts(pcs, a)) is not None:
            replicas.add(p[0])
            if len(replicas) > 1:
                return ALL  # a second replica settles it (a creation step lists thousands)
    return ("replica", replicas.pop()) if replicas else None


def phase_title(desired: Obj, label: Any, steps: Sequence[Step], pcs: PCS | None = None) -> str:
    """``replica 3: scaling-group replicas prefill/0, decode/0 recreated; frontend: 10
    pods replaced one by one``; ``all replicas: create 9 PodCliques, 12 Pods``."""
    actions = [a for s in steps for a in s.actions if a.verb != "status"] or [a for s in steps for a in s.actions]
    if label == ALL or not (isinstance(label, tuple) and label and label[0] == "replica"):
        return f"all replicas: {describe_actions(actions)}" if label == ALL else describe_actions(actions)
    pcs = pcs if pcs is not None else PCS(desired)
    i = label[1]
    recreated: dict[str, list[int]] = {g.name: [] for g in pcs.groups}
    replaced: dict[str, int] = {}
    patched = 0
    for a in actions:
        p = _parts(pcs, a)
        if a.verb == "update" and a.kind == "PodClique":
            patched += 1
        if p is None or p[0] != i or a.verb != "delete":
            continue
        _, group, j, clique = p
        if group is not None and j is not None and a.kind in ("PodClique", "PodCliqueScalingGroup"):
            if j not in recreated.setdefault(group, []):
                recreated[group].append(j)
        elif group is None and a.kind == "Pod" and clique:
            replaced[clique] = replaced.get(clique, 0) + 1
    parts = []
    units = [f"{g}/{compress(js)}" for g, js in recreated.items() if js]
    if units:
        n = sum(len(js) for js in recreated.values())
        parts.append(f"scaling-group replica{'s' if n > 1 else ''} {_fold(units)} recreated")
    steps_deleting: dict[str, int] = {}  # per clique: steps that delete its pods
    for st in steps:
        for clique in {p[3] for a in st.actions if a.verb == "delete" and a.kind == "Pod"
                       and (p := _parts(pcs, a)) is not None and p[0] == i and p[1] is None and p[3]}:
            steps_deleting[clique] = steps_deleting.get(clique, 0) + 1
    for clique, n in replaced.items():
        one_by_one = n > 1 and steps_deleting.get(clique) == n
        parts.append(f"{clique}: {n} pod{'s' if n > 1 else ''} replaced" + (" one by one" if one_by_one else ""))
    if patched and not parts:
        parts.append(f"{patched} PodClique{'s' if patched > 1 else ''} patched in place")
    elif patched:
        parts.append(f"{patched} PodClique template{'s' if patched > 1 else ''} patched")
    return f"replica {i}: " + ("; ".join(parts) if parts else describe_actions(actions))


def _fold(items: Iterable[str], keep: int = 4) -> str:
    items = list(items)
    if len(items) <= keep:
        return ", ".join(items)
    return ", ".join(items[:keep]) + f" and {len(items) - keep} more"
