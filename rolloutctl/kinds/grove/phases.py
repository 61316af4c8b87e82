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
    gone: dict[str, list[int]] = {g.name: [] for g in pcs.groups}  # scaling-group replicas deleted
    back: set[tuple[str, int]] = set()  # ... and created
    deleted: dict[str, int] = {}  # standalone pods deleted, per clique
    created: dict[str, int] = {}
    patched = 0
    patched_names: set[str] = set()
    terminated = False
    for a in actions:
        p = _parts(pcs, a)
        if a.verb == "update" and a.kind == "PodClique" and a.name not in patched_names:
            patched_names.add(a.name)  # (objects, not passes: describe_actions)
            patched += 1
        if p is None or p[0] != i or a.verb not in ("delete", "create"):
            continue
        _, group, j, clique = p
        if group is not None and j is not None and a.kind in ("PodClique", "PodCliqueScalingGroup"):
            if a.verb == "create":
                back.add((group, j))
            elif j not in gone.setdefault(group, []):
                gone[group].append(j)
        elif group is None and a.kind == "Pod" and clique:
            clique = _pod_clique(pcs, clique)
            counts = deleted if a.verb == "delete" else created
            counts[clique] = counts.get(clique, 0) + 1
        terminated = terminated or (a.role == "gang-termination" and a.verb == "delete" and group is None)
    parts = []
    if terminated:
        parts.append("gang-terminated (every PodClique deleted and recreated)")
    recreated = [f"{g}/{compress(j for j in js if (g, j) in back)}" for g, js in gone.items()
                 if any((g, j) in back for j in js)]
    removed = [f"{g}/{compress(j for j in js if (g, j) not in back)}" for g, js in gone.items()
               if any((g, j) not in back for j in js)]
    if recreated and not terminated:
        n = sum(1 for g, js in gone.items() for j in js if (g, j) in back)
        parts.append(f"scaling-group replica{'s' if n > 1 else ''} {_fold(recreated)} recreated")
    if removed:
        n = sum(1 for g, js in gone.items() for j in js if (g, j) not in back)
        parts.append(f"scaling-group replica{'s' if n > 1 else ''} {_fold(removed)} deleted")
    steps_deleting: dict[str, int] = {}  # per clique: steps that delete its pods
    for st in steps:
        for clique in {_pod_clique(pcs, p[3]) for a in st.actions if a.verb == "delete" and a.kind == "Pod"
                       and (p := _parts(pcs, a)) is not None and p[0] == i and p[1] is None and p[3]}:
            steps_deleting[clique] = steps_deleting.get(clique, 0) + 1
    if not terminated:
        for clique, n in deleted.items():
            m = min(n, created.get(clique, 0))
            if m:
                one_by_one = m > 1 and steps_deleting.get(clique) == n
                parts.append(f"{clique}: {m} pod{'s' if m > 1 else ''} replaced" + (" one by one" if one_by_one else ""))
            if n > m:
                parts.append(f"{clique}: {n - m} pod{'s' if n - m > 1 else ''} deleted")
    created = any(a.verb == "create" and a.kind == "PodClique" and (p := _parts(pcs, a)) is not None and p[0] == i
                  for a in actions)
    if patched and not parts and not created:  # (a replica created while others are patched: as the actions say)
        parts.append(f"{patched} PodClique{'s' if patched > 1 else ''} patched in place")
    elif patched and parts:
        parts.append(f"{patched} PodClique template{'s' if patched > 1 else ''} patched")
    return f"replica {i}: " + ("; ".join(parts) if parts else describe_actions(actions))


def _pod_clique(pcs: PCS, rest: str) -> str:
    """The clique of a standalone pod from the rest of its name (``frontend-<random>``
    comes as ``frontend``; a live pod's ``frontend-x7k2p`` loses its suffix)."""
    names = {c.name for c in pcs.standalone}
    if rest in names:
        return rest
    head = rest.rsplit("-", 1)[0]
    return head if head in names else rest


def _fold(items: Iterable[str], keep: int = 4) -> str:
    items = list(items)
    if len(items) <= keep:
        return ", ".join(items)
    return ", ".join(items[:keep]) + f" and {len(items) - keep} more"
