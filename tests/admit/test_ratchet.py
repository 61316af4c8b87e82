"""CRD validation ratcheting (KEP-4008, on by default since Kubernetes 1.30): an update
is not refused for schema or CEL errors on parts it leaves unchanged. Upstream:
apiextensions-apiserver pkg/apiserver/validation/ratcheting.go, schema/cel/validation.go
``shouldRatchetError``; apiserver pkg/cel/common/equality.go ``CorrelatedObject``."""

from __future__ import annotations

from rolloutctl.admit.ratchet import deep_equal, ratchets
from tests.conftest import write
from tests.lint.cases import clique, pcs, rs

#: a pattern the CRD sets on pack domains (only the schema checks it, not the webhook)
BAD_PACK = "topologyConstraint: {topologyName: t, pack: {required: Rack_1}}"
#: a container port without its required containerPort
BAD_PORT = "ports:\n- name: metrics\n"

LIST_MAP = {"type": "object", "properties": {"items": {
    "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
    "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}}}}
ATOMIC = {"type": "object", "properties": {"items": {
    "type": "array", "items": {"type": "object", "properties": {"v": {"type": "integer"}}}}}}


def test_items_of_a_map_list_correlate_by_key_and_atomic_ones_only_as_a_whole():
    new = {"items": [{"name": "a", "v": -1}, {"name": "b", "v": 2}]}
    old = {"items": [{"name": "b", "v": 1}, {"name": "a", "v": -1}]}
    assert ratchets(LIST_MAP, new, old, ("items", 0, "v"))  # a is unchanged, wherever it stands
    assert not ratchets(LIST_MAP, new, old, ("items", 1, "v"))  # b changed
    assert not ratchets(ATOMIC, new, old, ("items", 0, "v"))  # the list changed: no item correlates
    assert ratchets(ATOMIC, new, {"items": [dict(i) for i in new["items"]]}, ("items", 0, "v"))
    assert not ratchets(LIST_MAP, {"items": [{"name": "c", "v": -1}]}, old, ("items", 0, "v"))  # new item


def test_kind_and_api_version_never_ratchet_and_go_types_are_compared():
    obj = {"kind": "X", "apiVersion": "v1", "n": 1}
    assert not ratchets({}, obj, dict(obj), ("kind",))
    assert ratchets({}, obj, dict(obj), ("n",))
    assert not deep_equal(1, 1.0) and not deep_equal(True, 1) and deep_equal({"a": [1]}, {"a": [1]})


def test_an_unchanged_invalid_field_is_no_rejection_and_a_new_one_is(cli, tmp_path):
    """Given a RayService whose stored copy already has a negative
    rayClusterDeletionDelaySeconds, re-applying it changes nothing and is not refused;
    making it negative now is."""
    bad = open(write(tmp_path, "x", rs(spec="rayClusterDeletionDelaySeconds: -5"))).read()
    stored = write(tmp_path, "stored.yaml", bad)
    again = write(tmp_path, "again.yaml", bad)
    r = cli("diff", again, "--live", stored, "-o", "json")
    assert r.exit_code == 0, r.stdout
    assert [(o["status"], o["impact"]) for o in r.json()["objects"]] == [("unchanged", [])]
    good = write(tmp_path, "good.yaml", rs(spec="rayClusterDeletionDelaySeconds: 60"))
    r = cli("diff", again, "--live", good, "-o", "json")
    assert r.exit_code == 1
    assert [i["effect"] for o in r.json()["objects"] for i in o["impact"]] == ["rejected"]


def test_a_clique_left_unchanged_keeps_its_schema_error_as_a_warning(cli, tmp_path):
    """cliques is a list-type map keyed by name in the PodCliqueSet CRD: when only clique
    b's image changes, clique a's existing pattern violation does not refuse the update
    (diff: a rollout, nothing rejected; plan: converges and warns). Adding the same
    violation in this change is refused."""
    old = write(tmp_path, "old.yaml", pcs(clique("a", top=BAD_PACK) + clique("b")))
    new = write(tmp_path, "new.yaml", pcs(clique("a", top=BAD_PACK) + clique("b").replace("busybox", "busybox:2")))
    r = cli("diff", new, "--live", old, "-o", "json")
    assert r.exit_code == 1
    assert [i["effect"] for o in r.json()["objects"] for i in o["impact"]] == ["rollout"]
    r = cli("plan", new, "--observed", old, "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["outcome"] == "converged"
    ratcheted = [w for w in r.json()["warnings"] if w["code"] == "SC004"]
    assert [w["path"] for w in ratcheted] == ["spec.template.cliques[name=a].topologyConstraint.pack.required"]
    assert "ratcheting" in ratcheted[0]["message"]
    clean = write(tmp_path, "clean.yaml", pcs(clique("a") + clique("b")))
    r = cli("diff", old, "--live", clean, "-o", "json")
    assert r.exit_code == 1
    assert [i["effect"] for o in r.json()["objects"] for i in o["impact"]] == ["rejected"]
    assert cli("plan", old, "--observed", clean).exit_code == 2


def test_an_error_inside_an_atomic_list_ratchets_only_when_the_list_is_unchanged(cli, tmp_path):
    """workerGroupSpecs has no list type (atomic): a bad port in a worker container is
    refused as soon as anything in the worker groups changes; the same port in the head
    container (containers and ports are list-type maps) survives a head change."""
    worker_old = write(tmp_path, "w-old.yaml", rs(worker_ctr=BAD_PORT))
    worker_new = write(tmp_path, "w-new.yaml", rs(worker_ctr=BAD_PORT).replace(
        "replicas: 1\n      minReplicas: 1", "replicas: 2\n      minReplicas: 1"))
    r = cli("diff", worker_new, "--live", worker_old, "-o", "json")
    assert [(i["effect"], i["message"].split(":")[0]) for o in r.json()["objects"] for i in o["impact"]] == [
        ("rejected", "SC002")]
    head_old = write(tmp_path, "h-old.yaml", rs(head_ctr=BAD_PORT))
    head_new = write(tmp_path, "h-new.yaml", rs(head_ctr=BAD_PORT, head="enableIngress: false"))
    r = cli("diff", head_new, "--live", head_old, "-o", "json")
    assert [i["effect"] for o in r.json()["objects"] for i in o["impact"]] == ["rollout"]


def test_a_repeated_env_name_is_refused_unless_the_stored_object_repeats_it(cli, tmp_path):
    """env is a list-type map keyed by name in the RayService CRD: two LOG_LEVEL entries
    are refused on create (plan exits 2, SC014) and when an update adds the repeat; an
    update of an object stored with the repeat already is not (listtype validation is
    ratcheted as a whole: strategy.go ValidateUpdate)."""
    dup = "env:\n- {name: LOG_LEVEL, value: info}\n- {name: LOG_LEVEL, value: debug}\n"
    new = write(tmp_path, "new.yaml", rs(head_ctr=dup))
    r = cli("plan", new)
    assert r.exit_code == 2 and "SC014" in r.stderr and "env[name=LOG_LEVEL]" in r.stderr
    clean = write(tmp_path, "clean.yaml", rs(head_ctr="env:\n- {name: LOG_LEVEL, value: info}\n"))
    r = cli("diff", new, "--live", clean, "-o", "json")
    assert [i["message"].split(":")[0] for o in r.json()["objects"] for i in o["impact"]] == ["SC014"]
    changed = write(tmp_path, "changed.yaml", rs(head_ctr=dup, head="enableIngress: false"))
    r = cli("diff", changed, "--live", new, "-o", "json")
    assert r.exit_code == 1
    assert "rejected" not in [i["effect"] for o in r.json()["objects"] for i in o["impact"]]
