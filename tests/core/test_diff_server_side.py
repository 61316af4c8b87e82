"""``diff --server-side``: what a server-side apply of the manifest does to a live object
whose ``metadata.managedFields`` several managers wrote, as structured-merge-diff
decides it (``core/managed_fields.py``).

The live objects are as the API server returns them with ``--show-managed-fields``
after a life of ordinary use: applied by ``kubectl`` (server-side, ``Apply``) or first by
``kubectl apply`` client-side (``kubectl-client-side-apply``, ``Update``, owning the
last-applied annotation), KubeRay's operator adding its finalizer (``Update``), Kueue's
job reconciler writing the admission's scheduling information into the RayService's
worker groups (``Update``, ``RunWithPodSetsInfo``), and people running ``kubectl edit`` or
``kubectl annotate``. ``workerGroupSpecs`` and ``podCliqueScalingGroups`` carry no
``x-kubernetes-list-type`` in their CRDs, so they are atomic; ``cliques``, containers and
env are ``map`` lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rolloutctl.admit.listtype import list_type
from rolloutctl.admit.schema import load_schema
from rolloutctl.commands import diff as diffing
from rolloutctl.core.managed_fields import visit_list_items, ownership
from rolloutctl.core.model import Diff, ObjectDiff
from tests.conftest import UPSTREAM

import diff_cases as C

HEAD = {"f:rayStartParams": {}, "f:template": {"f:spec": {"f:containers": {'k:{"name":"ray-head"}': {
    ".": {}, "f:name": {}, "f:image": {},
    "f:ports": {'k:{"containerPort":8265,"protocol":"TCP"}': {".": {}, "f:containerPort": {}, "f:name": {}},
                'k:{"containerPort":8000,"protocol":"TCP"}': {".": {}, "f:containerPort": {}, "f:name": {}}},
    "f:env": {'k:{"name":"RAY_LOG_LEVEL"}': {".": {}, "f:name": {}, "f:value": {}}}}}}}}
#: what ``kubectl apply --server-side`` of ``C.RS`` owns, but the worker groups
RS_SPEC = {"f:serveConfigV2": {}, "f:rayClusterConfig": {"f:rayVersion": {}, "f:headGroupSpec": HEAD}}
FINALIZER = {"f:metadata": {"f:finalizers": {".": {}, 'v:"ray.io/rayservice-finalizer"': {}}}}
GPU_LABEL = {"cloud.google.com/gke-accelerator": "nvidia-l4"}


def entry(manager: str, operation: str, fields: dict, api_version: str = "ray.io/v1") -> dict:
    return {"apiVersion": api_version, "fieldsType": "FieldsV1", "manager": manager, "operation": operation,
            "time": "2026-05-01T10:00:00Z", "fieldsV1": fields}


def live(text: str, managed: list[dict], *, client_side: bool = False, change=None) -> str:
    """``kubectl get -o yaml --show-managed-fields`` of ``text`` applied, with ``managed``
    as its managedFields; without ``client_side`` it was applied server-side (no
    last-applied annotation)."""
    def mutate(raw: dict) -> None:
        if not client_side:
            raw["metadata"]["annotations"].pop("kubectl.kubernetes.io/last-applied-configuration")
            if not raw["metadata"]["annotations"]:
                del raw["metadata"]["annotations"]
        raw["metadata"]["managedFields"] = managed
        if change is not None:
            change(raw)
    return C.live_copy(text, mutate=mutate)


def kueue_admitted(raw: dict) -> None:
    """Kueue's ``RunWithPodSetsInfo``: the flavor's node labels into the gpu group's pods."""
    raw["spec"]["rayClusterConfig"]["workerGroupSpecs"][1]["template"]["spec"]["nodeSelector"] = dict(GPU_LABEL)


def run_diff(tmp_path: Path, desired: str, live_text: str, **opts) -> ObjectDiff:
    (tmp_path / "desired.yaml").write_text(desired)
    (tmp_path / "live.yaml").write_text(live_text)
    d: Diff = diffing.diff([str(tmp_path / "desired.yaml")],
                           diffing.DiffOptions(live=(str(tmp_path / "live.yaml"),), server_side=True, **opts))
    [o] = d.objects
    return o


def changes(o: ObjectDiff) -> list[tuple[str, str]]:
    return [(c.path, c.op) for c in o.changes]


