"""The bad-input matrix through the commands a user runs (`plan`, `next`; `diff` and
`lint` join as they land): every bad input gives one `PATH:LINE: message` line per
problem on stderr, the documented exit code, no traceback and nothing on stdout."""

from __future__ import annotations

import pytest
import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove.model import GroveModel
from tests.conftest import write
from tests.hardening.helpers import PCS_SAMPLE, assert_input_error, mutated, plan_json_ok, sample_pcs

PLANNERS = ["plan", "next"]
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
NOT_FOUND = "no RayService (ray.io/v1, ray.io/v1alpha1) or PodCliqueSet (grove.io/v1alpha1) found"


def _bomb() -> str:
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i, name in enumerate("bcdefg"):
        prev = "a" if i == 0 else "bcdefg"[i - 1]
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\n"


# (id, file content as bytes, expected message fragments)
FILE_CASES = [
    ("empty-file", b"", [NOT_FOUND]),
    ("only-separators", b"---\n---\n...\n", [NOT_FOUND]),
    ("only-comments", b"# nothing here\n", [NOT_FOUND]),
    ("null-document", b"~\n", [NOT_FOUND]),
    ("unmodelled-kinds-only", CM.encode(), [NOT_FOUND]),
    ("scalar-document", b"42\n", [":1: document is a number, expected a Kubernetes object"]),
    ("list-document", b"- a\n- b\n", [":1: document is a list, expected a Kubernetes object"]),
    ("non-utf8", b"apiVersion: v1\nkind: X\nmetadata: {name: \xff}\n", [":3: not UTF-8 text (byte 0xff"]),
    ("control-character", b"apiVersion: v1\nkind: X\nmetadata: {name: a\x01}\n", [":3: character #x0001 is not allowed"]),
    ("tab-indentation", b"apiVersion: v1\nkind: X\nmetadata:\n\tname: a\n", [":4: tab character used for indentation"]),
    ("syntax-error", b"apiVersion: v1\nkind: X\nmetadata: {name: [\n", [":4: YAML syntax error"]),
    ("duplicate-key", b"apiVersion: v1\nkind: X\nkind: Y\nmetadata: {name: a}\n", [":3: duplicate key 'kind'"]),
    ("alias-bomb", _bomb().encode(), ["YAML aliases expand to more than 100000 nodes"]),
    ("deep-nesting", ("a: " + "[" * 1000 + "]" * 1000 + "\n").encode(), [":1: "]),
    ("object-without-kind", b"apiVersion: v1\nmetadata: {name: a}\n", [":1: object without kind"]),
    ("object-without-name", b"apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nspec: {}\n", [":1: object without metadata.name"]),
    ("metadata-is-a-list", b"apiVersion: v1\nkind: X\nmetadata: [a]\n", [":3: metadata: must be a mapping, got a list"]),
    ("namespace-is-a-number", b"apiVersion: v1\nkind: X\nmetadata: {name: a, namespace: 7}\n",
     [":3: metadata.namespace: must be a string, got number 7"]),
    ("name-is-a-boolean", b"apiVersion: v1\nkind: X\nmetadata: {name: yes}\n", [":3: metadata.name: must be a string"]),
    ("list-items-not-a-list", b"apiVersion: v1\nkind: List\nitems: 5\n", [":3: items: a List needs a list of objects"]),
]


