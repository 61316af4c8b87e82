"""The KAI scheduler backend's own check of a PodCliqueSet, which the webhook runs on
create and update when the cliques name ``kai-scheduler``: the PodCliqueSet must resolve
to exactly one KAI queue.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/scheduler/kai/backend.go`` (``ValidatePodCliqueSet``,
``resolveQueueNameForPodCliqueSet``, ``resolveQueueNameFromMetadata``), called from
``operator/internal/webhook/admission/pcs/validation/handler.go``
``validatePodCliqueSetWithBackend`` (the backend chosen as
:attr:`~.request.Check.scheduler_backend`). The same resolution gives each PodGang's KAI
PodGroup its queue (``resolveQueueName``), so a PodCliqueSet this rule rejects could not
be scheduled either.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .request import Check
from .util import Problem, as_map, as_str, clique_path

#: the backend's name (``configv1alpha1.SchedulerNameKai``)
KAI_SCHEDULER = "kai-scheduler"

#: ``labelKeyQueueName``: read from labels, then from annotations
QUEUE_KEY = "kai.scheduler/queue"


def _queue_from_metadata(labels: Any, annotations: Any) -> tuple[str, str]:
    """``resolveQueueNameFromMetadata``: a non-empty queue label wins, else the annotation.
    Returns the queue and where it was found (``labels`` or ``annotations``)."""
    q = as_str(as_map(labels).get(QUEUE_KEY))
    if q:
        return q, "labels"
    return as_str(as_map(annotations).get(QUEUE_KEY)), "annotations"


def resolve_queue_name_for_pod_clique_set(c: Check) -> Iterator[Problem]:
    """Under ``kai-scheduler``, the PodCliqueSet must name exactly one KAI queue (label or annotation ``kai.scheduler/queue``).

    The queue is read from the ``kai.scheduler/queue`` label, or failing that the
    annotation, of the PodCliqueSet's metadata. When the PodCliqueSet sets one, a
    clique that sets its own must name the same queue. When it does not, the cliques'
    queues decide: at least one clique must set one, and all cliques that do must
    agree. The KAI backend runs this check in the webhook on create and on every
    update; it does not look at whether the queue exists.

    Upstream: operator/internal/scheduler/kai/backend.go#resolveQueueNameForPodCliqueSet (ValidatePodCliqueSet, via handler.go validatePodCliqueSetWithBackend)

    Bad:
        cliques:
        - name: worker
          spec: {podSpec: {schedulerName: kai-scheduler}}

    Good:
        metadata:
          labels: {kai.scheduler/queue: team-a}
        spec:
          template:
            cliques:
            - name: worker
              spec: {podSpec: {schedulerName: kai-scheduler}}

    Remediation: Label the PodCliqueSet (or its cliques, all with the same value) with kai.scheduler/queue: QUEUE.
    """
    if c.scheduler_backend != KAI_SCHEDULER:
        return
    md = as_map(c.pcs.get("metadata"))
    ref = f"{as_str(md.get('namespace'))}/{c.name}"
    pcs_queue, _ = _queue_from_metadata(md.get("labels"), md.get("annotations"))
    cliques: list[tuple[int, Mapping[str, Any], str, str]] = []
    for i, cl in c.cliques:
        q, where = _queue_from_metadata(cl.get("labels"), cl.get("annotations"))
        cliques.append((i, cl, q, where))
    if pcs_queue:
        for i, cl, q, where in cliques:
            if q and q != pcs_queue:
                yield clique_path(i, where, QUEUE_KEY), (
                    f"KAI queue on PodCliqueSet {ref} is {pcs_queue!r} but PodClique template "
                    f"{as_str(cl.get('name'))!r} resolves to {q!r}")
                return  # the backend stops at the first mismatch
        return
    named = [(i, q, where) for i, _cl, q, where in cliques if q]
    queues = sorted({q for _i, q, _w in named})
    if not queues:
        yield ("metadata",), f"no KAI queue is configured on PodCliqueSet {ref} or its PodClique templates"
    elif len(queues) > 1:
        i, _q, where = next(n for n in named if n[1] != named[0][1])
        yield clique_path(i, where, QUEUE_KEY), (
            f"conflicting KAI queues on PodCliqueSet {ref} PodClique templates: {', '.join(queues)}")
