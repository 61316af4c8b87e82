"""The LPX scheduler backend's own check of a PodCliqueSet, which the webhook runs on
create and update when the cliques name ``lpx-scheduler``: no topology constraints.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/scheduler/lpx/backend.go`` (``ValidatePodCliqueSet``), called from
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

#: the backend's name (``configv1alpha1.SchedulerNameLPX``)
LPX_SCHEDULER = "lpx-scheduler"


def validate_pod_clique_set(c: Check) -> Iterator[Problem]:
    """Under ``lpx-scheduler``, no ``topologyConstraint`` may be set (PodCliqueSet, clique or scaling group).

    The LPX backend refuses Grove topology constraints anywhere in the template
    (placement is expressed through LPX's own workload contract instead). One error
    is reported, at the first constraint (the PodCliqueSet's, then the cliques', then
    the scaling groups').

    Upstream: operator/internal/scheduler/lpx/backend.go#ValidatePodCliqueSet (via handler.go validatePodCliqueSetWithBackend)

    Bad:
        cliques:
        - name: worker
          topologyConstraint: {topologyName: tz, pack: {required: rack}}
          spec: {podSpec: {schedulerName: lpx-scheduler}}

    Good:
        cliques:
        - name: worker
          spec: {podSpec: {schedulerName: lpx-scheduler}}

    Remediation: Remove topologyConstraint and express placement through the LPX workload contract.
    """
    if c.scheduler_backend != LPX_SCHEDULER:
        return
    for path, _kind, _name, tc in for_each_topology_constraint(c.pcs):
        if tc is not None:
            yield path, ("lpx-scheduler does not support Grove topology constraints; placement topology "
                         "must be expressed through the LPX workload contract")
            return