def conflicts(o: ObjectDiff) -> list[tuple[tuple[str, ...], str]]:
    return [(i.paths, i.message) for i in o.impact if i.effect == "rejected"]


WGS = "spec.rayClusterConfig.workerGroupSpecs"
WITHOUT_GPU = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["workerGroupSpecs"].pop())


# ----------------------------------------------------------------------------- atomic lists


def test_dropping_a_worker_group_of_the_atomic_list_kueue_owns_removes_it_and_conflicts_with_kueue(tmp_path):
    # Kueue's admission wrote the worker groups (an atomic list): Kueue owns the list
    # whole, kubectl's apply lost it (Updater.update takes a field from the other managers)
    managed = [entry("kubectl", "Apply", {"f:spec": RS_SPEC}), entry("kuberay-operator", "Update", FINALIZER),
               entry("kueue", "Update", {"f:spec": {"f:rayClusterConfig": {"f:workerGroupSpecs": {}}}})]
    o = run_diff(tmp_path, WITHOUT_GPU, live(C.RS, managed, change=kueue_admitted))
    # the manifest's list replaces the live one: the gpu group goes (was: nothing, as the
    # applier did not own the group)
    assert changes(o) == [(f"{WGS}[groupName=gpu]", "remove")]
    [(paths, message)] = conflicts(o)
    assert paths == (WGS,)
    assert message.startswith(f"server-side apply conflict: {WGS} is managed by kueue (Update), and the apply "
                              "replaces that list whole (it has no x-kubernetes-list-type: atomic); the apply fails")
    forced = run_diff(tmp_path, WITHOUT_GPU, live(C.RS, managed, change=kueue_admitted), force_conflicts=True)
    assert changes(forced) == changes(o) and conflicts(forced) == []
    assert [i.effect for i in forced.impact] == ["rollout"]


def test_the_unchanged_manifest_takes_back_what_kueue_wrote_into_the_atomic_list(tmp_path):
    managed = [entry("kubectl", "Apply", {"f:spec": RS_SPEC}),
               entry("kueue", "Update", {"f:spec": {"f:rayClusterConfig": {"f:workerGroupSpecs": {}}}})]
    o = run_diff(tmp_path, C.RS, live(C.RS, managed, change=kueue_admitted))
    # the applied list has no nodeSelector: setting the list sets it without one
    assert changes(o) == [(f"{WGS}[groupName=gpu].template.spec.nodeSelector", "remove")]
    assert [p for p, _ in conflicts(o)] == [(WGS,)]


def test_ownership_recorded_inside_an_atomic_list_is_ownership_of_the_list(tmp_path):
    # an entry for one worker group (written while the list was keyed) counts for the
    # whole list (reconcileManagedFieldsWithSchemaChanges: granular to atomic)
    gpu = {'k:{"groupName":"gpu"}': {"f:template": {"f:spec": {"f:nodeSelector": {}}}}}
    managed = [entry("kubectl", "Apply", {"f:spec": {**RS_SPEC, "f:rayClusterConfig": {
                   **RS_SPEC["f:rayClusterConfig"], "f:workerGroupSpecs": {}}}}),
               entry("kueue", "Update", {"f:spec": {"f:rayClusterConfig": {"f:workerGroupSpecs": gpu}}})]
    o = run_diff(tmp_path, WITHOUT_GPU, live(C.RS, managed, change=kueue_admitted))
    assert changes(o) == [(f"{WGS}[groupName=gpu]", "remove")]
    assert [p for p, _ in conflicts(o)] == [(WGS,)]


def test_an_atomic_list_nobody_else_owns_is_replaced_without_conflict(tmp_path):
    managed = [entry("kubectl", "Apply", {"f:spec": {**RS_SPEC, "f:rayClusterConfig": {
        **RS_SPEC["f:rayClusterConfig"], "f:workerGroupSpecs": {}}}}), entry("kuberay-operator", "Update", FINALIZER)]
    o = run_diff(tmp_path, WITHOUT_GPU, live(C.RS, managed))
    assert changes(o) == [(f"{WGS}[groupName=gpu]", "remove")] and conflicts(o) == []


