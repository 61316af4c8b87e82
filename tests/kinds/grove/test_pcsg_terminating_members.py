"""Scaling-group member PodCliques that are terminating, as upstream's
PodCliqueScalingGroup controller sees them (it lists them with the others):

- the rolling update, before it has selected a replica, does not skip an old replica
  whose members are terminating but Ready (``rollingupdate.go``
  ``isReplicaDeletedOrMarkedForDeletion`` answers false until a replica is selected),
  so it selects that replica and waits for it instead of taking down the next one;
- gang termination counts a terminating member's breach (``sync.go``
  ``getMinAvailableBreachedPCSGIndices`` over every existing PodClique);
- the current PodCliqueSet generation hash ignores members outside the spec
  (``reconcilestatus.go`` ``pruneStrayPCSGPCLQs`` before
  ``mutateCurrentPodCliqueSetGenerationHash``)."""

from __future__ import annotations

import copy

import yaml

from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import Environment
from rolloutctl.kinds.grove import gang_terminate as GT
from rolloutctl.kinds.grove import status as ST
from rolloutctl.kinds.grove import update_common as U
from rolloutctl.kinds.grove.model import GroveModel
from rolloutctl.kinds.grove.spec import PCS
from tests.conftest import SAMPLES, write
from tests.kinds.grove.operator_world import settled_world

SAMPLE = SAMPLES / "disaggregated-inference.yaml"
DELETED = "2026-01-01T00:00:00Z"


def _sample() -> dict:
    return next(d for d in yaml.safe_load_all(SAMPLE.read_text()) if d and d.get("kind") == "PodCliqueSet")


def test_update_selects_a_terminating_ready_replica_and_waits_for_it(cli, tmp_path):
    """Replica 0 of the prefill scaling group was just deleted by hand (its PodCliques
    terminating, pods still Ready) when a pworker change starts the update: replica 0 is
    the one selected, and replica 1 stays up until replica 0 is back, so only one
    replica is down at a time."""
    old = _sample()
    live = settled_world(old)
    for o in live:
        if o["kind"] == "PodClique" and o["metadata"]["name"].startswith("llm-0-prefill-0-"):
            o["metadata"]["deletionTimestamp"] = DELETED
    new = copy.deepcopy(old)
    for c in new["spec"]["template"]["cliques"]:
        if c["name"] == "pworker":
            c["spec"]["podSpec"]["containers"][0]["image"] += "-v2"
    doc = cli("plan", write(tmp_path, "new.yaml", yaml.safe_dump(new)), "--observed",
              write(tmp_path, "live.yaml", yaml.safe_dump_all(live)), "-o", "json").json()
    assert doc["outcome"] == "converged"

    def first(verb: str, prefix: str) -> int:
        return next(i for i, s in enumerate(doc["steps"]) for a in s["actions"]
                    if a["verb"] == verb and a["kind"] == "PodClique" and a["name"].startswith(prefix))

    assert first("create", "llm-0-prefill-0-") < first("delete", "llm-0-prefill-1-")


def _sg_world(breached: dict[int, bool], terminating: set[int]) -> tuple[PCS, Obj, list[Obj], object]:
    """A settled scaling group ``sg`` (3 replicas, minAvailable 2, one member ``b``) whose
    members at ``breached`` indices have MinAvailableBreached=True with the delay passed."""
    manifest = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "demo"},
                "spec": {"replicas": 1, "template": {
                    "cliques": [{"name": "b", "spec": {"roleName": "b", "replicas": 2, "podSpec": {
                        "containers": [{"name": "b", "image": "img/b:1"}]}}}],
                    "podCliqueScalingGroups": [{"name": "sg", "cliqueNames": ["b"], "replicas": 3,
                                                "minAvailable": 2}]}}}
    raw = settled_world(manifest)
    for o in raw:
        name = o["metadata"]["name"]
        if o["kind"] != "PodClique" or not name.startswith("demo-0-sg-"):
            continue
        j = int(name.split("-")[3])
        if breached.get(j):
            o["status"]["conditions"] = [
                {**c, "status": "True", "reason": "InsufficientReadyPods"} if c["type"] == "MinAvailableBreached"
                else c for c in o["status"]["conditions"]]
        if j in terminating:
            o["metadata"]["deletionTimestamp"] = DELETED
    desired = Obj(manifest)
    world = GroveModel().observe(desired, [Obj(o) for o in raw], Environment())
    members = list(world.index("PodClique", "grove.io/podcliquescalinggroup").get("demo-0-sg", ()))
    world = world.with_memory(**{GT.MEM_EXPIRED: frozenset(("PodClique", m.name) for m in members
                                                          if breached.get(U.pcsg_replica_of(m)))})
    pcsg = world.get("PodCliqueScalingGroup", "default", "demo-0-sg")
    return PCS(desired), pcsg, members, world


