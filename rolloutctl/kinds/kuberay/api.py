"""The vocabulary of the KubeRay model: kinds, labels, names, the model's RayCluster
status (pods are not objects) and the world memory keys.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/utils/constant.go``
(labels, ``RayServiceFinalizer``), ``rayservice_controller.go``
(``ServiceDefaultRequeueDuration``, ``RayClusterDeletionDelayDuration``, the Gateway and
HTTPRoute names of ``createGateway`` / ``createHTTPRoute``),
``ray-operator/controllers/ray/utils/util.go`` ``GenerateHeadServiceName``.

The model's RayCluster status carries its Pods: ``HeadPodReady`` with the reasons
``HeadPodNotFound`` / ``HeadPodPending`` / ``HeadPodNotReady`` / ``HeadPodRunningAndReady``,
``desiredWorkerReplicas`` and ``readyWorkerReplicas``. A cluster the controller creates
is named ``<rs>-<random>`` (``<rs>-<random2>`` for a second one inside one world); every
generated name is shown as ``<rs>-<random>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ...core.model import Obj

from ...core.environment import add, pod_requests
from ...core.go_strconv import DIGITS
from ...core.world import World
from .conditions import find_condition

API = "ray.io/v1"
RS = "RayService"
RC = "RayCluster"
SVC = "Service"
GW = "Gateway"
ROUTE = "HTTPRoute"
GW_API = "gateway.networking.k8s.io/v1"
SA = "ServeApplications"
SA_API = "rolloutctl.dev/v1alpha1"

REQUEUE = 2  # ServiceDefaultRequeueDuration
DEFAULT_DELETION_DELAY = 60  # RayClusterDeletionDelayDuration
FINALIZER = "ray.io/rayservice-finalizer"
#: utils.GCSFaultToleranceRedisCleanupFinalizer (RayCluster, GCS fault tolerance with Redis)
REDIS_CLEANUP_FINALIZER = "ray.io/gcs-ft-redis-cleanup-finalizer"
L_NAME = "ray.io/originated-from-cr-name"
L_CRD = "ray.io/originated-from-crd"
L_CLUSTER = "ray.io/cluster"
L_SERVE = "ray.io/serve"

MEM_TIMERS = "kuberay/deletionTimers"
MEM_NOTES = "kuberay/notes"
#: the starting world's RayClusters whose deletion waits for the Redis cleanup
#: (provenance.observed_redis_cleanup), for the warnings at the plan's end
MEM_REDIS_CLEANUP = "kuberay/redisCleanup"
#: how the reconcile pass a world is handed to ends (controller-runtime's requeue of the
#: RayService key, with what the pass waits for): written when the world is built
#: (``observe``) or moves on (``world.Advance``), kept through the pass's own writes, read
#: by the world between passes to say what the step waits for
MEM_REQUEUE = "kuberay/requeue"
#: the worker Pods each RayCluster runs, per group (``(name, ((group, pods), ...))``, by
#: cluster name), where they may differ from what its spec asks for (``world.Advance``:
#: with in-tree autoscaling, a scale-down deletes none)
MEM_WORKER_PODS = "kuberay/workerPods"

# Model reasons of the RayCluster HeadPodReady condition (pods are not objects).
HEAD_NONE = "HeadPodNotFound"
HEAD_PENDING = "HeadPodPending"
HEAD_STARTING = "HeadPodNotReady"
HEAD_READY = "HeadPodRunningAndReady"

RANDOM = "<random"
_RANDOM_MARK = "-" + RANDOM


def rule(fn: str) -> str:
    """The rule string of an action of the RayService controller's function ``fn``."""
    return f"kuberay:rayservice_controller.go#{fn}"


def rc_rule(fn: str) -> str:
    """The rule string of an action of the RayCluster controller's function ``fn``."""
    return f"kuberay:raycluster_controller.go#{fn}"