def test_a_change_inside_an_atomic_list_conflicts_at_the_list(tmp_path):
    # kubectl edit raised the scaling group's replicas: kubectl-edit owns the atomic list
    sgs = "spec.template.podCliqueScalingGroups"
    managed = [entry("kubectl", "Apply", {"f:spec": {"f:replicas": {}}}, "grove.io/v1alpha1"),
               entry("kubectl-edit", "Update", {"f:spec": {"f:template": {"f:podCliqueScalingGroups": {}}}},
                     "grove.io/v1alpha1")]
    desired = C.PCS.replace("        replicas: 1\n      - name: decode", "        replicas: 2\n      - name: decode")
    o = run_diff(tmp_path, desired, live(C.PCS, managed))
    assert changes(o) == [(f"{sgs}[name=prefill].replicas", "replace")]
    # was: the conflict named the replicas field, which no manager owns on its own
    assert [p for p, _ in conflicts(o)] == [(sgs,)]
    assert "managed by kubectl-edit (Update), and the apply replaces that list whole" in conflicts(o)[0][1]


def test_an_item_of_a_map_list_goes_with_the_fields_another_manager_owns_in_it(tmp_path):
    # kubectl edit changed the env var's value (and took that field); the manifest drops the
    # env var, whose item kubectl's apply owns: pruning removes the item, the other manager's
    # field with it (structured-merge-diff merge/multiple_appliers_test.go
    # remove_one_with_dangling_subitem_keep_one)
    env = 'k:{"name":"RAY_LOG_LEVEL"}'
    head = json.loads(json.dumps(HEAD))
    head["f:template"]["f:spec"]["f:containers"]['k:{"name":"ray-head"}']["f:env"][env] = {".": {}, "f:name": {}}
    edited = {"f:spec": {"f:rayClusterConfig": {"f:headGroupSpec": {"f:template": {"f:spec": {"f:containers": {
        'k:{"name":"ray-head"}': {"f:env": {env: {"f:value": {}}}}}}}}}}}
    managed = [entry("kubectl", "Apply", {"f:spec": {**RS_SPEC, "f:rayClusterConfig": {
                   **RS_SPEC["f:rayClusterConfig"], "f:headGroupSpec": head, "f:workerGroupSpecs": {}}}}),
               entry("kubectl-edit", "Update", edited)]
    desired = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                     ["containers"][0].pop("env"))
    o = run_diff(tmp_path, desired, live(C.RS, managed))
    head_path = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head]"
    assert changes(o) == [(f"{head_path}.env[name=RAY_LOG_LEVEL]", "remove")] and conflicts(o) == []
    # an item the other manager owns itself stays (remove_one_keep_one_with_dangling_subitem):
    # kubectl edit wrote the whole env var
    edited_item = json.loads(json.dumps(edited).replace('{"f:value": {}}', '{".": {}, "f:name": {}, "f:value": {}}'))
    managed[1] = entry("kubectl-edit", "Update", edited_item)
    o = run_diff(tmp_path, desired, live(C.RS, managed))
    assert (o.status, o.changes) == ("unchanged", ())


def test_a_set_list_merges_by_value(tmp_path):
    # metadata.finalizers is a set (ObjectMeta +listType=set): KubeRay's finalizer stays
    # beside the manifest's (was: replaced by the manifest's list)
    managed = [entry("kubectl", "Apply", {"f:spec": RS_SPEC}), entry("kuberay-operator", "Update", FINALIZER)]
    desired = C.edit(C.RS, lambda r: r["metadata"].update(finalizers=["example.com/cleanup"]))
    o = run_diff(tmp_path, desired, live(C.RS, managed))
    assert [(c.path, c.op, c.old, c.new) for c in o.changes] == [
        ("metadata.finalizers", "replace", ["ray.io/rayservice-finalizer"],
         ["ray.io/rayservice-finalizer", "example.com/cleanup"])]
    # leaving it out again prunes only the value this manager applied (was: nothing)
    mine = {"f:metadata": {"f:finalizers": {'v:"example.com/cleanup"': {}}}, "f:spec": RS_SPEC}
    both = lambda r: r["metadata"].update(finalizers=["ray.io/rayservice-finalizer", "example.com/cleanup"])
    o = run_diff(tmp_path, C.RS, live(C.RS, [entry("kubectl", "Apply", mine), managed[1]], change=both))
    assert [(c.path, c.op, c.new) for c in o.changes] == [
        ("metadata.finalizers", "replace", ["ray.io/rayservice-finalizer"])]
    o = run_diff(tmp_path, desired, live(C.RS, [entry("kubectl", "Apply", mine), managed[1]], change=both))
    assert (o.status, o.changes) == ("unchanged", ())


