"""What a sweep of 138 real RayService manifests (public blueprints and tutorials) found:
``diff`` of a manifest the API server or the operator refuses reports the refusal as the
effect, with the comparison to the stored object exact (a RayService with an unknown
field and ``cpu: 2`` diffed against itself showed ``"2" → 2``), and no rollout after a
refusal by the controller, and no promised switch to a cluster that never serves; the
note on a world derived from the previous manifest says where that manifest's creation
stops when it never serves, and a status naming a cluster the input lacks is pointed out."""

from __future__ import annotations

import yaml

from tests.conftest import SAMPLES


def _sample() -> dict:
    return yaml.safe_load((SAMPLES / "rayservice-text-ml.yaml").read_text())


def _head(d: dict) -> dict:
    return d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]


def test_a_rejected_manifest_against_its_stored_copy_shows_no_quantity_changes(cli, tmp_path):
    d = _sample()
    d["spec"]["bogusField"] = 1
    _head(d).setdefault("resources", {}).setdefault("requests", {})["cpu"] = 2
    _head(d)["resources"]["requests"]["memory"] = "2048Mi"
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(d))
    r = cli("diff", str(f), "--live", str(f), "-o", "json")
    out = r.json()
    assert [o["status"] for o in out["objects"]] == ["unchanged"], r.stdout
    assert out["objects"][0]["changes"] == []
    assert [i["message"].split(":")[0] for i in out["objects"][0]["impact"]] == ["SC001"]


def test_a_change_the_controller_fails_validation_on_causes_nothing_else(cli, tmp_path):
    """validateRayService ends the pass before any upgrade decision (plan: stuck,
    ValidationFailed, nothing created), so diff reports the refusal and no rollout. Real
    blueprints set ``headService.metadata.name``, which KubeRay refuses."""
    live = _sample()
    live["spec"]["rayClusterConfig"]["headGroupSpec"]["headService"] = {"metadata": {"name": "my-head"}}
    new = yaml.safe_load(yaml.safe_dump(live))
    _head(new)["image"] = _head(new)["image"] + "-new"
    lf, nf = tmp_path / "live.yaml", tmp_path / "new.yaml"
    lf.write_text(yaml.safe_dump(live))
    nf.write_text(yaml.safe_dump(new))
    r = cli("diff", str(nf), "--live", str(lf), "-o", "json")
    impact = r.json()["objects"][0]["impact"]
    assert [i["effect"] for i in impact] == ["rejected"], impact
    assert any(p.endswith(".image") for p in impact[0]["paths"])
    p = cli("plan", str(nf), "--observed", str(lf), "-o", "json").json()
    assert p["outcome"] == "stuck" and p["stuck"]["reason"] == "ValidationFailed"


def test_the_observed_manifest_note_says_where_a_creation_that_gets_stuck_stops(cli, tmp_path):
    """A previously applied manifest whose creation never serves (here: the head
    declares ports but none named ``serve``, so the serve Service is never built):
    the note says so instead of assuming a ready active RayCluster."""
    old = _sample()
    ports = _head(old)["ports"]
    assert [p for p in ports if p["name"] == "serve"]
    _head(old)["ports"] = [p for p in ports if p["name"] != "serve"]
    new = yaml.safe_load(yaml.safe_dump(old))
    _head(new)["image"] = _head(new)["image"] + "-new"
    lf, nf = tmp_path / "old.yaml", tmp_path / "new.yaml"
    lf.write_text(yaml.safe_dump(old))
    nf.write_text(yaml.safe_dump(new))
    notes = [w["message"] for w in cli("plan", str(nf), "--observed", str(lf), "-o", "json").json()["warnings"]
             if w["code"] == "ObservedFromManifest"]
    assert len(notes) == 1 and "stuck: ServeServiceNotBuilt" in notes[0] and "no active RayCluster" in notes[0]
    assert "assuming a settled service" not in notes[0]
    # the bundled sample, which does serve, keeps the settled-service note
    good = [w["message"] for w in cli("plan", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--observed",
                                      str(SAMPLES / "rayservice-text-ml.yaml"), "-o", "json").json()["warnings"]
            if w["code"] == "ObservedFromManifest"]
    assert len(good) == 1 and "assuming a settled service with one ready active RayCluster" in good[0]


