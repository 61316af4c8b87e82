"""Our input schemas against the upstream CRDs: on every upstream sample both accept
or both reject, and we declare no field the CRD lacks (except the documented
proposed-design and post-snapshot fields). Skipped when ../shared is absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rolloutctl.lint.schema import iter_property_names, load_schema
from tests.conftest import UPSTREAM as SHARED_UPSTREAM

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


def _crd_paths(node: Any, path: tuple = (), out: set | None = None) -> set:
    out = set() if out is None else out
    if not isinstance(node, dict):
        return out
    for k, v in (node.get("properties") or {}).items():
        out.add((*path, k))
        _crd_paths(v, (*path, k), out)
    if isinstance(node.get("items"), dict):
        _crd_paths(node["items"], (*path, "[]"), out)
    return out


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
        if any(full[:len(e)] == e for e in EXTRA_FIELDS) or "metadata" in path[1:] or "serveService" in path:
            continue
        if full not in known and not (path and path[-1] in ("spec", "podSpec") and name in ("schedulingGroup", "workloadRef")):
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
