"""Our input schemas against the upstream CRDs: on every upstream sample both accept
or both reject, and we declare no field the CRD lacks (except the documented
proposed-design and post-snapshot fields). Skipped when ../shared is absent."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings, strategies as st

from rolloutctl.lint.schema import iter_property_names, load_schema
from tests.conftest import REPO, UPSTREAM as SHARED_UPSTREAM

UPSTREAM = SHARED_UPSTREAM

CRDS = {
    "rayservice.schema.json": ("kuberay/ray.io_rayservices.yaml", "v1", "RayService", "kuberay"),
    "podcliqueset.schema.json": ("grove/grove.io_podcliquesets.yaml", "v1alpha1", "PodCliqueSet", "grove"),
}
#: fields we declare on purpose that the pinned CRD does not have
EXTRA_FIELDS = {
    ("spec", "updateStrategy", "rollingUpdate"),  # proposed design (PR #262)
    ("spec", "template", "cliques", "[]", "updateStrategy"),
    ("spec", "template", "podCliqueScalingGroups", "[]", "updateStrategy"),
    ("spec", "template", "cliques", "[]", "rollingUpdate"),  # PR #817 (after the pinned snapshot)
    ("spec", "template", "podCliqueScalingGroups", "[]", "rollingUpdate"),
}


def _crd(rel: str, version: str) -> dict[str, Any]:
    p = UPSTREAM / rel
    if not p.is_file():
        pytest.skip("../shared/upstream is not available")
    doc = yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
    return next(v for v in doc["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]


def to_json_schema(node: Any) -> Any:
    """OpenAPI v3 structural schema -> JSON Schema, with the API server's strict field
    validation (unknown fields rejected unless x-kubernetes-preserve-unknown-fields)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in ("properties",):
            out[k] = {pk: to_json_schema(pv) for pk, pv in v.items()}
        elif k in ("items", "additionalProperties") and isinstance(v, dict):
            out[k] = to_json_schema(v)
        elif k in ("allOf", "anyOf", "oneOf"):
            out[k] = [to_json_schema(x) for x in v]
        elif k in ("type", "required", "enum", "minimum", "maximum", "maxLength", "minLength", "pattern",
                   "minItems", "maxItems"):
            out[k] = v
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out \
            and not node.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


def _documents(op: str, kind: str) -> list[tuple[str, dict]]:
    docs = []
    for f in sorted((UPSTREAM / op / "samples").glob("*.yaml")):
        for d in yaml.load_all(f.read_text(), Loader=yaml.CSafeLoader):
            if isinstance(d, dict) and d.get("kind") == kind:
                docs.append((f.name, d))
    return docs


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_schema_agrees_with_crd_on_every_upstream_sample(ours):
    from jsonschema import Draft202012Validator

    rel, version, kind, op = CRDS[ours]
    crd = Draft202012Validator(to_json_schema(_crd(rel, version)))
    mine = Draft202012Validator(load_schema(ours))
    docs = _documents(op, kind)
    assert docs
    for name, doc in docs:
        assert crd.is_valid(doc) == mine.is_valid(doc), (name, [e.message for e in crd.iter_errors(doc)],
                                                          [e.message for e in mine.iter_errors(doc)])


def test_grove_sample_without_role_name_is_rejected_by_both():
    from jsonschema import Draft202012Validator

    rel, version, kind, op = CRDS["podcliqueset.schema.json"]
    crd = Draft202012Validator(to_json_schema(_crd(rel, version)))
    bad = [n for n, d in _documents(op, kind) if not crd.is_valid(d)]
    assert bad == ["multinode-disaggregated-with-frontend.yaml"]


def _crd_nodes(node: Any, path: tuple = ()):
    """(path, node) of every node of a CRD schema, list items as ``[]``."""
    if not isinstance(node, dict):
        return
    yield path, node
    for k, v in (node.get("properties") or {}).items():
        yield from _crd_nodes(v, (*path, k))
    if isinstance(node.get("items"), dict):
        yield from _crd_nodes(node["items"], (*path, "[]"))


