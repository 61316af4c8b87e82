"""A live PodClique below ``minAvailable``: how long its ``terminationDelay`` has run
(``GetMinAvailableBreachedPCLQInfo``: ``terminationDelay - since.Sub(lastTransitionTime)``,
common/component/utils/podclique.go; ``getPCSReplicaDeletionWork``, gangterminate.go),
and pods the snapshot shows crash looping, which the plan does not take to recover."""

from __future__ import annotations

import yaml

from tests.kinds.grove.operator_world import settled_world
from tests.kinds.grove.test_finished_pods import SMALL, _plan

BREACH_AT = "2026-09-01T10:05:00Z"


def _breached(delay: str | None, crash_loop: bool, newest: str | None = None) -> tuple[dict, list[dict]]:
    """SMALL (clique w: 2 pods, minAvailable 1) with both pods not Ready since
    ``BREACH_AT`` and the PodClique's breach True since then; ``newest``: a later write
    time in the snapshot (a managedFields entry of the PodClique)."""
    manifest = yaml.safe_load(SMALL)
    if delay is not None:
        manifest["spec"]["template"]["terminationDelay"] = delay
    objs = settled_world(manifest)
    for o in objs:
        if o["kind"] == "Pod":
            for c in o["status"]["conditions"]:
                if c["type"] in ("Ready", "ContainersReady"):
                    c.update(status="False", lastTransitionTime=BREACH_AT)
            cs = o["status"]["containerStatuses"][0]
            cs.update(ready=False, started=False, restartCount=4 if crash_loop else 0)
            if crash_loop:
                cs["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}
                cs["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": BREACH_AT}}
        if o["kind"] == "PodClique":
            o["status"]["readyReplicas"] = 0
            for c in o["status"]["conditions"]:
                if c["type"] == "MinAvailableBreached":
                    c.update(status="True", reason="InsufficientReadyPods", lastTransitionTime=BREACH_AT)
            if newest is not None:
                o["metadata"]["managedFields"] = [{"manager": "grove-operator", "operation": "Update",
                                                   "subresource": "status", "time": newest}]
    return manifest, objs


def _terminations(plan) -> list[tuple[int, str]]:
    return [(s.step, a.name) for s in plan.steps for a in s.actions if a.role == "gang-termination"
            and a.verb == "delete"]


def _codes(plan) -> dict[str, str]:
    return {w.code: w.message for w in plan.warnings}


def test_crash_looping_pods_keep_the_breach_until_gang_termination_recreates_the_replica():
    """Pods in CrashLoopBackOff do not turn Ready in the plan: the breach lasts its
    terminationDelay and the replica is gang-terminated (its PodClique deleted, then
    created afresh, whose new pods start Ready). Pods merely not Ready yet recover, the
    breach clears and nothing is terminated."""
    manifest, objs = _breached("1m", crash_loop=True)
    plan = _plan(manifest, objs)
    assert _terminations(plan) == [(1, "s-0-w")]
    assert plan.outcome == "converged"
    assert plan.phases[0].title.startswith("replica 0: gang-terminated")
    codes = _codes(plan)
    assert "s-0-w-" in codes["ObservedCrashLoop"] and "never to turn Ready" in codes["ObservedCrashLoop"]
    assert "since 2026-09-01T10:05:00Z" in codes["ObservedMinAvailableBreach"]

    manifest, objs = _breached("1m", crash_loop=False)  # (the status reconcile clears such a breach)
    plan = _plan(manifest, objs)
    assert _terminations(plan) == [] and "ObservedCrashLoop" not in _codes(plan)


def test_a_breach_whose_delay_ran_out_before_the_snapshot_terminates_in_the_first_pass():
    """The snapshot records a write at 10:10 and the breach has lasted since 10:05: a 1m
    terminationDelay has run out, so the very first pass gang-terminates the replica
    (``next`` shows it); with the default 4h the first pass only waits for the delay,
    which the untimed plan lets pass once nothing else can happen."""
    manifest, objs = _breached("1m", crash_loop=True, newest="2026-09-01T10:10:00Z")
    plan = _plan(manifest, objs)
    assert [a.name for a in plan.first_pass.actions if a.role == "gang-termination"] == ["s-0-w"]
    assert "has run out by the snapshot's newest time" in _codes(plan)["ObservedMinAvailableBreach"]

    manifest, objs = _breached(None, crash_loop=True, newest="2026-09-01T10:10:00Z")
    plan = _plan(manifest, objs)
    assert plan.first_pass.actions == () and "terminationDelay (4h0m0s) passes" in " ".join(plan.first_pass.wait_for)
    assert _terminations(plan) == [(1, "s-0-w")]
    assert "14100s of its terminationDelay (4h0m0s) are left" in _codes(plan)["ObservedMinAvailableBreach"]
