"""The Volcano scheduler backend's queue check of a PodCliqueSet: the
``scheduling.grove.io/volcano-queue`` annotations must be valid names and resolve to one
queue.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/scheduler/volcano/queue.go`` (``validateQueueAnnotations``,
``resolvePodCliqueQueue``, ``validateQueueName``, ``effectiveQueueFromAnnotations``),
run by ``volcano/backend.go`` ``ValidatePodCliqueSet`` after its topology check passes
(``volcano_backend.py``). Its last step, ``validateQueueExistsAndIsOpen``, reads the
Volcano Queue from the cluster; that is not modelled: the queue is assumed to exist and
be Open, like every cluster-scoped object a manifest names (CONTRACT.md).

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ....core.k8s_syntax import is_dns1123_subdomain
from .request import Check
from .util import Problem, as_map, as_str, clique_path
from .volcano_backend import VOLCANO, validate_topology_constraints

#: ``QueueAnnotationKey``: an annotation (labels are not read)
QUEUE_KEY = "scheduling.grove.io/volcano-queue"
#: ``DefaultQueue``: the queue when neither the PodCliqueSet nor the clique names one
DEFAULT_QUEUE = "default"


def validate_queue_annotations(c: Check) -> Iterator[Problem]:
    """Under ``volcano``, the ``scheduling.grove.io/volcano-queue`` annotations must be valid queue names and give every clique the same queue.

    The queue of a clique is its own annotation, else the PodCliqueSet's annotation,
    else ``default``; when both are set they must be equal. Every clique must end
    up with the same queue, so a clique that names a queue while another names none
    (and the PodCliqueSet none either) is refused: the other one would be in
    ``default``. Queue names must be DNS subdomains; an invalid one on the
    PodCliqueSet is the only error reported. Checked only when no topology
    constraint was refused first. The webhook then also requires the queue to exist
    and be Open in the cluster; the tool assumes it does.

    Upstream: operator/internal/scheduler/volcano/queue.go#validateQueueAnnotations (volcano/backend.go ValidatePodCliqueSet, via handler.go validatePodCliqueSetWithBackend)

    Bad:
        cliques:
        - name: leader
          annotations: {scheduling.grove.io/volcano-queue: team-a}
          spec: {podSpec: {schedulerName: volcano}}
        - name: worker
          spec: {podSpec: {schedulerName: volcano}}

    Good:
        metadata:
          annotations: {scheduling.grove.io/volcano-queue: team-a}
        spec:
          template:
            cliques:
            - name: leader
              spec: {podSpec: {schedulerName: volcano}}
            - name: worker
              spec: {podSpec: {schedulerName: volcano}}

    Remediation: Annotate the PodCliqueSet with scheduling.grove.io/volcano-queue: QUEUE (or every clique with the same queue).
    """
    if c.scheduler_backend != VOLCANO or next(validate_topology_constraints(c), None) is not None:
        return
    pcs_queue = as_str(as_map(as_map(c.pcs.get("metadata")).get("annotations")).get(QUEUE_KEY)).strip()
    if pcs_queue:
        msgs = is_dns1123_subdomain(pcs_queue)
        if msgs:
            yield ("metadata", "annotations", QUEUE_KEY), "; ".join(msgs)
            return
    resolved = ""
    for i, cl in c.cliques:
        path = clique_path(i, "annotations", QUEUE_KEY)
        clique_queue = as_str(as_map(cl.get("annotations")).get(QUEUE_KEY)).strip()
        if clique_queue:
            msgs = is_dns1123_subdomain(clique_queue)
            if msgs:
                yield path, "; ".join(msgs)
        if pcs_queue and clique_queue and pcs_queue != clique_queue:
            yield path, (f"conflicting volcano queue annotations: PodCliqueSet has {pcs_queue!r}, "
                         f"PodClique has {clique_queue!r}")
            continue
        queue = clique_queue or pcs_queue or DEFAULT_QUEUE
        if not resolved:
            resolved = queue
        elif queue != resolved:
            yield path, (f"all PodCliques in a PodCliqueSet using volcano scheduler must resolve to the same "
                         f"queue (found {resolved!r} and {queue!r})")