@pytest.mark.parametrize("command", PLANNERS)
@pytest.mark.parametrize("case, content, fragments", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_file(cli, tmp_path, command, case, content, fragments):
    p = tmp_path / "in.yaml"
    p.write_bytes(content)
    assert_input_error(cli(command, str(p), "-o", "json"), str(p), *fragments)


@pytest.mark.parametrize("command", PLANNERS)
def test_bad_standard_input_is_named_stdin(cli, command):
    r = cli(command, "-", "-o", "json", input="- not an object\n")
    assert_input_error(r, "<stdin>", "document is a list")


@pytest.mark.parametrize("command", PLANNERS)
def test_missing_file(cli, tmp_path, command):
    p = str(tmp_path / "nope.yaml")
    assert_input_error(cli(command, p), p, "no such file or directory")


@pytest.mark.parametrize("command", PLANNERS)
def test_every_problem_in_desired_and_observed_is_reported_at_once(cli, tmp_path, command):
    a = write(tmp_path, "a.yaml", "x: [\n")
    b = write(tmp_path, "b.yaml", "- 1\n")
    r = cli(command, a, "--observed", b, "-o", "json")
    assert r.exit_code == 2 and r.stdout == ""
    assert [ln.split(":")[0] for ln in r.stderr.splitlines()] == [a, b]


@pytest.mark.parametrize("command", PLANNERS)
def test_input_size_limit_flag(cli, command):
    r = cli(command, str(PCS_SAMPLE), "--max-input-bytes", "100", "-o", "json")
    assert_input_error(r, str(PCS_SAMPLE), ":1: input is larger than 100 bytes; raise --max-input-bytes")
    assert cli(command, str(PCS_SAMPLE), "--max-input-bytes", "1000000", "-o", "json").exit_code == 0


@pytest.mark.parametrize("command", PLANNERS)
def test_alias_budget_flag(cli, tmp_path, command):
    doc = sample_pcs()
    doc["metadata"]["labels"] = {"team": "inference", "owner": "inference"}
    text = yaml.safe_dump(doc, sort_keys=False).replace("team: inference", "team: &t inference").replace("owner: inference",
                                                                                       "owner: *t")
    p = write(tmp_path, "aliased.yaml", text)
    assert_input_error(cli(command, p, "--max-alias-nodes", "0"), p, "YAML aliases expand to more than 0 nodes")
    assert cli(command, p, "-o", "json").exit_code == 0


@pytest.mark.parametrize("command", PLANNERS)
@pytest.mark.parametrize("field, value", [("replicas", 2 ** 31 - 1)])
def test_a_workload_too_large_to_model_is_refused_not_attempted(cli, tmp_path, command, field, value):
    text = mutated(lambda d: d["spec"].__setitem__(field, value))
    p = write(tmp_path, "huge.yaml", text)
    r = cli(command, p, "-o", "json")
    parsed = assert_input_error(r, p, "PodCliqueSet inference/llm asks for", "raise --max-pods")
    assert parsed[0]["line"] == str(text.splitlines().index(f"  replicas: {value}") + 1)


@pytest.mark.parametrize("command", PLANNERS)
def test_replicas_beyond_int32_are_refused_as_the_api_server_does(cli, tmp_path, command):
    """``spec.replicas`` is ``format: int32`` in the CRD (kube-openapi checks the range)."""
    text = mutated(lambda d: d["spec"].__setitem__("replicas", 10 ** 12))
    p = write(tmp_path, "huge.yaml", text)
    parsed = assert_input_error(cli(command, p, "-o", "json"), p, "spec.replicas: must be less than or equal to 2147483647")
    assert parsed[0]["line"] == str(text.splitlines().index(f"  replicas: {10 ** 12}") + 1)


def test_max_pods_flag_counts_scaling_groups(cli, tmp_path):
    """The sample runs 12 pods per replica (frontend 2, prefill 2 x 2, decode 2 x 3)."""
    p = write(tmp_path, "three.yaml", mutated(lambda d: d["spec"].__setitem__("replicas", 3)))
    assert_input_error(cli("plan", p, "--max-pods", "35"), p, "asks for 36 pods; rolloutctl plans at most 35")
    assert plan_json_ok(cli("plan", p, "--max-pods", "36", "-o", "json"))["summary"]["peakPods"] == 36


def test_the_observed_workload_is_bounded_too(cli, tmp_path):
    big = write(tmp_path, "old.yaml", mutated(lambda d: d["spec"].__setitem__("replicas", 10 ** 9)))
    assert_input_error(cli("plan", str(PCS_SAMPLE), "--observed", big), big, "asks for 12000000000 pods")


@pytest.mark.parametrize("command", PLANNERS)
def test_duplicates_across_files_name_both_places(cli, tmp_path, command):
    a = write(tmp_path, "a.yaml", PCS_SAMPLE.read_text())
    b = write(tmp_path, "b.yaml", "# a copy\n" + PCS_SAMPLE.read_text())
    r = cli(command, a, b)
    # admission's SC009 (rolloutctl/admit duplicates): the same message lint reports
    assert_input_error(r, b, f"SC009: duplicate PodCliqueSet inference/llm: at {a}:4 and {b}:5")


def test_a_duplicate_cluster_scoped_object_is_named_without_a_namespace(cli, tmp_path):
    flavor = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: default-flavor\n"
    q = write(tmp_path, "q.yaml", flavor + "---\n" + flavor)
    r = cli("lint", q)
    assert "duplicate ResourceFlavor default-flavor: at " in r.stdout, r.stdout
    assert "default/default-flavor" not in r.stdout


def test_missing_namespace_means_default_in_desired_and_observed(cli, tmp_path):
    bare = write(tmp_path, "bare.yaml", mutated(lambda d: d["metadata"].pop("namespace")))
    default = write(tmp_path, "default.yaml", mutated(lambda d: d["metadata"].__setitem__("namespace", "default")))
    elsewhere = write(tmp_path, "elsewhere.yaml", mutated(lambda d: d["metadata"].__setitem__("namespace", "x")))
    for desired, observed in ((bare, bare), (bare, default), (default, bare)):
        doc = plan_json_ok(cli("plan", desired, "--observed", observed, "-o", "json"))
        assert doc["target"]["namespace"] == "default" and doc["outcome"] == "noop"
    assert plan_json_ok(cli("plan", elsewhere, "--observed", bare, "-o", "json"))["outcome"] == "converged"


# ----------------------------------------------------------------------------- observed objects that are not ours


def _live_children(pcs_doc: dict) -> list[dict]:
    """Every object a settled cluster holds for ``pcs_doc``, as `kubectl get -o yaml` would list them."""
    obj = Obj(pcs_doc, "live.yaml", 1)
    m = GroveModel()
    _plan, world = run(m, obj, m.observe(obj, [], Environment()), Environment(max_steps=1000))
    return [dict(o.raw) for o in world if o.kind != "PodCliqueSet"]


def _as_list(objs: list[dict]) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}, sort_keys=False)