def test_a_status_that_names_a_cluster_missing_from_the_input_is_pointed_out(cli, tmp_path):
    """A live RayService (``kubectl get -o yaml``) observed without its RayCluster: the
    plan prepares a new cluster, as the controller would if that cluster were gone, and
    says which cluster the input lacks."""
    live = _sample()
    live["status"] = {"activeServiceStatus": {"rayClusterName": "text-ml-qxzkq"}, "serviceStatus": "Running"}
    f = tmp_path / "live.yaml"
    f.write_text(yaml.safe_dump(live))
    r = cli("plan", str(SAMPLES / "rayservice-text-ml.yaml"), "--observed", str(f), "-o", "json")
    assert r.exit_code == 0, r.stderr
    notes = [w for w in r.json()["warnings"] if w["code"] == "ObservedClusterMissing"]
    assert len(notes) == 1 and "text-ml-qxzkq" in notes[0]["message"]
    assert not [w for w in cli("plan", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--observed",
                               str(SAMPLES / "rayservice-text-ml.yaml"), "-o", "json").json()["warnings"]
                if w["code"] == "ObservedClusterMissing"]


def test_diff_says_a_rollout_to_a_cluster_that_never_serves_never_switches(cli, tmp_path):
    """An image change of a RayService whose head declares no serve port: a new cluster
    is created but the serve Service is never built, so the Services never switch (plan:
    stuck, ServeServiceNotBuilt); diff no longer promises the switch."""
    live = _sample()
    _head(live)["ports"] = [p for p in _head(live)["ports"] if p["name"] != "serve"]
    new = yaml.safe_load(yaml.safe_dump(live))
    _head(new)["image"] = _head(new)["image"] + "-new"
    lf, nf = tmp_path / "live.yaml", tmp_path / "new.yaml"
    lf.write_text(yaml.safe_dump(live))
    nf.write_text(yaml.safe_dump(new))
    [rollout] = [i for i in cli("diff", str(nf), "--live", str(lf), "-o", "json").json()["objects"][0]["impact"]
                 if i["effect"] == "rollout"]
    assert "that never happens" in rollout["message"] and "RS032" in rollout["message"]
    p = cli("plan", str(nf), "--observed", str(lf), "-o", "json").json()
    assert p["outcome"] == "stuck" and p["stuck"]["reason"] == "ServeServiceNotBuilt"
    ok = [i for i in cli("diff", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--live",
                         str(SAMPLES / "rayservice-text-ml.yaml"), "-o", "json").json()["objects"][0]["impact"]
          if i["effect"] == "rollout"]
    assert ok and "never" not in ok[0]["message"]


def test_diff_leaves_its_inputs_as_they_were(tmp_path):
    """The kind's defaults for diff work on a copy (DiffHooks never change their input)."""
    import copy

    from rolloutctl.kinds.kuberay.model import RayServiceModel

    raw = _sample()
    kept = copy.deepcopy(raw)
    out = RayServiceModel().defaults(dict(raw))
    assert raw == kept and out != kept


def test_an_empty_serve_config_is_the_blocker_before_the_serve_port(cli, tmp_path):
    """Reconcile builds the Services (BuildServeService) only once a cluster is ready,
    and a cluster is ready only with Serve applications (getAndCheckServeStatus): a
    manifest with neither a Serve config nor a port named ``serve`` (operolabs/browserstation)
    is stuck on the empty config, not on the port."""
    d = _sample()
    del d["spec"]["serveConfigV2"]
    for c in d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"]:
        c["ports"] = [{"containerPort": 8265, "name": "dashboard"}]
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(d))
    p = cli("plan", str(f), "-o", "json").json()
    assert p["outcome"] == "stuck" and p["stuck"]["reason"] == "NeverReady", p["stuck"]
    d["spec"]["serveConfigV2"] = _sample()["spec"]["serveConfigV2"]
    f.write_text(yaml.safe_dump(d))
    assert cli("plan", str(f), "-o", "json").json()["stuck"]["reason"] == "ServeServiceNotBuilt"


def test_under_incremental_upgrade_a_missing_serve_port_blocks_even_without_a_serve_config(cli, tmp_path, upstream):
    """With NewClusterWithIncrementalUpgrade, reconcilePerClusterServeService builds each
    cluster's serve Service (BuildServeService) before any readiness check, so a missing
    serve port fails every pass whatever the Serve config."""
    d = yaml.safe_load((upstream / "kuberay" / "samples" / "ray-service.incremental-upgrade.yaml").read_text())
    d["spec"]["serveConfigV2"] = ""
    for c in d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"]:
        c["ports"] = [p for p in c.get("ports") or [] if not str(p.get("name", "")).startswith("serve")]
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(d))
    p = cli("plan", str(f), "-o", "json").json()
    assert p["outcome"] == "stuck" and p["stuck"]["reason"] == "ServeServiceNotBuilt", p["stuck"]