def display(name: str | None) -> str | None:
    """How a cluster name is shown: generated names end in ``-<random>``."""
    if not name or _RANDOM_MARK not in name:
        return name
    out, i = [], 0
    while (j := name.find(_RANDOM_MARK, i)) >= 0:  # each -<randomN> becomes -<random>
        k = j + len(_RANDOM_MARK)
        while k < len(name) and name[k] in DIGITS:
            k += 1
        if name[k:k + 1] == ">":
            out.append(name[i:j] + _RANDOM_MARK + ">")
            i = k + 1
        else:
            out.append(name[i:j + 1])
            i = j + 1
    out.append(name[i:])
    return "".join(out)


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def head_phase(rc: Obj) -> str:
    """The model's head Pod state of a RayCluster (its ``HeadPodReady`` condition)."""
    c = find_condition(rc.status, "HeadPodReady")
    if c is None:
        return HEAD_NONE
    if c.get("status") == "True":
        return HEAD_READY
    r = c.get("reason")
    return r if r in (HEAD_NONE, HEAD_PENDING) else HEAD_STARTING


def has_head_pod(rc: Obj) -> bool:
    """Whether the RayCluster has a head Pod (``updateHeadPodServeLabel`` finds one)."""
    return head_phase(rc) in (HEAD_STARTING, HEAD_READY)


def is_generated(name: str) -> bool:
    """Whether ``name`` is one the controller generated (``utils.GenerateRayClusterName``)."""
    return RANDOM in name


def desired_worker_replicas(group: Mapping[str, Any]) -> int:
    """The replicas of a worker group the RayCluster controller keeps, before ``numOfHosts``
    (``GetWorkerGroupDesiredReplicas``, utils/util.go): ``replicas``, or ``minReplicas`` when
    it is unset or below it, or ``maxReplicas`` when above it (the validation refuses
    minReplicas > maxReplicas first, RS010)."""
    mn = group.get("minReplicas") or 0
    mx = group.get("maxReplicas")
    r = group.get("replicas")
    r = mn if r is None else r
    if isinstance(mx, int):
        r = min(r, mx)
    return max(r, mn)


def worker_count(group: Mapping[str, Any]) -> int:
    """Worker pods of a group the RayCluster controller keeps (``GetWorkerGroupDesiredReplicas``,
    utils/util.go): replicas (or minReplicas when unset, as the autoscaler starts) clamped to
    [min, max], times numOfHosts as stored — an explicit 0 (the CRD defaults only an absent
    field to 1) makes none; ``reconcilePods`` treats it as 1 only after counting."""
    if group.get("suspend") is True:
        return 0
    r = desired_worker_replicas(group)
    hosts = group.get("numOfHosts")
    hosts = hosts if isinstance(hosts, int) and not isinstance(hosts, bool) else 1
    return max(0, int(r) * hosts)


def desired_workers(spec: Mapping[str, Any]) -> int:
    """Worker Pods of a RayCluster spec, over every worker group."""
    return sum(worker_count(_m(g)) for g in _l(spec.get("workerGroupSpecs")))


#: ``common/pod.go#BuildAutoscalerContainer``: the autoscaler sidecar's resources
#: (limits = requests)
_SIDECAR = MappingProxyType({"cpu": "500m", "memory": "512Mi"})
AUTOSCALER_RESOURCES: Mapping[str, Any] = MappingProxyType({"requests": _SIDECAR, "limits": _SIDECAR})