def _crd_paths(node: Any) -> set:
    return {path for path, _n in _crd_nodes(node) if path}


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_we_declare_no_field_the_crd_lacks(ours):
    rel, version, _kind, _op = CRDS[ours]
    crd = _crd(rel, version)
    known = _crd_paths(crd) | {("metadata", k) for k in ("name", "generateName", "namespace", "labels", "annotations",
                                                            "uid", "resourceVersion", "generation", "creationTimestamp",
                                                            "deletionTimestamp", "deletionGracePeriodSeconds",
                                                            "ownerReferences", "finalizers", "managedFields", "selfLink")}
    extra = []
    for path, name in iter_property_names(ours):
        full = (*path, name)
        if any(full[:len(e)] == e for e in EXTRA_FIELDS):
            continue
        if full not in known:
            extra.append(".".join(full))
    assert not extra, f"fields our schema declares that the CRD does not: {extra[:20]}"


def _fixture_documents() -> list[dict]:
    from .cases import CASES
    from .rs_cases import RS_CASES

    docs = []
    for case in [*CASES.values(), *RS_CASES.values()]:
        for text in (case.fail, case.ok):
            try:
                docs.extend(d for d in yaml.safe_load_all(text) if isinstance(d, dict))
            except yaml.YAMLError:
                pass
    return docs


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_compiled_validator_agrees_with_jsonschema(ours):
    """lint's own validator reports the same (keyword, path) errors as jsonschema."""
    from jsonschema import Draft202012Validator

    from rolloutctl.lint.validator import Compiled

    ref = Draft202012Validator(load_schema(ours))
    mine = Compiled(load_schema(ours))
    kind = CRDS[ours][2]
    docs = [d for d in _fixture_documents() if d.get("kind") == kind]
    if (UPSTREAM / "grove").is_dir():
        docs += [d for op in ("kuberay", "grove") for _n, d in _documents(op, kind)]
    assert len(docs) > 20
    for d in docs:
        want = sorted((e.validator, tuple(e.absolute_path)) for e in ref.iter_errors(d))
        got = sorted((e.validator, e.absolute_path) for e in mine.iter_errors(d))
        assert got == want, d["metadata"]


_scalars = st.sampled_from([None, True, 0, -1, 1.5, "", "x", "x" * 300, "1Gi", "1Gi\n", [], {}, [1], {"a": 1}])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_compiled_validator_agrees_with_jsonschema_on_changed_samples(data):
    """A bundled sample with one field anywhere replaced by a value of another type (or a
    field added): the validity test the validator runs first and its error walk agree
    with jsonschema, error for error."""
    import copy

    from jsonschema import Draft202012Validator

    from rolloutctl.lint.validator import Compiled
    from tests.conftest import SAMPLES

    name = data.draw(st.sampled_from(sorted(p.name for p in SAMPLES.glob("*.yaml"))))
    docs = [d for d in yaml.safe_load_all((SAMPLES / name).read_text()) if isinstance(d, dict)]
    doc = data.draw(st.sampled_from(docs))
    ours = next((s for s, row in CRDS.items() if row[2] == doc.get("kind")), None)
    if ours is None:
        return
    doc = copy.deepcopy(doc)
    node = doc
    for _ in range(data.draw(st.integers(0, 8))):
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        inner = [k for k in keys if isinstance(node[k], (dict, list)) and node[k]]
        if not inner:
            break
        node = node[data.draw(st.sampled_from(inner))]
    if isinstance(node, dict) and node:
        node[data.draw(st.sampled_from(sorted(node) + ["extraField"]))] = data.draw(_scalars)
    elif isinstance(node, list) and node:
        node[data.draw(st.integers(0, len(node) - 1))] = data.draw(_scalars)
    ref, mine = Draft202012Validator(load_schema(ours)), Compiled(load_schema(ours))
    # (jsonschema reports each missing required key on its own, this validator one error
    # per object: compared as sets of (keyword, path))
    want = sorted({(e.validator, tuple(e.absolute_path)) for e in ref.iter_errors(doc)})
    assert sorted({(e.validator, e.absolute_path) for e in mine.iter_errors(doc)}) == want
    assert mine.is_valid(doc) == (not want)


_EVERY_KEYWORD = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {"node": {"type": "object", "additionalProperties": False, "properties": {
        "name": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
        "n": {"type": ["integer", "null"], "minimum": 0},
        "kind": {"enum": ["a", 1, True]},
        "v": {"const": "x"},
        "q": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+m?$"}]},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}},
        "required": ["name"]}},
    "$ref": "#/$defs/node",
}
_any = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([0.5, 1.0, "", "a", "ab", "abcd", "A", "12",
                                                                          "3m", "x", [], {}])


