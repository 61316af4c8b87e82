"""Kueue's controllers for a RayService, one pass at a time: the order in which they run
after a KubeRay pass (:func:`run_pass`).

Three integration models (docs/kueue.md):

- ``top-level`` — kueue[POC] PR #11264 @1828096a: Kueue owns the RayService's
  ``spec.suspend``; ``rayClusterConfig.suspend`` stays true as a persistent gate so every
  RayCluster is born suspended; pod sets are summed over the live child RayClusters.
- ``nested`` — merged (Kueue >= v0.17): Kueue owns ``rayClusterConfig.suspend``; pod sets come
  from the RayService template; a RayCluster the RayService creates is a child job that
  Kueue may suspend but never unsuspends.
- ``legacy`` — merged RayCluster integration (Kueue < v0.17, or the RayService integration
  disabled): every RayCluster is its own job with its own Workload.

Each controller lives in the module of its Kueue Go file (kubernetes-sigs/kueue, names
checked at ff69552e79ad21652c36caa97038382e55625cf7): ``raycluster_webhook.py`` and
``rayservice_webhook.py`` (``pkg/controller/jobs/*/…_webhook.go`` ``Default``),
``reconciler.py`` (``pkg/controller/jobframework/reconciler.go``), ``workloadslicing.py``
(``pkg/workloadslicing/workloadslicing.go``), ``scheduler.py`` and ``preemption.py``
(``pkg/scheduler/``), ``rayservice_controller.py`` (the RayService as a job, and the POC's
``unsuspendAdmittedChildren``), ``elastic_job_ungater.py`` (between passes,
``pkg/controller/elasticjobs/elastic_job_ungater.go``). The pass's state is
``context.KueuePass``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.model import Action
from ...core.world import World
from . import raycluster_webhook
from .context import LEGACY, NESTED, TOP, KueuePass, children
from .rayservice_controller import unsuspend_admitted_children
from .reconciler import finalize_workloads, reconcile_generic_job, suspend_children
from .scheduler import schedule


def run_pass(mode: str, world: World, rs_key: tuple[str, str], created: Sequence[str] = ()) -> list[Action]:
    """Everything Kueue writes after one KubeRay pass, in order: the RayCluster webhook on
    the clusters KubeRay just created (legacy), the job reconciler, the release of Workloads
    whose job is gone, the suspension of child jobs (nested), the scheduler, the job
    reconciler again (start or stop the job), and the POC post-step (top-level)."""
    p = KueuePass(mode, world, rs_key, created)
    if p.rs is None:
        return []
    if p.mode == LEGACY:
        for c in list(children(p.w, p.rs)):
            if c.name in p.created:
                raycluster_webhook.default(p, c)
    for job in p.jobs():
        reconcile_generic_job(p, job)
    finalize_workloads(p)
    if p.mode == NESTED:
        suspend_children(p)
    schedule(p)
    for job in p.jobs():
        reconcile_generic_job(p, job)
    if p.mode == TOP:
        unsuspend_admitted_children(p)
    return p.actions
