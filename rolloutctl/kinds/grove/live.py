"""What the Grove model reads from a cluster for one PodCliqueSet (``plan --from-cluster``).

Grove labels everything it creates for a PodCliqueSet with
``app.kubernetes.io/managed-by=grove-operator`` and ``app.kubernetes.io/part-of=<pcs>``
(``GetDefaultLabelsForPodCliqueSetManagedResources``, operator/api/common/labels.go) and
lists its children with that selector; these reads use the same one.
"""

from __future__ import annotations

from ...core.kind import LiveRead
from ...core.model import Obj
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
