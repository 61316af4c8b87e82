"""``rolloutctl advise`` as a user runs it: formats, exit codes, usage errors."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from rolloutctl.schemas_access import schema
from tests.advise.helpers import RS_NEW, RS_OLD
from tests.advise.small import small_pair


@pytest.fixture
def small(tmp_path):
    return small_pair(tmp_path)


def test_json_validates_is_deterministic_and_exit_0(cli, small):
    new, old = small
    # four of the five pods Ready throughout: today's RollingRecreate keeps three, so a patch wins
    r = cli("advise", new, "--observed", old, "--min-ready", "4", "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("advice")).validate(doc)
    assert doc["kind"] == "Advice" and doc["objective"] == "steps" and doc["optimal"] is True
    assert doc["recommendation"]["patch"]["spec"]["updateStrategy"]["type"] == doc["recommendation"]["strategy"]
    assert doc["frontier"][0] == doc["recommendation"]
    assert cli("advise", new, "--observed", old, "--min-ready", "4", "-o", "json").stdout == r.stdout
    # without the floor, the manifest as it is already rolls in the fewest steps: no patch
    plain = cli("advise", new, "--observed", old, "-o", "json").json()
    assert plain["recommendation"]["patch"] == {} and plain["recommendation"] == plain["current"]


def test_schema_command_lists_advice(cli):
    r = cli("schema", "advice")
    assert r.exit_code == 0 and '"title": "rolloutctl Advice"' in r.stdout
    assert "advice" in cli("schema", "--help").stdout


def test_nothing_meets_the_constraints_exits_1_with_reasons(cli, small):
    new, old = small
    r = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=2")
    assert r.exit_code == 1, r.stderr
    assert "No candidate meets the constraints." in r.stdout
    assert "cannot meet the constraints: InsufficientCapacity" in r.stdout


def test_table_and_markdown_show_patch_frontier_and_search(cli, small):
    new, old = small
    t = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "--min-ready", "75%")
    assert t.exit_code == 0, t.stderr
    for text in ("Recommendation:", "Patch (merge into the manifest", "Frontier", "Searched:", "min ready: 75% (5 ready pods)"):
        assert text in t.stdout
    m = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "--min-ready", "4", "-o", "markdown")
    assert m.exit_code == 0
    assert "```yaml" in m.stdout and "| Strategy |" in m.stdout.replace("|  | Strategy", "| Strategy")


@pytest.mark.parametrize("args,message", [
    (["--minimize", "time"], "--minimize time: the PodCliqueSet model is untimed"),
    (["--min-ready", "lots"], "--min-ready 'lots'"),
    (["--min-ready", "120%"], "--min-ready '120%'"),
])
def test_usage_errors_exit_2_with_one_line(cli, small, args, message):
    new, old = small
    r = cli("advise", new, "--observed", old, *args)
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_observed_is_required(cli, small):
    new, _old = small
    r = cli("advise", new)
    assert r.exit_code == 2 and "--observed" in r.stderr


def test_minimize_time_on_a_timed_kind(cli):
    r = cli("advise", RS_NEW, "--observed", RS_OLD, "--minimize", "time", "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert doc["objective"] == "time" and doc["recommendation"]["time"] is not None
    assert {x["strategy"]: x["reason"] for x in doc["rejected"]} == {
        "NewClusterWithIncrementalUpgrade": "AutoscalingRequired", "None": "NotRolledOut"}


@pytest.mark.parametrize("name,content,fragments", [c for c in __import__(
    "tests.hardening.test_bad_input_cli", fromlist=["FILE_CASES"]).FILE_CASES][:6])
def test_bad_input_is_one_line_and_exit_2(cli, small, tmp_path, name, content, fragments):
    from tests.hardening.helpers import assert_input_error

    _new, old = small
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(content)
    r = cli("advise", str(bad), "--observed", old)
    assert_input_error(r, str(bad), *fragments)


def test_manifest_the_operator_rejects_exits_2(cli, small, tmp_path):
    import yaml
    from tests.hardening.helpers import assert_input_error

    new, old = small
    doc = yaml.safe_load(open(new).read())
    doc["spec"]["updateStrategy"] = {"type": "RollingUpdate"}
    doc["spec"]["template"]["cliques"][0]["updateStrategy"] = {"maxUnavailable": 0, "maxSurge": 0}
    p = tmp_path / "rejected.yaml"
    p.write_text(yaml.safe_dump(doc))
    r = cli("advise", str(p), "--observed", old)
    assert_input_error(r, str(p), "the operator would reject this manifest")


def test_html_page_loads_and_charts_the_recommended_plan(cli, small, tmp_path):
    from tests.advise.helpers import patched
    from tests.render.test_html import open_in_chromium, values

    new, old = small
    floor = ("--capacity", "nvidia.com/gpu=6", "--min-ready", "4")
    page = cli("advise", new, "--observed", old, *floor, "-o", "html")
    assert page.exit_code == 0, page.stderr
    html = page.stdout
    assert html == cli("advise", new, "--observed", old, *floor, "-o", "html").stdout
    assert "Recommendation:" in html and 'class="patch"' in html
    assert "https://" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    doc = cli("advise", new, "--observed", old, *floor, "-o", "json").json()
    rec = doc["recommendation"]
    plan = cli("plan", patched(new, rec["patch"], tmp_path), "--observed", old, "--capacity", "nvidia.com/gpu=6",
               "-o", "json").json()
    got = open_in_chromium(html)
    assert got["errors"] == [] and got["resources"] == []
    charts = {c["chart"]: c for c in got["charts"]}
    ready = charts["ready pods"]
    series = {s["name"]: s for s in ready["series"]}
    first = series[f"1. {rec['strategy']}"]
    assert values(ready, first) == [(float(s["step"]), float(s["after"]["readyPods"])) for s in plan["steps"]]
    assert "as is" in series


def _incremental_pair(tmp_path):
    """The bundled RayService under NewClusterWithIncrementalUpgrade (autoscaling on, as that strategy needs),
    before and after an image change."""
    import yaml

    old = yaml.safe_load(open(RS_OLD))
    old["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade", "clusterUpgradeOptions": {
        "gatewayClassName": "istio", "stepSizePercent": 10, "intervalSeconds": 10, "maxSurgePercent": 10}}
    old["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    new = yaml.safe_load(yaml.safe_dump(old))
    for c in new["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"]:
        c["image"] += "-new"
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(old))
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    return str(tmp_path / "new.yaml"), str(tmp_path / "old.yaml")


def test_operator_settings_are_plans_own(cli, tmp_path):
    """advise plans with the operator settings plan takes: with the incremental-upgrade gate off the operator
    never prepares a new cluster for that strategy, so it is rejected instead of offered."""
    new, old = _incremental_pair(tmp_path)
    on = cli("advise", new, "--observed", old, "-o", "json")
    assert on.exit_code == 0, on.stderr
    assert "NewClusterWithIncrementalUpgrade" in {x["strategy"] for x in on.json()["frontier"]}
    assert "NewClusterWithIncrementalUpgrade" not in {x["strategy"] for x in on.json()["rejected"]}
    off = cli("advise", new, "--observed", old, "--feature-gate", "RayServiceIncrementalUpgrade=false", "-o", "json")
    assert off.exit_code == 0, off.stderr
    rejected = {x["strategy"]: x["reason"] for x in off.json()["rejected"]}
    assert rejected.get("NewClusterWithIncrementalUpgrade") == "NotRolledOut"
    assert "NewClusterWithIncrementalUpgrade" not in {x["strategy"] for x in off.json()["frontier"]}
    bad = cli("advise", new, "--observed", old, "--kuberay-env", "NOT_A_SETTING")
    assert bad.exit_code == 2


def test_repository_configuration_applies(cli, tmp_path, monkeypatch):
    """The namespace of .rolloutctl.yaml is the default for namespace-less manifests, as for plan."""
    import yaml

    for name, src in (("new.yaml", RS_NEW), ("old.yaml", RS_OLD)):
        doc = yaml.safe_load(open(src))
        doc["metadata"].pop("namespace", None)
        (tmp_path / name).write_text(yaml.safe_dump(doc))
    (tmp_path / ".rolloutctl.yaml").write_text("namespace: serving\n")
    monkeypatch.chdir(tmp_path)
    r = cli("advise", "new.yaml", "--observed", "old.yaml", "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["target"]["namespace"] == "serving"
    assert cli("plan", "new.yaml", "--observed", "old.yaml", "-o", "json").json()["target"]["namespace"] == "serving"
    (tmp_path / "other.yaml").write_text("namespace: batch\n")
    r = cli("advise", "new.yaml", "--observed", "old.yaml", "--config", "other.yaml", "-o", "json")
    assert r.json()["target"]["namespace"] == "batch"


def test_progress_counts_the_candidates_planned(small):
    """The terminal's progress line follows the search: one update per candidate planned, up to the count
    the advice reports as searched."""
    from rolloutctl.app import PlanOptions
    from rolloutctl.commands.advise import AdviseOptions, advise

    new, old = small
    for exhaustive in (False, True):
        seen = []
        [advice] = advise([new], AdviseOptions(plan=PlanOptions(observed=(old,)), exhaustive=exhaustive,
                                               progress=lambda ref, n, used: seen.append((ref.name, n, used))))
        assert [(name, n) for name, n, _ in seen] == [("small", n) for n in range(1, advice.searched + 1)]
        shares = [used for _, _, used in seen]
        if exhaustive:  # no budget to report a share of
            assert shares == [None] * len(seen)
        else:
            assert all(0 < a <= b <= 1 for a, b in zip(shares, shares[1:]))


@pytest.mark.parametrize("model", ["top-level", "nested", "legacy"])
def test_advise_under_kueue_plans_each_candidate_with_kueue_in_the_loop(cli, model):
    """KubeRay's strategies, each candidate planned as plan --kueue MODEL plans it: the
    recommendation (or the refusal) is the one plan's outcome under that model implies,
    judged on the clusters as KubeRay made them (before Kueue's injection)."""
    from tests.conftest import SAMPLES

    args = [str(SAMPLES / "kueue-rayservice-new-image.yaml"), str(SAMPLES / "kueue-queues-two-clusters.yaml"),
            "--observed", str(SAMPLES / "kueue-rayservice.yaml"), "--observed", str(SAMPLES / "kueue-queues.yaml"),
            "--kueue", model]
    plan = cli("plan", *args, "-o", "json").json()
    r = cli("advise", *args, "-o", "json")
    doc = r.json()
    jsonschema.Draft202012Validator(schema("advice")).validate(doc)
    if plan["outcome"] == "converged":
        assert r.exit_code == 0 and doc["recommendation"]["patch"] == {}
        assert doc["recommendation"]["steps"] == len(plan["steps"])
    else:  # nested: the upgrade's Pods stay gated (kubernetes-sigs/kueue#11102); no strategy helps
        assert r.exit_code == 1 and doc["recommendation"] is None
        assert any(x["reason"] == plan["stuck"]["reason"] for x in doc["rejected"])


def test_a_strategy_the_controller_refuses_reads_as_its_plan(cli, tmp_path):
    """A candidate the API server stores and the RayService controller refuses
    (validateRayService: RS025) is planned, and reads as its plan's stuck reason and
    message, the field named once."""
    import yaml

    for name, src in (("new.yaml", RS_NEW), ("old.yaml", RS_OLD)):
        doc = yaml.safe_load(open(src))
        doc["spec"]["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": {"name": "head"}}
        (tmp_path / name).write_text(yaml.safe_dump(doc))
    r = cli("advise", str(tmp_path / "new.yaml"), "--observed", str(tmp_path / "old.yaml"), "-o", "json")
    assert r.exit_code == 1, r.stderr
    [rej] = [x for x in r.json()["rejected"] if x["strategy"] == "NewCluster"]
    plan = cli("plan", str(tmp_path / "new.yaml"), "--observed", str(tmp_path / "old.yaml"), "-o", "json").json()
    assert (rej["reason"], rej["message"]) == (plan["stuck"]["reason"], plan["stuck"]["message"])
    assert rej["reason"] == "ValidationFailed" and rej["message"].count("headService.metadata.name") == 1


def test_a_strategy_whose_serve_service_cannot_be_built_is_planned(cli, tmp_path):
    """RS032 (no head port named 'serve') is a lint error, not a refusal: KubeRay stores
    the RayService, creates the pending cluster and then fails to build the serve Service
    (common/service.go BuildServeService). advise reports that plan, steps and peak
    pods included, as plan does."""
    import yaml

    new = yaml.safe_load(open(RS_NEW))  # the running service (RS_OLD) has its serve port
    head = new["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "http", "containerPort": 8000}]
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    args = (str(tmp_path / "new.yaml"), "--observed", RS_OLD, "-o", "json")
    assert "RS032" in cli("lint", str(tmp_path / "new.yaml")).stdout
    plan = cli("plan", *args).json()
    assert plan["outcome"] == "stuck" and plan["steps"], plan["outcome"]
    doc = cli("advise", *args).json()
    [rej] = [x for x in doc["rejected"] if x["strategy"] == plan["strategy"]]
    assert rej["reason"] == plan["stuck"]["reason"] != "ValidationFailed"
    assert rej["message"] == plan["stuck"]["message"]
    assert rej["candidate"]["steps"] == len(plan["steps"]) == 4
    assert rej["candidate"]["peakPods"] == plan["summary"]["peakPods"] == 8  # the pending cluster beside the old


def test_a_change_that_rolls_nothing_out_is_not_searched(cli, small):
    # the old manifest as the new one: plan has nothing to do, so neither has advise
    _new, old = small
    r = cli("advise", old, "--observed", old, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("advice")).validate(doc)
    assert doc["searched"] == 1 and doc["optimal"] is True
    assert doc["recommendation"]["steps"] == 0 and doc["recommendation"]["patch"] == {}
    assert [w["code"] for w in doc["warnings"]].count("NothingToRollOut") == 1
    text = cli("advise", old, "--observed", old).stdout
    assert "Searched: nothing (the manifest as given rolls nothing out)" in text


def test_a_suspend_is_a_teardown_whatever_the_strategy(cli, tmp_path):
    """spec.suspend: true: handleSuspend deletes every RayCluster and Service whatever the
    upgradeStrategy, so advise answers the manifest as given (exit 0) instead of "no
    candidate meets the constraints" because the service stops serving."""
    doc = yaml.safe_load(open(RS_OLD))
    doc["spec"]["suspend"] = True
    (tmp_path / "suspend.yaml").write_text(yaml.safe_dump(doc))
    r = cli("advise", str(tmp_path / "suspend.yaml"), "--observed", RS_OLD, "-o", "json")
    assert r.exit_code == 0, r.stderr
    out = r.json()
    jsonschema.Draft202012Validator(schema("advice")).validate(out)
    assert out["recommendation"]["patch"] == {} and out["recommendation"]["minReadyPods"] == 0
    assert out["searched"] == 1 and out["rejected"] == []
    (w,) = [w for w in out["warnings"] if w["code"] == "Teardown"]
    assert "handleSuspend" in w["message"]
    text = cli("advise", str(tmp_path / "suspend.yaml"), "--observed", RS_OLD).stdout
    assert "Searched: nothing (the change tears the workload down whatever the strategy)" in text


def test_a_candidate_the_controller_refuses_is_validation_failed_as_in_plan(cli, tmp_path):
    # RS025 is the RayService controller's check (validateRayService): the API server stores
    # the manifest, so advise names it as plan does (stuck ValidationFailed), not "Rejected"
    rs = yaml.safe_load(open(RS_NEW))
    head = rs["spec"]["rayClusterConfig"]["headGroupSpec"]
    head["headService"] = {"metadata": {"name": "my-head"}}
    p = tmp_path / "rs.yaml"
    p.write_text(yaml.safe_dump(rs))
    doc = cli("advise", str(p), "--observed", RS_OLD, "-o", "json").json()
    reasons = {r["reason"] for r in doc["rejected"]}
    assert "ValidationFailed" in reasons and "Rejected" not in reasons
    assert cli("plan", str(p), "--observed", RS_OLD, "-o", "json").json()["stuck"]["reason"] == "ValidationFailed"


def test_a_one_step_candidate_reads_1_step(cli, tmp_path):
    """A replicas-only change of a RayService rolls nothing out: its one step (a status
    write) reads as plan's headline does, "1 step"."""
    doc = yaml.safe_load(open(RS_OLD).read())
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"] += 1
    doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = max(
        doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].get("maxReplicas") or 0,
        doc["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"])
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(doc))
    r = cli("advise", str(new), "--observed", str(RS_OLD))
    assert r.exit_code == 0, r.stderr
    assert ": 1 step, min ready pods" in r.stdout and "1 steps" not in r.stdout