def _mostly(valid, invalid=_any):
    return st.one_of(valid, valid, valid, invalid)


_node = st.deferred(lambda: st.fixed_dictionaries(
    {"name": _mostly(st.sampled_from(["a", "ab", "abc"]))},
    optional={"n": _mostly(st.none() | st.integers(0, 3) | st.just(2.0)),
              "kind": _mostly(st.sampled_from(["a", 1, True])),
              "v": _mostly(st.just("x")),
              "q": _mostly(st.integers(-1, 3) | st.sampled_from(["1", "20m"])),
              "kids": _mostly(st.lists(_node, max_size=2)),
              "labels": _mostly(st.dictionaries(st.sampled_from(["a", "b"]), _mostly(st.just("s")), max_size=2)),
              "z": _any}))
#: instances with few errors (most keywords met), so that each keyword is often the only one broken
_json = _node | _any


@settings(max_examples=400, deadline=None)
@given(_json)
@example({"name": "abcd"})  # each keyword the only one broken
@example({"name": "A"})
@example({"name": 1})
@example({"name": "a", "n": -1})
@example({"name": "a", "kind": "b"})
@example({"name": "a", "v": "y"})
@example({"name": "a", "q": "1k"})
@example({"name": "a", "kids": [{}]})
@example({"name": "a", "labels": {"a": 1}})
@example({"name": "a", "z": 1})
@example({})
def test_compiled_validator_agrees_with_jsonschema_on_every_keyword(instance):
    """Every keyword the validator supports, on any JSON value: valid exactly when
    jsonschema says so, with the same (keyword, path) errors. (A pattern's ``$`` is Go's,
    the end of the text, on purpose: ``go_pattern``; no value here ends in a newline.)"""
    from jsonschema import Draft202012Validator

    from rolloutctl.lint.validator import Compiled

    mine = Compiled(_EVERY_KEYWORD)
    want = sorted({(e.validator, tuple(e.absolute_path)) for e in Draft202012Validator(_EVERY_KEYWORD).iter_errors(instance)},
                  key=repr)
    assert sorted({(e.validator, e.absolute_path) for e in mine.iter_errors(instance)}, key=repr) == want
    assert mine.is_valid(instance) == (not want)


@pytest.mark.parametrize("schema_", [{"type": "object", "format": "date"},
                                     {"properties": {"a": {"items": {"oneOf": []}}}}])
def test_a_schema_keyword_the_validator_does_not_know_is_refused_before_it_is_used(schema_):
    """The validator compiles a node when an instance first reaches it, and builds its
    error reports only for the first invalid instance; an unsupported keyword (which it
    would silently ignore) is refused before any instance is checked against its node,
    and ``refuse_unknown`` finds it up front."""
    from rolloutctl.admit.validator import refuse_unknown
    from rolloutctl.lint.validator import Compiled

    with pytest.raises(ValueError, match="unsupported schema keywords"):
        refuse_unknown(schema_)
    with pytest.raises(ValueError, match="unsupported schema keywords"):
        Compiled(schema_).is_valid({"a": [1]})
    with pytest.raises(ValueError, match="unsupported schema keywords"):
        list(Compiled(schema_).iter_errors({"a": [1], "b": 1}))


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_every_bundled_schema_holds_only_keywords_the_validator_implements(ours):
    from rolloutctl.admit.validator import refuse_unknown

    refuse_unknown(load_schema(ours))


