"""The scheduler backend's own validation of a PodCliqueSet, which the webhook runs on
create and update for the backend the first clique names (``handler.go``
``validatePodCliqueSetWithBackend``): KAI needs exactly one queue (GV029), Volcano and LPX
refuse topology constraints (GV030, GV032), Volcano's queue annotations must agree
(GV031); a scheduler name no Grove backend exists for is refused (GV009). Cases mirror
upstream's ``kai/backend_test.go`` ``TestBackend_ValidatePodCliqueSetQueues``,
``lpx/backend_test.go`` and ``volcano/queue_test.go``."""

from __future__ import annotations

import pytest
import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove import admission
from tests.conftest import write
from tests.lint.cases import clique, pcs

KAI = "schedulerName: kai-scheduler"
VOLCANO = "schedulerName: volcano"
LPX = "schedulerName: lpx-scheduler"
TC = "topologyConstraint: {topologyName: ta, pack: {required: rack}}"
VQ = "scheduling.grove.io/volcano-queue"


def _findings(text: str, old: str | None = None, rule: str | None = None):
    found = admission.validate(Obj(yaml.safe_load(text), "m.yaml", 1),
                               Obj(yaml.safe_load(old), "old.yaml", 1) if old else None)
    return [f for f in found if rule is None or f.rule == rule]


def _kai_clique(name: str, queue: str = "", where: str = "labels") -> str:
    return clique(name, pod=KAI, top=f"{where}: {{kai.scheduler/queue: {queue}}}" if queue else "")


@pytest.mark.parametrize("pcs_queue,cliques,want", [
    # TestBackend_ValidatePodCliqueSetQueues (kai/backend_test.go)
    ("team-a", [("worker", "team-a")], None),
    ("team-a", [("worker", "")], None),
    ("", [("worker-a", "team-a"), ("worker-b", "team-a")], None),
    ("team-a", [("worker", "team-b")], "is 'team-a' but PodClique template 'worker' resolves to 'team-b'"),
    ("", [("worker-a", "team-a"), ("worker-b", "team-b")], "conflicting KAI queues"),
    ("", [("worker", "")], "no KAI queue is configured on PodCliqueSet default/inf"),
    # a queue on one clique is enough when the PodCliqueSet has none
    ("", [("leader", ""), ("worker", "team-a")], None),
])
def test_kai_queue_resolution(pcs_queue, cliques, want):
    meta = f"labels: {{kai.scheduler/queue: {pcs_queue}}}" if pcs_queue else ""
    found = _findings(pcs("".join(_kai_clique(n, q) for n, q in cliques), meta=meta), rule="GV029")
    if want is None:
        assert found == []
    else:
        (f,) = found
        assert want in f.message and f.severity == "error"


def test_kai_queue_label_wins_over_annotation_and_annotation_is_the_fallback():
    # labels override annotations: the clique's label agrees with the PodCliqueSet's, its annotation does not
    both = (clique("worker", pod=KAI, top="labels: {kai.scheduler/queue: team-a}\n"
                                         "annotations: {kai.scheduler/queue: team-b}"))
    assert _findings(pcs(both, meta="labels: {kai.scheduler/queue: team-a}"), rule="GV029") == []
    # annotations are used when labels are absent
    ann = _kai_clique("worker", "team-a", where="annotations")
    assert _findings(pcs(ann, meta="annotations: {kai.scheduler/queue: team-a}"), rule="GV029") == []
    (f,) = _findings(pcs(_kai_clique("worker", "team-b", where="annotations"),
                         meta="annotations: {kai.scheduler/queue: team-a}"), rule="GV029")
    assert f.path == "spec.template.cliques[name=worker].annotations.kai.scheduler/queue"


def test_backend_is_the_first_cliques_scheduler():
    """Only the backend the cliques name checks anything: a KAI queue rule does not touch
    a default-scheduler PodCliqueSet, and topology is fine outside Volcano and LPX."""
    assert _findings(pcs(clique("worker")), rule="GV029") == []
    assert _findings(pcs(clique("worker", pod="schedulerName: default-scheduler", top=TC))) == []
    assert _findings(pcs(clique("worker", pod=KAI, top=TC), meta="labels: {kai.scheduler/queue: a}")) == []


@pytest.mark.parametrize("sched,rule", [(VOLCANO, "GV030"), (LPX, "GV032")])
@pytest.mark.parametrize("where", ["pcs", "clique", "group"])
def test_volcano_and_lpx_refuse_topology_constraints(sched, rule, where):
    # lpx/backend_test.go: PodCliqueSet, PodClique and PodCliqueScalingGroup topology constraint
    text = pcs(clique("leader", pod=sched) + clique("worker", pod=sched, top=TC if where == "clique" else ""),
               template=TC if where == "pcs" else "",
               groups="- {name: sg, cliqueNames: [worker]" + (f", {TC}" if where == "group" else "") + "}")
    (f,) = _findings(text)
    assert f.rule == rule and f.severity == "error"
    assert f.path.endswith("topologyConstraint")
    assert _findings(text.replace(sched, "schedulerName: default-scheduler")) == []


