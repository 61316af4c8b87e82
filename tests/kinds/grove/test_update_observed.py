"""Observed live objects (``kubectl get pcs,pclq,pcsg,pods,podgangs -o yaml``) with
opaque upstream hash tokens, settled or mid-rollout: the plan continues from where the
cluster is. Mirrors the states the upstream e2e helpers wait on
(``operator/e2e/tests/update/utils.go`` ``waitForRollingUpdateComplete``)."""

from __future__ import annotations

import copy
import json

import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove.model import GroveModel

from tests.conftest import SAMPLES
from tests.kinds.grove.upstream_samples import with_image, workload1


def as_live(world, pcs_raw: dict) -> list[Obj]:
    """What kubectl would print for a simulated world: our digests replaced by
    Go-looking tokens, pod names with random-looking suffixes, the live PCS with its
    spec and status."""
    text = json.dumps([o.raw for o in world if o.kind != "PodCliqueSet"])
    import re
    text = re.sub(r'"r([0-9a-f]{10})"', lambda m: '"' + str(int(m.group(1), 16) % 10**9) + 'x"', text)
    text = re.sub(r'"(~sim-\d+)"', '"2026-09-01T10:00:00Z"', text)
    objs = [Obj(r) for r in json.loads(text)]
    live = world.get("PodCliqueSet", "default", pcs_raw["metadata"]["name"])
    st = json.loads(re.sub(r'"r([0-9a-f]{10})"', lambda m: '"' + str(int(m.group(1), 16) % 10**9) + 'x"',
                           json.dumps(dict(live.status))))
    top = copy.deepcopy(pcs_raw)
    top["status"] = st
    return objs + [Obj(top)]


def test_live_settled_cluster_with_opaque_hashes_plans_like_the_previous_manifest():
    """Given the live objects of a settled WL1 (hash labels are upstream tokens), when
    pc-a's image changes, then the plan is the same as from the previous manifest."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    model = GroveModel()
    w_prev = model.observe(Obj(new), [Obj(old)], Environment())
    p_prev, _ = run(model, Obj(new), w_prev, Environment())
    _p, settled = run(GroveModel(), Obj(old), GroveModel().observe(Obj(old), [], Environment()), Environment())
    live = as_live(settled, old)
    assert not any(o.labels.get("grove.io/pod-template-hash", "").startswith("r") for o in live)
    w_live = GroveModel().observe(Obj(new), live, Environment())
    p_live, _ = run(GroveModel(), Obj(new), w_live, Environment())
    assert p_live.outcome == "converged"
    assert [(a.verb, a.kind, a.index) for s in p_live.steps for a in s.actions if a.verb == "delete"] == \
        [(a.verb, a.kind, a.index) for s in p_prev.steps for a in s.actions if a.verb == "delete"]


def test_live_cluster_with_unchanged_spec_is_a_noop():
    """Applying the same manifest again to a settled cluster does nothing."""
    old = workload1()
    _p, settled = run(GroveModel(), Obj(old), GroveModel().observe(Obj(old), [], Environment()), Environment())
    live = as_live(settled, old)
    p, _ = run(GroveModel(), Obj(old), GroveModel().observe(Obj(old), live, Environment()), Environment())
    assert p.outcome == "noop"
    assert not p.steps


def test_mid_rollout_live_state_continues_where_it_is():
    """Given a cluster in the middle of a pc-a rollout (one pod replaced, the second
    not yet), when the same manifest is planned, then only the remaining old pod is
    replaced and no update restarts."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    model = GroveModel()
    world = model.observe(Obj(new), [Obj(old)], Environment())
    deleted = 0
    while deleted < 1 or any(o.kind == "Pod" and o.terminating for o in world) or \
            len([o for o in world if o.kind == "Pod"]) < 10:
        acts = model.reconcile(Obj(new), world)
        deleted += sum(1 for a in acts if a.verb == "delete")
        world = model.advance(Obj(new), world.apply(acts), Environment()).world
    live = as_live(world, new)
    p, _ = run(GroveModel(), Obj(new), GroveModel().observe(Obj(new), live, Environment()), Environment())
    assert p.outcome == "converged"
    dels = [a for s in p.steps for a in s.actions if a.verb == "delete"]
    assert len(dels) == 1 and dels[0].kind == "Pod"
    assert "RolloutRestarts" not in {w.code for w in p.warnings}
    assert not any("update starts" in s.title for s in p.steps)