def test_errors_are_reported_the_same_after_the_validator_has_passed_valid_instances():
    """A validator that first meets valid instances (and so has not built its error
    reports yet) reports an invalid one fully, and keeps doing so."""
    from rolloutctl.lint.validator import Compiled

    mine = Compiled(_EVERY_KEYWORD)
    assert list(mine.iter_errors({"name": "abc"})) == []
    first = sorted((e.validator, e.absolute_path) for e in mine.iter_errors({"name": "A", "n": -1}))
    assert first == [("minimum", ("n",)), ("pattern", ("name",))]
    assert sorted((e.validator, e.absolute_path) for e in mine.iter_errors({"name": "A", "n": -1})) == first


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_served_versions_and_their_deprecation_warnings_are_the_crds(ours):
    """SC008 says what the API server sends for a deprecated version: the CRD's
    ``deprecationWarning`` (or its generic text when the CRD sets none)."""
    from rolloutctl.kinds import KINDS

    rel, _version, kind, _op = CRDS[ours]
    p = UPSTREAM / rel
    if not p.is_file():
        pytest.skip("../shared/upstream is not available")
    crd = yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
    group = crd["spec"]["group"]
    want = {v["name"]: (v.get("deprecationWarning") or f"{group}/{v['name']} {kind} is deprecated")
            if v.get("deprecated") else "" for v in crd["spec"]["versions"] if v.get("served")}
    [d] = [d for d in KINDS if d.kind == kind and d.group == group and d.version]
    assert dict(d.served) == want


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_the_fields_an_older_served_version_lacks_are_the_crds(ours):
    """A manifest of an older served version is decoded with that version's schema: the
    spec fields our registry lists as absent there are exactly those of the models'
    version that the CRD's schema of that version lacks (the outermost of each)."""
    from rolloutctl.kinds import KINDS

    rel, version, kind, _op = CRDS[ours]
    p = UPSTREAM / rel
    if not p.is_file():
        pytest.skip("../shared/upstream is not available")
    crd = yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
    [d] = [d for d in KINDS if d.kind == kind and d.group == crd["spec"]["group"] and d.version]
    assert d.version == version
    models = {x for x in _crd_paths(_crd(rel, version)) if x[0] == "spec"}
    for other in d.served:
        if other == version:
            continue
        lacking = models - _crd_paths(_crd(rel, other))
        outermost = {x for x in lacking if not any(x[:i] in lacking for i in range(1, len(x)))}
        want = sorted(".".join(x).replace(".[]", "[]") for x in outermost)
        assert sorted(d.absent.get(other, ())) == want, other


def _crd_required(node: Any) -> set:
    return {(*path, r) for path, n in _crd_nodes(node) for r in n.get("required") or ()}


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_the_fields_only_an_older_served_version_requires_are_the_crds(ours):
    """A manifest of an older served version is validated with that version's schema:
    the fields our registry lists as required there are exactly those that schema
    requires and the models' version does not (among the fields both have)."""
    from rolloutctl.kinds import KINDS

    rel, version, kind, _op = CRDS[ours]
    crd = _crd(rel, version)
    doc = yaml.load((UPSTREAM / rel).read_text(), Loader=yaml.CSafeLoader)
    [d] = [d for d in KINDS if d.kind == kind and d.group == doc["spec"]["group"] and d.version]
    both = _crd_paths(crd)
    for other in d.served:
        if other == version:
            continue
        only = {x for x in _crd_required(_crd(rel, other)) - _crd_required(crd) if x in both}
        want = sorted(".".join(x).replace(".[]", "[]") for x in only)
        assert sorted(d.required.get(other, ())) == want, other


def test_a_v1alpha1_worker_group_without_ray_start_params_is_refused(cli, tmp_path):
    """v1alpha1's schema requires ``rayStartParams`` on every group (v1's does not): the
    API server refuses such a manifest, and lint and plan say where."""
    f = tmp_path / "rs.yaml"
    f.write_text("""apiVersion: ray.io/v1alpha1
kind: RayService
metadata: {name: svc}
spec:
  serveConfigV2: "applications: []"
  rayClusterConfig:
    headGroupSpec:
      rayStartParams: {}
      template: {spec: {containers: [{name: ray-head, image: rayproject/ray:2.9.0}]}}
    workerGroupSpecs:
    - groupName: gpu
      minReplicas: 1
      maxReplicas: 1
      template: {spec: {containers: [{name: w, image: rayproject/ray:2.9.0}]}}
""")
    r = cli("lint", str(f), "-o", "json")
    assert r.exit_code == 1
    errors = [x for x in r.json()["findings"] if x["severity"] == "error"]
    assert [(x["rule"], x["line"]) for x in errors] == [("SC002", 11)], errors
    assert "rayStartParams" in errors[0]["message"]
    assert cli("plan", str(f), "-o", "json").exit_code == 2
    f.write_text(f.read_text().replace("    - groupName: gpu\n", "    - groupName: gpu\n      rayStartParams: {}\n"))
    assert cli("lint", str(f)).exit_code == 0