def head_pod_spec(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """The head Pod's spec as ``common/pod.go#DefaultHeadPodTemplate`` builds it, as far as
    its requests go: the template's, plus, with ``utils.IsAutoscalingEnabled``
    (``enableInTreeAutoscaling: true``), the autoscaler container of
    ``BuildAutoscalerContainer`` (500m CPU, 512Mi), whose resources ``mergeAutoscalerOverrides``
    replaces with ``autoscalerOptions.resources`` when that is set."""
    pod = _m(_m(_m(spec.get("headGroupSpec")).get("template")).get("spec"))
    if spec.get("enableInTreeAutoscaling") is not True:
        return pod
    res = _m(spec.get("autoscalerOptions")).get("resources")
    sidecar = {"name": "autoscaler", "resources": AUTOSCALER_RESOURCES if res is None else res}
    containers = pod.get("containers")
    return {**pod, "containers": [*(containers if isinstance(containers, list) else []), sidecar]}


def worker_pods(world: World, rc: Obj) -> dict[str, int]:
    """The worker Pods RayCluster ``rc`` runs in ``world``, per group name: what the
    RayCluster controller last left (``MEM_WORKER_PODS``; none in a group it has not seen
    yet), else, for a cluster it has not acted on, what its spec asks for (``worker_count``)."""
    kept = dict(world.memory.get(MEM_WORKER_PODS, ())).get(rc.name)
    if kept is None:
        return {str(_m(g).get("groupName")): worker_count(_m(g)) for g in _l(rc.spec.get("workerGroupSpecs"))}
    kept = dict(kept)  # a group the controller has not acted on yet (appended in place) has none
    return {str(_m(g).get("groupName")): kept.get(str(_m(g).get("groupName")), 0)
            for g in _l(rc.spec.get("workerGroupSpecs"))}


def recorded_worker_pods(world: World) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """``MEM_WORKER_PODS`` of ``world``: the worker Pods per group of each RayCluster whose
    head runs (``worker_pods``), as a world starts from them (Pods are not observed: a live
    cluster runs what its spec asks for, until the controller has acted)."""
    return tuple(sorted((rc.name, tuple(worker_pods(world, rc).items())) for rc in world.of_kind(RC)
                        if not rc.terminating and head_phase(rc) in (HEAD_STARTING, HEAD_READY)))


def pod_requests_per_group(rc: Obj) -> tuple[dict[str, int], tuple[tuple[str, int, dict[str, int]], ...]]:
    """What one Pod of each group of a RayCluster's spec requests: (the head's, with its
    autoscaler sidecar; (group name, workers the spec asks for, one worker's) per worker
    group). A view of the object (``Obj.derived``): its spec does not change."""
    spec = rc.spec
    groups = tuple((str(g.get("groupName")), worker_count(g), pod_requests(_m(_m(g.get("template")).get("spec"))))
                   for g in map(_m, _l(spec.get("workerGroupSpecs"))))
    return pod_requests(head_pod_spec(spec)), groups


def cluster_requests(rc: Obj, pods: Mapping[str, int] | None = None) -> dict[str, int]:
    """What the Pods of a RayCluster request (head, with its autoscaler sidecar, and
    workers: ``pods`` per group name when given, else what the spec asks for)."""
    head, groups = rc.derived(pod_requests_per_group)
    total: dict[str, int] = {}
    add(total, head)
    for name, count, req in groups:
        n = count if pods is None else pods.get(name, count)
        if n:
            add(total, {k: v * n for k, v in req.items()})
    return total


def head_svc_name(rs: str) -> str:
    """``utils.GenerateHeadServiceName`` for the RayService CRD."""
    return f"{rs}-head-svc"


def gateway_name(rs: str) -> str:
    """``<rs>-gateway`` (``createGateway``)."""
    return f"{rs}-gateway"


def route_name(rs: str) -> str:
    """``<rs>-httproute`` (``createHTTPRoute``)."""
    return f"{rs}-httproute"


def deletion_timers(world: World) -> dict[str, int]:
    """The deletion time of each dangling RayCluster (``cleanUpRayClusterInstance``'s
    ``RayClusterDeletionTimestamps`` map, held in the world's memory)."""
    return dict(world.memory.get(MEM_TIMERS, ()))


def with_deletion_timers(world: World, timers: Mapping[str, int]) -> World:
    """``world`` with these deletion times in its memory."""
    return world.with_memory(**{MEM_TIMERS: tuple(sorted(timers.items()))})
