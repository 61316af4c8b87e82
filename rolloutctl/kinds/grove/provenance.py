"""What a PodCliqueSet plan rests on: the Grove operator it models, and what it does
not model that matters for this object (as warnings, never a silent assumption)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.environment import scheduling_gates
from ...core.model import Obj, Operator, Warning
from ...core.paths import field_path
from .admission.topologyconstraints import for_each_topology_constraint

from .options import DEFAULT_CONFIG, GroveConfig

#: the upstream tree the model follows (``ai-dynamo/grove``)
GROVE_COMMIT = "fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24"
GROVE_VERSION = "v0.1.0-alpha.12-rc1+15"  # git describe of that commit (operator/api tags)


def operators(desired: Obj, config: GroveConfig = DEFAULT_CONFIG) -> list[Operator]:
    """The Grove operator modelled, with the configuration ``--grove-config`` gave
    beyond the chart's defaults (``GroveConfig.changed``)."""
    return [Operator("Grove", GROVE_VERSION, GROVE_COMMIT, config=config.changed())]


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def not_modelled(desired: Obj) -> list[Warning]:
    tmpl = desired.spec.get("template") if isinstance(desired.spec.get("template"), Mapping) else {}
    out: list[Warning] = []
    scaled = [f"cliques[name={c.get('name')}].spec.autoScalingConfig" for c in _list(tmpl.get("cliques"))
              if isinstance(c, Mapping) and isinstance(c.get("spec"), Mapping) and c["spec"].get("autoScalingConfig")]
    scaled += [f"podCliqueScalingGroups[name={g.get('name')}].scaleConfig" for g in _list(tmpl.get("podCliqueScalingGroups"))
               if isinstance(g, Mapping) and g.get("scaleConfig")]
    if scaled:
        out.append(Warning("NotModelledAutoscaler", "the HorizontalPodAutoscalers Grove creates for "
                           f"{', '.join(scaled)} may change replicas during the rollout; the plan holds them where they "
                           "are (the live PodCliques' and scaling groups' replicas, which Grove keeps; the manifest's "
                           "for new ones)", "spec.template"))
    gated = [(c.get("name"), scheduling_gates(c["spec"].get("podSpec"))) for c in _list(tmpl.get("cliques"))
             if isinstance(c, Mapping) and isinstance(c.get("spec"), Mapping)]
    gated = [(n, g) for n, g in gated if g]
    if gated:
        names = sorted({x for _, g in gated for x in g})
        out.append(Warning(
            "NotModelledSchedulingGates",
            f"the Pods of clique{'s' if len(gated) > 1 else ''} {', '.join(str(n) for n, _ in gated)} carry "
            f"schedulingGates ({', '.join(names)}) that neither Grove nor Kubernetes removes (Grove lifts only its "
            "own grove.io/podgang-pending-creation): kube-scheduler keeps a gated Pod Pending until another "
            "controller removes every gate (SchedulingGates PreEnqueue); the plan assumes that happens as soon as "
            "the Pod is created", f"spec.template.cliques[name={gated[0][0]}].spec.podSpec.schedulingGates"))
    constrained = [(path, kind, name) for path, kind, name, tc in for_each_topology_constraint(desired.raw) if tc]
    if constrained:
        where = ", ".join(f"{kind} {name}" if name else kind for _, kind, name in constrained)
        out.append(Warning(
            "NotModelledTopology",
            f"topology constraints ({where}): the plan assumes Grove runs with topology-aware scheduling enabled "
            "(config.topologyAwareScheduling.enabled; the chart's default is false, and then the webhook refuses "
            "a new PodCliqueSet that has any: topologyconstraints.go disallowConstraintsForCreateWhenTASIsDisabled) "
            "and the ClusterTopology it names present; pods are placed without topology, by capacity only",
            field_path(desired.raw, constrained[0][0])))
    prio = tmpl.get("priorityClassName") or any(
        isinstance(c, Mapping) and isinstance(c.get("spec"), Mapping) and isinstance(c["spec"].get("podSpec"), Mapping)
        and c["spec"]["podSpec"].get("priorityClassName") for c in _list(tmpl.get("cliques")))
    if prio:
        out.append(Warning("NotModelledPreemption", "scheduler preemption (this workload's pods evicting "
                           "lower-priority pods, or being evicted) is not modelled: capacity is only what "
                           "--capacity gives", "spec.template.priorityClassName"))
    out.append(Warning("NotModelledDisruptions", "voluntary disruptions during the rollout (node drains and "
                       "evictions that PodDisruptionBudgets govern) and pod failures other than --never-ready are "
                       "not modelled; Grove deletes pods itself, which PodDisruptionBudgets do not block", ""))
    return out
