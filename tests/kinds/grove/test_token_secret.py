"""The token Secret's component (``satokensecret.go`` ``Sync``) creates the Secret and
returns ``newWaitingForTokenError`` (``ErrCodeRequeueAfter``), and does so while the
Secret has no token: ``syncKindGroup`` stops the PodCliqueSet reconcile after the first
component group. A new PodCliqueSet's first reconcile therefore creates only the
ServiceAccount, Role, RoleBinding, Secret and headless Services; the PodCliques, scaling
groups and PodGangs come in the reconcile after the token controller has written the
token. A Secret observed in a live snapshot has its token (or is taken to)."""

from __future__ import annotations

from pathlib import Path

import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove.model import GroveModel

from tests.kinds.grove.operator_world import settled_world
from tests.kinds.grove.test_finished_pods import SMALL

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "disaggregated-inference.yaml"


def _plan(manifest: dict, observed: list[dict] = ()):
    m, env = GroveModel(), Environment()
    d = Obj(manifest)
    return simulate(m, d, m.observe(d, [Obj(o) for o in observed], env), env)


def test_the_first_reconcile_of_a_new_podcliqueset_stops_after_the_token_secret():
    p = _plan(yaml.safe_load(SAMPLE.read_text()))
    first, second = p.steps[0], p.steps[1]
    assert {a.kind for a in first.actions if a.verb == "create"} == {
        "ServiceAccount", "Role", "RoleBinding", "Secret", "Service"}
    assert any("token" in w for w in first.wait_for)
    assert {a.kind for a in second.actions if a.verb == "create"} >= {
        "PodClique", "PodCliqueScalingGroup", "PodGang", "Pod"}
    assert p.outcome == "converged"


def test_next_of_a_new_podcliqueset_shows_only_the_first_group():
    p = _plan(yaml.safe_load(SAMPLE.read_text()))
    assert not any(a.kind in ("PodClique", "Pod", "PodGang") for a in p.first_pass.actions)


def test_a_live_secret_without_its_data_is_taken_as_having_its_token():
    """A snapshot that leaves Secret data out (or a Secret --from-cluster may not read):
    the rollout is not held back by a token wait."""
    manifest = yaml.safe_load(SMALL)
    objs = settled_world(manifest)
    for o in objs:
        if o["kind"] == "Secret":
            o.pop("data", None)
    assert any(o["kind"] == "Secret" for o in objs)
    new = yaml.safe_load(SMALL)
    new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "busybox:2"
    p = _plan(new, objs)
    assert p.outcome == "converged"
    assert not any("token" in w for s in p.steps for w in s.wait_for)
    assert any(a.kind == "Pod" and a.verb == "delete" for a in p.steps[0].actions)
