"""An apply that sends nothing reaches no webhook (kubectl's three-way patch is empty when
the manifest is the one last applied and the live object holds it): ``plan X --observed X``
of an object an older operator stored, which today's update rules would refuse on a real
edit, is "nothing to do", not refused."""

from __future__ import annotations

from rolloutctl.core.applied import LAST_APPLIED, sends_nothing
from rolloutctl.core.model import Obj
from tests.conftest import write
from tests.lint.cases import pcs

# a PodCliqueSet stored before topologyName existed: packDomain alone
LEGACY = pcs(template="topologyConstraint:\n  packDomain: rack")


def test_the_same_legacy_manifest_applied_again_plans_nothing(cli, tmp_path):
    path = write(tmp_path, "pcs.yaml", LEGACY)
    r = cli("plan", path, "--observed", path)
    assert r.exit_code == 0, r.stderr
    assert "nothing to do" in r.stdout


def test_a_real_edit_of_it_still_meets_the_update_rules(cli, tmp_path):
    old = write(tmp_path, "old.yaml", LEGACY)
    new = write(tmp_path, "new.yaml", LEGACY.replace("image: busybox", "image: busybox:2"))
    r = cli("plan", new, "--observed", old)
    assert r.exit_code == 2 and "GV026" in r.stderr and "the operator would reject this manifest" in r.stderr


def test_sends_nothing_needs_the_last_applied_manifest_and_the_live_values():
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
    import json

    live = {**manifest, "metadata": {"name": "c", "uid": "u", "annotations": {LAST_APPLIED: json.dumps(manifest)}},
            "status": {}}
    assert sends_nothing(Obj(manifest), Obj(live))
    assert not sends_nothing(Obj({**manifest, "data": {"a": "2"}}), Obj(live))  # a new value
    drifted = {**live, "data": {"a": "9"}}  # kubectl edit changed it: apply patches it back
    assert not sends_nothing(Obj(manifest), Obj(drifted))
    unannotated = {**manifest, "metadata": {"name": "c", "uid": "u"}}  # applied without the annotation
    assert not sends_nothing(Obj(manifest), Obj(unannotated))


def test_a_quoted_replicas_is_reported_once_where_it_is_written(cli, tmp_path):
    """The defaulting webhook copies a clique's replicas into minAvailable (and an
    autoscaler's minReplicas); a malformed replicas is not copied, so the one wrong field
    gives one finding, at its own line."""
    import json

    text = pcs().replace("        replicas: 1\n", "        replicas: '1'\n", 1)
    assert "replicas: '1'" in text and "minAvailable" not in text
    path = write(tmp_path, "pcs.yaml", text)
    r = cli("lint", path, "-o", "json")
    found = [(f["rule"], f["path"]) for f in json.loads(r.stdout)["findings"]]
    assert found == [("SC003", "spec.template.cliques[name=worker].spec.replicas")], found
    plan = cli("plan", path)
    assert plan.exit_code == 2 and len(plan.stderr.strip().splitlines()) == 1, plan.stderr
