"""OnDelete, then an automatic update: scaling-group members keep the ended update
progress OnDelete gave them, and the PodCliqueSet update never completes.

Under OnDelete every PodClique gets an ended ``updateProgress`` for the generation hash
of its time (``podclique/reconcilespec.go`` ``processUpdate``, ``initOrResetUpdate``). An
automatic update resets only standalone PodCliques' progress
(``shouldCheckPendingUpdatesForPCLQ``); a member whose template did not change keeps the
old ``currentPodCliqueSetGenerationHash`` (``reconcilestatus.go`` ``mutateCurrentHashes``),
so its scaling group never reports the new one (``podcliquescalinggroup/reconcilestatus.go``
``havePCSGPodCliquesConverged``). Upstream: ai-dynamo/grove @ fcc3b3bb."""

from __future__ import annotations

import copy

from tests.kinds.grove import sample_edits as E


_sample, _clique = E.sample, E.clique


def _plan(cli, tmp_path, new: dict, old: dict) -> dict:
    return E.plan(cli, new, old, tmp_path, codes=(0, 1))


def _switch_and_change(old: dict, *cliques: str) -> dict:
    new = copy.deepcopy(old)
    new["spec"]["updateStrategy"] = {"type": "RollingRecreate"}
    for name in cliques:
        _clique(new, name)["spec"]["podSpec"]["containers"][0]["image"] += "-patched"
    return new


def test_switching_from_ondelete_leaves_the_update_of_a_replica_with_scaling_groups_unfinished(cli, tmp_path):
    old = _sample()
    old["spec"]["updateStrategy"] = {"type": "OnDelete"}
    p = _plan(cli, tmp_path, _switch_and_change(old, "frontend"), old)
    assert p["outcome"] == "stuck"
    stuck = p["stuck"]
    assert stuck["reason"] == "StaleMemberUpdateProgress"
    assert "replica 0 never completes" in stuck["message"] and "llm-0-prefill" in stuck["message"]
    blocked = {(o["kind"], o["name"]) for o in stuck["blockedOn"]}
    assert ("PodCliqueScalingGroup", "llm-0-prefill") in blocked and ("PodClique", "llm-0-prefill-0-pleader") in blocked
    assert any("--subresource=status" in r for r in stuck["remedies"])
    # the frontend pods themselves were replaced
    assert sum(1 for s in p["steps"] for a in s["actions"] if a["kind"] == "Pod" and a["verb"] == "delete") == 2


def test_the_same_change_converges_when_the_cluster_never_ran_ondelete(cli, tmp_path):
    old = _sample()
    p = _plan(cli, tmp_path, _switch_and_change(old, "frontend"), old)
    assert p["outcome"] == "converged", p["stuck"]


def test_a_change_that_recreates_every_member_converges(cli, tmp_path):
    old = _sample()
    old["spec"]["updateStrategy"] = {"type": "OnDelete"}
    p = _plan(cli, tmp_path, _switch_and_change(old, "frontend", "pleader", "pworker", "dleader", "dworker"), old)
    assert p["outcome"] == "converged", p["stuck"]
