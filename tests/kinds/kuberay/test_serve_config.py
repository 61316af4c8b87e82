"""The Serve config as KubeRay decodes it (go-yaml v2 through ``sigs.k8s.io/yaml``, the
decoder kubectl reads manifests with): its application names (``getAndCheckServeStatus``)
agree with PyYAML's ``yaml.safe_load`` on every bundled and upstream serveConfigV2 and on
configs that do not parse, and differ where Go's YAML does; and what the controller does
with a config it cannot unmarshal."""

from __future__ import annotations

import pytest
import yaml

from rolloutctl.kinds.kuberay.spec import serve_app_names
from tests.conftest import SAMPLES, UPSTREAM

from .helpers import base, edit, plan, settled


def _python_parser_names(config: str) -> list[str]:
    try:
        doc = yaml.safe_load(config)
    except yaml.YAMLError:
        return []
    apps = doc.get("applications") if isinstance(doc, dict) else None
    names = [str(a.get("name")) if isinstance(a, dict) and a.get("name") else "default"
             for a in (apps if isinstance(apps, list) else [])]
    return sorted(set(names))


def _configs() -> list[str]:
    files = sorted(SAMPLES.glob("*.yaml")) + sorted((UPSTREAM / "kuberay" / "samples").glob("*.yaml"))
    out = []
    for f in files:
        for doc in yaml.safe_load_all(f.read_text()):
            cfg = ((doc or {}).get("spec") or {}).get("serveConfigV2") if isinstance(doc, dict) else None
            if isinstance(cfg, str):
                out.append(cfg)
    return out


MALFORMED = ["applications: [", "applications:\n  - name: a\n   bad: indent", "\tapplications: []", "- a\n- b",
             "applications:\n  - name: ''\n  - import_path: x", "applications: {name: a}", "\x00", "a: b: c"]


@pytest.mark.parametrize("config", _configs() + MALFORMED)
def test_both_parsers_name_the_same_applications(config):
    assert serve_app_names(config) == _python_parser_names(config)


def test_the_bundled_sample_names_its_two_applications():
    cfg = yaml.safe_load((SAMPLES / "rayservice-text-ml.yaml").read_text())["spec"]["serveConfigV2"]
    assert serve_app_names(cfg) == ["classify", "summarize"]


# --------------------------------------------------------------------------- a config the controller cannot decode

#: serveConfigV2 values that ``yaml.Unmarshal(..., &map[string]any)`` refuses: a YAML syntax
#: error (an indentation slip) and a document that is a list, not a mapping
UNDECODABLE = ["applications:\n  - name: summarize\n    import_path: text_ml.summarize:app\n   route_prefix: /s\n",
               "- name: summarize\n  import_path: text_ml.summarize:app\n"]


def _with_config(config: str) -> dict:
    return edit(base(), lambda d: d["spec"].__setitem__("serveConfigV2", config))


@pytest.mark.parametrize("config", UNDECODABLE)
def test_an_undecodable_serve_config_is_never_submitted_to_the_running_cluster(config):
    """updateServeDeployment (rayservice_controller.go) unmarshals serveConfigV2 before it
    calls the dashboard: the error ends every pass, so nothing is submitted, the running
    applications keep their config and the status is not rewritten."""
    run = plan(_with_config(config), settled(base()))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "ServeConfigInvalid"
    assert "spec.serveConfigV2" in run.plan.stuck.message and run.plan.stuck.remedies
    assert [a for a in run.actions if a.verb != "status"] == []
    apps = [o for o in run.world.of_kind("ServeApplications")]
    assert len(apps) == 1 and sorted(apps[0].status["applications"]) == ["classify", "summarize"]
    assert all(a["status"] == "RUNNING" for a in apps[0].status["applications"].values())