def _start_ready(cli, old) -> int:
    # the observed manifest against itself: a settled cluster, nothing to do, so the plan's
    # least ready count is its start's
    r = cli("plan", old, "--observed", old, "-o", "json")
    assert r.exit_code == 0 and r.json()["outcome"] == "noop", r.stdout
    return r.json()["summary"]["minReadyPods"]


@pytest.mark.parametrize("which", ["grove", "rayservice"])
def test_a_min_ready_above_the_pods_ready_at_the_start_is_not_searched(cli, small, which):
    """No plan keeps more pods ready than it starts with (its least ready count includes its
    start): advise says so at once instead of planning its whole budget of candidates."""
    new, old = small if which == "grove" else (RS_NEW, RS_OLD)
    n = _start_ready(cli, old)
    assert n > 0
    compared = cli("plan", new, "--observed", old, "--compare", "-o", "json")
    rows = compared.json()["rows"]
    assert len(rows) > 1 and all(row["minReadyPods"] <= n for row in rows), rows

    r = cli("advise", new, "--observed", old, "--min-ready", str(n + 1), "-o", "json")
    assert r.exit_code == 1, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("advice")).validate(doc)
    assert doc["recommendation"] is None and doc["searched"] == 1 and doc["frontier"] == []
    assert [w["code"] for w in doc["warnings"]].count("MinReadyAboveStart") == 1
    floor = [x for x in doc["rejected"] if x["reason"] == "MinReadyBreached"]
    assert floor and all(f"ready pods start at {n}, below --min-ready {n + 1}" in x["message"] for x in floor)
    text = cli("advise", new, "--observed", old, "--min-ready", str(n + 1)).stdout
    assert "Searched: nothing (--min-ready is above the pods ready at the start)" in text
    assert f"the {n} pods ready when the rollout starts" in text.replace("\n", " ")

    at = cli("advise", new, "--observed", old, "--min-ready", str(n), "-o", "json").json()
    assert "MinReadyAboveStart" not in [w["code"] for w in at["warnings"]] and at["searched"] > 1


