"""The Volcano scheduler backend's own check of a PodCliqueSet, which the webhook runs on
create and update when the cliques name ``volcano``: no topology constraints.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/scheduler/volcano/backend.go`` (``ValidatePodCliqueSet``, which runs
``validateTopologyConstraints`` and, only when that passes, ``validateQueueAnnotations``
of ``queue.go``, modelled in ``volcano_queue.py``), called from
``operator/internal/webhook/admission/pcs/validation/handler.go``
``validatePodCliqueSetWithBackend`` (the backend chosen as
:attr:`~.request.Check.scheduler_backend`).

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator

from .request import Check
from .topologyconstraints import for_each_topology_constraint
from .util import Problem

#: the backend's name (``configv1alpha1.SchedulerNameVolcano``)
VOLCANO = "volcano"


def validate_topology_constraints(c: Check) -> Iterator[Problem]:
    """Under ``volcano``, no ``topologyConstraint`` may be set (PodCliqueSet, clique or scaling group).

    The Volcano backend refuses a topology constraint anywhere in the template. It
    reports the first one it finds (the PodCliqueSet's, then the cliques' in order,
    then the scaling groups'), and then does not check the queue annotations.

    Upstream: operator/internal/scheduler/volcano/backend.go#validateTopologyConstraints (ValidatePodCliqueSet, via handler.go validatePodCliqueSetWithBackend)

    Bad:
        cliques:
        - name: worker
          topologyConstraint: {topologyName: tz, pack: {required: rack}}
          spec: {podSpec: {schedulerName: volcano}}

    Good:
        cliques:
        - name: worker
          spec: {podSpec: {schedulerName: volcano}}

    Remediation: Remove topologyConstraint, or use a scheduler that supports it (default-scheduler, kai-scheduler).
    """
    if c.scheduler_backend != VOLCANO:
        return
    for path, kind, name, tc in for_each_topology_constraint(c.pcs):
        if tc is not None:
            yield path, (f"volcano scheduler backend does not support topologyConstraint on {kind}"
                         + (f" {name!r}" if kind != "PodCliqueSet" else ""))
            return
