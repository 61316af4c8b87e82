"""What each change causes: the diff use case with the Grove and KubeRay models.

The RayService cases are the issue's acceptance cases; the effects come from
``RayServiceModel.classify`` (``kinds/kuberay/classify.py``), the Grove ones from
``kinds/grove/classify.py``, which decides with the Grove model's own functions
(``pod_template_inputs``, ``group_of_clique``, ``validation.validate``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolloutctl.commands import diff as diffing
from rolloutctl.core.model import Diff, ObjectDiff

import diff_cases as C


def run_diff(tmp_path: Path, desired: str, live: str, **opts) -> Diff:
    d = tmp_path / "desired.yaml"
    lv = tmp_path / "live.yaml"
    d.write_text(desired)
    lv.write_text(live)
    return diffing.diff([str(d)], diffing.DiffOptions(live=(str(lv),), **opts))


def one(diff: Diff) -> ObjectDiff:
    [o] = diff.objects
    return o


def effects(o: ObjectDiff) -> dict[str, set[str]]:
    """path -> effects of the impacts that name it"""
    out: dict[str, set[str]] = {}
    for i in o.impact:
        for p in i.paths:
            out.setdefault(p, set()).add(i.effect)
    return out


# --------------------------------------------------------------------------- RayService


def test_rayservice_from_kubectl_get_diffs_clean(tmp_path):
    # given a live copy with status, managedFields, resourceVersion, uid, generation,
    # creationTimestamp, a finalizer, the last-applied annotation and CRD defaults
    live = C.live_copy(C.RS)
    for field in ("managedFields", "resourceVersion", "uid", "generation", "creationTimestamp",
                  "last-applied-configuration", "status:", "numOfHosts", "protocol: TCP", "finalizers"):
        assert field in live
    # when it is diffed against the manifest, then nothing differs
    o = one(run_diff(tmp_path, C.RS, live))
    assert (o.status, o.changes, o.impact) == ("unchanged", (), ())


def test_rayservice_head_image_change_is_a_rollout(tmp_path):
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                     ["containers"][0].update(image="rayproject/ray:2.53.0"))
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    path = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image"
    [c] = o.changes
    assert (c.path, c.old, c.new) == (path, "rayproject/ray:2.52.0", "rayproject/ray:2.53.0")
    assert c.line == C.line_of(desired, "image: rayproject/ray:2.53.0")
    assert effects(o) == {path: {"rollout"}}
    [impact] = o.impact
    assert "new" in impact.message and "RayCluster" in impact.message


def test_rayservice_worker_replicas_edit_is_ignored_with_the_reason(tmp_path):
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["workerGroupSpecs"][1].update(replicas=2))
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    path = "spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].replicas"
    assert [c.path for c in o.changes] == [path]
    assert effects(o) == {path: {"ignored"}}
    assert "replicas" in o.impact[0].message


def test_a_whole_added_scale_strategy_is_ignored_as_workers_to_delete_are(tmp_path):
    """``scaleStrategy`` (only ``workersToDelete``) added whole is one change at ``…scaleStrategy``:
    it gets the same reason as the per-field change (GenerateHashWithoutReplicasAndWorkersToDelete)."""
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["workerGroupSpecs"][1].update(
        scaleStrategy={"workersToDelete": ["p1"]}))
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    path = "spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].scaleStrategy"
    assert effects(o) == {path: {"ignored"}}
    assert "workersToDelete" in o.impact[0].message


def test_the_initializing_timeout_added_in_a_new_annotations_map_has_no_effect_as_when_added_alone(tmp_path):
    """Live without annotations: the change is the whole ``metadata.annotations`` map; holding only
    ``ray.io/initializing-timeout``, it is classified as that key is when added next to others."""
    desired = C.edit(C.RS, lambda r: r["metadata"].update(annotations={"ray.io/initializing-timeout": "10m"}))
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    assert {e for es in effects(o).values() for e in es} == {"none"}, o.impact
    assert "initializing timeout" in o.impact[0].message
    both = C.edit(C.RS, lambda r: r["metadata"].update(annotations={"ray.io/initializing-timeout": "10m", "team": "a"}))
    o = one(run_diff(tmp_path, both, C.live_copy(C.RS)))
    assert {e for es in effects(o).values() for e in es} == {"ignored"}, o.impact


def test_rayservice_cluster_suspend_edit_is_ignored_with_the_reason(tmp_path):
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"].update(suspend=True))
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    assert effects(o) == {"spec.rayClusterConfig.suspend": {"ignored"}}
    assert "suspend" in o.impact[0].message


def test_rayservice_top_level_suspend_is_a_teardown(tmp_path):
    desired = C.edit(C.RS, lambda r: r["spec"].update(suspend=True))
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    assert effects(o) == {"spec.suspend": {"teardown"}}


def test_rayservice_worker_group_reorder_is_reported_because_kuberay_hashes_the_order(tmp_path):
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["workerGroupSpecs"].reverse())
    o = one(run_diff(tmp_path, desired, C.live_copy(C.RS)))
    [c] = o.changes
    assert (c.path, c.old, c.new) == ("spec.rayClusterConfig.workerGroupSpecs", ["cpu", "gpu"], ["gpu", "cpu"])


def test_rayservice_live_only_serve_label_is_not_a_change(tmp_path):
    live = C.live_copy(C.RS, mutate=lambda r: r["metadata"].setdefault("labels", {}).update({"ray.io/serve": "x"}))
    assert one(run_diff(tmp_path, C.RS, live)).status == "unchanged"


# --------------------------------------------------------------------------- Grove


def clique(raw: dict, name: str) -> dict:
    return next(c for c in raw["spec"]["template"]["cliques"] if c["name"] == name)


def grove(tmp_path: Path, f, live_text: str | None = None) -> ObjectDiff:
    desired = C.edit(C.PCS, f)
    return one(run_diff(tmp_path, desired, live_text or C.live_copy(C.PCS)))


def test_grove_from_kubectl_get_diffs_clean(tmp_path):
    o = one(run_diff(tmp_path, C.PCS, C.live_copy(C.PCS, as_list=True)))
    assert (o.status, o.changes) == ("unchanged", ())


def test_grove_standalone_clique_image_edit_is_a_rollout(tmp_path):
    o = grove(tmp_path, lambda r: clique(r, "frontend")["spec"]["podSpec"]["containers"][0].update(image="example.com/frontend:2.0"))
    path = "spec.template.cliques[name=frontend].spec.podSpec.containers[name=web].image"
    assert effects(o) == {path: {"rollout"}}
    assert "frontend" in o.impact[0].message


def test_grove_scaling_group_member_image_edit_recreates_the_group_replicas(tmp_path):
    o = grove(tmp_path, lambda r: clique(r, "pworker")["spec"]["podSpec"]["containers"][0].update(image="example.com/engine:2.0"))
    path = "spec.template.cliques[name=pworker].spec.podSpec.containers[name=engine].image"
    assert effects(o) == {path: {"recreate"}}
    assert "prefill" in o.impact[0].message


def test_grove_min_available_edit_is_rejected_naming_the_immutable_field_rule(tmp_path):
    o = grove(tmp_path, lambda r: clique(r, "frontend")["spec"].update(minAvailable=1))
    path = "spec.template.cliques[name=frontend].spec.minAvailable"
    assert effects(o) == {path: {"rejected"}}
    [impact] = o.impact
    assert "GV102" in impact.message and "immutable" in impact.message


def test_grove_rejected_update_lists_only_the_rejection(tmp_path):
    def f(r):
        clique(r, "frontend")["spec"].update(minAvailable=1)
        clique(r, "frontend")["spec"]["podSpec"]["containers"][0].update(image="example.com/frontend:2.0")
    o = grove(tmp_path, f)
    assert {i.effect for i in o.impact} == {"rejected"}
    assert len(o.changes) == 2


def test_grove_pcs_replicas_edit_is_a_scale(tmp_path):
    o = grove(tmp_path, lambda r: r["spec"].update(replicas=3))
    assert effects(o) == {"spec.replicas": {"scale"}}
    assert "1 → 3" in o.impact[0].message


def test_grove_clique_template_replicas_edit_does_not_touch_existing_podcliques(tmp_path):
    o = grove(tmp_path, lambda r: clique(r, "frontend")["spec"].update(replicas=5, minAvailable=2))
    assert effects(o) == {"spec.template.cliques[name=frontend].spec.replicas": {"ignored"}}


def test_grove_priority_class_change_rolls_every_clique(tmp_path):
    o = grove(tmp_path, lambda r: r["spec"]["template"].update(priorityClassName="high"))
    by_effect = sorted((i.effect, i.message.split(":")[0]) for i in o.impact)
    assert by_effect == [("recreate", "clique decode"), ("recreate", "clique pleader"),
                         ("recreate", "clique pworker"), ("rollout", "clique frontend")]
    assert all(i.paths == ("spec.template.priorityClassName",) for i in o.impact)


def test_grove_env_reorder_in_pod_spec_rolls_because_the_template_hash_keeps_order(tmp_path):
    o = grove(tmp_path, lambda r: clique(r, "frontend")["spec"]["podSpec"]["containers"][0]["env"].reverse())
    path = "spec.template.cliques[name=frontend].spec.podSpec.containers[name=web].env"
    [c] = o.changes
    assert (c.path, c.old, c.new) == (path, ["MODE", "LOG"], ["LOG", "MODE"])
    assert effects(o) == {path: {"rollout"}}


def test_grove_scaling_group_reorder_is_not_a_change(tmp_path):
    o = grove(tmp_path, lambda r: r["spec"]["template"]["podCliqueScalingGroups"].reverse())
    assert (o.status, o.changes) == ("unchanged", ())


def test_grove_clique_reorder_under_any_order_replaces_no_pod(tmp_path):
    o = grove(tmp_path, lambda r: r["spec"]["template"]["cliques"].reverse())
    assert effects(o) == {"spec.template.cliques": {"none"}}


def test_grove_explicit_default_left_out_is_not_a_change(tmp_path):
    # applied with minAvailable written out (= replicas, the webhook default), then removed
    applied = C.edit(C.PCS, lambda r: clique(r, "frontend")["spec"].update(minAvailable=2))
    o = one(run_diff(tmp_path, C.PCS, C.live_copy(C.PCS, applied=applied)))
    assert (o.status, o.changes) == ("unchanged", ())


def test_grove_replica_recreate_strategy_recreates(tmp_path):
    def f(r):
        r["spec"]["updateStrategy"] = {"type": "ReplicaRecreate"}
        clique(r, "frontend")["spec"]["podSpec"]["containers"][0].update(image="example.com/frontend:2.0")
    live = C.live_copy(C.edit(C.PCS, lambda r: r["spec"].update(updateStrategy={"type": "ReplicaRecreate"})))
    o = grove(tmp_path, f, live)
    assert {i.effect for i in o.impact} == {"recreate"}


def test_grove_on_delete_strategy_updates_in_place(tmp_path):
    def f(r):
        r["spec"]["updateStrategy"] = {"type": "OnDelete"}
        clique(r, "frontend")["spec"]["podSpec"]["containers"][0].update(image="example.com/frontend:2.0")
    live = C.live_copy(C.edit(C.PCS, lambda r: r["spec"].update(updateStrategy={"type": "OnDelete"})))
    o = grove(tmp_path, f, live)
    assert {i.effect for i in o.impact} == {"in-place"}
    assert "delete" in o.impact[0].message


def test_grove_template_edit_with_no_replica_running_replaces_no_pod(tmp_path):
    """A PodCliqueSet at replicas 0 has no PodClique and no pod: a template change replaces
    nothing (plan: nothing to do), and replicas made later are built from the new template."""
    def f(r):
        r["spec"]["replicas"] = 0
        clique(r, "frontend")["spec"]["podSpec"]["containers"][0].update(image="example.com/frontend:2.0")
    live = C.live_copy(C.edit(C.PCS, lambda r: r["spec"].update(replicas=0)))
    o = grove(tmp_path, f, live)
    path = "spec.template.cliques[name=frontend].spec.podSpec.containers[name=web].image"
    assert effects(o) == {path: {"none"}}
    assert "0 replicas: no pod runs" in o.impact[0].message


def test_a_field_the_manifest_sets_to_null_is_removed_even_without_a_last_applied_annotation(tmp_path):
    """Client-side ``kubectl apply`` sends an explicit null (``CreateThreeWayJSONMergePatch``
    keeps the deletions of original -> modified, and the original is empty without a
    last-applied annotation), so the API server removes the field: the diff reports the
    removal and its effect, as ``plan`` of the same pair does. Left out instead, the field
    stays (a controller may have set it)."""
    live = C.live_copy(C.RS, mutate=lambda r: r["metadata"]["annotations"].pop(
        "kubectl.kubernetes.io/last-applied-configuration"))
    nulled = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"].update(workerGroupSpecs=None))
    o = one(run_diff(tmp_path, nulled, live))
    [c] = o.changes
    assert (c.path, c.op, c.new) == ("spec.rayClusterConfig.workerGroupSpecs", "remove", None)
    assert effects(o) == {"spec.rayClusterConfig.workerGroupSpecs": {"rollout"}}
    left_out = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"].pop("workerGroupSpecs"))
    assert one(run_diff(tmp_path, left_out, live)).status == "unchanged"


def test_a_live_cluster_made_by_an_older_kuberay_is_updated_in_place_as_plan_says(tmp_path):
    """shouldUpdateCluster (rayservice_controller.go): the active RayCluster made by another
    KubeRay version gets the whole rayClusterConfig in place and no new cluster is
    prepared. With that cluster in --live, diff names the same effect as plan; without it,
    the cluster is taken as the modelled version's (a rollout)."""
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                     ["containers"][0].update(image="rayproject/ray:2.53.0"))
    rc = C.dump({"apiVersion": "ray.io/v1", "kind": "RayCluster",
                 "metadata": {"name": "my-svc-x7k2p", "namespace": "default",
                              "annotations": {"ray.io/kuberay-version": "v1.5.2"}},
                 "spec": C.load(C.RS)["spec"]["rayClusterConfig"]})
    path = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image"
    with_rc = one(run_diff(tmp_path, desired, C.live_copy(C.RS) + "---\n" + rc))
    assert effects(with_rc) == {path: {"in-place"}}
    assert "made by KubeRay v1.5.2" in with_rc.impact[0].message
    assert effects(one(run_diff(tmp_path, desired, C.live_copy(C.RS)))) == {path: {"rollout"}}