def test_gang_termination_of_a_scaling_group_replica_counts_a_terminating_breached_member():
    # one breached replica out of 3 (minAvailable 2): the scaling group recreates it itself
    pcs, pcsg, members, world = _sg_world({2: True}, set())
    acts = GT.process_min_available_breached_pcsg_replicas(pcs, pcsg, members, world)
    assert [a.name for a in acts] == ["demo-0-sg-2-b"]
    # replica 1 is breached too and still terminating: 3 - 2 < 2, left to the PodCliqueSet
    pcs, pcsg, members, world = _sg_world({1: True, 2: True}, {1})
    assert GT.process_min_available_breached_pcsg_replicas(pcs, pcsg, members, world) == []
    # a terminating member is not deleted again
    pcs, pcsg, members, world = _sg_world({2: True}, {2})
    assert GT.process_min_available_breached_pcsg_replicas(pcs, pcsg, members, world) == []


def test_generation_hash_advances_past_a_scaled_in_replica_still_terminating():
    """Mirrors ``TestPruneStrayPCSGPCLQs`` / ``TestReconcileStatusBoundedDuringScaleDown``:
    the group was scaled 3 -> 2 and replica 2's PodCliques, on the old template, are still
    terminating; replicas 0 and 1 have converged, so the scaling group reports the
    current PodCliqueSet generation hash."""
    manifest = _sample()
    pcs = PCS(Obj(manifest))
    raw = settled_world(manifest)
    gen = "gen-now"
    objs = []
    for o in raw:
        o = copy.deepcopy(o)
        if o["kind"] == "PodClique" and o["metadata"]["name"].startswith("llm-0-prefill-"):
            cname = o["metadata"]["name"].rsplit("-", 1)[1]
            h = pcs.clique_by_name[cname].template_hash
            o["metadata"]["labels"]["grove.io/pod-template-hash"] = h
            o["status"]["currentPodTemplateHash"] = h
            o["status"]["currentPodCliqueSetGenerationHash"] = gen
        objs.append(o)
    pcsg = next(Obj(o) for o in objs if o["kind"] == "PodCliqueScalingGroup" and o["metadata"]["name"] == "llm-0-prefill")
    members = [Obj(o) for o in objs if o["kind"] == "PodClique"
               and o["metadata"]["labels"].get("grove.io/podcliquescalinggroup") == "llm-0-prefill"]
    assert ST.pcsg_status(pcs, pcsg, members, gen).get("currentPodCliqueSetGenerationHash") == gen
    # a stray replica 2 on the old template, terminating after the scale-in
    stray = []
    for m in members:
        r = copy.deepcopy(m.raw)
        r["metadata"]["name"] = r["metadata"]["name"].replace("prefill-1-", "prefill-2-")
        r["metadata"]["labels"]["grove.io/podcliquescalinggroup-replica-index"] = "2"
        r["metadata"]["labels"]["grove.io/pod-template-hash"] = "old"
        r["metadata"]["deletionTimestamp"] = DELETED
        if "prefill-2-" in r["metadata"]["name"]:
            stray.append(Obj(r))
    assert len(stray) == 2
    assert ST.pcsg_status(pcs, pcsg, members + stray, gen).get("currentPodCliqueSetGenerationHash") == gen