@pytest.mark.parametrize("config", UNDECODABLE)
def test_a_new_service_with_an_undecodable_serve_config_gets_its_cluster_and_nothing_else(config):
    run = plan(_with_config(config))
    kinds = [(a.verb, a.kind) for a in run.actions if a.verb != "status"]
    assert kinds == [("update", "RayService"), ("create", "RayCluster")]
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "ServeConfigInvalid"


def test_lint_fails_a_serve_config_the_controller_cannot_unmarshal(cli, tmp_path):
    """What plan predicts (ServeConfigInvalid, stuck) lint says before anything is applied: RS036 on
    the field, an error (exit 1) as for the other configurations that never serve (RS032)."""
    from tests.conftest import SAMPLES

    text = (SAMPLES / "rayservice-text-ml.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("        route_prefix: /summarize\n", "       route_prefix: /summarize\n", 1))
    r = cli("lint", str(bad), "-o", "json")
    found = [f for f in r.json()["findings"] if f["rule"] == "RS036"]
    assert r.exit_code == 1 and len(found) == 1 and found[0]["severity"] == "error", r.stdout
    assert found[0]["path"] == "spec.serveConfigV2" and "does not unmarshal" in found[0]["message"]
    assert not [f for f in cli("lint", str(SAMPLES / "rayservice-text-ml.yaml"), "-o", "json").json()["findings"]
                if f["rule"] == "RS036"]


def test_a_date_like_value_in_the_serve_config_is_a_string_as_in_go(cli, tmp_path):
    """go-yaml v2 keeps a timestamp-like scalar a string when it decodes into
    ``interface{}``; one that is no real date (``2001-13-45``) once stopped plan and
    lint with an internal error."""
    text = (SAMPLES / "rayservice-text-ml.yaml").read_text()
    cfg = yaml.safe_load(text)["spec"]["serveConfigV2"]
    dated = cfg.replace("applications:\n", "build: 2001-13-45\nreleased: 2024-01-31\napplications:\n", 1)
    assert dated != cfg
    f = tmp_path / "dated.yaml"
    f.write_text(text.replace(cfg.replace("\n", "\n    ").rstrip(" "), dated.replace("\n", "\n    ").rstrip(" "), 1))
    assert yaml.safe_load(f.read_text())["spec"]["serveConfigV2"] == dated
    r = cli("lint", str(f), "-o", "json")
    assert r.exit_code == 0 and not [x for x in r.json()["findings"] if x["rule"] == "RS036"], r.stdout + r.stderr
    p = cli("plan", str(f), "-o", "json")
    assert p.exit_code == 0 and p.json()["outcome"] == "converged", p.stderr
    assert serve_app_names(dated) == ["classify", "summarize"]


def test_only_the_first_document_of_a_serve_config_is_read():
    """go-yaml v2's ``Unmarshal`` decodes the first document and reads no further."""
    from rolloutctl.kinds.kuberay.validation.util import serve_config_unmarshal_error

    two = "applications:\n  - name: a\n---\napplications: [\n"
    assert serve_app_names(two) == ["a"]
    assert serve_config_unmarshal_error(two) is None
    assert serve_config_unmarshal_error("---\n- a\n---\napplications: []\n") == "the document is a list, not a mapping"


def test_a_serve_config_decodes_as_go_yaml_v2_does_not_as_pyyaml():
    """Where go-yaml v2 and PyYAML read YAML 1.1 differently, the names are Go's: ``1:20``
    is a string (PyYAML: the sexagesimal 80), a repeated key keeps its last value
    (``Unmarshal`` is not strict), ``.nan`` cannot become JSON (``sigs.k8s.io/yaml``
    fails), and ``0o17`` is a number (PyYAML: a string)."""
    from rolloutctl.kinds.kuberay.validation.util import serve_config, serve_config_unmarshal_error

    assert serve_app_names("applications:\n  - name: 1:20\n") == ["1:20"]
    assert _python_parser_names("applications:\n  - name: 1:20\n") == ["80"]
    twice = "applications:\n  - name: old\napplications:\n  - name: new\n"
    assert serve_app_names(twice) == ["new"] and serve_config_unmarshal_error(twice) is None
    assert "KubeRay reads YAML as JSON, which has no NaN" in (serve_config_unmarshal_error("applications: []\nx: .nan\n") or "")
    assert serve_config("target_capacity: 0o17\n")[0] == {"target_capacity": 15}


@pytest.mark.parametrize("config", ["a: !!bool x", 'a: !!bool ""', 'a: !!int ""', "a: !!int _", "a: !!float _",
                                    "a: !!int x", "a: !!python/object:os.system x"])
def test_a_bad_tagged_scalar_is_an_unmarshal_error_not_a_crash(config):
    """Explicitly tagged scalars that are not their type: the config does not unmarshal
    (RS036, ServeConfigInvalid); the app names and target capacity read nothing."""
    from rolloutctl.kinds.kuberay.spec import serve_config_target_capacity
    from rolloutctl.kinds.kuberay.validation.util import serve_config_unmarshal_error

    assert serve_config_unmarshal_error(config)
    assert serve_app_names(config) == [] and serve_config_target_capacity(config) is None


@pytest.mark.parametrize("config", ["applications: []\n", "applications:\n", "{}\n", "proxy_location: EveryNode\n"])
def test_a_serve_config_without_applications_gets_stuck_at_once_naming_why(config):
    """A config that declares no application: the cluster reports none, so
    ``getAndCheckServeStatus`` never finds it ready and upstream resubmits the config
    every pass (``checkIfNeedSubmitServeApplications``). The plan submits it once and
    stops there (NeverReady, naming the cause), not after thousands of identical passes;
    lint says the same (RS035)."""
    from rolloutctl.kinds.kuberay.validation import validate
    from tests.kinds.kuberay.helpers import obj

    run = plan(_with_config(config))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "NeverReady"
    assert "declares no application" in run.plan.stuck.message and len(run.plan.steps) < 10
    assert [a.kind for a in run.actions if a.kind == "ServeApplications"] == ["ServeApplications"]
    (f,) = [f for f in validate(obj(_with_config(config))) if f.rule == "RS035"]
    assert "declares no application" in f.message


@pytest.mark.parametrize("group, expected", [
    ("replicas: 8\n      minReplicas: 1\n      maxReplicas: 4", "replicas: 8 is above maxReplicas 4: KubeRay keeps 4 worker replicas in group 'small', not 8"),
    ("replicas: 0\n      minReplicas: 1\n      maxReplicas: 4", "replicas: 0 is below minReplicas 1: KubeRay keeps 1 worker replica in group 'small', not 0"),
    ("minReplicas: 2\n      maxReplicas: 4", None),  # no replicas written: stored as 0, starts at minReplicas
    ("replicas: 3\n      minReplicas: 1\n      maxReplicas: 4", None),
    ("replicas: 8\n      minReplicas: 1\n      maxReplicas: 4\n      suspend: true", None),
])
def test_lint_warns_when_worker_replicas_are_clamped_and_plan_counts_the_clamped_workers(cli, tmp_path, group, expected):
    """RS042 (GetWorkerGroupDesiredReplicas): the warning says what the group gets, which is
    what plan's peak pod count holds (head + the clamped workers)."""
    from tests.lint.cases import rs

    doc = rs(workers=False) + ("    workerGroupSpecs:\n    - groupName: small\n      " + group + "\n"
                               "      rayStartParams: {}\n      template:\n        spec:\n          containers:\n"
                               "          - name: ray-worker\n            image: rayproject/ray:2.46.0\n")
    p = tmp_path / "rs.yaml"
    p.write_text(doc)
    r = cli("lint", str(p), "-o", "json")
    found = [f["message"] for f in r.json()["findings"] if f["rule"] == "RS042"]
    assert found == ([expected] if expected else []), r.stdout
    if expected and "above" in expected:
        plan = cli("plan", str(p), "-o", "json").json()
        assert plan["summary"]["peakPods"] == 1 + 4, plan["summary"]
