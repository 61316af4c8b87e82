"""The HorizontalPodAutoscalers of the PodCliques and scaling groups with a
``scaleConfig``. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/hpa/hpa.go`` (``Sync``,
``buildResource``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ......core.model import Action, Obj
from ......core.world import World
from .... import names as N
from .... import objects as O
from ....spec import PCS
from ...common import R_PCS, create_action, delete_action, owned, replica_of, update_action


def hpa_sources(pcs: PCS) -> tuple[list, list]:
    """Standalone cliques with ``autoScalingConfig`` and scaling groups with ``scaleConfig``."""
    return ([(c, (c.raw.get("spec") or {}).get("autoScalingConfig")) for c in pcs.standalone
             if isinstance((c.raw.get("spec") or {}).get("autoScalingConfig"), Mapping)],
            [(g, g.raw.get("scaleConfig")) for g in pcs.groups if isinstance(g.raw.get("scaleConfig"), Mapping)])


def default_hpa_metrics() -> list[dict[str, Any]]:
    """The metric the API server fills into an autoscaling/v2 HPA without metrics
    (``SetDefaults_HorizontalPodAutoscaler``: CPU at 80% utilization)."""
    return [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                        "averageUtilization": 80}}}]


def hpa_patch(cur: Obj, raw: Mapping[str, Any]) -> list[str]:
    """What the HPA create-or-patch changes on a live HPA: labels (replaced whole),
    ``minReplicas``, ``maxReplicas``, ``scaleTargetRef`` and ``metrics`` (an HPA written
    without metrics reads back with the API server's CPU default, which is the same).
    Upstream: ``hpa/hpa.go`` ``doCreateOrUpdateHPA`` / ``buildResource``."""
    out = []
    if cur.labels != raw["metadata"]["labels"]:
        out.append("labels")
    want = raw["spec"]
    if cur.spec.get("minReplicas", 1) != (want.get("minReplicas") if want.get("minReplicas") is not None else 1):
        out.append("minReplicas")
    if cur.spec.get("maxReplicas") != want.get("maxReplicas"):
        out.append("maxReplicas")
    ref = cur.spec.get("scaleTargetRef") if isinstance(cur.spec.get("scaleTargetRef"), Mapping) else {}
    if {k: ref.get(k) for k in ("apiVersion", "kind", "name")} != want["scaleTargetRef"]:
        out.append("scaleTargetRef")
    have_m = cur.spec.get("metrics") or default_hpa_metrics()
    if have_m != (want.get("metrics") or default_hpa_metrics()):
        out.append("metrics")
    return out


def sync_hpas(pcs: PCS, world: World) -> list[Action]:
    """HPAs for standalone cliques with ``autoScalingConfig`` and scaling groups with
    ``scaleConfig``, per replica: excess HPAs (replicas scaled away, a scale config
    removed) deleted first, then each expected one created or patched (``maxReplicas``
    and the rest follow the template).
    Upstream: ``podcliqueset/components/hpa/hpa.go`` ``Sync``, ``computeExpectedHPAs``,
    ``deleteExcessHPATasks``, ``createOrUpdateHPATasks``."""
    acts: list[Action] = []
    srcs = pcs.derived(hpa_sources)
    rule = f"{R_PCS}/components/hpa/hpa.go#Sync"
    existing = [h for h in owned(world, "HorizontalPodAutoscaler", pcs) if h.labels.get(N.L_COMPONENT) == N.C_HPA]
    if not srcs[0] and not srcs[1] and not existing:
        return acts
    expected: list[tuple[int, dict[str, Any], str]] = []
    for i in range(pcs.replicas):
        for c, sc in srcs[0]:
            expected.append((i, O.build_hpa(pcs, "PodClique", pcs.standalone_pclq_fqn(i, c.name), sc), "the clique"))
        for g, sc in srcs[1]:
            expected.append((i, O.build_hpa(pcs, "PodCliqueScalingGroup", pcs.pcsg_fqn(i, g), sc), "the scaling group"))
    names = {raw["metadata"]["name"] for _i, raw, _w in expected}
    for h in existing:
        if h.name not in names and not h.terminating:
            acts.append(delete_action(h, "its replica or scale config is no longer in the spec",
                                      f"{R_PCS}/components/hpa/hpa.go#deleteExcessHPATasks",
                                      index=replica_of(h) if replica_of(h) >= 0 else None))
    for i, raw, what in expected:
        cur = world.get(raw["kind"], pcs.namespace, raw["metadata"]["name"])
        if cur is None:
            acts.append(create_action(raw, f"autoscaler for {what}", rule, index=i, revision=None))
            continue
        changed = hpa_patch(cur, raw) if not cur.terminating else []
        if changed:
            new = dict(cur.raw)
            new["metadata"] = dict(cur.metadata, labels=dict(raw["metadata"]["labels"]))
            spec = dict(cur.spec, **raw["spec"])
            if "metrics" not in raw["spec"]:
                spec.pop("metrics", None)
            new["spec"] = spec
            acts.append(update_action(cur, new,
                                      f"autoscaler for {what}: {', '.join(changed)} patched from the template",
                                      f"{R_PCS}/components/hpa/hpa.go#doCreateOrUpdateHPA", fields={"changed": changed},
                                      index=i))
    return acts