_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def _value_rules_missing(crd: dict, ours_root: dict) -> list[str]:
    """Where our schema has a node the CRD constrains, the constraints the API server
    checks on values that our node lacks: an ``enum``, the range of ``format: int32`` /
    ``int64`` (kube-openapi's ``IsValueValidAgainstRange``), a ``map`` list type and its
    keys (``ValidateListSetsAndMaps``)."""
    from rolloutctl.admit.schema import resolve

    out: list[str] = []

    def walk(c: Any, o: Any, path: tuple) -> None:
        if not isinstance(c, dict) or not isinstance(o, dict):
            return
        o = resolve(ours_root, o) if "$ref" in o else o
        if not o:
            return
        where = ".".join(path)
        if "enum" in c and sorted(map(str, o.get("enum", ()))) != sorted(map(str, c["enum"])):
            out.append(f"{where}: enum {c['enum']}")
        rng = _INT_RANGE.get(c.get("format"))
        if rng and c.get("type") == "integer" and (o.get("minimum", -2**70) < rng[0] or o.get("maximum", 2**70) > rng[1]):
            out.append(f"{where}: {c['format']} range")
        if c.get("x-kubernetes-list-type") == "map" and (
                o.get("x-kubernetes-list-type") != "map"
                or list(o.get("x-kubernetes-list-map-keys") or ()) != list(c.get("x-kubernetes-list-map-keys") or ())):
            out.append(f"{where}: list-type map {c.get('x-kubernetes-list-map-keys')}")
        for k, v in (c.get("properties") or {}).items():
            sub = (o.get("properties") or {}).get(k)
            if sub is not None:
                walk(v, sub, (*path, k))
        if isinstance(c.get("items"), dict) and isinstance(o.get("items"), dict):
            walk(c["items"], o["items"], (*path, "[]"))

    walk(crd, ours_root, ())
    return out


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_our_schema_checks_the_values_the_crd_constrains(ours):
    """Enums, integer formats and map list keys of the CRD hold in our schema wherever it
    declares the field: ``autoscalerOptions: {upscalingMode: Fast}``, ``maxReplicas:
    3000000000`` or two ``initContainers`` named alike are refused by the API server, so
    lint and plan refuse them too."""
    rel, version, _kind, _op = CRDS[ours]
    # the one deliberate difference: the proposed Grove strategies (docs/grove-proposed.md)
    # are values our schema takes, with GV201 saying the CRD does not have them yet
    proposed = {"spec.updateStrategy.type: enum ['RollingRecreate', 'OnDelete']"}
    assert [m for m in _value_rules_missing(_crd(rel, version), load_schema(ours)) if m not in proposed] == []


@pytest.mark.parametrize("text, rule", [
    ("autoscalerOptions: {upscalingMode: Fast}", "SC004"),
    ("autoscalerOptions: {version: v3}", "SC004"),
])
def test_an_autoscaler_option_outside_its_enum_is_refused(cli, tmp_path, text, rule):
    doc = yaml.safe_load((REPO / "samples" / "rayservice-text-ml.yaml").read_text())
    doc["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    doc["spec"]["rayClusterConfig"].update(yaml.safe_load(text))
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(doc))
    r = cli("lint", str(f), "-o", "json")
    assert r.exit_code == 1
    assert rule in [x["rule"] for x in r.json()["findings"] if x["severity"] == "error"]


def test_an_int32_overflow_and_a_duplicate_init_container_are_refused(cli, tmp_path):
    doc = yaml.safe_load((REPO / "samples" / "rayservice-text-ml.yaml").read_text())
    rcc = doc["spec"]["rayClusterConfig"]
    rcc["workerGroupSpecs"][0]["maxReplicas"] = 3000000000
    rcc["headGroupSpec"]["template"]["spec"]["initContainers"] = [{"name": "i", "image": "busybox"},
                                                                   {"name": "i", "image": "alpine"}]
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(doc))
    r = cli("lint", str(f), "-o", "json")
    assert r.exit_code == 1
    paths = sorted(x["path"] for x in r.json()["findings"] if x["severity"] == "error")
    assert any(p.endswith("maxReplicas") for p in paths), paths
    assert any("initContainers" in p for p in paths), paths


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_where_our_schema_allows_no_other_field_it_declares_every_field_of_the_crd(ours):
    """The converse of test_we_declare_no_field_the_crd_lacks: a node of our schema that
    refuses other fields (``additionalProperties: false``, an SC001 error) lists every
    property the CRD has there, so no field the API server accepts is ever called unknown."""
    from rolloutctl.admit.schema import resolve

    rel, version, _kind, _op = CRDS[ours]
    crd, root = _crd(rel, version), load_schema(ours)
    missing: list[str] = []

    def walk(o: Any, c: Any, path: tuple) -> None:
        o = resolve(root, o)
        if not isinstance(o, dict) or not isinstance(c, dict):
            return
        for alt in o.get("anyOf") or ():
            walk(alt, c, path)
        props, theirs = o.get("properties") or {}, c.get("properties") or {}
        if o.get("additionalProperties") is False:
            missing.extend(".".join((*path, k)) for k in theirs if k not in props)
        for k, v in props.items():
            if k in theirs:
                walk(v, theirs[k], (*path, k))
        for key, step in (("items", "[]"), ("additionalProperties", "*")):
            if isinstance(o.get(key), dict) and isinstance(c.get(key), dict):
                walk(o[key], c[key], (*path, step))

    walk(root, crd, ())
    assert not missing, f"fields the CRD accepts that our schema calls unknown: {missing[:20]}"