def test_same_name_but_another_kind_in_observed_is_not_the_target(cli, tmp_path):
    other = {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "llm", "namespace": "inference"},
             "spec": {}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "llm", "namespace": "inference"}}
    obs = write(tmp_path, "obs.yaml", _as_list([other, cm]))
    fresh = plan_json_ok(cli("plan", str(PCS_SAMPLE), "-o", "json"))
    with_obs = plan_json_ok(cli("plan", str(PCS_SAMPLE), "--observed", obs, "-o", "json"))
    assert with_obs == fresh


def test_children_of_another_podcliqueset_are_left_alone(cli, tmp_path):
    other = sample_pcs()
    other["metadata"]["name"] = "other"
    obs = write(tmp_path, "obs.yaml", _as_list(_live_children(other)))
    fresh = plan_json_ok(cli("plan", str(PCS_SAMPLE), "-o", "json"))
    with_obs = plan_json_ok(cli("plan", str(PCS_SAMPLE), "--observed", obs, "-o", "json"))
    assert with_obs["steps"] == fresh["steps"] and with_obs["outcome"] == "converged"
    touched = {a["name"] for s in with_obs["steps"] for a in s["actions"]}
    assert not any(n.startswith("other-") for n in touched)


def test_children_with_our_names_but_another_owner_are_never_deleted(cli, tmp_path):
    """Objects named like ours but labelled for another PodCliqueSet: the operator
    selects its children by labels, so it never deletes or updates them."""
    foreign = _live_children(sample_pcs())
    for o in foreign:
        labels = o.setdefault("metadata", {}).setdefault("labels", {})
        for k in list(labels):
            if labels[k] == "llm":
                labels[k] = "someone-else"
        o["metadata"]["ownerReferences"] = [{"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
                                             "name": "someone-else", "uid": "u", "controller": True}]
    obs = write(tmp_path, "obs.yaml", _as_list(foreign))
    for command in PLANNERS:
        r = cli(command, str(PCS_SAMPLE), "--observed", obs, "-o", "json")
        doc = plan_json_ok(r)
        created: set[tuple[str, str]] = set()
        for s in doc["steps"]:
            for a in s["actions"]:
                key = (a["kind"], a["name"])
                if a["verb"] == "create":
                    created.add(key)
                elif a["verb"] in ("update", "delete") and a["kind"] != "PodCliqueSet":
                    # only objects this plan created itself are ever changed
                    assert key in created, (a["verb"], key)
        assert any(w["code"] == "ForeignObject" for w in doc["warnings"])


def test_ownership_cycles_in_observed_objects_terminate(cli, tmp_path):
    children = _live_children(sample_pcs())
    pods = [o for o in children if o["kind"] == "Pod"]
    a, b = pods[0], pods[1]
    a["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": b["metadata"]["name"], "uid": "b"}]
    b["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": a["metadata"]["name"], "uid": "a"}]
    obs = write(tmp_path, "obs.yaml", _as_list(children))
    for command in PLANNERS:
        plan_json_ok(cli(command, str(PCS_SAMPLE), "--observed", obs, "-o", "json", "--max-steps", "50"))


def test_two_different_live_copies_of_one_object_are_refused_naming_both(cli, tmp_path):
    """The cluster holds one copy of an object: two observed copies that differ leave the
    live state unknown (exit 2, SC009 naming both); the same copy twice (one snapshot
    given twice) is read once."""
    desired = write(tmp_path, "new.yaml", PCS_SAMPLE.read_text().replace("engine:1.4.0", "engine:1.5.0"))
    live = write(tmp_path, "live.yaml", PCS_SAMPLE.read_text())
    other = write(tmp_path, "other.yaml", PCS_SAMPLE.read_text().replace("replicas: 1\n", "replicas: 2\n", 1))
    r = cli("plan", desired, "--observed", live, "--observed", other)
    assert_input_error(r, other, f"SC009: two different copies of the live PodCliqueSet inference/llm: at {live}:4 "
                       f"and {other}:4; give one")
    same = cli("plan", desired, "--observed", live, "--observed", live, "-o", "json")
    assert same.exit_code == 0 and same.json()["outcome"] == "converged"
