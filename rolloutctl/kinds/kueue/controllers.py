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

What each controller watches is declared next to its rules, as upstream's
``SetupWithManager`` declares it (``core.queue.Controller``), and listed here
(``CONTROLLERS``, ``NOT_WATCHED``, ``JOB_CONTROLLERS``). A RayService plan has one key,
so the pass still runs every controller every round; the declarations are what the
tests hold the pass to (tests/kinds/kueue/test_watches.py). The webhooks are not
controllers: they act inside the create request and watch nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from types import MappingProxyType

from ...core.model import Action
from ...core.world import World
from ..kuberay.api import RC, RS
from . import elastic_job_ungater, raycluster_webhook, rayservice_controller, reconciler, scheduler
from .context import LEGACY, NESTED, TOP, KueuePass, children
from .rayservice_controller import unsuspend_admitted_children
from .reconciler import finalize_workloads, reconcile_generic_job, suspend_children
from .scheduler import schedule

#: Kueue's controllers the model runs: the job reconciler for RayServices (top-level,
#: nested; with the POC post-step) and for RayClusters (legacy jobs, nested child jobs,
#: ``finalizeWorkloads``), the scheduler (fed by the core controllers' predicates), and,
#: between passes, the elastic-job ungater
CONTROLLERS = (rayservice_controller.CONTROLLER, reconciler.CONTROLLER, scheduler.SCHEDULER,
               elastic_job_ungater.CONTROLLER)

#: per controller name: the kinds it reads that none of its watches covers, and why
NOT_WATCHED = MappingProxyType({
    rayservice_controller.CONTROLLER.name: rayservice_controller.NOT_WATCHED,
    reconciler.CONTROLLER.name: reconciler.NOT_WATCHED,
    scheduler.SCHEDULER.name: scheduler.NOT_WATCHED,
    elastic_job_ungater.CONTROLLER.name: elastic_job_ungater.NOT_WATCHED,
})

#: the job reconciler whose key a job of each kind is (``ReconcileGenericJob`` runs on it)
JOB_CONTROLLERS = MappingProxyType({RS: rayservice_controller.CONTROLLER, RC: reconciler.CONTROLLER})


def run_pass(mode: str, world: World, rs_key: tuple[str, str], created: Sequence[str] = (),
             events: Collection[str] | None = None) -> list[Action]:
    """Everything Kueue writes after one KubeRay pass, in order: the RayCluster webhook on
    the clusters KubeRay just created (legacy), the job reconciler (``JOB_CONTROLLERS`` of
    the job's kind), the release of Workloads whose job is gone and the suspension of
    child jobs (nested; both the RayCluster job reconciler's), the scheduler, the job
    reconciler again (start or stop the job), and the POC post-step (top-level; the
    RayService job reconciler's). ``events``: the child RayClusters with an event since the
    previous pass, the only ones the RayCluster job reconciler looks at (None: all)."""
    p = KueuePass(mode, world, rs_key, created, events)
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
