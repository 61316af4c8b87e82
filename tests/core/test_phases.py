"""Phases over real kinds: consecutive, covering every step once, counts that add up
to the plan's, titles a person reads (replica phases for Grove, the cluster, traffic
and cleanup phases for KubeRay)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl import app
from rolloutctl.commands import plan as planning
from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import first_step, simulate
from rolloutctl.kinds.grove.model import GroveModel
from tests.conftest import SAMPLES
from tests.core.test_simulate import assert_phases_cover
from tests.kinds.grove.test_properties_update import pcs_and_change


def _plan(paths, observed=(), **kw):
    return planning.plan([str(SAMPLES / p) for p in paths], app.PlanOptions(observed=tuple(str(SAMPLES / o) for o in observed), **kw))[0]


def assert_counts_add_up(p) -> None:
    for verb in ("creates", "deletes", "updates"):
        assert sum(ph.counts[verb] for ph in p.phases) == p.summary[verb]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=pcs_and_change(), strategy=st.sampled_from(["RollingRecreate", "RollingUpdate", "ReplicaRecreate", "OnDelete"]))
def test_grove_phases_cover_every_step_once(case, strategy):
    old, new, _ = case
    new = json.loads(json.dumps(new))
    new["spec"]["updateStrategy"] = {"type": strategy}
    m = GroveModel()
    env = Environment()
    world = m.observe(Obj(new), [Obj(old)], env)
    p = simulate(m, Obj(new), world, env)
    assert_phases_cover(p)
    assert_counts_add_up(p)
    assert all(ph.title for ph in p.phases)


def test_grove_update_has_one_phase_per_replica():
    from bench.workloads import large_pcs, with_image

    old = large_pcs(150)  # 3 replicas
    new = with_image(old, "engine:2")
    m, env = GroveModel(), Environment()
    p = simulate(m, Obj(new), m.observe(Obj(new), [Obj(old)], env), env)
    assert [ph.title.split(":")[0] for ph in p.phases] == ["replica 0", "replica 1", "replica 2"]
    assert all("prefill/0-1, decode/0-1 recreated" in ph.title and "frontend: 10 pods replaced one by one" in ph.title
               for ph in p.phases)
    assert [ph.counts["pods"] for ph in p.phases] == [50, 50, 50]
    assert_phases_cover(p)


def test_kuberay_upgrade_phases():
    p = _plan(["rayservice-text-ml-new-image.yaml"], ["rayservice-text-ml.yaml"])
    titles = [ph.title for ph in p.phases]
    assert titles == ["new RayCluster text-ml-<random> created and its Serve applications deployed",
                      "traffic switched to the new cluster (update 2 Services)",
                      "old RayCluster text-ml-<random> deleted"]
    assert_phases_cover(p)
    assert_counts_add_up(p)


def test_next_has_one_phase_for_its_pass():
    p = _plan(["rayservice-text-ml-new-image.yaml"], ["rayservice-text-ml.yaml"])
    n = first_step(p)
    assert [(ph.first_step, ph.last_step) for ph in n.phases] == [(1, 1)]
    assert n.phases[0].title == p.phases[0].title


def test_every_plan_names_what_it_models():
    grove = _plan(["disaggregated-inference-v2.yaml"], ["disaggregated-inference.yaml"])
    assert [(o.name, o.commit) for o in grove.operators] == [("Grove", "fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24")]
    ray = _plan(["rayservice-text-ml-new-image.yaml"], ["rayservice-text-ml.yaml"])
    (kr,) = ray.operators
    assert kr.name == "KubeRay" and kr.commit.startswith("feeaf72") and "RayServiceIncrementalUpgrade" in kr.feature_gates
    for p in (grove, ray):
        assert "NotModelledDisruptions" in {w.code for w in p.warnings}
        d = p.to_dict()
        assert d["operators"][0]["commit"] and d["phases"]


def test_kueue_plans_name_kueue_too():
    p = planning.plan([str(SAMPLES / "kueue-rayservice-new-image.yaml")],
                      app.PlanOptions(observed=(str(SAMPLES / "kueue-rayservice.yaml"), str(SAMPLES / "kueue-queues.yaml")),
                                      model_options={"kueue": "nested"}))[0]
    assert [o.name for o in p.operators] == ["KubeRay", "Kueue"]
    assert "NotModelledQueueNeighbours" in {w.code for w in p.warnings}


def test_autoscaling_and_priority_are_named_as_not_modelled(tmp_path):
    import yaml

    docs = list(yaml.safe_load_all((SAMPLES / "disaggregated-inference.yaml").read_text()))
    pcs = next(d for d in docs if d and d.get("kind") == "PodCliqueSet")
    c = pcs["spec"]["template"]["cliques"][0]
    c["spec"]["autoScalingConfig"] = {"maxReplicas": 8}
    f = tmp_path / "pcs.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    p = planning.plan([str(f)], app.PlanOptions())[0]
    w = {x.code: x for x in p.warnings}
    assert "NotModelledAutoscaler" in w and c["name"] in w["NotModelledAutoscaler"].message


def test_scheduling_gates_a_manifest_writes_are_named_as_not_modelled(tmp_path):
    """kube-scheduler holds a Pod with any schedulingGates until something removes them;
    neither operator removes a gate the manifest writes (KubeRay copies the template,
    Grove lifts only grove.io/podgang-pending-creation), so a plan that lets those Pods
    run says it assumes another controller ungates them."""
    import yaml

    docs = list(yaml.safe_load_all((SAMPLES / "disaggregated-inference.yaml").read_text()))
    pcs = next(d for d in docs if d and d.get("kind") == "PodCliqueSet")
    c = pcs["spec"]["template"]["cliques"][-1]
    c["spec"]["podSpec"]["schedulingGates"] = [{"name": "example.com/cost-estimate"}]
    f = tmp_path / "pcs.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    w = {x.code: x for x in planning.plan([str(f)], app.PlanOptions())[0].warnings}
    assert "example.com/cost-estimate" in w["NotModelledSchedulingGates"].message
    assert w["NotModelledSchedulingGates"].path == f"spec.template.cliques[name={c['name']}].spec.podSpec.schedulingGates"

    rs = yaml.safe_load((SAMPLES / "rayservice-text-ml.yaml").read_text())
    group = rs["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    group["template"]["spec"]["schedulingGates"] = [{"name": "example.com/cost-estimate"}]
    g = tmp_path / "rs.yaml"
    g.write_text(yaml.safe_dump(rs))
    w = {x.code: x for x in planning.plan([str(g)], app.PlanOptions())[0].warnings}
    assert f"worker group {group['groupName']}" in w["NotModelledSchedulingGates"].message
    assert w["NotModelledSchedulingGates"].path.startswith(
        f"spec.rayClusterConfig.workerGroupSpecs[groupName={group['groupName']}]")
    # the samples as they are write no gates, and get no such warning
    plain = planning.plan([str(SAMPLES / "rayservice-text-ml.yaml"), str(SAMPLES / "disaggregated-inference.yaml")],
                          app.PlanOptions())
    assert not any(x.code == "NotModelledSchedulingGates" for p in plain for x in p.warnings)


def test_topology_constraints_name_the_topology_aware_scheduling_they_assume(tmp_path):
    """Grove's chart runs with topologyAwareScheduling.enabled false, and then its webhook
    refuses a new PodCliqueSet with any topology constraint
    (topologyconstraints.go disallowConstraintsForCreateWhenTASIsDisabled); the model
    assumes it enabled and places pods by capacity only, and the plan says so."""
    import yaml

    docs = list(yaml.safe_load_all((SAMPLES / "disaggregated-inference.yaml").read_text()))
    pcs = next(d for d in docs if d and d.get("kind") == "PodCliqueSet")
    c = pcs["spec"]["template"]["cliques"][0]
    c["topologyConstraint"] = {"topologyName": "grove-topology", "pack": {"required": "host"}}
    f = tmp_path / "pcs.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    p = planning.plan([str(f)], app.PlanOptions())[0]
    assert p.outcome == "converged"
    w = {x.code: x for x in p.warnings}
    assert f"PodClique {c['name']}" in w["NotModelledTopology"].message
    assert "topologyAwareScheduling.enabled" in w["NotModelledTopology"].message
    assert w["NotModelledTopology"].path == f"spec.template.cliques[name={c['name']}].topologyConstraint"
    plain = planning.plan([str(SAMPLES / "disaggregated-inference.yaml")], app.PlanOptions())[0]
    assert not any(x.code == "NotModelledTopology" for x in plain.warnings)