def test_live_children_without_the_podcliqueset_still_detect_the_change():
    """Only children were captured: a changed clique is still detected from the
    PodClique spec and rolled."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    _p, settled = run(GroveModel(), Obj(old), GroveModel().observe(Obj(old), [], Environment()), Environment())
    live = [o for o in as_live(settled, old) if o.kind != "PodCliqueSet"]
    p, _ = run(GroveModel(), Obj(new), GroveModel().observe(Obj(new), live, Environment()), Environment())
    assert p.outcome == "converged"
    assert len([a for s in p.steps for a in s.actions if a.verb == "delete" and a.kind == "Pod"]) == 2


def test_ready_pod_with_past_crash_is_deleted_at_once_and_warned():
    """Issue #697: an old Ready pod whose container once exited non-zero is classed
    unhealthy and deleted in the same pass as the first Ready pod."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    _p, settled = run(GroveModel(), Obj(old), GroveModel().observe(Obj(old), [], Environment()), Environment())
    live = as_live(settled, old)
    pods = [o for o in live if o.kind == "Pod" and o.name.startswith("workload1-0-pc-a-")]
    crashed = max(pods, key=lambda p: p.name)
    raw = copy.deepcopy(dict(crashed.raw))
    raw["status"]["containerStatuses"] = [{"name": "pc-a", "ready": True, "started": True,
                                           "lastState": {"terminated": {"exitCode": 137}}}]
    live = [Obj(raw) if o is crashed else o for o in live]
    p, _ = run(GroveModel(), Obj(new), GroveModel().observe(Obj(new), live, Environment()), Environment())
    first = [a for a in p.steps[0].actions if a.verb == "delete"]
    assert len(first) == 2
    assert any("#697" in a.reason for a in first)
    assert "ReadyPodDeletedAtOnce" in {w.code for w in p.warnings}