def test_a_field_the_manifest_leaves_out_keeps_its_live_value_as_kubectl_apply_does(tmp_path):
    """Client-side apply patches the live object (CreateThreeWayJSONMergePatch, kubectl
    buildMergePatch for a custom resource): spec.replicas that an HPA or kubectl scale set
    and the manifest leaves out stays (the API server then defaults only what is absent),
    so diff and plan see nothing to do. Had the last applied configuration set it, leaving
    it out removes it and the default (0) applies: a scale-in."""
    import yaml

    written = C.edit(C.PCS, lambda r: r["spec"].pop("replicas", None))
    scaled = C.live_copy(written, mutate=lambda r: r["spec"].__setitem__("replicas", 3))
    o = one(run_diff(tmp_path, written, scaled))
    assert (o.status, o.changes) == ("unchanged", ())
    had = C.edit(C.PCS, lambda r: r["spec"].__setitem__("replicas", 3))
    removed = one(run_diff(tmp_path, written, C.live_copy(had)))
    assert [(c.path, c.old, c.new) for c in removed.changes] == [("spec.replicas", 3, 0)]

    from rolloutctl.commands import plan as planning
    from rolloutctl.app import PlanOptions
    d, lv = tmp_path / "d.yaml", tmp_path / "l.yaml"
    d.write_text(written)
    lv.write_text(scaled)
    (p,) = planning.plan([str(d)], PlanOptions(observed=(str(lv),)))
    assert p.outcome == "noop" and not [a for s in p.steps for a in s.actions if a.verb == "delete"]
    assert yaml.safe_load(scaled)["spec"]["replicas"] == 3


