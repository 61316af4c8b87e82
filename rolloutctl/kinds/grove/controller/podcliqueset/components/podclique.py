"""The standalone PodCliques of every PodCliqueSet replica (those in no scaling
group). Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/podclique/podclique.go`` (``Sync``,
``getPodCliqueNamesToDelete``, ``buildResource``).
"""

from __future__ import annotations

from typing import Any

from ......core.model import Action, Obj
from ......core.queue import EVERY_KEY, Round
from ......core.world import World
from .... import names as N
from .... import objects as O
from ....spec import PCS
from .... import register as R
from ...common import Expected, R_PCS, by_names, create_action, delete_action, owned, replica_of, update_action
from .serviceaccount_rbac import _role


def _standalone_pclqs(pcs: PCS, n: int) -> Expected:
    items = [(i, c, O.build_standalone_pclq(pcs, i, c)) for i in range(n) for c in pcs.standalone]
    return Expected(items, [raw["metadata"]["name"] for _i, _c, raw in items])


def sync_standalone_podcliques(pcs: PCS, world: World, n: int | None = None, queue: Round = EVERY_KEY) -> list[Action]:
    """Create missing standalone PodCliques for every replica and delete those of
    replicas scaled away. Existing PodCliques keep their ``replicas``.
    Upstream: ``podcliqueset/components/podclique/podclique.go`` ``Sync`` /
    ``getPodCliqueNamesToDelete``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_standalone_pclqs, n)
    expected = exp.names
    ctl = R.pcs_component("PodClique", "podclique")
    look = queue.keys(ctl, world, (n,))
    unsettled: set[str] = set()
    for i, c, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        cur = world.get("PodClique", pcs.namespace, name)
        if cur is None:
            acts.append(create_action(raw, f"standalone clique {c.name} of replica {i}",
                                      f"{R_PCS}/components/podclique/podclique.go#buildResource", index=i,
                                      role=_role(pcs, i)))
            unsettled.add(name)
        elif not cur.terminating:
            a = patch_podclique(cur, raw, f"{R_PCS}/components/podclique/podclique.go#buildResource", index=i)
            if a is not None:
                acts.append(a)
                unsettled.add(name)
        else:
            unsettled.add(name)
    pclqs = owned(world, "PodClique", pcs) if look is None else by_names(world, "PodClique", pcs, look)
    for pclq in pclqs:
        if pclq.labels.get(N.L_COMPONENT) == "pcs-podclique" and pclq.name not in expected and not pclq.terminating:
            acts.append(delete_action(pclq, "its replica or clique is no longer in the spec",
                                      f"{R_PCS}/components/podclique/podclique.go#getPodCliqueNamesToDelete",
                                      index=replica_of(pclq)))
            unsettled.add(pclq.name)
    queue.done(ctl, sorted(unsettled), (n,))
    return acts


def pclq_needs_patch(cur: Obj, raw: dict[str, Any]) -> list[str]:
    """What a create-or-patch of an existing PodClique would change. ``buildResource``
    replaces the labels, the annotations and the whole spec from the clique template,
    keeping only ``replicas`` (an HPA or the scale subresource owns it), and
    ``CreateOrPatch`` writes whatever differs: the template hash label (and with it the
    pod template), the clique's own template labels, the autoscaler config, or a spec
    field the hash leaves out (the clique's ``podSpec.priorityClassName``: the hash
    takes the PodCliqueSet's instead, ``ComputePCLQPodTemplateHash`` in
    ``common/component/utils/podclique.go``), which no running pod sees but every pod
    made later does. Live-only fields (finalizers, injected env) are not compared."""
    changed = []
    if cur.labels.get(N.L_TEMPLATE_HASH) != raw["metadata"]["labels"].get(N.L_TEMPLATE_HASH):
        changed.append("pod template")
    want_labels = {k: v for k, v in raw["metadata"]["labels"].items() if k != N.L_TEMPLATE_HASH}
    if not changed and any(cur.labels.get(k) != v for k, v in want_labels.items()):
        changed.append("labels")
    if cur.spec.get("autoScalingConfig") != raw["spec"].get("autoScalingConfig"):
        changed.append("autoScalingConfig")
    if not changed:
        changed.extend(_unhashed_spec_changes(cur.spec, raw["spec"]))
    return changed


def _unhashed_spec_changes(have: Any, want: dict[str, Any]) -> list[str]:
    """The spec fields outside the template hash in which the PodClique differs from its
    template: the pod spec's ``priorityClassName`` (the hash takes the PodCliqueSet's) and
    the clique's ``roleName`` and ``minAvailable`` (which the webhook keeps immutable), and a
    scaling-group member's ``GROVE_PCSG_TEMPLATE_NUM_PODS`` (the template replicas of the
    group's cliques, which the hash of one clique does not see).
    With the hash label equal, the rest of the pod spec is the template's, up to what the
    builders add after hashing (scaling-group env vars, MNNVL claims), which a live
    PodClique carries and a built one here does not."""
    out = []
    hp, wp = have.get("podSpec"), want.get("podSpec")
    hp, wp = (hp if isinstance(hp, dict) else {}), (wp if isinstance(wp, dict) else {})
    if hp.get("priorityClassName") != wp.get("priorityClassName"):
        out.append("podSpec.priorityClassName")
    out.extend(k for k in ("roleName", "minAvailable") if have.get(k) != want.get(k))
    if _template_num_pods(hp) != _template_num_pods(wp):
        out.append(f"env {O.PCSG_TEMPLATE_NUM_PODS}")
    return out


def _template_num_pods(pod_spec: dict[str, Any]) -> list[Any]:
    """The ``GROVE_PCSG_TEMPLATE_NUM_PODS`` values in a pod spec's containers (a
    scaling-group member's; none elsewhere)."""
    return [e.get("value") for key in ("containers", "initContainers") for c in (pod_spec.get(key) or ())
            if isinstance(c, dict) for e in (c.get("env") or ()) if isinstance(e, dict)
            and e.get("name") == O.PCSG_TEMPLATE_NUM_PODS]


def patch_podclique(cur: Obj, raw: dict[str, Any], rule: str, *, index: int | None = None) -> Action | None:
    """Create-or-patch of an existing PodClique: spec and labels from the template,
    ``replicas`` and status kept. None when nothing would change."""
    changed = pclq_needs_patch(cur, raw)
    if not changed:
        return None
    new = dict(raw)
    md = dict(cur.metadata)
    md["labels"] = dict(raw["metadata"]["labels"])
    md["annotations"] = dict(raw["metadata"].get("annotations") or {})
    new["metadata"] = md
    spec = dict(raw["spec"])
    spec["replicas"] = cur.spec.get("replicas", spec.get("replicas"))
    new["spec"] = spec
    if cur.raw.get("status") is not None:
        new["status"] = cur.raw["status"]
    what = " and ".join(changed)
    return update_action(cur, new,
                         f"{what} patched in place from the clique template (replicas kept at {spec['replicas']})", rule,
                         fields={"changed": changed}, index=index, revision="new")
