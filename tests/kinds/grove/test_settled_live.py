"""A settled live world written the way the operator writes it (``operator_world``,
built by hand from the upstream sources, never from rolloutctl's builders) plans
``noop`` when the same manifest is applied again: every upstream sample the API server
accepts, and generated workloads."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove.model import GroveModel

from tests.kinds.grove.operator_world import settled_world, webhook_defaults
from tests.kinds.grove.upstream_samples import SAMPLES

import yaml


def _samples() -> list[str]:
    return sorted(p.name for p in SAMPLES.glob("*.yaml")) if SAMPLES.exists() else []


def _accepted(manifest: dict) -> bool:
    """The API server's answer: the CRD schema's required ``cliques[].spec.roleName``
    (``grove.io_podcliquesets.yaml``; the samples break no other schema rule), then the
    validating webhook's rules."""
    if any("roleName" not in c.get("spec", {}) for c in manifest["spec"]["template"]["cliques"]):
        return False
    findings = GroveModel().validate(Obj(manifest))
    return not any(f.severity == "error" for f in findings)


def _state_warnings(plan) -> list[str]:
    """Warnings about the workload or the cluster state (the ``NotModelled*`` notes
    say what no plan covers, whatever the state)."""
    return [w.code for w in plan.warnings if not w.code.startswith("NotModelled")]


def _plan(manifest: dict, observed: list[dict]):
    m = GroveModel()
    env = Environment()
    desired = Obj(manifest)
    return simulate(m, desired, m.observe(desired, [Obj(o) for o in observed], env), env)


@pytest.mark.parametrize("name", _samples() or ["workload1.yaml"])
def test_settled_sample_plans_noop(name):
    """Given an upstream sample settled by the operator (all children, status, webhook
    defaults, opaque hash tokens), when the same manifest is planned, then nothing
    happens: no step, no warning about the state."""
    p = SAMPLES / name
    if not p.exists():
        pytest.skip("upstream samples not available")
    manifest = yaml.safe_load(p.read_text())
    if not _accepted(manifest):
        pytest.skip(f"{name} is rejected by the API server")
    plan = _plan(manifest, settled_world(manifest))
    assert plan.outcome == "noop", [(s.title, [(a.verb, a.kind, a.name, a.reason) for a in s.actions])
                                    for s in plan.steps[:3]]
    assert not plan.steps
    assert _state_warnings(plan) == []


def test_rejected_samples_are_the_ones_without_role_name():
    """Only the sample whose clique has no ``roleName`` (required by the CRD) is left out."""
    if not SAMPLES.exists():
        pytest.skip("upstream samples not available")
    rejected = [n for n in _samples() if not _accepted(yaml.safe_load((SAMPLES / n).read_text()))]
    for n in rejected:
        m = yaml.safe_load((SAMPLES / n).read_text())
        assert any("roleName" not in c["spec"] for c in m["spec"]["template"]["cliques"]), n


def test_changed_image_on_the_settled_sample_rolls():
    """The opposite case, so the no-op above cannot come from ignoring the live
    objects: the same settled world with a new image rolls that clique."""
    p = SAMPLES / "workload1.yaml"
    if not p.exists():
        pytest.skip("upstream samples not available")
    manifest = yaml.safe_load(p.read_text())
    new = copy.deepcopy(manifest)
    new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "busybox:v2"
    plan = _plan(new, settled_world(manifest))
    assert plan.outcome == "converged"
    rolled = {a.name.rsplit("-", 1)[0] for s in plan.steps for a in s.actions if a.kind == "Pod" and a.verb == "delete"}
    assert rolled and all(r.startswith("workload1-0-pc-a") for r in rolled)


# ----------------------------------------------------------------------------- generated workloads

_names = st.sampled_from(["fe", "pa", "pb", "dec", "wk", "ld"])


@st.composite
def workloads(draw):
    names = draw(st.lists(_names, min_size=1, max_size=4, unique=True))
    startup = draw(st.sampled_from(["CliqueStartupTypeAnyOrder", "CliqueStartupTypeInOrder",
                                    "CliqueStartupTypeExplicit", None]))
    grouped = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names) - 1)) if len(names) > 1 else []
    cliques = []
    for k, n in enumerate(names):
        reps = draw(st.integers(1, 3))
        spec = {"roleName": f"role-{n}", "replicas": reps,
                "podSpec": {"containers": [{"name": n, "image": f"img/{n}:1",
                                            "resources": {"requests": {"cpu": "100m"}}}]}}
        if draw(st.booleans()):
            spec["minAvailable"] = draw(st.integers(1, reps))
        if startup == "CliqueStartupTypeExplicit" and k > 0 and draw(st.booleans()):
            spec["startsAfter"] = [names[draw(st.integers(0, k - 1))]]
        if n not in grouped and draw(st.integers(0, 3)) == 0:
            spec["autoScalingConfig"] = {"maxReplicas": reps + 2}
        c = {"name": n, "spec": spec}
        if draw(st.booleans()):
            c["labels"] = {"tier": n}
        if draw(st.integers(0, 3)) == 0:
            c["annotations"] = {"grove.io/topology-name": "zone-topology", "note": n}
        cliques.append(c)
    tmpl: dict = {"cliques": cliques}
    if startup:
        tmpl["cliqueStartupType"] = startup
    if grouped:
        reps = draw(st.integers(1, 3))
        g = {"name": "sg", "cliqueNames": grouped, "replicas": reps, "minAvailable": draw(st.integers(1, reps))}
        if draw(st.booleans()):
            g["scaleConfig"] = {"maxReplicas": reps + 2}
        tmpl["podCliqueScalingGroups"] = [g]
    if draw(st.booleans()):
        tmpl["priorityClassName"] = "high"
    spec = {"replicas": draw(st.integers(1, 2)), "template": tmpl}
    if draw(st.booleans()):
        spec["updateStrategy"] = {"type": draw(st.sampled_from(["RollingRecreate", "OnDelete"]))}
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
            "metadata": {"name": "gen", "labels": {"app": "gen"}}, "spec": spec}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_settled_generated_workload_plans_noop(manifest):
    """Property: any accepted workload, settled as the operator leaves it, plans noop."""
    if not _accepted(manifest):
        return
    plan = _plan(manifest, settled_world(manifest))
    assert plan.outcome == "noop", [(s.title, [(a.verb, a.kind, a.name, a.reason) for a in s.actions])
                                    for s in plan.steps[:3]]
    assert _state_warnings(plan) == []


def test_webhook_defaults_of_the_fixture_are_not_the_tool_s():
    """The fixture's defaults are written from the webhook source, not imported."""
    assert webhook_defaults({"metadata": {"name": "x"}, "spec": {"template": {"cliques": [
        {"name": "a", "spec": {"podSpec": {"containers": []}}}]}}})["spec"]["template"]["cliques"][0]["spec"] == \
        {"replicas": 1, "minAvailable": None, "podSpec": {"containers": [], "restartPolicy": "Always",
                                                            "terminationGracePeriodSeconds": 30}}
