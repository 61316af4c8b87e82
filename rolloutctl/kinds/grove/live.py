"""What the Grove model reads from a cluster for one PodCliqueSet (``plan --from-cluster``).

Grove labels everything it creates for a PodCliqueSet with
``app.kubernetes.io/managed-by=grove-operator`` and ``app.kubernetes.io/part-of=<pcs>``
(``GetDefaultLabelsForPodCliqueSetManagedResources``, operator/api/common/labels.go) and
lists its children with that selector; these reads use the same one. A snapshot that left
one of those kinds out reads as if its objects were gone (``missing_owner_warnings``).
"""

from __future__ import annotations

from ...core.kind import LiveRead
from ...core.model import Obj, Warning
from ...core.world import World
from . import names as N
from .objects import build_rbac
from .spec import PCS


def live_reads(desired: Obj) -> list[LiveRead]:
    """The PodCliqueSet by name, then one read per kind its controllers create. The
    ServiceAccount, Role, RoleBinding and token Secret (``components/serviceaccount``,
    ``role``, ``rolebinding``, ``satokensecret``) change with no update: when they cannot
    be read they are taken as the operator keeps them (``build_rbac``)."""
    sel = f"{N.L_MANAGED_BY}={N.MANAGED_BY},{N.L_PART_OF}={desired.name}"
    rbac = {o["kind"]: o for o in build_rbac(PCS(desired))}
    reads = [LiveRead(N.API_CORE, "PodCliqueSet", "podcliquesets.grove.io", names=(desired.name,))]
    for api, kind, resource in N.CHILD_KINDS_WITH_SPEC:
        reads.append(LiveRead(api, kind, resource, selector=sel))
    for api, kind, resource in N.CHILD_KINDS_RBAC:
        reads.append(LiveRead(api, kind, resource, selector=sel, required=False, assumed=(rbac[kind],)))
    return reads


def missing_owner_warnings(pcs: PCS, world: World) -> list[Warning]:
    """Observed pods name a PodGang (``grove.io/podgang``) or a PodClique
    (``grove.io/podclique``) the observed input does not hold: a snapshot that left that
    kind out (``kubectl get pcs,pclq,pods`` without ``podgangs``) reads as if those objects
    were gone, and the plan re-creates them. Said once per kind, naming a few."""
    out: list[Warning] = []
    pods = [p for p in world.index("Pod", N.L_PART_OF).get(pcs.name, ()) if p.namespace == pcs.namespace]
    resources = {kind: resource for _api, kind, resource in N.CHILD_KINDS_WITH_SPEC}
    for kind, label in (("PodGang", N.L_PODGANG), ("PodClique", N.L_PCLQ)):
        resource = resources[kind]
        names = sorted({p.labels[label] for p in pods if p.labels.get(label)
                        and world.get(kind, pcs.namespace, p.labels[label]) is None})
        if names:
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            out.append(Warning(f"Observed{kind}Missing",
                               f"observed pods belong to {kind} {shown}, which the observed input does not hold: "
                               f"planned as if {'it were' if len(names) == 1 else 'they were'} gone (the operator "
                               f"creates {'it' if len(names) == 1 else 'them'} again); if the snapshot left the kind "
                               f"out, add {resource} to the kubectl get", f"{kind}"))
    return out
