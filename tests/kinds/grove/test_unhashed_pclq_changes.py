"""Changes the PodClique template hash leaves out, and the #786 warning's condition.

A clique's own ``podSpec.priorityClassName`` does not reach the hash
(``ComputePCLQPodTemplateHash`` takes the PodCliqueSet's), so no pod rolls; but
``buildResource`` copies the whole template spec into the PodClique and
``CreateOrPatch`` writes it: standalone PodCliques always, scaling-group members only
under OnDelete (``createOrUpdatePCLQs``; auto strategies only create missing members).
Upstream: ai-dynamo/grove @ fcc3b3bb, ``podcliqueset/components/podclique/podclique.go``,
``podcliquescalinggroup/components/podclique/sync.go``."""

from __future__ import annotations

import copy

from tests.kinds.grove import sample_edits as E


_sample, _clique, _write = E.sample, E.clique, E.write


def _plan(cli, new: dict, old: dict, tmp_path) -> dict:
    return E.plan(cli, new, old, tmp_path)


def _updates(plan: dict) -> list[tuple[str, list[str]]]:
    return [(a["name"], a["fields"].get("changed")) for s in plan["steps"] for a in s["actions"]
            if a["verb"] == "update" and a["kind"] == "PodClique"]


def test_a_standalone_cliques_priority_class_patches_its_podclique_and_replaces_no_pod(cli, tmp_path):
    old = _sample()
    new = copy.deepcopy(old)
    _clique(new, "frontend")["spec"]["podSpec"]["priorityClassName"] = "high-priority"
    p = _plan(cli, new, old, tmp_path)
    assert p["outcome"] == "converged"
    assert _updates(p) == [("llm-0-frontend", ["podSpec.priorityClassName"])]
    assert not [a for s in p["steps"] for a in s["actions"] if a["kind"] == "Pod" and a["verb"] == "delete"]
    d = cli("diff", _write(tmp_path, "n.yaml", new), "--live", _write(tmp_path, "o.yaml", old), "-o", "json").json()
    assert [i["effect"] for i in d["objects"][0]["impact"]] == ["in-place"]


def test_a_members_priority_class_is_patched_only_under_ondelete(cli, tmp_path):
    old = _sample()
    new = copy.deepcopy(old)
    _clique(new, "pworker")["spec"]["podSpec"]["priorityClassName"] = "high-priority"
    rolling = _plan(cli, new, old, tmp_path)
    assert rolling["outcome"] == "noop" and _updates(rolling) == []
    d = cli("diff", _write(tmp_path, "n.yaml", new), "--live", _write(tmp_path, "o.yaml", old), "-o", "json").json()
    assert [i["effect"] for i in d["objects"][0]["impact"]] == ["ignored"]

    for x in (old, new):
        x["spec"]["updateStrategy"] = {"type": "OnDelete"}
    ondelete = _plan(cli, new, old, tmp_path)
    assert sorted(n for n, _ in _updates(ondelete)) == ["llm-0-prefill-0-pworker", "llm-0-prefill-1-pworker"]
    assert {tuple(c) for _, c in _updates(ondelete)} == {("podSpec.priorityClassName",)}


def test_pcs_labels_diff_as_mirrored_onto_podgangs_at_the_next_reconcile(cli, tmp_path):
    """Labels alone leave the generation as it is, and podCliqueSetPredicate
    (podcliqueset/register.go) drops the update: the plan does nothing for it
    (tests/kinds/grove/test_podgang_metadata.py)."""
    old = _sample()
    new = copy.deepcopy(old)
    new["metadata"].setdefault("labels", {})["team"] = "infra"
    d = cli("diff", _write(tmp_path, "n.yaml", new), "--live", _write(tmp_path, "o.yaml", old), "-o", "json").json()
    impact = d["objects"][0]["impact"]
    assert [i["effect"] for i in impact] == ["in-place"] and "PodGang at the PodCliqueSet's next reconcile" in impact[0]["message"]
    p = _plan(cli, new, old, tmp_path)
    assert p["outcome"] == "noop" and "MetadataNotMirrored" in [w["code"] for w in p["warnings"]]


def test_update_ends_before_ready_is_not_warned_for_a_settled_cluster(cli, tmp_path):
    """processPendingUpdates waits for a selected Ready pod's replacement
    (isCurrentPodUpdateComplete); old pods deleted by deleteOldNonReadyPods, or Ready pods
    already on the desired template that it counts, let the update end early (upstream
    issue #786). A settled cluster has only Ready pods, all on the old template."""
    old = _sample()
    new = copy.deepcopy(old)
    _clique(new, "frontend")["spec"]["podSpec"]["containers"][0]["image"] = "frontend:2"
    p = _plan(cli, new, old, tmp_path)
    assert "UpdateEndsBeforeReady" not in [w["code"] for w in p["warnings"]]
    # (with a pod that is not Ready, or pods already on the target: tests/kinds/grove/test_update_observed.py)


def test_a_members_template_replicas_repatch_the_group_size_env_only_under_ondelete(cli, tmp_path):
    """``buildResource`` of a member PodClique prepends ``GROVE_PCSG_TEMPLATE_NUM_PODS``,
    the template replicas of the group's cliques summed (``getPCSGTemplateNumPods``):
    under OnDelete ``createOrUpdatePCLQs`` rewrites it on every member of the group,
    replicas kept; auto strategies leave existing members alone."""
    old = _sample()
    new = copy.deepcopy(old)
    w = _clique(new, "pworker")["spec"]
    w["minAvailable"] = w.get("minAvailable", w["replicas"])
    _clique(old, "pworker")["spec"]["minAvailable"] = w["minAvailable"]
    w["replicas"] += 1
    rolling = _plan(cli, new, old, tmp_path)
    assert _updates(rolling) == []
    for x in (old, new):
        x["spec"]["updateStrategy"] = {"type": "OnDelete"}
    ondelete = _plan(cli, new, old, tmp_path)
    assert sorted(_updates(ondelete)) == [(f"llm-0-prefill-{j}-{c}", ["env GROVE_PCSG_TEMPLATE_NUM_PODS"])
                                          for j in (0, 1) for c in ("pleader", "pworker")]
    assert "TemplateReplicasIgnored" in [x["code"] for x in ondelete["warnings"]]
    d = cli("diff", _write(tmp_path, "n.yaml", new), "--live", _write(tmp_path, "o.yaml", old), "-o", "json").json()
    assert "in-place" in [i["effect"] for i in d["objects"][0]["impact"]]