def test_visit_list_items_is_structured_merge_diffs():
    # typed/merge.go visitListItems: the applied order for shared items, live-only items in place
    assert visit_list_items(["a", "b"], ["b", "a"]) == ["b", "a"]
    assert visit_list_items(["a", "b", "c"], ["c", "x"]) == ["a", "b", "c", "x"]
    assert visit_list_items(["a", "b", "c"], ["x", "b"]) == ["a", "x", "b", "c"]


# ----------------------------------------------------------------------------- annotations


ANNOTATED = C.edit(C.RS, lambda r: r["metadata"].update(annotations={"ray.io/initializing-timeout": "10m"}))
#: applied client-side first (its manager is migrated to kubectl's), then annotated by hand
CSA_THEN_ANNOTATED = [
    entry("kubectl-client-side-apply", "Update", {
        "f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {},
                                         "f:ray.io/initializing-timeout": {}}},
        "f:spec": {**RS_SPEC, "f:rayClusterConfig": {**RS_SPEC["f:rayClusterConfig"], "f:workerGroupSpecs": {}}}}),
    entry("kuberay-operator", "Update", FINALIZER),
    entry("kubectl-annotate", "Update", {"f:metadata": {"f:annotations": {"f:oncall.example.com/team": {}}}}),
]


def _oncall(raw: dict) -> None:
    raw["metadata"]["annotations"]["oncall.example.com/team"] = "serving"


def test_leaving_out_all_annotations_removes_only_those_the_applier_set(tmp_path):
    o = run_diff(tmp_path, C.RS, live(ANNOTATED, CSA_THEN_ANNOTATED, client_side=True, change=_oncall))
    # metadata.annotations is a granular map: the annotation kubectl annotate set is
    # another manager's and stays (was: nothing removed at all)
    assert [(c.path, c.op, c.old) for c in o.changes] == [
        ("metadata.annotations[ray.io/initializing-timeout]", "remove", "10m")]
    assert conflicts(o) == []


def test_the_annotations_map_goes_whole_when_no_other_manager_owns_any(tmp_path):
    managed = [CSA_THEN_ANNOTATED[0], CSA_THEN_ANNOTATED[1]]
    o = run_diff(tmp_path, C.RS, live(ANNOTATED, managed, client_side=True))
    assert [(c.path, c.op, c.old) for c in o.changes] == [
        ("metadata.annotations", "remove", {"ray.io/initializing-timeout": "10m"})]


def test_server_side_diff_output_in_json_and_table(cli, tmp_path):
    (tmp_path / "desired.yaml").write_text(WITHOUT_GPU)
    managed = CSA_THEN_ANNOTATED[:2] + [
        CSA_THEN_ANNOTATED[2], entry("kueue", "Update", {"f:spec": {"f:rayClusterConfig": {"f:workerGroupSpecs": {}}}})]
    managed[0] = entry("kubectl-client-side-apply", "Update", {
        "f:metadata": CSA_THEN_ANNOTATED[0]["fieldsV1"]["f:metadata"], "f:spec": RS_SPEC})
    (tmp_path / "live.yaml").write_text(live(ANNOTATED, managed, client_side=True,
                                             change=lambda r: (_oncall(r), kueue_admitted(r))))
    args = ("diff", str(tmp_path / "desired.yaml"), "--live", str(tmp_path / "live.yaml"), "--server-side")
    r = cli(*args, "-o", "json")
    assert r.exit_code == 1
    [obj] = r.json()["objects"]
    assert [(c["path"], c["op"]) for c in obj["changes"]] == [
        ("metadata.annotations[ray.io/initializing-timeout]", "remove"), (f"{WGS}[groupName=gpu]", "remove")]
    assert obj["changes"][1]["old"]["template"]["spec"]["nodeSelector"] == GPU_LABEL
    rejected = [i for i in obj["impact"] if i["effect"] == "rejected"]
    assert [i["paths"] for i in rejected] == [[WGS]] and "kueue (Update)" in rejected[0]["message"]
    table = cli(*args, "--no-color")
    assert table.exit_code == 1
    text = " ".join(table.stdout.split())
    assert "- metadata.annotations[ray.io/initializing-timeout] [none]" in text and "oncall" not in text
    assert f"- {WGS}[groupName=gpu] [rollout] [rejected]" in text
    assert (f"→ rejected: server-side apply conflict: {WGS} is managed by kueue (Update), and the apply replaces "
            "that list whole (it has no x-kubernetes-list-type: atomic); the apply fails unless it forces "
            "conflicts") in text
    assert "Effects: 1 none, 1 rollout, 1 rejected." in text
    # the same live object, client-side: the last-applied annotation decides, and Kueue's
    # nodeSelector inside the list goes with the JSON merge patch's list (unchanged here)
    assert "server-side apply conflict" not in cli(*args[:4], "--no-color").stdout