def test_update_ends_before_ready_is_warned_for_an_old_pod_that_is_not_ready():
    """Issue #786: old pods that are not Ready (or counted unhealthy) are deleted by
    deleteOldNonReadyPods, outside the one-at-a-time selection whose end waits for the
    replacement (isCurrentPodUpdateComplete); the warning names them. A world whose old
    pods are all Ready does not get it."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    _p, settled = run(GroveModel(), Obj(old), GroveModel().observe(Obj(old), [], Environment()), Environment())
    live = as_live(settled, old)
    p, _ = run(GroveModel(), Obj(new), GroveModel().observe(Obj(new), live, Environment()), Environment())
    assert "UpdateEndsBeforeReady" not in {w.code for w in p.warnings}
    pods = [o for o in live if o.kind == "Pod" and o.name.startswith("workload1-0-pc-a-")]
    starting = max(pods, key=lambda p: p.name)
    raw = copy.deepcopy(dict(starting.raw))
    raw["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    raw["status"]["containerStatuses"] = [{"name": "pc-a", "ready": False, "started": True}]
    live = [Obj(raw) if o is starting else o for o in live]
    p, _ = run(GroveModel(), Obj(new), GroveModel().observe(Obj(new), live, Environment()), Environment())
    w = [w for w in p.warnings if w.code == "UpdateEndsBeforeReady"]
    assert len(w) == 1 and starting.name in w[0].message


def _frontend_mid_rollout() -> tuple[dict, dict, list[Obj]]:
    """The bundled sample with 2 replicas and a frontend of 3 pods (minAvailable 1),
    A -> B (frontend image) stopped after replica 0's first frontend pod was replaced
    (Ready), as kubectl prints it: (A, B, live objects)."""
    a = yaml.safe_load((SAMPLES / "disaggregated-inference.yaml").read_text())
    a["metadata"]["namespace"] = "default"
    a["spec"]["replicas"] = 2
    fe = a["spec"]["template"]["cliques"][0]
    fe["spec"].update(replicas=3, minAvailable=1)
    b = copy.deepcopy(a)
    b["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "frontend:2"
    p, mid = run(GroveModel(), Obj(b), GroveModel().observe(Obj(b), [Obj(a)], Environment()), Environment(max_steps=3))
    assert [s.title for s in p.steps][-2:] == ["update 1 PodGang; create 1 Pod", "update 1 PodGang"]
    return a, b, as_live(mid, b)


def _plan_codes(cli, tmp_path, desired: dict, live: list[Obj]) -> dict[str, list[str]]:
    d = tmp_path / "desired.yaml"
    d.write_text(yaml.safe_dump(desired))
    o = tmp_path / "live.yaml"
    o.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [dict(x.raw) for x in live]}))
    r = cli("plan", str(d), "--observed", str(o), "-o", "json")
    assert r.exit_code == 0, r.stderr
    out: dict[str, list[str]] = {}
    for w in r.json()["warnings"]:
        out.setdefault(w["code"], []).append(w["message"])
    return out


def test_update_ends_before_ready_is_warned_when_ready_pods_already_on_the_target_are_counted(cli, tmp_path):
    """isCurrentPodUpdateComplete counts every Ready pod on the desired template
    (computeUpdateWork: newTemplateHashReadyPods) against the pods selected so far. A
    change of another clique restarts the update (initOrResetUpdate: the selection is
    cleared) while replica 0 already has a Ready frontend pod on the desired template, so
    each selected pod's update counts as complete as soon as it is terminating, and the
    update ends before the last replacement is Ready. Continuing the same update (the
    selection recorded in the PodClique's status) is not warned."""
    _a, b, live = _frontend_mid_rollout()
    c = copy.deepcopy(b)
    next(q for q in c["spec"]["template"]["cliques"] if q["name"] == "pleader")["spec"]["podSpec"]["containers"][0][
        "image"] = "pleader:2"
    codes = _plan_codes(cli, tmp_path, c, live)
    [msg] = codes["UpdateEndsBeforeReady"]
    assert msg.startswith("clique frontend: pod llm-0-frontend-0") and "already runs the desired template" in msg
    assert "UpdateEndsBeforeReady" not in _plan_codes(cli, tmp_path, b, live)


def test_a_revert_the_live_objects_cannot_show_is_warned(cli, tmp_path):
    """Reverting A -> B mid-rollout: the pods still on A carry the hash the desired
    template has, so upstream keeps them (computeUpdateWork) and counts them
    (isCurrentPodUpdateComplete); no observed PodClique carries A any more (every
    standalone PodClique is patched to B at once), so the plan cannot tell A's token from
    another template's and replaces them. RevertNotRecognized names them; continuing
    to B does not get it."""
    a, b, live = _frontend_mid_rollout()
    codes = _plan_codes(cli, tmp_path, a, live)
    [msg] = codes["RevertNotRecognized"]
    assert msg.startswith("clique frontend: pods llm-0-frontend-1") and "llm-1-frontend-0" in msg
    assert "RevertNotRecognized" not in _plan_codes(cli, tmp_path, b, live)


def test_update_ends_before_ready_is_warned_when_the_ready_new_pods_only_match_the_selection(cli, tmp_path):
    """isCurrentPodUpdateComplete passes at equality (Ready pods on the desired template
    >= the pods selected so far plus the current one). With the current old pod
    terminating, one Ready pod already on the desired template and the current pod's
    replacement still Pending, the count is met by a pod that is not the replacement, and
    the next old pod goes before the replacement is Ready."""
    _a, b, live = _frontend_mid_rollout()
    raws = [copy.deepcopy(dict(o.raw)) for o in live]
    pclq = next(r for r in raws if r["kind"] == "PodClique" and r["metadata"]["name"] == "llm-0-frontend")
    target = pclq["metadata"]["labels"]["grove.io/pod-template-hash"]
    pods = [r for r in raws if r["kind"] == "Pod" and r["metadata"]["labels"].get("grove.io/podclique") == "llm-0-frontend"]
    new = next(p for p in pods if p["metadata"]["labels"]["grove.io/pod-template-hash"] == target)
    old = sorted((p for p in pods if p is not new), key=lambda p: p["metadata"]["name"])
    old[0]["metadata"]["deletionTimestamp"] = "2026-09-01T10:00:05Z"
    pending = copy.deepcopy(new)
    pending["metadata"]["name"] = new["metadata"]["name"] + "-pending"
    pending["status"] = {"phase": "Pending"}
    raws.append(pending)
    pclq["status"]["updateProgress"]["readyPodsSelectedToUpdate"] = {"current": old[0]["metadata"]["name"],
                                                                     "completed": []}
    codes = _plan_codes(cli, tmp_path, b, [Obj(r) for r in raws])
    assert "UpdateEndsBeforeReady" in codes, codes
