"""`rolloutctl plan --kueue MODEL` on the Kueue samples (Typer runner over rolloutctl.cli.app)."""

from __future__ import annotations

from pathlib import Path

import jsonschema

from rolloutctl.schemas_access import schema
from tests.conftest import SAMPLES

RS = str(SAMPLES / "kueue-rayservice.yaml")
NEW = str(SAMPLES / "kueue-rayservice-new-image.yaml")
Q1 = str(SAMPLES / "kueue-queues.yaml")
Q2 = str(SAMPLES / "kueue-queues-two-clusters.yaml")


def test_create_under_top_level_json_validates(cli):
    r = cli("plan", "--kueue", "top-level", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("plan")).validate(doc)
    assert doc["strategy"] == "NewCluster (Kueue top-level)"
    assert doc["steps"][0]["actions"][0]["rule"].startswith("kueue[POC]:")
    assert cli("plan", "--kueue", "top-level", RS, "--observed", Q1, "-o", "json").stdout == r.stdout


def test_upgrade_converges_with_two_clusters_of_quota(cli):
    r = cli("plan", "--kueue", "top-level", NEW, Q2, "--observed", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 0, r.stderr
    kinds = [a["kind"] for s in r.json()["steps"] for a in s["actions"]]
    assert "Workload" in kinds and "RayCluster" in kinds


def test_upgrade_with_one_cluster_of_quota_is_stuck(cli):
    r = cli("plan", "--kueue", "top-level", NEW, "--observed", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 1
    doc = r.json()
    jsonschema.Draft202012Validator(schema("plan")).validate(doc)
    assert doc["stuck"]["reason"] == "QuotaExceeded"


def test_table_output_names_both_controllers(cli):
    r = cli("plan", "--kueue", "legacy", NEW, Q2, "--observed", RS, "--observed", Q1, "--no-color")
    assert r.exit_code == 0, r.stderr
    assert "KubeRay:" in r.stdout and "Kueue:" in r.stdout


def test_next_under_kueue(cli):
    r = cli("next", "--kueue", "nested", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 0, r.stderr
    (step,) = r.json()["steps"]
    assert step["actions"][0]["rule"] == "kueue:jobs/rayservice/rayservice_webhook.go#Default"


def test_unknown_model_is_bad_usage(cli):
    r = cli("plan", "--kueue", "sideways", RS)
    assert r.exit_code == 2


def test_compare_three_kueue_models_json(cli):
    r = cli("plan", "--compare", "--kueue", "top-level", NEW, Q2, "--observed", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 0, r.stderr  # the manifest's own model (top-level) converges
    doc = r.json()
    jsonschema.Draft202012Validator(schema("comparison")).validate(doc)
    rows = {row["strategy"]: row for row in doc["rows"]}
    assert list(rows) == ["kueue:top-level", "kueue:nested", "kueue:legacy"]
    assert rows["kueue:nested"]["stuck"]["reason"] == "PodsGated"
    r = cli("plan", "--compare", "--kueue", "nested", NEW, Q2, "--observed", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 1  # now the own model is the stuck one


def test_compare_rayservice_without_kueue_says_how(cli):
    """Without --kueue the rows are KubeRay's upgrade strategies, and the comparison says,
    as plan does, that Kueue acts on this RayService and how to model it."""
    r = cli("plan", "--compare", NEW, "--observed", RS, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert [x["strategy"] for x in doc["rows"]] == ["NewCluster", "NewClusterWithIncrementalUpgrade", "None"]
    plan = cli("plan", NEW, "--observed", RS, "-o", "json").json()
    unselected = [w for w in plan["warnings"] if "--kueue" in w["message"]]
    assert unselected and all(w in doc["warnings"] for w in unselected)


def _codes(doc):
    return [w["code"] for w in doc["warnings"]]


def test_a_queue_labelled_rayservice_planned_without_kueue_says_kueue_is_not_modelled(cli):
    """Without --kueue the plan is KubeRay's alone; a RayService with a queue label says
    so (where Kueue runs, it holds the service back until admitted), in plan, next and
    advise, and names the label."""
    r = cli("plan", NEW, "--observed", RS, "-o", "json")
    assert r.exit_code == 0, r.stderr
    [w] = [w for w in r.json()["warnings"] if w["code"] == "KueueNotModelled"]
    assert "user-queue" in w["message"] and "--kueue" in w["message"]
    assert w["path"] == "metadata.labels[kueue.x-k8s.io/queue-name]"
    assert "KueueNotModelled" in _codes(cli("next", NEW, "--observed", RS, "-o", "json").json())
    advice = cli("advise", NEW, "--observed", RS, "-o", "json")
    assert "KueueNotModelled" in _codes(advice.json())
    table = cli("plan", NEW, "--observed", RS, "--no-color")
    assert "KueueNotModelled" in table.stdout


def test_kueue_not_modelled_is_not_said_under_kueue_nor_without_a_queue_label(cli, tmp_path):
    r = cli("plan", "--kueue", "nested", RS, "--observed", Q1, "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert "KueueNotModelled" not in _codes(r.json())
    unlabelled = tmp_path / "svc.yaml"
    unlabelled.write_text(Path(RS).read_text().replace("kueue.x-k8s.io/queue-name: user-queue", "team: a"))
    r = cli("plan", str(unlabelled), "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert "KueueNotModelled" not in _codes(r.json())


def test_a_suspended_worker_group_counts_its_replicas_in_the_workload(cli, tmp_path):
    """``effectiveWorkerCount`` (raycluster/common.go) does not look at a worker group's
    ``suspend``: the Workload asks for its replicas × numOfHosts, and a queue too small
    for them never admits it."""
    import yaml

    doc = yaml.safe_load(Path(RS).read_text())
    head = doc["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    g = {"groupName": "small-group", "suspend": True, "replicas": 3, "numOfHosts": 2, "minReplicas": 1,
         "maxReplicas": 5, "rayStartParams": {},
         "template": {"spec": {"containers": [{"name": "ray-worker", "image": head["image"],
                                               "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}}
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"] = [g]
    doc["spec"]["rayClusterConfig"].pop("enableInTreeAutoscaling", None)
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(doc))
    p = cli("plan", "--kueue", "nested", str(f), "--observed", Q1, "-o", "json").json()
    created = [a["fields"]["podSets"] for s in p["steps"] for a in s["actions"]
               if a["kind"] == "Workload" and a["verb"] == "create"]
    assert created and created[0][g["groupName"]] == 6, created
    assert p["outcome"] == "stuck" and p["stuck"]["reason"] == "QuotaExceeded"


def test_an_observed_neighbour_holds_its_quota_and_a_desired_sibling_is_said_not_to(cli, tmp_path):
    """Kueue accounts every admitted Workload of a ClusterQueue (``updateWorkloadUsage``):
    another RayService observed under the same queue, whose Workload the input lacks, is
    settled first and holds its quota, so a second RayService that would fit alone waits
    (InsufficientQuota). Two RayServices both desired are planned one at a time; each plan
    says it does not count the other."""
    import yaml

    other = yaml.safe_load(Path(RS).read_text())
    other["metadata"]["name"] = "other-svc"
    o = tmp_path / "other.yaml"
    o.write_text(yaml.safe_dump(other))
    alone = cli("plan", "--kueue", "nested", str(o), "--observed", Q1, "-o", "json").json()
    assert alone["outcome"] == "converged"
    waits = cli("plan", "--kueue", "nested", str(o), "--observed", RS, "--observed", Q1, "-o", "json")
    assert waits.json()["outcome"] == "stuck" and waits.json()["stuck"]["reason"] == "InsufficientQuota", waits.stdout
    both = cli("plan", "--kueue", "nested", str(o), RS, "--observed", Q1, "-o", "json").json()["items"]
    assert [p["outcome"] for p in both] == ["converged", "converged"]
    assert all("KueueSiblingsNotCounted" in {w["code"] for w in p["warnings"]} for p in both)


def test_preemption_puts_back_the_victims_it_does_not_need(cli):
    """classicalPreemptions then fillBackWorkloads (pkg/scheduler/preemption/preemption.go):
    candidates lowest priority and most recently admitted first (CandidatesOrdering) until
    the Workload fits, then every victim but the last it fits without is put back. A
    4-CPU RayService of higher priority next to a 4-CPU and a newer 1-CPU Workload in a
    5-CPU ClusterQueue preempts only the 4-CPU one (the live stamps are RFC 3339)."""
    data = Path(__file__).parent / "data"
    r = cli("plan", "--kueue", "nested", str(data / "preemption-rayservice.yaml"), "--observed",
            str(data / "preemption-queues.yaml"), "--observed", str(data / "preemption-workloads.yaml"), "-o", "json")
    preempted = [a["name"] for s in r.json()["steps"] for a in s["actions"] if a["reason"].startswith("preempted")]
    assert preempted == ["wl-b-big"], r.stdout[-2000:]


def test_table_keeps_workload_pod_set_sizes_in_brackets(cli):
    # "[head×2]" in a phase title is text, not console markup: the terminal table keeps it
    args = ("plan", "--kueue", "top-level", NEW, "--observed", RS, "--observed", Q1)
    titles = " ".join(s["title"] for s in cli(*args, "-o", "json").json()["steps"])
    assert "[head×2]" in titles
    r = cli(*args, "--no-color")
    assert r.exit_code == 1, r.stderr
    assert "[head×2]" in " ".join(r.stdout.replace("│", " ").split())


def test_a_nested_suspend_kueue_sets_draws_no_born_suspended_warning_but_one_the_manifest_sets_does(cli, tmp_path):
    """Under --kueue nested the webhook sets rayClusterConfig.suspend on a queued service: the
    KubeRay warning about a manifest that sets it (ClusterBornSuspended) would point at a field
    the file does not have. Written by the user, it is still said."""
    r = cli("plan", "--kueue", "nested", NEW, "--observed", RS, "-o", "json")
    assert "ClusterBornSuspended" not in _codes(r.json()), r.stdout[:500]
    own = tmp_path / "svc.yaml"
    text = Path(NEW).read_text()
    assert "  rayClusterConfig:\n" in text
    own.write_text(text.replace("  rayClusterConfig:\n", "  rayClusterConfig:\n    suspend: true\n", 1))
    r = cli("plan", "--kueue", "nested", str(own), "--observed", RS, "-o", "json")
    assert "ClusterBornSuspended" in _codes(r.json()), r.stdout[:500]
