"""What every ``advise`` view shows, computed once from the ``Advice`` (no renderer
decides anything): titles, the frontier rows, the patch as YAML, the search line."""

from __future__ import annotations

from typing import Any

from ..core.advice import Advice, Candidate
from .plan_common import shown_quantity

FRONTIER_HEADER = ("", "Strategy", "Steps", "Min ready", "Peak pods", "Peak {res}", "Time", "Patch")


def title(a: Advice) -> str:
    t = a.target
    return f"{t.kind} {t.namespace}/{t.name} · advice (minimize {a.objective})"


def constraints_line(a: Advice) -> str:
    cap = ", ".join(f"{r}={q}" for r, q in a.capacity.items()) or "unlimited"
    if a.min_ready_pods is None:
        floor = f"the default floor ({a.floor})" if a.floor else "the default floor"
    else:
        floor = f"{a.min_ready} ({a.min_ready_pods} ready pods)"
    return f"Constraints: capacity {cap}; min ready: {floor}"


def search_line(a: Advice) -> str:
    if not a.grid and a.searched == 1 and a.current is not None and a.current.outcome == "noop":
        return "Searched: nothing (the manifest as given rolls nothing out)"
    if not a.grid and any(w.code == "Teardown" for w in a.warnings):
        return "Searched: nothing (the change tears the workload down whatever the strategy)"
    if not a.grid and any(w.code == "MinReadyAboveStart" for w in a.warnings):
        return "Searched: nothing (--min-ready is above the pods ready at the start)"
    size = sum(g.size for g in a.grid)
    pruned = sum(g.pruned for g in a.grid)
    skipped = sum(g.skipped for g in a.grid)
    what = ("optimal within the searched grid" if a.optimal
            else f"best of the candidates planned; {skipped} not planned (budget; --exhaustive plans them all)")
    return (f"Searched: {a.searched} candidate{'' if a.searched == 1 else 's'} planned, {pruned} pruned by "
            f"monotonicity, of a grid of {size}: {what}")


def label(c: Candidate) -> str:
    return c.strategy + (" (proposed, not implemented upstream)" if c.proposed else "")


def summary_line(c: Candidate, a: Advice) -> str:
    peak = shown_quantity(c.peak.get(a.peak_resource, "0"))
    parts = [f"{c.steps} step{'' if c.steps == 1 else 's'}", f"min ready pods {c.min_ready_pods}",
             f"peak pods {c.peak_pods}",
             f"peak {a.peak_resource} {peak}"]
    if c.time is not None:
        parts.append(f"{c.time}s")
    return ", ".join(parts)


#: what the recommendation says when it is the manifest as given
AS_IS = "No patch: the manifest as given is already the best candidate."


def as_is_line(a: Advice) -> str:
    """The manifest as given: its strategy, its plan's numbers and its outcome (and which
    constraint it fails)."""
    cur = a.current
    assert cur is not None
    state = cur.outcome if cur.violation is None else f"{cur.outcome}, fails: {cur.violation[0]}"
    return f"As is ({cur.strategy}): {summary_line(cur, a)} ({state})"


def patch_yaml(c: Candidate) -> str:
    from .data import to_yaml

    return to_yaml(c.to_dict()["patch"]) if c.patch else "{}\n"


_QUIET = {"spec", "template", "updateStrategy", "upgradeStrategy", "rollingUpdate", "clusterUpgradeOptions",
          "cliques", "podCliqueScalingGroups"}


def short_patch(c: Candidate) -> str:
    """The patch on one line for the frontier table: the values it sets, grouped by the
    clique or scaling group they belong to (``prefill: maxUnavailable=0 maxSurge=1``);
    the recommendation's YAML patch is the exact one."""
    groups: dict[str, list[str]] = {}

    def walk(v: Any, owner: str, leaf: str) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "name":
                    continue
                walk(x, owner, leaf if k in _QUIET else k)
        elif isinstance(v, list):
            for item in v:
                walk(item, str(item.get("name")) if isinstance(item, dict) else owner, leaf)
        else:
            groups.setdefault(owner, []).append(f"{leaf or 'budgets'}={'unset' if v is None else v}")

    patch = c.to_dict()["patch"]
    spec = patch.get("spec", {}) if isinstance(patch, dict) else {}
    for k, v in spec.items():
        walk(v, "", k if k not in _QUIET else "")
    parts = [" ".join(groups.pop("", []))] if "" in groups else []
    parts += [f"{o}: {' '.join(vals)}" for o, vals in groups.items()]
    return "; ".join(p for p in parts if p) or "(as is)"


PROPOSED_NOTE = "* proposed in a design discussion, not implemented by the operator upstream"


def header(a: Advice) -> list[str]:
    return [h.format(res=a.peak_resource) for h in FRONTIER_HEADER]


def frontier_cells(a: Advice, i: int, c: Candidate) -> list[str]:
    return ["→" if i == 0 else "", c.strategy + ("*" if c.proposed else ""), str(c.steps), str(c.min_ready_pods), str(c.peak_pods),
            shown_quantity(c.peak.get(a.peak_resource, "0")), "—" if c.time is None else f"{c.time}s", short_patch(c)]
