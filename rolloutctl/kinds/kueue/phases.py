"""Phases of a RayService plan under Kueue: KubeRay's phases (kinds/kuberay/phases.py),
and Kueue's own steps (admission, suspension, quota) as phases named after Kueue.
Display names only."""

from __future__ import annotations

from typing import Any, Sequence

from ...core.model import Action, Obj, Step, describe_actions
from ..kuberay.api import RC, RS
from .constants import WL
from .context import as_map, pod_counts_text


def _kueue_only(step: Step) -> bool:
    return bool(step.actions) and not any(a.rule.startswith("kuberay:") for a in step.actions)


def phase_of(kuberay: Any, desired: Obj, step: Step) -> Any:
    if _kueue_only(step):
        return "kueue"
    label = kuberay.phase_of(desired, step)
    return ("kuberay", label) if label is not None else None


def phase_title(kuberay: Any, desired: Obj, label: Any, steps: Sequence[Step]) -> str | None:
    kueue = list(dict.fromkeys(kueue_phrase(a) for s in steps for a in s.actions if not a.rule.startswith("kuberay:")))
    if len(kueue) > 3:
        kueue = kueue[:3] + [f"{len(kueue) - 3} more (--steps shows each step)"]
    if label == "kueue":
        return "Kueue: " + "; ".join(kueue)
    if isinstance(label, tuple) and label[0] == "kuberay":
        title = kuberay.phase_title(desired, label[1], steps)
        title = "KubeRay: " + (title or describe_actions(a for s in steps for a in s.actions))
        return title + (" | Kueue: " + "; ".join(kueue) if kueue else "")
    return None


def kueue_phrase(a: Action) -> str:
    """What a Kueue action does, in a few words (step and phase titles)."""
    f = a.fields
    conds = as_map(f.get("conditions"))
    if a.kind == WL:
        tag = f" ({a.role})" if a.role else ""
        if a.verb == "create":
            return f"create Workload {a.name}{tag} [{pod_counts_text(as_map(f.get('podSets')))}]"
        if a.verb == "delete":
            return f"delete Workload {a.name}"
        if "admission.clusterQueue" in f:
            return f"admit Workload {a.name}{tag} in {f['admission.clusterQueue']}"
        if str(conds.get("Finished", "")).startswith("True"):
            return f"finish Workload {a.name}{tag}"
        if str(conds.get("Evicted", "")) == "True/Preempted":
            return f"preempt Workload {a.name}"
        if "Requeued" in conds:
            return f"requeue Workload {a.name}{tag}"
        if str(conds.get("QuotaReserved", "")).startswith("False"):
            return f"Workload {a.name}{tag} waits ({conds['QuotaReserved'].split('/', 1)[1]})"
        if "podSets" in f:
            # a slice's counts (EnsureWorkloadSlices, "was" the old ones) are resized; a suspended
            # job's Workload gets its pod sets rewritten (updateWorkloadToMatchJob), counts or not
            if "was" in f and as_map(f["was"]) != as_map(f["podSets"]):
                return f"resize Workload {a.name}{tag} to [{pod_counts_text(as_map(f['podSets']))}]"
            return f"rewrite the pod sets of Workload {a.name}{tag} [{pod_counts_text(as_map(f['podSets']))}]"
        return f"update Workload {a.name}"
    for key in ("spec.suspend", "spec.rayClusterConfig.suspend"):
        if key in f and a.kind == RS:
            v = f[key]
            if v is True:
                return f"suspend RayService ({key})"
            if v is False:
                return f"unsuspend RayService ({key})"
    if a.kind == RC and "spec.suspend" in f:
        return f"{'suspend' if f['spec.suspend'] else 'unsuspend'} RayCluster {a.name}"
    return f"{a.verb} {a.kind} {a.name}"
