"""A Failed or Succeeded pod (evicted, or exited under restartPolicy Never) still counts
toward its PodClique's ``spec.replicas`` upstream (``podclique/components/pod/
syncflow.go`` ``syncExpectationsAndComputeDifference`` over ``GetPCLQPods``, which does
not filter on phase): the operator never replaces it, and the plan says so."""

from __future__ import annotations

import copy

import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove.model import GroveModel

from tests.conftest import write
from tests.kinds.grove.operator_world import settled_world


def _manifest(name: str, template: str) -> str:
    """A PodCliqueSet of one replica in namespace default with ``template`` (its lines)."""
    return ("apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\n"
            f"metadata: {{name: {name}, namespace: default}}\nspec:\n  replicas: 1\n  template:\n" + template)


SMALL = _manifest("s", """\
    cliques:
    - name: w
      spec:
        roleName: w
        replicas: 2
        minAvailable: 1
        podSpec:
          containers: [{name: main, image: busybox, resources: {requests: {cpu: "1"}}}]
""")


def _finish(pod: dict, phase: str, reason: str | None) -> None:
    pod["status"]["phase"] = phase
    if reason:
        pod["status"]["reason"] = reason
    for c in pod["status"].get("conditions", []):
        if c["type"] in ("Ready", "ContainersReady"):
            c["status"] = "False"


def _world(phase: str = "Failed", reason: str | None = "Evicted") -> tuple[dict, list[dict], str]:
    manifest = yaml.safe_load(SMALL)
    objs = settled_world(manifest)
    pod = [o for o in objs if o["kind"] == "Pod"][-1]
    _finish(pod, phase, reason)
    return manifest, objs, pod["metadata"]["name"]


def _plan(manifest: dict, observed: list[dict]):
    m = GroveModel()
    env = Environment()
    desired = Obj(manifest)
    return simulate(m, desired, m.observe(desired, [Obj(o) for o in observed], env), env)


def test_evicted_pod_is_not_replaced_and_the_plan_is_stuck_naming_it():
    manifest, objs, name = _world()
    plan = _plan(manifest, objs)
    assert plan.outcome == "stuck"
    assert not [a for s in plan.steps for a in s.actions if a.kind == "Pod"]  # no replacement, no gang termination
    assert plan.stuck.reason == "FinishedPodNotReplaced"
    assert f"pod {name} is Failed (Evicted)" in plan.stuck.message
    assert [r.name for r in plan.stuck.blocked_on] == ["s-0-w"]
    assert any(f"kubectl delete pod -n default {name}" in r for r in plan.stuck.remedies)
    (w,) = [w for w in plan.warnings if w.code == "FinishedPodNotReplaced"]
    assert name in w.message and "Failed" in w.message


def test_succeeded_pod_holds_its_replica_too():
    manifest, objs, name = _world("Succeeded", None)
    plan = _plan(manifest, objs)
    assert plan.outcome == "stuck" and plan.stuck.reason == "FinishedPodNotReplaced"
    assert f"pod {name} is Succeeded and" in plan.stuck.message


def test_deleting_the_finished_pod_lets_grove_create_a_replacement():
    """The remedy works: without the Failed pod the clique is short one pod and the
    operator creates it (on the index the Failed pod held)."""
    manifest, objs, name = _world()
    rest = [o for o in objs if o["metadata"].get("name") != name or o["kind"] != "Pod"]
    plan = _plan(manifest, rest)
    assert plan.outcome == "converged"
    creates = [a for s in plan.steps for a in s.actions if a.kind == "Pod" and a.verb == "create"]
    assert len(creates) == 1
    assert not [w for w in plan.warnings if w.code == "FinishedPodNotReplaced"]


def test_new_index_skips_indices_of_running_pods_only():
    """Scaling the clique up with a Failed pod present: the Failed pod counts toward
    replicas (one create for 2 -> 3) and its hostname index is free again
    (GetAvailableIndices skips final-state pods), so the new pod takes it."""
    manifest, objs, name = _world()
    failed = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    failed_index = int(failed["metadata"]["labels"]["grove.io/podclique-pod-index"])
    pclq = next(o for o in objs if o["kind"] == "PodClique")
    pclq["spec"]["replicas"] = 3
    plan = _plan(manifest, objs)
    creates = [a for s in plan.steps for a in s.actions if a.kind == "Pod" and a.verb == "create"]
    assert len(creates) == 1
    assert creates[0].index == failed_index


def test_rolling_update_deletes_the_failed_old_pod():
    """A template change: the Failed pod is an old non-ready pod, which the rolling
    update deletes at once, so the plan converges with both pods on the new template."""
    manifest, objs, name = _world()
    new = copy.deepcopy(manifest)
    new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "busybox:v2"
    plan = _plan(new, objs)
    assert plan.outcome == "converged"
    deleted = {a.name for s in plan.steps for a in s.actions if a.kind == "Pod" and a.verb == "delete"}
    assert name in deleted


