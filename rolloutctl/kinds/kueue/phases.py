"""Phases of a RayService plan under Kueue: KubeRay's phases (kinds/kuberay/phases.py),
and Kueue's own steps (admission, suspension, quota) as phases named after Kueue.
Display names only."""

from __future__ import annotations

from typing import Any, Sequence

from ...core.model import Obj, Step, describe_actions


def _kueue_only(step: Step) -> bool:
    return bool(step.actions) and not any(a.rule.startswith("kuberay:") for a in step.actions)


def phase_of(kuberay: Any, desired: Obj, step: Step) -> Any:
    if _kueue_only(step):
        return "kueue"
    label = kuberay.phase_of(desired, step)
    return ("kuberay", label) if label is not None else None


def phase_title(kuberay: Any, desired: Obj, label: Any, steps: Sequence[Step]) -> str | None:
    from .model import _kueue_phrase

    kueue = list(dict.fromkeys(_kueue_phrase(a) for s in steps for a in s.actions if not a.rule.startswith("kuberay:")))
    if len(kueue) > 3:
        kueue = kueue[:3] + [f"{len(kueue) - 3} more (--steps shows each step)"]
    if label == "kueue":
        return "Kueue: " + "; ".join(kueue)
    if isinstance(label, tuple) and label[0] == "kuberay":
        title = kuberay.phase_title(desired, label[1], steps)
        title = "KubeRay: " + (title or describe_actions(a for s in steps for a in s.actions))
        return title + (" | Kueue: " + "; ".join(kueue) if kueue else "")
    return None
