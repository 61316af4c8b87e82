"""Kueue's queue objects are admitted as the API server would (queue_webhooks.admit_queue):
the expectations below are read from kueue ff69552e config/components/crd/bases/
kueue.x-k8s.io_clusterqueues.yaml (served versions, the quantity pattern, required
nominalQuota) and pkg/webhooks/clusterqueue_webhook.go (validateResourceQuantity:
"must be greater than or equal to 0"; validateFlavorQuotas: "must match the name in
coveredResources")."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolloutctl.core.model import Obj
from rolloutctl.kinds.kueue.clusterqueue import quota_of
from rolloutctl.kinds.kueue.queue_webhooks import admit_queue, is_quantity
from rolloutctl.load.files import load_paths

DATA = Path(__file__).parent / "data" / "queues"
RS = str(DATA / "kq-rs-sample.yaml")

#: file -> (rule, line, field path) of the one refusal upstream makes
REFUSED = {
    "kq-bad-unit.yaml": ("KQ007", 20, "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota"),
    "kq-null-quota.yaml": ("KQ007", 18, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"),
    "kq-negative-quota.yaml": ("KQ008", 18, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"),
    "kq-dup-resource.yaml": ("KQ009", 19, "spec.resourceGroups[0].flavors[0].resources[1].name"),
    # the CRD's x-kubernetes-validations rules
    "kq-count.yaml": ("KQ010", 16, "spec.resourceGroups[0].flavors[0].resources"),
    "kq-borrow-no-cohort.yaml": ("KQ011", 21, "spec.resourceGroups[0].flavors[0].resources[1].borrowingLimit"),
    # a negative quota (the webhook's) next to one the CRD refuses: the webhook is never called
    "kq-crd-first.yaml": ("KQ007", 20, "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_plan_refuses_a_desired_queue_kueue_refuses(cli, name):
    rule, line, path = REFUSED[name]
    r = cli("plan", "--kueue", "nested", RS, str(DATA / name))
    assert r.exit_code == 2
    (msg,) = [m for m in r.stderr.splitlines() if m.strip()]
    assert msg.startswith(f"{DATA / name}:{line}: {rule}: {path}: ")
    assert msg.endswith("(the API server would reject this manifest)")


def test_plan_refuses_an_unserved_version_of_each_queue_kind(cli):
    r = cli("plan", "--kueue", "nested", RS, str(DATA / "kq-v1alpha1.yaml"))
    assert r.exit_code == 2
    lines = [m for m in r.stderr.splitlines() if m.strip()]
    assert [m.split(": ")[0].rsplit(":", 1)[1] for m in lines] == ["1", "6", "22"]
    assert all(": SC005: apiVersion: kueue.x-k8s.io/v1alpha1 " in m and "is not served (served: "
               "kueue.x-k8s.io/v1beta1, kueue.x-k8s.io/v1beta2)" in m for m in lines)


def test_plan_warns_of_a_deprecated_version_and_plans(cli):
    r = cli("plan", "--kueue", "nested", RS, str(DATA / "kq-v1beta1.yaml"), "-o", "json")
    assert r.exit_code == 0, r.stderr
    sc008 = [w for w in r.json()["warnings"] if w["code"] == "SC008"]
    assert [w["message"].split(" (")[0] for w in sc008] == [
        "ClusterQueue cluster-queue", "LocalQueue user-queue", "ResourceFlavor default-flavor"]
    assert all("kueue.x-k8s.io/v1beta1" in w["message"] and "Use v1beta2 instead." in w["message"] for w in sc008)


def test_observed_unreadable_quota_is_an_error(cli):
    """A stored object is not re-validated, but a quota the model cannot read stops it."""
    r = cli("plan", "--kueue", "nested", RS, "--observed", str(DATA / "kq-bad-unit.yaml"))
    assert r.exit_code == 2
    assert ":20: KQ007: " in r.stderr and "(a model reads this field)" in r.stderr


def test_observed_negative_quota_is_a_warning_only(cli):
    r = cli("plan", "--kueue", "nested", RS, "--observed", str(DATA / "kq-negative-quota.yaml"))
    assert r.exit_code != 2, r.stderr
    found = admit_queue(_cq("kq-negative-quota.yaml"), "observed")
    assert [(f.rule, f.severity) for f in found] == [("KQ008", "warning")]
    assert "stored object" in found[0].message


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_lint_reports_the_refusal(cli, name):
    rule, line, path = REFUSED[name]
    r = cli("lint", "--strict", str(DATA / name), "-o", "json")
    assert r.exit_code == 1
    found = [(f["rule"], f["line"], f["path"]) for f in r.json()["findings"]]
    assert found == [(rule, line, path)]


def test_lint_strict_checks_the_queue_kinds(cli):
    r = cli("lint", "--strict", str(DATA / "kq-v1beta1.yaml"), "-o", "json")
    assert r.exit_code == 0, r.stdout
    found = [(f["rule"], f["severity"], f["line"]) for f in r.json()["findings"]]
    assert found == [("SC008", "warning", 1), ("SC008", "warning", 6), ("SC008", "warning", 22)]


def test_lint_unserved_version(cli):
    r = cli("lint", str(DATA / "kq-v1alpha1.yaml"), "-o", "json")
    assert r.exit_code == 1
    assert [(f["rule"], f["line"]) for f in r.json()["findings"]] == [("SC005", 1), ("SC005", 6), ("SC005", 22)]


def _cq(name: str) -> Obj:
    return next(o for o in load_paths([str(DATA / name)]).objects if o.kind == "ClusterQueue")


def test_limits_are_checked_as_quotas_are():
    cq = _cq("kq-v1beta1.yaml")
    cq.raw["spec"]["cohort"] = "team-a"
    res = cq.raw["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    res[0]["borrowingLimit"] = "-1"
    res[1]["lendingLimit"] = "2Gi"
    assert [(f.rule, f.path) for f in admit_queue(cq) if f.rule.startswith("KQ")] == [
        ("KQ008", "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit")]
    res[1]["lendingLimit"] = "2Gb"
    # the CRD refuses the lendingLimit, so the webhook (KQ008) is never called
    assert [(f.rule, f.path) for f in admit_queue(cq) if f.rule.startswith("KQ")] == [
        ("KQ007", "spec.resourceGroups[0].flavors[0].resources[1].lendingLimit")]


@pytest.mark.parametrize("version,field,refused", [
    ("v1beta1", "cohort", False), ("v1beta1", "cohortName", True),
    ("v1beta2", "cohortName", False), ("v1beta2", "cohort", True)])
def test_borrowing_limit_needs_the_versions_cohort_field(version, field, refused):
    cq = _cq("kq-v1beta1.yaml")
    cq.raw["apiVersion"] = f"kueue.x-k8s.io/{version}"
    cq.raw["spec"][field] = "team-a"
    cq.raw["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = 4
    got = [f.rule for f in admit_queue(cq) if f.rule.startswith("KQ")]
    assert got == (["KQ011"] if refused else [])


@pytest.mark.parametrize("v,ok", [("9Gi", True), ("9Gb", False), ("500m", True), (".5", True), ("1e3", True),
                                  ("9 Gi", False), (True, False), (9, True), ("", False),
                                  # int-or-string: an unquoted fraction is a JSON number the server refuses;
                                  # a whole float is sent as an integer
                                  (0.5, False), (2.0, True)])
def test_quantity_pattern(v, ok):
    assert is_quantity(v) is ok


def test_quota_of_never_reads_an_unparseable_quota_as_zero():
    with pytest.raises(ValueError):
        quota_of(_cq("kq-bad-unit.yaml"))


@pytest.mark.parametrize("version,field", [("v1beta1", "cohort"), ("v1beta2", "cohortName")])
def test_the_cohort_warning_names_the_cluster_queue_and_its_versions_field(cli, tmp_path, version, field):
    """KueueCohortNotModelled points at the field the ClusterQueue as written has: the
    CRD names it ``cohort`` in v1beta1 and ``cohortName`` in v1beta2."""
    import yaml

    docs = [d for d in yaml.safe_load_all((DATA / "kq-v1beta1.yaml").read_text()) if d]
    for d in docs:
        d["apiVersion"] = f"kueue.x-k8s.io/{version}"
        if d["kind"] == "ClusterQueue":
            d["spec"][field] = "all-teams"
            name = d["metadata"]["name"]
    f = tmp_path / "queues.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    r = cli("plan", "--kueue", "nested", RS, str(f), "-o", "json")
    assert r.exit_code == 0, r.stderr
    (w,) = [w for w in r.json()["warnings"] if w["code"] == "KueueCohortNotModelled"]
    assert w["path"] == f"ClusterQueue/{name}.spec.{field}"
    assert f"ClusterQueue {name} in a cohort" in w["message"]


def _cluster_queue(spec: str) -> Obj:
    import yaml

    return Obj(yaml.safe_load("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
                              "spec:\n" + spec))


def test_a_lending_limit_needs_a_cohort_and_at_most_the_nominal_quota():
    """``validateLimit`` / ``validateLendingLimit`` (clusterqueue_webhook.go)."""
    groups = ("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n"
              "      - {name: cpu, nominalQuota: 2, lendingLimit: LEND}\n")
    lone = [f.message for f in admit_queue(_cluster_queue(groups.replace("LEND", "1")))]
    assert any("must be nil when cohort is empty" in m for m in lone) and len(lone) == 1
    over = [f.message for f in admit_queue(_cluster_queue("  cohortName: team\n" + groups.replace("LEND", "3")))]
    assert over and all("less than or equal to the nominalQuota 2" in m for m in over)
    assert admit_queue(_cluster_queue("  cohortName: team\n" + groups.replace("LEND", "2"))) == []


def test_a_resource_or_flavor_in_two_groups_is_refused():
    """``validateResourceGroups``: field.Duplicate for the second group's resource and flavor;
    ``plan`` refuses such a desired ClusterQueue before the quota is read."""
    spec = ("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n"
            "      - {name: cpu, nominalQuota: 2}\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
            "      resources:\n      - {name: cpu, nominalQuota: 8}\n")
    found = admit_queue(_cluster_queue(spec))
    assert sorted(f.path for f in found) == ["spec.resourceGroups[1].coveredResources[0]",
                                             "spec.resourceGroups[1].flavors[0].name"]
    assert all(f.rule == "KQ014" and f.severity == "error" for f in found)