def test_observed_cli_path(cli, tmp_path):
    manifest, objs, name = _world()
    r = cli("plan", write(tmp_path, "s.yaml", SMALL), "--observed",
            write(tmp_path, "live.yaml", yaml.safe_dump_all(objs)), "-o", "json")
    assert r.exit_code == 1, r.stdout
    d = r.json()
    assert d["outcome"] == "stuck" and d["stuck"]["reason"] == "FinishedPodNotReplaced"
    assert name in d["stuck"]["message"]
    assert "FinishedPodNotReplaced" in [w["code"] for w in d["warnings"]]
    text = cli("plan", write(tmp_path, "s.yaml", SMALL), "--observed", str(tmp_path / "live.yaml"))
    assert "FinishedPodNotReplaced" in text.stdout and "kubectl delete pod" in text.stdout


def test_a_status_from_an_operator_before_update_progress_is_named():
    """Grove wrote status.rollingUpdateProgress before PR #576 renamed it updateProgress;
    the modelled operator reads only the new field, and the plan says why it takes no
    update as in progress."""
    manifest = yaml.safe_load(SMALL)
    objs = settled_world(manifest)
    pcs = next(o for o in objs if o["kind"] == "PodCliqueSet")
    pcs["status"].pop("updateProgress", None)
    pcs["status"]["rollingUpdateProgress"] = {"updateStartedAt": "2026-09-01T10:00:00Z", "currentlyUpdating": {}}
    plan = _plan(manifest, objs)
    assert "ObservedOlderOperator" in {w.code for w in plan.warnings}
    assert "ObservedOlderOperator" not in {w.code for w in _plan(manifest, settled_world(manifest)).warnings}


SCALED = _manifest("t", """\
    cliques:
    - name: fe
      spec: {roleName: fe, replicas: 1, minAvailable: 1, podSpec: {containers: [{name: c, image: nginx:1.25}]}}
    - name: pw
      spec: {roleName: pw, replicas: 2, minAvailable: 1, podSpec: {containers: [{name: c, image: nginx:1.25}]}}
    podCliqueScalingGroups:
    - {name: sg, cliqueNames: [pw], replicas: 3, minAvailable: 2, scaleConfig: {minReplicas: 2, maxReplicas: 5}}
""")


def test_a_failed_base_gang_pod_still_counts_as_scheduled_for_a_scaled_gang():
    """``isBasePodGangScheduled`` (podclique/components/pod/syncflow.go) reads each base
    PodClique's ``status.scheduledReplicas``, which counts every pod whose PodScheduled
    condition is True, an evicted one included: the pods of a scaling-group replica added
    by an autoscaler get their gates lifted and are scheduled."""
    manifest = yaml.safe_load(SCALED)
    objs = settled_world(manifest)
    (fe,) = [o for o in objs if o["kind"] == "Pod" and o["metadata"]["labels"]["grove.io/podclique"] == "t-0-fe"]
    _finish(fe, "Failed", "Evicted")
    (pcsg,) = [o for o in objs if o["kind"] == "PodCliqueScalingGroup"]
    pcsg["spec"]["replicas"] = 4  # the HorizontalPodAutoscaler scaled the group out
    plan = _plan(manifest, objs)
    created = [a.name for s in plan.steps for a in s.actions if a.kind == "Pod" and a.verb == "create"]
    assert len(created) == 2 and all("t-0-sg-3-pw" in n for n in created)
    assert plan.steps[-1].after["scheduled"] == plan.steps[-1].after["readyPods"] == 8, plan.steps[-1].after
    assert plan.stuck is not None and plan.stuck.reason == "FinishedPodNotReplaced"  # the evicted pod stays


def test_a_missing_podgang_is_created_listing_the_pods_that_exist():
    """``createOrUpdatePodGangs`` (podgang/syncflow.go) builds a PodGang from the pods
    already labelled for it and, when none is pending, sets ``Initialized=True`` in the
    same sync (``verifyAllPodsCreated``): one create, nothing to fill in afterwards."""
    manifest = yaml.safe_load(SCALED)
    objs = settled_world(manifest)
    gone = [o for o in objs if o["kind"] == "PodGang" and o["metadata"]["name"] == "t-0-sg-0"]
    assert len(gone) == 1
    plan = _plan(manifest, [o for o in objs if o is not gone[0]])
    acts = [a for s in plan.steps for a in s.actions if not a.hidden]
    assert [(a.verb, a.kind, a.name) for a in acts] == [("create", "PodGang", "t-0-sg-0")]
    payload = acts[0].payload
    listed = sorted(r["name"] for g in gone[0]["spec"]["podgroups"] for r in g["podReferences"])
    assert listed and sorted(r["name"] for g in payload["spec"]["podgroups"] for r in g["podReferences"]) == listed
    assert [c["status"] for c in payload["status"]["conditions"] if c["type"] == "Initialized"] == ["True"]


def test_a_snapshot_without_podgangs_says_so():
    """``kubectl get pcs,pclq,pods`` leaves PodGangs out: the pods still name them, and the
    plan, which re-creates them, says the snapshot may have left the kind out."""
    manifest = yaml.safe_load(SCALED)
    objs = settled_world(manifest)
    whole = _plan(manifest, objs)
    assert not [w for w in whole.warnings if w.code.startswith("Observed") and w.code.endswith("Missing")]
    plan = _plan(manifest, [o for o in objs if o["kind"] != "PodGang"])
    (w,) = [w for w in plan.warnings if w.code == "ObservedPodGangMissing"]
    assert "PodGang t-0, t-0-sg-0" in w.message and "podgangs.scheduler.grove.io" in w.message
    assert [a.kind for s in plan.steps for a in s.actions if a.verb == "create"] == ["PodGang", "PodGang"]