def test_rayservice_labels_ride_the_cluster_change_of_the_same_apply(tmp_path):
    """RayService labels reach a RayCluster only when one is created or updated in place
    (constructRayClusterForRayService, modifyRayCluster): alone they are ignored; with an
    image change they are carried by the new cluster; with a worker group appended they
    are copied onto the active cluster."""
    def labelled(r):
        r["metadata"].setdefault("labels", {})["team"] = "ads"

    def label_effects(o):
        got = {p: e for p, e in effects(o).items() if p.startswith("metadata.labels")}
        assert got, effects(o)
        return set().union(*got.values())

    alone = one(run_diff(tmp_path, C.edit(C.RS, labelled), C.live_copy(C.RS)))
    assert label_effects(alone) == {"ignored"}

    def image(r):
        labelled(r)
        r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = "rayproject/ray:2.53.0"

    assert label_effects(one(run_diff(tmp_path, C.edit(C.RS, image), C.live_copy(C.RS)))) == {"rollout"}

    def appended(r):
        labelled(r)
        extra = dict(r["spec"]["rayClusterConfig"]["workerGroupSpecs"][-1], groupName="extra")
        r["spec"]["rayClusterConfig"]["workerGroupSpecs"].append(extra)

    assert label_effects(one(run_diff(tmp_path, C.edit(C.RS, appended), C.live_copy(C.RS)))) == {"in-place"}


