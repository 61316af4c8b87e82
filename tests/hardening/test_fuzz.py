"""Fuzzing every command with hypothesis.

1. Documents: the bundled samples with one value replaced, a line dropped or
   re-indented, or the text cut short; and arbitrary JSON-like documents. Through
   `plan`, `next`, `diff` and `lint`: no exception, never an internal error
   (exit 3), bad input is `PATH:LINE: message` lines with nothing on stdout, and
   every result validates against its JSON Schema.
2. Models: generated PodCliqueSets and RayServices within the CRD shapes, planned
   new and as an update of another generated one, and diffed against it: plans
   terminate within --max-steps and validate."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from rolloutctl.schemas_access import schema
from tests.conftest import SAMPLES
from tests.hardening.helpers import ERROR_LINE

SAMPLE_TEXTS = [(SAMPLES / n).read_text() for n in ("disaggregated-inference.yaml", "rayservice-text-ml.yaml")]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
_VALIDATORS: dict[str, Any] = {}


def validate(name: str, doc: Any) -> None:
    if name not in _VALIDATORS:
        _VALIDATORS[name] = jsonschema.Draft202012Validator(schema(name))
    _VALIDATORS[name].validate(doc)


TOKENS = ["-1", "0", "1", "2147483648", "99999999999999999999", "1.5", "2.0", "1e3", '"25%"', '"150%"', "25%",
          "null", "~", "true", "no", "[]", "{}", "[1, 2]", "{a: 1}", '""', "x" * 300, '"3"', "-0", ".nan", ".inf",
          "!!binary aGk=", "2001-12-14", "'multi\n  line'", "&a 1", "*undefined", "|", ">-", "\"\\t\"",
          "CliqueStartupTypeExplicit", "OnDelete", "RollingUpdate", "NewCluster", "None", "nvidia.com/gpu"]


@st.composite
def mutated_sample(draw) -> str:
    text = draw(st.sampled_from(SAMPLE_TEXTS))
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["value", "value", "value", "drop", "dup", "indent", "dedent", "cut"]))
        line = lines[i]
        if op == "value" and ":" in line and not line.strip().startswith("#"):
            key = line.split(":", 1)[0]
            lines[i] = f"{key}: {draw(st.sampled_from(TOKENS))}"
        elif op == "value" and line.strip().startswith("- "):
            lines[i] = line[: len(line) - len(line.lstrip())] + "- " + draw(st.sampled_from(TOKENS))
        elif op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, line)
        elif op == "indent":
            lines[i] = "  " + line
        elif op == "dedent":
            lines[i] = line[2:] if line.startswith("  ") else line
        elif op == "cut":
            lines = lines[: i + 1]
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10 ** 6) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=25)


@st.composite
def arbitrary_document(draw) -> str:
    """JSON-like documents, some shaped like our kinds (random fields under a real header)."""
    header = draw(st.sampled_from([{}, {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet"},
                                   {"apiVersion": "ray.io/v1", "kind": "RayService"}]))
    body = draw(json_values)
    doc: Any = body
    if header:
        doc = dict(header, metadata={"name": draw(st.sampled_from(["a", "b-1", "x" * 70])), "namespace": "ns"},
                   spec=body)
    as_json = draw(st.booleans())
    return json.dumps(doc) if as_json else yaml.safe_dump(doc)


def check(cli, tmp_path, text: str) -> None:
    p = tmp_path / "in.yaml"
    p.write_text(text)
    live = tmp_path / "live.yaml"
    live.write_text(SAMPLE_TEXTS[0] + "---\n" + SAMPLE_TEXTS[1])
    runs = {
        "plan": cli("plan", str(p), "-o", "json", "--max-steps", "60"),
        "next": cli("next", str(p), "-o", "json", "--max-steps", "60"),
        "diff": cli("diff", str(p), "--live", str(live), "-o", "json"),
        "observed": cli("plan", str(SAMPLES / "disaggregated-inference.yaml"), "--observed", str(p), "-o", "json",
                        "--max-steps", "60"),
        "lint": cli("lint", str(p), "-o", "json"),
    }
    for name, r in runs.items():
        assert r.exit_code in (0, 1, 2), (name, r.exit_code, r.stderr, text)
        assert "Traceback" not in r.stderr
        if name == "lint":
            validate("lint", json.loads(r.stdout))
            continue
        if r.exit_code == 2:
            assert r.stdout == "", (name, r.stdout[:200])
            for line in r.stderr.splitlines():
                assert ERROR_LINE.match(line), (name, line)
            continue
        doc = json.loads(r.stdout)
        validate("diff" if name == "diff" else "plan", doc)
        for plan in doc.get("items", [doc]) if name != "diff" else []:
            assert len(plan["steps"]) <= 60


@FUZZ
@given(text=mutated_sample())
def test_mutated_samples_through_every_command(cli, tmp_path, text):
    check(cli, tmp_path, text)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=arbitrary_document())
def test_arbitrary_documents_through_every_command(cli, tmp_path, text):
    check(cli, tmp_path, text)


# ----------------------------------------------------------------------------- generated objects of our kinds

QUANTITIES = {"cpu": ["100m", "1", "2", "0.5"], "memory": ["1Gi", "512Mi", "4G"], "nvidia.com/gpu": ["1", "2", "8"]}


@st.composite
def podcliqueset(draw, name: str = "gen") -> dict:
    """A PodCliqueSet the Grove webhook accepts (most of the time): unique cliques,
    acyclic startsAfter, one scaling group, budgets only where they are allowed."""
    n = draw(st.integers(1, 4))
    names = [f"c{i}" for i in range(n)]
    startup = draw(st.sampled_from([None, "CliqueStartupTypeAnyOrder", "CliqueStartupTypeInOrder",
                                    "CliqueStartupTypeExplicit"]))
    strategy = draw(st.sampled_from([None, "RollingRecreate", "OnDelete"]))
    image = draw(st.sampled_from(["img:1", "img:2"]))
    members = draw(st.lists(st.sampled_from(names), unique=True, max_size=n - 1)) if n > 1 else []
    cliques = []
    for i, c in enumerate(names):
        reps = draw(st.integers(1, 3))
        spec: dict[str, Any] = {"roleName": c, "replicas": reps,
                                "podSpec": {"containers": [{"name": "main", "image": image, "resources": {
                                    "requests": {r: draw(st.sampled_from(v)) for r, v in QUANTITIES.items()
                                                 if draw(st.booleans())}}}]}}
        if draw(st.booleans()):
            spec["minAvailable"] = draw(st.integers(1, reps))
        if startup == "CliqueStartupTypeExplicit" and i and draw(st.booleans()):
            spec["startsAfter"] = draw(st.lists(st.sampled_from(names[:i]), min_size=1, max_size=2, unique=True))
        clique: dict[str, Any] = {"name": c, "spec": spec}
        if c not in members and strategy != "OnDelete" and draw(st.booleans()):
            clique["rollingUpdate"] = {"maxUnavailable": draw(st.integers(1, 3))}
        cliques.append(clique)
    tmpl: dict[str, Any] = {"cliques": cliques}
    if startup:
        tmpl["cliqueStartupType"] = startup
    if members:
        reps = draw(st.integers(1, 3))
        tmpl["podCliqueScalingGroups"] = [{"name": "g", "cliqueNames": members, "replicas": reps,
                                          "minAvailable": draw(st.integers(1, reps))}]
    spec = {"replicas": draw(st.integers(0, 2)), "template": tmpl}
    if strategy:
        spec["updateStrategy"] = {"type": strategy}
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


@st.composite
def podcliqueset_update(draw) -> tuple[dict, dict | None]:
    """(new, old): a new PodCliqueSet, or an update of a generated one that changes
    only what the webhook lets change (images, resources, replicas, budgets)."""
    old = draw(podcliqueset())
    if draw(st.booleans()):
        return old, None
    new = copy.deepcopy(old)
    spec = new["spec"]
    if draw(st.booleans()):
        spec["replicas"] = draw(st.integers(0, 2))
    for c in spec["template"]["cliques"]:
        ctr = c["spec"]["podSpec"]["containers"][0]
        if draw(st.booleans()):
            ctr["image"] = draw(st.sampled_from(["img:1", "img:2", "img:3"]))
        if draw(st.booleans()):
            ctr["resources"]["requests"]["cpu"] = draw(st.sampled_from(QUANTITIES["cpu"]))
        if draw(st.booleans()):
            c["spec"]["replicas"] = draw(st.integers(c["spec"].get("minAvailable", 1), 4))
    for g in spec["template"].get("podCliqueScalingGroups", []):
        if draw(st.booleans()):
            g["replicas"] = draw(st.integers(g["minAvailable"], 4))
    return new, old


RS_BASE = yaml.safe_load(SAMPLE_TEXTS[1])


@st.composite
def rayservice(draw) -> dict:
    rs = copy.deepcopy(RS_BASE)
    spec = rs["spec"]
    spec["upgradeStrategy"] = {"type": draw(st.sampled_from(["NewCluster", "None"]))}
    if draw(st.booleans()):
        spec.pop("upgradeStrategy")
    cc = spec["rayClusterConfig"]
    image = draw(st.sampled_from(["registry.example.com/text-ml:1.4.0", "registry.example.com/text-ml:1.5.0"]))
    cc["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = image
    groups = []
    for i in range(draw(st.integers(0, 2))):
        mn = draw(st.integers(0, 3))
        mx = draw(st.integers(mn, 6))
        g = copy.deepcopy(cc["workerGroupSpecs"][0])
        g.update(groupName=f"g{i}", minReplicas=mn, maxReplicas=mx, replicas=draw(st.integers(mn, mx)))
        g["template"]["spec"]["containers"][0]["image"] = image
        groups.append(g)
    cc["workerGroupSpecs"] = groups
    if draw(st.booleans()):
        spec["serveConfigV2"] = spec["serveConfigV2"].replace("num_replicas: 2", "num_replicas: 3")
    if draw(st.booleans()):
        spec["suspend"] = True
    return rs


def plan_checks(cli, tmp_path, desired: dict, observed: dict | None, extra: list[str]) -> None:
    d = tmp_path / "desired.yaml"
    d.write_text(yaml.safe_dump(desired))
    args = ["plan", str(d), "-o", "json", "--max-steps", "80", *extra]
    if observed is not None:
        o = tmp_path / "observed.yaml"
        o.write_text(yaml.safe_dump(observed))
        args += ["--observed", str(o)]
    r = cli(*args)
    if r.exit_code == 2:  # the operator's webhook would refuse the generated object
        assert r.stdout == "" and all(ERROR_LINE.match(x) for x in r.stderr.splitlines()), r.stderr
        return
    assert r.exit_code in (0, 1), (r.exit_code, r.stderr)
    doc = json.loads(r.stdout)
    validate("plan", doc)
    assert len(doc["steps"]) <= 80
    assert (doc["outcome"] == "stuck") == (r.exit_code == 1)
    if doc["outcome"] == "stuck":
        assert doc["stuck"]["reason"] and doc["stuck"]["message"]
    if observed is not None:
        r = cli("diff", str(d), "--live", str(tmp_path / "observed.yaml"), "-o", "json")
        assert r.exit_code in (0, 1), (r.exit_code, r.stderr)
        validate("diff", json.loads(r.stdout))
        if desired["kind"] == "PodCliqueSet":
            r = cli(*args, "--compare")
            assert r.exit_code in (0, 1), (r.exit_code, r.stderr)
            cmp = json.loads(r.stdout)
            validate("comparison", cmp)
            assert all(row["steps"] <= 80 for row in cmp["rows"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(pair=podcliqueset_update(),
       capacity=st.sampled_from([[], ["--capacity", "nvidia.com/gpu=4"], ["--capacity", "cpu=3"]]),
       never_ready=st.sampled_from([[], ["--never-ready", "gen-0-c0*"]]))
def test_generated_podcliquesets_plan_and_diff(cli, tmp_path, pair, capacity, never_ready):
    new, old = pair
    plan_checks(cli, tmp_path, new, old, capacity + never_ready)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(new=rayservice(), old=st.one_of(st.none(), rayservice()),
       capacity=st.sampled_from([[], ["--capacity", "cpu=10"]]))
def test_generated_rayservices_plan_and_diff(cli, tmp_path, new, old, capacity):
    plan_checks(cli, tmp_path, new, old, capacity)