# ----------------------------------------------------------------------------- the rules alone


def test_ownership_removed_prunes_as_structured_merge_diff():
    live_n = {"metadata": {"annotations": {"a": "1", "b": "2"}}, "spec": {"x": {"y": 1, "z": 2}}}
    config = {"metadata": {}, "spec": {}}
    mine = {"f:metadata": {"f:annotations": {"f:a": {}}}, "f:spec": {"f:x": {"f:y": {}}}}
    own = ownership({"metadata": {"managedFields": [entry("m", "Apply", mine),
                                                    entry("o", "Update", {"f:metadata": {"f:annotations": {
                                                        "f:b": {}}}})]}}, "m")
    # annotations: b is another manager's; spec.x: nobody else owns any of it, so the field
    # goes whole (EnsureNamedFieldsAreMembers: owning spec.x.y is owning spec.x)
    assert own.prune(("metadata", "annotations"), live_n, config) == [("metadata", "annotations", "a")]
    assert own.prune(("spec", "x"), live_n, config) == [("spec", "x")]
    # a manager that applied nothing removes nothing
    assert ownership({"metadata": {"managedFields": []}}, "m").prune(("spec", "x"), live_n, config) == []


def test_list_types_come_from_the_kinds_schemas():
    rs, pcs = load_schema("rayservice.schema.json"), load_schema("podcliqueset.schema.json")
    assert list_type(rs, ("spec", "rayClusterConfig", "workerGroupSpecs")) == "atomic"
    assert list_type(rs, ("spec", "rayClusterConfig", "workerGroupSpecs", None, "template", "spec",
                          "containers")) == "map"
    assert list_type(rs, ("spec", "rayClusterConfig", "workerGroupSpecs", None, "template", "spec",
                          "tolerations")) == "atomic"
    assert list_type(pcs, ("spec", "template", "cliques")) == "map"
    assert list_type(pcs, ("spec", "template", "podCliqueScalingGroups")) == "atomic"
    assert list_type(rs, ("spec", "serveService", "spec", "ports")) is None  # our schema leaves it open
    assert list_type(rs, ("spec", "rayClusterConfig")) is None  # not a list


@pytest.mark.parametrize("ours, crd, version", [
    ("rayservice.schema.json", "kuberay/ray.io_rayservices.yaml", "v1"),
    ("podcliqueset.schema.json", "grove/grove.io_podcliquesets.yaml", "v1alpha1"),
])
def test_every_list_our_schema_describes_has_the_crds_list_type(ours, crd, version):
    """What server-side apply reads (``list_type``) agrees with the upstream CRD wherever
    our schema describes the list: atomic (none given), map or set."""
    p = UPSTREAM / crd
    if not p.is_file():
        pytest.skip("../shared/upstream is not present")
    doc = yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
    root = next(v for v in doc["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]
    schema = load_schema(ours)
    seen, wrong = 0, []

    def walk(node: dict, path: tuple) -> None:
        nonlocal seen
        if path[:1] == ("status",):
            return
        if node.get("type") == "array":
            ours_type = list_type(schema, path)
            if ours_type is not None:
                seen += 1
                if ours_type != (node.get("x-kubernetes-list-type") or "atomic"):
                    wrong.append((path, ours_type, node.get("x-kubernetes-list-type")))
            if isinstance(node.get("items"), dict):
                walk(node["items"], (*path, None))
        for k, v in (node.get("properties") or {}).items():
            walk(v, (*path, k))

    walk(root, ())
    assert seen > 50 and wrong == []