def test_a_strategy_removed_from_the_previous_manifest_shows_in_diff_as_plan_applies_it(tmp_path):
    """The previous manifest as --live (no status, no server metadata) is its own last-applied
    configuration: leaving out ``upgradeStrategy: {type: None}`` removes it, as plan's
    --observed reads the same file, so the change that makes the image edit roll is listed."""
    old = C.edit(C.RS, lambda r: r["spec"].update(upgradeStrategy={"type": "None"}))
    new = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
                 .update(image="rayproject/ray:2.53.0"))
    o = one(run_diff(tmp_path, new, old))
    assert ("spec.upgradeStrategy", "remove") in [(c.path, c.op) for c in o.changes], o.changes


def test_grove_strategy_changed_with_the_template_says_the_edits_roll_under_it(tmp_path):
    """OnDelete → RollingRecreate in the same apply as an image edit: the strategy line does not
    say 'nothing rolls now' next to a rollout; it names the strategy the edit rolls under."""
    def f(r):
        clique(r, "frontend")["spec"]["podSpec"]["containers"][0].update(image="example.com/frontend:2.0")
    live = C.live_copy(C.edit(C.PCS, lambda r: r["spec"].update(updateStrategy={"type": "OnDelete"})))
    o = grove(tmp_path, f, live)
    msgs = {i.effect: i.message for i in o.impact}
    assert "rollout" in msgs and "nothing rolls now" not in " ".join(msgs.values()), msgs
    assert any("(RollingRecreate) is the one this change's pod-template edits roll out under" in m for m in msgs.values())
    alone = grove(tmp_path, lambda r: None, live)
    assert [i.message for i in alone.impact] == [
        "the update strategy applies to the next pod-template change; nothing rolls now"]


def test_rayservice_upgrade_strategy_changed_with_the_cluster_names_the_strategy_it_rolls_under(tmp_path):
    old = C.edit(C.RS, lambda r: r["spec"].update(upgradeStrategy={"type": "None"}))
    new = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
                 .update(image="rayproject/ray:2.53.0"))
    o = one(run_diff(tmp_path, new, old))
    by_path = {p: i for i in o.impact for p in i.paths}
    assert by_path["spec.upgradeStrategy"].message.startswith("the upgrade strategy (NewCluster) is the one")
    assert "rollout" in {i.effect for i in o.impact}
