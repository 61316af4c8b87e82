"""Which pod a PodClique's scale-in deletes, as upstream's ``DeletionSorter`` orders
them (``podclique/components/pod/deletionsort.go``): a Failed or Succeeded pod ranks
with Pending ones (``podPhaseToOrdinal`` has no entry for them), before Running pods;
the template hash compared is ``getExpectedPodTemplateHash``'s (``syncflow.go``): the
update's target while the PodClique's update belongs to the current generation."""

from __future__ import annotations

import copy

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove.controller.podclique.components.pod.syncflow import get_expected_pod_template_hash
from rolloutctl.kinds.grove.model import GroveModel

import yaml

from tests.kinds.grove.operator_world import settled_world
from tests.kinds.grove.test_finished_pods import SMALL, _finish, _plan


def test_scale_in_deletes_the_evicted_pod_before_a_running_one():
    """The live PodClique was scaled from 3 to 2 (an HPA, or kubectl scale) and one of
    its 3 pods, not the newest, was evicted: the evicted pod is the one deleted."""
    manifest = yaml.safe_load(SMALL)
    manifest["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 3
    objs = settled_world(manifest)
    pods = [o for o in objs if o["kind"] == "Pod"]
    assert len(pods) == 3
    evicted = pods[0]
    _finish(evicted, "Failed", "Evicted")
    for o in objs:
        if o["kind"] == "PodClique":
            o["spec"]["replicas"] = 2
    p = _plan(manifest, objs)
    deleted = [a.name for s in p.steps for a in s.actions if a.verb == "delete" and a.kind == "Pod"]
    assert deleted == [evicted["metadata"]["name"]]


def test_expected_hash_is_the_update_target_only_for_the_current_generation():
    manifest = yaml.safe_load(SMALL)
    objs = settled_world(manifest)
    m = GroveModel()
    env = Environment()
    world = m.observe(Obj(manifest), [Obj(o) for o in objs], env)
    gen = world.get("PodCliqueSet", "default", "s").status["currentGenerationHash"]  # as the model reads it
    pclq = copy.deepcopy(next(o for o in objs if o["kind"] == "PodClique"))
    label = pclq["metadata"]["labels"]["grove.io/pod-template-hash"]
    pclq["status"]["updateProgress"] = {"podCliqueSetGenerationHash": gen, "podTemplateHash": "target"}
    assert get_expected_pod_template_hash(Obj(pclq), world) == "target"
    pclq["status"]["updateProgress"]["podCliqueSetGenerationHash"] = "an-older-generation"
    assert get_expected_pod_template_hash(Obj(pclq), world) == label
    del pclq["status"]["updateProgress"]
    assert get_expected_pod_template_hash(Obj(pclq), world) == label


def test_a_scale_in_phase_says_deleted_not_replaced():
    """A live PodClique scaled from 3 to 2: the phase names the clique (not the pod's
    random suffix) and says the pod is deleted, since nothing replaces it
    (``deleteExcessPods``); a scaling group scaled in deletes its replicas."""
    manifest = yaml.safe_load(SMALL)
    manifest["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 3
    objs = settled_world(manifest)
    for o in objs:
        if o["kind"] == "PodClique":
            o["spec"]["replicas"] = 2
    p = _plan(manifest, objs)
    assert [ph.title for ph in p.phases] == ["replica 0: w: 1 pod deleted"]


def test_a_replica_created_during_an_update_is_titled_by_what_is_created():
    """Scaling out while the template changes: the new replica (updated first, having no
    scheduled pods: orderPCSReplicaInfo) is created; the phase says so rather than naming
    the PodClique patches of the other replicas that share its steps."""
    from rolloutctl.core.environment import Environment
    from rolloutctl.core.simulate import simulate

    old = yaml.safe_load(SMALL)
    old["spec"]["replicas"] = 2
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 3
    new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "busybox:2"
    m = GroveModel()
    env = Environment()
    p = simulate(m, Obj(new), m.observe(Obj(new), [Obj(old)], env), env)
    first = p.phases[0].title
    assert first.startswith("replica 2: create") and "patched" not in first.split(";")[0], first


def test_a_failed_pod_against_a_pending_one_is_named_an_arbitrary_choice():
    """A Failed (evicted) pod and a newer Pending pod that is placed but not Ready: upstream's
    ``DeletionSorter.Less`` stops at the phase criterion, where Failed and Pending rank the
    same, so neither goes first and the informer cache's list order decides. The plan
    deletes one and its reason says the operator's choice between the two is arbitrary."""
    manifest = yaml.safe_load(SMALL)
    manifest["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 3
    objs = settled_world(manifest)
    pods = sorted((o for o in objs if o["kind"] == "Pod"), key=lambda o: o["metadata"]["name"])
    _finish(pods[0], "Failed", "Evicted")
    pending = pods[1]
    pending["metadata"]["creationTimestamp"] = "2099-01-01T00:00:00Z"
    pending["status"]["phase"] = "Pending"
    pending["status"]["conditions"] = [c for c in pending["status"]["conditions"] if c["type"] == "PodScheduled"]
    for o in objs:
        if o["kind"] == "PodClique":
            o["spec"]["replicas"] = 2
    p = _plan(manifest, objs)
    (deleted,) = [a for s in p.steps for a in s.actions if a.verb == "delete" and a.kind == "Pod"]
    assert "list order, arbitrary" in deleted.reason and "phases" in deleted.reason


def test_a_scale_in_upstream_orders_carries_no_arbitrary_note():
    """The evicted pod against two Running, Ready ones: the phase criterion puts it first."""
    manifest = yaml.safe_load(SMALL)
    manifest["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 3
    objs = settled_world(manifest)
    _finish([o for o in objs if o["kind"] == "Pod"][0], "Failed", "Evicted")
    for o in objs:
        if o["kind"] == "PodClique":
            o["spec"]["replicas"] = 2
    p = _plan(manifest, objs)
    (deleted,) = [a for s in p.steps for a in s.actions if a.verb == "delete" and a.kind == "Pod"]
    assert "arbitrary" not in deleted.reason


def test_less_is_upstreams_comparator():
    """``DeletionSorter.Less`` case by case: each criterion decides only where the pods
    differ in it; a phase tie and two old hashes leave the pair unordered or inconsistent."""
    from rolloutctl.kinds.grove.controller.podclique.components.pod.deletionsort import less

    def pod(phase="Running", node="n1", ready=True, h="new", ts="2026-01-01T00:00:00Z", term=False):
        md = {"name": "p", "namespace": "default", "labels": {"grove.io/pod-template-hash": h},
              "creationTimestamp": ts}
        if term:
            md["deletionTimestamp"] = "2026-01-02T00:00:00Z"
        return Obj({"kind": "Pod", "metadata": md, "spec": {"nodeName": node},
                    "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}})

    assert less(pod(term=True), pod(), "new") and not less(pod(), pod(term=True), "new")
    assert less(pod(node=""), pod(), "new") and not less(pod(), pod(node=""), "new")
    assert less(pod(phase="Pending"), pod(), "new")
    failed, pending = pod(phase="Failed"), pod(phase="Pending", ready=False, ts="2026-02-01T00:00:00Z")
    assert not less(failed, pending, "new") and not less(pending, failed, "new")  # a tie
    assert less(pod(ready=False), pod(), "new")
    assert less(pod(h="old"), pod(), "new") and not less(pod(), pod(h="old"), "new")
    assert less(pod(h="a"), pod(h="b"), "new") and less(pod(h="b"), pod(h="a"), "new")  # inconsistent
    assert less(pod(ts="2026-03-01T00:00:00Z"), pod(), "new") and not less(pod(), pod(ts="2026-03-01T00:00:00Z"), "new")
    assert less(pod(ts=""), pod(), "new")