def test_volcano_reports_the_first_topology_constraint_and_then_stops():
    text = pcs(clique("leader", pod=VOLCANO, top=TC + f"\nannotations: {{{VQ}: Bad_Name}}")
               + clique("worker", pod=VOLCANO, top=TC), template=TC)
    (f,) = _findings(text)
    assert f.rule == "GV030" and f.path == "spec.template.topologyConstraint"
    assert f.message.endswith("on PodCliqueSet")


@pytest.mark.parametrize("pcs_q,qs,want", [
    ("", ["", ""], None),                      # both unset: default
    ("team-a", ["", ""], None),                # global only
    ("", ["team-a", "team-a"], None),          # clique only, the same everywhere
    ("team-a", ["team-a", ""], None),          # both the same
    ("team-a", ["team-b", ""], "conflicting volcano queue annotations: PodCliqueSet has 'team-a', PodClique has 'team-b'"),
    # one clique names a queue, the other falls back to default
    ("", ["team-a", ""], "must resolve to the same queue (found 'team-a' and 'default')"),
    ("", ["Team_A", "Team_A"], "RFC 1123"),
    ("Team_A", ["team-b", ""], "RFC 1123"),    # an invalid PodCliqueSet queue is the only error
])
def test_volcano_queue_annotations(pcs_q, qs, want):
    cl = "".join(clique(n, pod=VOLCANO, top=f"annotations: {{{VQ}: {q}}}" if q else "")
                 for n, q in zip(("leader", "worker"), qs))
    found = _findings(pcs(cl, meta=f"annotations: {{{VQ}: {pcs_q}}}" if pcs_q else ""), rule="GV031")
    if want is None:
        assert found == []
        return
    # one error per clique in the aggregate; an invalid PodCliqueSet queue alone
    assert len(found) == (2 if qs == ["Team_A", "Team_A"] else 1)
    assert all(want in f.message for f in found)


def test_unknown_scheduler_name_is_refused_known_ones_are_assumed_enabled():
    (f,) = _findings(pcs(clique("worker", pod="schedulerName: my-scheduler")), rule="GV009")
    assert "'my-scheduler'" in f.message and "enabled" in f.message
    for name in ("default-scheduler", "volcano", "lpx-scheduler"):
        assert _findings(pcs(clique("worker", pod=f"schedulerName: {name}"))) == []


def test_backend_errors_on_update_also_skip_the_validators_update_rules():
    """``Handler.ValidateUpdate`` returns the backend's error before ``validateUpdate``:
    an immutable-field change in the same update is not reported."""
    live = pcs(clique("worker", pod=KAI, replicas=2), meta="labels: {kai.scheduler/queue: a}")
    new = pcs(clique("worker", pod=KAI, replicas=2, spec="minAvailable: 1"))  # queue label dropped too
    assert {f.rule for f in _findings(new, live)} == {"GV029"}
    assert {f.rule for f in _findings(new.replace("metadata:\n", "metadata:\n  labels: {kai.scheduler/queue: a}\n"),
                                      live)} == {"GV102"}


def test_mnnvl_errors_on_update_skip_the_validators_update_rules():
    """The same holds for the MNNVL immutability errors (``ValidateUpdate`` appends them
    to the validator's before deciding whether ``validateUpdate`` runs)."""
    live = pcs(clique("worker", replicas=2))
    new = pcs(clique("worker", replicas=2, spec="minAvailable: 1", top="annotations: {grove.io/mnnvl-group: none}"))
    assert {f.rule for f in _findings(new, live)} == {"GV106"}


def test_lint_and_plan_refuse_a_kai_podcliqueset_without_a_queue(cli, tmp_path):
    bad = write(tmp_path, "kai.yaml", pcs(clique("leader", pod=KAI) + clique("worker", pod=KAI)))
    r = cli("lint", bad)
    assert r.exit_code == 1
    assert f"{bad}:3: GV029 [error] metadata: no KAI queue is configured on PodCliqueSet default/inf" in r.stdout
    p = cli("plan", bad)
    assert p.exit_code == 2 and "GV029" in p.stderr and "the operator would reject this manifest" in p.stderr
    good = write(tmp_path, "kai-ok.yaml", pcs(clique("leader", pod=KAI) + clique("worker", pod=KAI),
                                              meta="labels: {kai.scheduler/queue: team-a}"))
    assert cli("lint", good).exit_code == 0
    assert cli("plan", good, "-o", "json").json()["outcome"] == "converged"


def test_plan_on_an_update_refuses_a_volcano_topology_constraint(cli, tmp_path):
    live = write(tmp_path, "live.yaml", pcs(clique("worker", pod=VOLCANO)))
    new = write(tmp_path, "new.yaml", pcs(clique("worker", pod=VOLCANO, top=TC)))
    r = cli("plan", new, "--observed", live)
    assert r.exit_code == 2 and "GV030" in r.stderr and "does not support topologyConstraint on PodClique 'worker'" in r.stderr
