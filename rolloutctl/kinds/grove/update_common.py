"""Update helpers shared by every Grove update strategy: which PodClique template a
child follows, whether a pod or PodClique is outdated, the "updated" and "done"
predicates, and availability counts. The PodCliqueSet replica infos and their
update order live with upstream's ``podcliquesetreplica/rollingupdate.go``
(``controller/podcliqueset/components/podcliquesetreplica/rollingupdate.py``), the
grouping of a replica's children in ``replica_index.py``.

Strategy modules (``rolling_recreate.py``, ``ondelete.py``, ``proposed/``) build on
these; each helper names the upstream function it models. Hash values are compared
as opaque tokens: in a planned world they are our own digests
(``hashing.py``), in an observed world they were translated by ``observed.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.model import Obj
from ...core.world import World
from . import names as N
from . import objects as O
from .spec import PCS, Clique, Group

RULE_ROOT = "grove:operator/internal/controller"
R_PCS_RU = f"{RULE_ROOT}/podcliqueset/components/podcliquesetreplica/rollingupdate.go"
R_PCLQ_RU = f"{RULE_ROOT}/podclique/components/pod/rollingupdate.go"
R_PCSG_RU = f"{RULE_ROOT}/podcliquescalinggroup/components/podclique/rollingupdate.go"
R_PCS_SPEC = f"{RULE_ROOT}/podcliqueset/reconcilespec.go"
R_PCLQ_SPEC = f"{RULE_ROOT}/podclique/reconcilespec.go"
R_PCSG_SPEC = f"{RULE_ROOT}/podcliquescalinggroup/reconcilespec.go"

ON_DELETE = "OnDelete"
#: the operator's own rolling update (``podclique``/``podcliquescalinggroup`` ``rollingupdate.go``)
ROLLING_RECREATE = "RollingRecreate"


def stamp(world: World) -> str:
    """A deterministic timestamp for status fields the plan writes (the model is
    untimed; stamps only order events)."""
    return f"~sim-{int(world.memory.get('tick', 0)):08d}"


def is_auto_update_strategy(pcs: PCS) -> bool:
    """Anything but OnDelete is orchestrated by Grove.
    Upstream: ``operator/internal/controller/common/component/utils/podcliqueset.go``
    ``IsAutoUpdateStrategy``."""
    return pcs.strategy_type != ON_DELETE


# ----------------------------------------------------------------------------- identity


def is_standalone_pclq(pclq: Obj) -> bool:
    return N.L_PCSG not in pclq.labels


def clique_of(pcs: PCS, pclq: Obj | str) -> Clique | None:
    """The clique template a PodClique follows, parsed from its name
    (``<pcs>-<i>-<clique>`` or ``<pcsgFQN>-<j>-<clique>``).
    Upstream: ``GetPodCliqueNameFromPodCliqueFQN`` / ``FindPodCliqueTemplateSpecByName``
    in ``common/component/utils/podclique.go`` (the PCS and PCSG builders match by
    name suffix instead; ``hazard_warnings`` flags where the two disagree)."""
    if isinstance(pclq, str):
        return _clique_of_name(pcs, pclq)
    name = pclq.name
    owner = pclq.labels.get(N.L_PCSG) or pcs.name
    if not name.startswith(owner + "-"):
        return None
    rest = name[len(owner) + 1:]
    idx, sep, cname = rest.partition("-")
    if not sep or not idx.isdigit():
        return None
    return pcs.clique_by_name.get(cname)


def _clique_of_name(pcs: PCS, name: str) -> Clique | None:
    if not name.startswith(pcs.name + "-"):
        return None
    idx, sep, rest = name[len(pcs.name) + 1:].partition("-")
    if not sep or not idx.isdigit():
        return None
    if rest in pcs.clique_by_name and rest not in pcs.group_of_clique:
        return pcs.clique_by_name[rest]
    for g in pcs.groups:
        if rest.startswith(g.name + "-"):
            j, sep2, cname = rest[len(g.name) + 1:].partition("-")
            if sep2 and j.isdigit() and cname in g.clique_names:
                return pcs.clique_by_name.get(cname)
    return None


def expected_pod_template_hash(pcs: PCS, pclq: Obj) -> str:
    """The template hash the desired PodCliqueSet gives this PodClique's pods.
    Upstream: ``common/component/utils/podclique.go`` ``GetExpectedPCLQPodTemplateHash``."""
    c = clique_of(pcs, pclq)
    return c.template_hash if c is not None else ""


def pclq_target_hash(pclq: Obj) -> str:
    """The hash a PodClique's pods are measured against: the update target when an
    update is recorded, else the PodClique's label, else its current hash.
    Upstream: ``podclique/reconcilestatus.go`` ``mutateUpdatedReplica``."""
    up = pclq.status.get("updateProgress")
    if isinstance(up, Mapping) and up.get("podTemplateHash"):
        return str(up["podTemplateHash"])
    lab = pclq.labels.get(N.L_TEMPLATE_HASH)
    if lab:
        return lab
    return str(pclq.status.get("currentPodTemplateHash") or "")


def pod_outdated(pod: Obj, target_hash: str) -> bool:
    """A pod is outdated when its ``grove.io/pod-template-hash`` label differs from the
    target hash. Upstream: ``podclique/components/pod/rollingupdate.go`` ``computeUpdateWork``."""
    return pod.labels.get(N.L_TEMPLATE_HASH) != target_hash


def pods_of(world: World, pclq: Obj) -> list[Obj]:
    return [p for p in world.index("Pod", N.L_PCLQ).get(pclq.name, ()) if p.namespace == pclq.namespace]


def pclqs_of_pcsg(world: World, pcsg: Obj) -> list[Obj]:
    return [p for p in world.index("PodClique", N.L_PCSG).get(pcsg.name, ()) if p.namespace == pcsg.namespace]


def pcsg_replica_of(pclq: Obj) -> int:
    try:
        return int(pclq.labels.get(N.L_PCSG_REPLICA, "-1"))
    except ValueError:
        return -1


def pcs_replica_of(o: Obj) -> int:
    try:
        return int(o.labels.get(N.L_PCS_REPLICA, "-1"))
    except ValueError:
        return -1


def group_of_pcsg(pcs: PCS, pcsg: Obj) -> Group | None:
    i = pcs_replica_of(pcsg)
    return next((g for g in pcs.groups if pcs.pcsg_fqn(i, g) == pcsg.name), None)


def int_field(v: Any, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def min_available(pclq: Obj) -> int:
    return int_field(pclq.spec.get("minAvailable"), 1)


def status_int(o: Obj, key: str) -> int:
    return int_field(o.status.get(key), 0)


def condition_status(o: Obj, ctype: str) -> str | None:
    for c in o.status.get("conditions") or []:
        if isinstance(c, Mapping) and c.get("type") == ctype:
            return str(c.get("status"))
    return None


# ----------------------------------------------------------------------------- update progress


def update_progress(o: Obj) -> Mapping[str, Any] | None:
    up = o.status.get("updateProgress")
    return None if up is None else up if isinstance(up, Mapping) else None


def is_update_in_progress(o: Obj) -> bool:
    """``updateProgress`` set and not ended. Upstream: ``IsPCLQAutoUpdateInProgress``,
    ``IsPCSGUpdateInProgress`` (``common/component/utils``)."""
    up = update_progress(o)
    return up is not None and not up.get("updateEndedAt")


def is_last_update_completed(o: Obj) -> bool:
    """Upstream: ``IsLastPCLQUpdateCompleted``."""
    up = update_progress(o)
    return up is not None and bool(up.get("updateEndedAt"))


def pcs_update_in_progress(pcs: PCS, status: Mapping[str, Any]) -> bool:
    """RollingRecreate orchestration runs while the PodCliqueSet update has not ended.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``isAutoUpdateInProgress``."""
    up = status.get("updateProgress")
    return is_auto_update_strategy(pcs) and isinstance(up, Mapping) and not up.get("updateEndedAt")


def currently_updating(status: Mapping[str, Any]) -> int | None:
    up = status.get("updateProgress")
    if not isinstance(up, Mapping):
        return None
    cu = up.get("currentlyUpdating")
    if isinstance(cu, list) and cu and isinstance(cu[0], Mapping):
        return int_field(cu[0].get("replicaIndex"), -1)
    return None


# ----------------------------------------------------------------------------- "updated" predicates


def is_pclq_update_complete(pcs: PCS, pclq: Obj, generation_hash: str | None) -> bool:
    """A standalone PodClique counts as updated for its PodCliqueSet replica: label
    hash, current hash and current PodCliqueSet hash all match, and at least
    ``minAvailable`` pods are updated and Ready.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``isPCLQUpdateComplete``;
    ``podcliqueset/reconcilestatus.go`` ``isStandalonePCLQUpdated``."""
    if not generation_hash:
        return False
    expected = expected_pod_template_hash(pcs, pclq)
    if not expected:
        return False
    st = pclq.status
    ma = min_available(pclq)
    return (pclq.labels.get(N.L_TEMPLATE_HASH) == expected
            and st.get("currentPodTemplateHash") == expected
            and st.get("currentPodCliqueSetGenerationHash") == generation_hash
            and status_int(pclq, "updatedReplicas") >= ma
            and status_int(pclq, "readyReplicas") >= ma)


def is_pcsg_update_complete(pcsg: Obj, generation_hash: str | None) -> bool:
    """Upstream: ``common/component/utils/podcliquescalinggroup.go`` ``IsPCSGUpdateComplete``."""
    return bool(generation_hash) and pcsg.status.get("currentPodCliqueSetGenerationHash") == generation_hash


def is_pcsg_replica_updated(pcs: PCS, pclqs: Iterable[Obj]) -> bool:
    """Every member PodClique of a scaling-group replica carries the expected hash label.
    Upstream: ``podcliquescalinggroup/components/podclique/rollingupdate.go`` ``isReplicaUpdated``."""
    return all(p.labels.get(N.L_TEMPLATE_HASH) == expected_pod_template_hash(pcs, p) for p in pclqs)


PENDING, UNAVAILABLE, READY = "pending", "unavailable", "ready"


def pcsg_replica_state(pclqs: Sequence[Obj]) -> str:
    """First member failing a check decides: fewer than ``minAvailable`` scheduled →
    pending; fewer Ready → unavailable; else ready.
    Upstream: ``podcliquescalinggroup/components/podclique/rollingupdate.go`` ``getReplicaState``."""
    for p in pclqs:
        if status_int(p, "scheduledReplicas") < min_available(p):
            return PENDING
        if status_int(p, "readyReplicas") < min_available(p):
            return UNAVAILABLE
    return READY


def is_pcsg_member_converged(pcs: PCS, pclq: Obj, generation_hash: str | None) -> bool:
    """A recreated member PodClique is done: hashes match and ``minAvailable`` pods are
    updated and Ready. Upstream: ``rollingupdate.go`` ``isCurrentReplicaUpdateComplete``;
    ``podcliquescalinggroup/reconcilestatus.go`` ``isPCSGChildPCLQUpdated``."""
    return is_pclq_update_complete(pcs, pclq, generation_hash)


# ----------------------------------------------------------------------------- old pods


PENDING_POD, UNHEALTHY_POD, READY_POD, STARTING_POD, OTHER_POD = "pending", "unhealthy", "ready", "starting", "other"


def container_statuses(pod: Obj, key: str = "containerStatuses") -> list[Mapping[str, Any]]:
    cs = pod.status.get(key)
    return [c for c in cs if isinstance(c, Mapping)] if isinstance(cs, list) else []


def _terminated_erroneously(statuses: list[Mapping[str, Any]]) -> bool:
    """``GetContainerStatusIfTerminatedErroneously``: a status whose *last* termination
    had a non-zero exit code (the current state oscillates while a container crash
    loops; the last termination is stable)."""
    for c in statuses:
        last = c.get("lastState")
        term = last.get("terminated") if isinstance(last, Mapping) else None
        if isinstance(term, Mapping) and int_field(term.get("exitCode"), 0) != 0:
            return True
    return False


def has_any_container_exited_erroneously(pod: Obj) -> bool:
    """An init container or a container whose last termination had a non-zero exit
    code. Upstream: ``internal/utils/kubernetes/pod.go``
    ``HasAnyContainerExitedErroneously`` (init container statuses first)."""
    return _terminated_erroneously(container_statuses(pod, "initContainerStatuses")) or \
        _terminated_erroneously(container_statuses(pod))


#: the name the update code used before the init-container fix
has_past_crash = has_any_container_exited_erroneously


def started_not_ready(pod: Obj) -> bool:
    """A container that started (``started: true``) and is not Ready.
    Upstream: ``HasAnyStartedButNotReadyContainer``."""
    return any(c.get("started") is True and not c.get("ready") for c in container_statuses(pod))


def not_started(pod: Obj) -> bool:
    """A container whose ``started`` is false or unset (still in its startup probe).
    Upstream: ``HasAnyContainerNotStarted``."""
    return any(c.get("started") is not True for c in container_statuses(pod))


def classify_old_pod(pod: Obj) -> str:
    """The class of an old-hash pod, in upstream's order: phase Pending; a started but
    not Ready container or a past non-zero exit (before readiness, issue #697);
    Ready; a container not started; anything else.
    Upstream: ``podclique/components/pod/rollingupdate.go`` ``computeUpdateWork``."""
    if O.pod_phase(pod) == "Pending":
        return PENDING_POD
    if started_not_ready(pod) or has_any_container_exited_erroneously(pod):
        return UNHEALTHY_POD
    if O.pod_ready(pod):
        return READY_POD
    if not_started(pod):
        return STARTING_POD
    return OTHER_POD


def created_key(pod: Obj) -> tuple:
    """Oldest first, as ``getNextPodToUpdate`` sorts (``CreationTimestamp``). Upstream's
    sort is unstable and timestamps have one-second resolution, so the order of pods
    created in the same second is undefined there: the model takes them by pod index
    (0, 1, 2, …, 10, not the names' 0, 1, 10, 2), then by name."""
    i = O.pod_index(pod)
    return (str(pod.metadata.get("creationTimestamp") or ""), i is None, i or 0, pod.name)


# ----------------------------------------------------------------------------- availability


def pclq_unavailable(pclq: Obj, pods: Sequence[Obj]) -> int:
    """Pods of a PodClique that count against a ``maxUnavailable`` budget: the desired
    count minus Ready non-terminating pods, or the pods in flight (terminating or not
    Ready), whichever is larger. Assumption: PR #817's exact formula is not public in
    the corpus; this is the one PR #740 spells out (``pod/rollingupdatebudget.go``)."""
    desired = int_field(pclq.spec.get("replicas"), 0)
    ready = sum(1 for p in pods if O.pod_ready(p))
    in_flight = sum(1 for p in pods if p.terminating or not O.pod_ready(p))
    return max(desired - min(ready, desired), in_flight)


def pcsg_unavailable(pcsg: Obj) -> int:
    """Scaling-group replicas that count against a ``maxUnavailable`` budget: the
    replicas that are not available (assumption, see ``pclq_unavailable``)."""
    return max(0, int_field(pcsg.spec.get("replicas"), 0) - status_int(pcsg, "availableReplicas"))


def rolling_update_config(pcs: PCS, component: Clique | Group) -> Mapping[str, Any] | None:
    """The PR #817 ``rollingUpdate`` block of a standalone clique or scaling group, or
    None when the manifest does not set one (then HEAD behaviour applies)."""
    ru = component.rolling_update
    return ru if ru else None


def max_unavailable(ru: Mapping[str, Any] | None) -> int | None:
    if not ru:
        return None
    v = ru.get("maxUnavailable")
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 1


def progress_deadline(ru: Mapping[str, Any] | None) -> str | None:
    if not ru:
        return None
    v = ru.get("progressDeadline")
    return str(v) if v else None


# ----------------------------------------------------------------------------- PodCliqueSet status


def live_pcs_status(pcs: PCS, world: World) -> dict[str, Any]:
    """A copy of the PodCliqueSet's status as the controllers last wrote it ({} before
    the first reconcile)."""
    live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
    return dict(live.status) if live is not None else {}