_TYPOS = [
    ("containers", "livenessProbe", {"httpGet": {"port": 8000, "pth": "/x"}}, "pth"),
    ("containers", "securityContext", {"privilegd": True}, "privilegd"),
    ("pod", "tolerations", [{"key": "a", "opertor": "Exists"}], "opertor"),
    ("pod", "affinity", {"nodeAffinty": {}}, "nodeAffinty"),
    ("pod", "volumes", [{"name": "v", "emptyDirr": {}}], "emptyDirr"),
]


@pytest.mark.parametrize("where, field, value, typo", _TYPOS, ids=[t[3] for t in _TYPOS])
def test_a_mistyped_field_in_a_pod_spec_is_an_unknown_field(cli, tmp_path, where, field, value, typo):
    """kubectl's strict field validation refuses an unknown field anywhere the CRD's
    schema is structural, pod specs included."""
    doc = yaml.safe_load((REPO / "samples" / "rayservice-text-ml.yaml").read_text())
    pod = doc["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
    (pod["containers"][0] if where == "containers" else pod)[field] = value
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(doc))
    r = cli("lint", str(f), "-o", "json")
    assert r.exit_code == 1
    errors = [x for x in r.json()["findings"] if x["severity"] == "error"]
    assert [x["rule"] for x in errors] == ["SC001"] and errors[0]["path"].endswith(typo), errors


@pytest.mark.parametrize("ours", sorted(CRDS))
def test_the_fields_only_the_models_version_requires_are_the_crds(ours):
    """The converse: what the models' version requires and an older served version does
    not (v1 requires ``rayClusterConfig``, v1alpha1 does not) is our registry's ``optional``."""
    from rolloutctl.kinds import KINDS

    rel, version, kind, _op = CRDS[ours]
    crd = _crd(rel, version)
    doc = yaml.load((UPSTREAM / rel).read_text(), Loader=yaml.CSafeLoader)
    [d] = [d for d in KINDS if d.kind == kind and d.group == doc["spec"]["group"] and d.version]
    for other in d.served:
        if other == version:
            continue
        older = _crd(rel, other)
        only = {x for x in _crd_required(crd) - _crd_required(older) if x in _crd_paths(older)}
        want = sorted(".".join(x).replace(".[]", "[]") for x in only)
        assert sorted(d.optional.get(other, ())) == want, other


@pytest.mark.parametrize("text", [
    "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: svc}\n",
    "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: svc}\nspec: null\n",
    "apiVersion: ray.io/v1alpha1\nkind: RayService\nmetadata: {name: svc}\nspec: {serveConfigV2: 'applications: []'}\n",
], ids=["no spec", "null spec", "v1alpha1 without rayClusterConfig"])
def test_a_rayservice_the_api_server_stores_is_failed_by_the_controller_instead(cli, tmp_path, text):
    """Neither served version requires ``spec`` and v1alpha1 does not require
    ``rayClusterConfig``: the API server stores such a RayService and the controller
    fails it (``ValidateRayServiceSpec``: the head group has no container)."""
    f = tmp_path / "rs.yaml"
    f.write_text(text)
    r = cli("lint", str(f), "-o", "json")
    assert r.exit_code == 1
    assert [x["rule"] for x in r.json()["findings"] if x["severity"] == "error"] == ["RS005"]
    p = cli("plan", str(f), "-o", "json").json()
    assert p["outcome"] == "stuck" and p["stuck"]["reason"] == "ValidationFailed"
