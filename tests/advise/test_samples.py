"""``advise`` on the bundled samples at three capacities (unlimited, tight, too small):
the recommended patch, applied to the manifest and planned again with ``plan``, meets
the constraints and gives the numbers the advice promised."""

from __future__ import annotations

import pytest

from rolloutctl.core.quantity import parse_quantity
from tests.advise.helpers import PCS_NEW, PCS_OLD, RS_NEW, RS_OLD, advise, gpus, patched, replan

# the Grove sample runs 40 GPUs; the RayService sample 14 CPUs per cluster
CASES = [
    ("grove-unlimited", PCS_NEW, PCS_OLD, (), None),
    ("grove-tight", PCS_NEW, PCS_OLD, ("nvidia.com/gpu=44",), None),
    ("grove-tight-min-ready", PCS_NEW, PCS_OLD, ("nvidia.com/gpu=48",), "75%"),
    ("ray-unlimited", RS_NEW, RS_OLD, (), None),
    ("ray-tight", RS_NEW, RS_OLD, ("cpu=28",), None),
]


def _fits(plan, capacity) -> bool:
    for item in capacity:
        res, _, qty = item.partition("=")
        if parse_quantity(plan.summary["peak"].get(res, "0")) > parse_quantity(qty):
            return False
    return True


@pytest.mark.parametrize("name,new,old,capacity,min_ready", CASES, ids=[c[0] for c in CASES])
def test_recommendation_replanned_meets_the_constraints(tmp_path, name, new, old, capacity, min_ready):
    a = advise(new, old, capacity=capacity, min_ready=min_ready)
    r = a.recommendation
    assert r is not None, a.rejected
    plan, watch, final = replan(patched(new, dict(r.patch), tmp_path), old, capacity)
    assert plan.outcome in ("converged", "noop"), plan.stuck
    assert plan.strategy == r.strategy
    assert _fits(plan, capacity)
    if a.min_ready_pods is None:
        assert not watch.breached, "the kind's default floor is broken by the recommended plan"
    else:
        assert plan.summary["minReadyPods"] >= a.min_ready_pods
    # the advice describes exactly the plan a user gets
    assert (plan.summary["steps"], plan.summary["minReadyPods"], plan.summary["peakPods"]) == \
        (r.steps, r.min_ready_pods, r.peak_pods)
    assert dict(plan.summary["peak"]) == dict(r.peak)
    # and it is no worse than the manifest as given, where that meets the constraints
    if a.current is not None and a.current.feasible:
        assert r.steps <= a.current.steps
    for c in a.frontier:
        assert c.feasible


def test_grove_too_small_capacity_has_no_recommendation_and_says_why():
    a = advise(PCS_NEW, PCS_OLD, capacity=("nvidia.com/gpu=20",))
    assert a.recommendation is None and a.frontier == ()
    reasons = {r.strategy: r.reason for r in a.rejected}
    assert set(reasons) == {"RollingRecreate", "RollingUpdate", "ReplicaRecreate"}
    assert set(reasons.values()) <= {"InsufficientCapacity", "MinReadyBreached"}
    assert "InsufficientCapacity" in reasons.values()
    assert all(r.message for r in a.rejected)


def test_ray_too_small_capacity_has_no_recommendation_and_says_why():
    a = advise(RS_NEW, RS_OLD, capacity=("cpu=20",))
    assert a.recommendation is None
    reasons = {r.strategy: r.reason for r in a.rejected}
    assert reasons["NewCluster"] == "InsufficientCapacity"
    # the sample has no autoscaler: the incremental upgrade is reported unusable, not guessed
    assert reasons["NewClusterWithIncrementalUpgrade"] == "AutoscalingRequired"
    # None would leave the old image running
    assert reasons["None"] == "NotRolledOut"


def test_none_is_never_recommended_for_a_change_it_does_not_roll_out():
    a = advise(RS_NEW, RS_OLD)
    assert a.recommendation is not None and a.recommendation.strategy == "NewCluster"
    assert all(c.strategy != "None" for c in a.frontier)


def test_the_manifest_as_given_is_recommended_without_a_patch_when_nothing_beats_it(cli):
    """The sample already gets NewCluster (the default): advise says to keep it, not to
    add ``upgradeStrategy.type: NewCluster``, which changes nothing (found on real
    blueprints, all of which got that patch)."""
    a = advise(RS_NEW, RS_OLD)
    assert a.recommendation == a.current and dict(a.recommendation.patch) == {}
    assert a.frontier[0].patch == {}
    r = cli("advise", RS_NEW, "--observed", RS_OLD, "--no-color")
    assert r.exit_code == 0 and "No patch: the manifest as given is already the best candidate." in r.stdout
    assert "upgradeStrategy" not in r.stdout.split("As is")[0]