def test_peak_resource_is_what_the_workload_requests(cli, small):
    # given a CPU-only RayService (the bundled sample requests cpu and memory, no GPUs)
    r = cli("advise", RS_NEW, "--observed", RS_OLD, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    # then the answer weighs and shows cpu, not a GPU count that is 0 for every candidate
    assert doc["peakResource"] == "cpu"
    assert doc["recommendation"]["peak"]["cpu"] == "28"
    assert "Peak cpu" in cli("advise", RS_NEW, "--observed", RS_OLD).stdout
    # a GPU workload keeps nvidia.com/gpu, and --capacity names the resource whatever is requested
    new, old = small
    assert cli("advise", new, "--observed", old, "-o", "json").json()["peakResource"] == "nvidia.com/gpu"
    given = cli("advise", RS_NEW, "--observed", RS_OLD, "--capacity", "memory=1Ti", "-o", "json").json()
    assert given["peakResource"] == "memory"


def test_peak_resource_prefers_an_accelerator_then_cpu():
    from rolloutctl.advise import peak_resource

    assert peak_resource({}, {"cpu": "8", "memory": "1Gi", "google.com/tpu": "4"}) == "google.com/tpu"
    assert peak_resource({}, {"cpu": "8", "nvidia.com/gpu": "2", "amd.com/gpu": "2"}) == "nvidia.com/gpu"
    assert peak_resource({}, {"cpu": "8", "nvidia.com/gpu": "0"}) == "cpu"
    assert peak_resource({}, {"memory": "800Mi", "nvidia.com/gpu": "0"}) == "memory"
    assert peak_resource({}, {"ephemeral-storage": "1Gi"}) == "ephemeral-storage"
    assert peak_resource({}, {}) == "nvidia.com/gpu"
    assert peak_resource({"memory": 1}, {"nvidia.com/gpu": "2"}) == "memory"