def test_none_is_a_candidate_when_the_change_needs_no_new_cluster(tmp_path):
    """A Serve-config-only change reaches the running cluster under every strategy;
    None ties with NewCluster on every metric and loses on the simplest manifest."""
    import yaml
    raw = yaml.safe_load(open(RS_OLD).read())
    raw["spec"]["serveConfigV2"] = raw["spec"]["serveConfigV2"].replace("num_replicas: 2", "num_replicas: 3")
    new = tmp_path / "serve.yaml"
    new.write_text(yaml.safe_dump(raw))
    a = advise(str(new), RS_OLD)
    assert a.recommendation is not None
    strategies = {c.strategy for c in a.frontier} | {a.recommendation.strategy}
    assert "None" not in {r.strategy for r in a.rejected}
    assert a.recommendation.strategy == "NewCluster"  # fewer fields than type: None
    assert strategies <= {"NewCluster", "None"}


def test_no_proposed_keeps_to_the_operator_strategies():
    a = advise(PCS_NEW, PCS_OLD, proposed=False)
    assert a.recommendation is not None and a.recommendation.strategy == "RollingRecreate"
    assert not a.recommendation.proposed
    assert all(not c.proposed for c in a.frontier) and all(g.strategy == "RollingRecreate" for g in a.grid)


def test_proposed_recommendation_is_marked(tmp_path):
    a = advise(PCS_NEW, PCS_OLD)
    r = a.recommendation
    assert r is not None
    if r.proposed:
        assert any(w.code == "ProposedStrategy" for w in a.warnings)
    assert gpus(r) <= 80


def test_upstream_incremental_sample_fastest_safe_upgrade(upstream, tmp_path):
    """KubeRay's own incremental-upgrade sample with a new Ray image: ``--minimize time``
    over NewCluster and the incremental options; the recommendation re-planned keeps
    the service serving and takes the promised time."""
    import yaml

    src = upstream / "kuberay" / "samples" / "ray-service.incremental-upgrade.yaml"
    if not src.exists():
        pytest.skip("upstream incremental-upgrade sample not available")
    raw = yaml.safe_load(src.read_text())
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump(raw))
    text = yaml.safe_dump(raw)
    new = tmp_path / "new.yaml"
    new.write_text(text.replace("rayproject/ray:2.51.0", "rayproject/ray:2.52.0"))
    assert new.read_text() != text
    a = advise(str(new), str(old), objective="time")
    r = a.recommendation
    assert r is not None and r.time is not None
    assert a.current is not None and a.current.time is not None and r.time <= a.current.time
    assert "NewClusterWithIncrementalUpgrade" in {g.strategy for g in a.grid}
    plan, watch, _ = replan(patched(str(new), dict(r.patch), tmp_path), str(old))
    assert plan.outcome == "converged" and not watch.breached
    assert plan.steps[-1].time == r.time and plan.summary["steps"] == r.steps


def test_an_ondelete_manifest_is_not_the_advice_for_a_change_it_never_rolls_out(cli, tmp_path):
    """Under OnDelete the pods keep the old template until deleted (GREP-291): the
    manifest as given does not roll the change out, so advise recommends a strategy
    that does (docs/advise.md: "the change is rolled out")."""
    import yaml

    from tests.conftest import SAMPLES

    old = yaml.safe_load((SAMPLES / "disaggregated-inference.yaml").read_text())
    old["spec"]["updateStrategy"] = {"type": "OnDelete"}
    new = yaml.safe_load(yaml.safe_dump(old))
    for c in new["spec"]["template"]["cliques"]:
        c["spec"]["podSpec"]["containers"][0]["image"] += "-v2"
    nf, of = tmp_path / "new.yaml", tmp_path / "old.yaml"
    nf.write_text(yaml.safe_dump(new))
    of.write_text(yaml.safe_dump(old))
    d = cli("advise", str(nf), "--observed", str(of), "-o", "json").json()
    assert d["recommendation"] is not None and d["recommendation"]["strategy"] != "OnDelete", d["recommendation"]
    assert d["recommendation"]["patch"]["spec"]["updateStrategy"]["type"] != "OnDelete"
