"""Admission (rolloutctl/admit): each bullet of issue 12's first list, through the CLI,
each citing the upstream function that decides it."""

from __future__ import annotations

import json

import pytest

from rolloutctl.core.quantity import canonical_quantity
from tests.conftest import write
from tests.hardening.helpers import assert_input_error
from tests.lint.cases import pcs
from tests.lint.cases import rs as _rs


def rs(**kw) -> str:
    """A RayService with one Serve application (so that a plan settles)."""
    return _rs(**kw).replace("    applications: []\n", "    applications:\n    - name: app\n      import_path: m:app\n")


def _lint(cli, *args):
    r = cli("lint", "-o", "json", *args)
    return r, json.loads(r.stdout)["findings"]


def _plan(cli, *args):
    r = cli("plan", "-o", "json", *args)
    assert r.exit_code in (0, 1), (r.exit_code, r.stderr)
    doc = r.json()
    return doc[0] if isinstance(doc, list) else doc


def _diff(cli, *args):
    r = cli("diff", "-o", "json", *args)
    return r, (json.loads(r.stdout) if r.stdout else None)


# ----------------------------------------------------------------------------- namespace


def test_namespace_less_manifest_diffs_unchanged_against_itself(cli, tmp_path):
    """kubectl apply puts a namespace-less object in -n (else default) and the API server
    stores it there (k8s.io/kubectl pkg/cmd/apply: the namespace enforcement of
    resource.Builder.DefaultNamespace); both sides get it, so nothing differs."""
    p = write(tmp_path, "svc.yaml", rs())
    r, doc = _diff(cli, p, "--live", p)
    assert r.exit_code == 0, r.stdout
    assert [o["status"] for o in doc["objects"]] == ["unchanged"]
    assert doc["objects"][0]["target"]["namespace"] == "default"


def test_dash_n_sets_the_namespace_on_both_sides(cli, tmp_path):
    p = write(tmp_path, "svc.yaml", rs())
    doc = _plan(cli, p, "--observed", p, "-n", "ml")
    assert doc["target"]["namespace"] == "ml" and doc["outcome"] == "noop"
    r, d = _diff(cli, p, "--live", p, "-n", "ml")
    assert r.exit_code == 0 and d["objects"][0]["target"]["namespace"] == "ml"


# ----------------------------------------------------------------------------- null pruning


@pytest.mark.parametrize("text", [
    rs(cluster="enableInTreeAutoscaling: null"),
    rs().replace("kind: RayService\n", "kind: RayService\nstatus:\n"),
    pcs(template="topologyConstraint:"),
    pcs(spec="updateStrategy:"),
], ids=["rs-null-field", "rs-null-status", "pcs-null-topology", "pcs-null-update-strategy"])
def test_non_nullable_nulls_are_pruned_not_refused(cli, tmp_path, text):
    """structuraldefaulting.PruneNonNullableNullsWithoutDefaults
    (k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting/prunenulls.go):
    a null in a field that is not nullable is dropped before validation."""
    p = write(tmp_path, "in.yaml", text)
    r, findings = _lint(cli, p)
    assert r.exit_code == 0, findings
    assert not [f for f in findings if f["severity"] == "error"]
    assert _plan(cli, p)["outcome"] == "converged"


@pytest.mark.parametrize("text", [
    rs(spec="serveConfigV3: null"),
    pcs(spec="updateStrategi: null"),
], ids=["rs-unknown-null", "pcs-unknown-null"])
def test_a_null_in_a_field_the_schema_does_not_know_is_an_unknown_field(cli, tmp_path, text):
    """The API server prunes unknown fields before nulls (apiextensions-apiserver
    customresource_handler.go ``unstructuredSchemaCoercer.apply``: ``PruneWithOptions``,
    then ``PruneNonNullableNullsWithoutDefaults``), so strict field validation refuses a
    misspelt field whatever its value, null included."""
    p = write(tmp_path, "in.yaml", text)
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    assert [(f["rule"], f["severity"]) for f in findings if f["severity"] == "error"] == [("SC001", "error")]
    assert_input_error(cli("plan", p), p, "SC001", "unknown field")


def test_a_null_with_a_default_gets_the_default(cli, tmp_path):
    """Pruned first, then defaulted (structuraldefaulting.Default): `replicas: null` in a
    worker group is the CRD's default 0, so the desired world has no workers."""
    p = write(tmp_path, "in.yaml", rs().replace("      replicas: 1\n      minReplicas: 1\n",
                                                  "      replicas: null\n      minReplicas: 0\n"))
    doc = _plan(cli, p)
    assert doc["outcome"] == "converged"
    created = [a for s in doc["steps"] for a in s["actions"] if a["verb"] == "create" and a["kind"] == "RayCluster"]
    assert created


# ----------------------------------------------------------------------------- structural defaults


def test_required_fields_the_crd_defaults_may_be_omitted(cli, tmp_path):
    """minReplicas/maxReplicas are required in our schema but defaulted by the CRD (0 and
    2147483647, +kubebuilder:default in ray-operator/apis/ray/v1/raycluster_types.go);
    structural defaulting runs before validation (apiextensions-apiserver
    pkg/registry/customresource/strategy.go: defaults are applied on decode)."""
    text = rs().replace("      minReplicas: 1\n      maxReplicas: 5\n", "")
    p = write(tmp_path, "in.yaml", text)
    r, findings = _lint(cli, p)
    assert r.exit_code == 0, findings
    assert _plan(cli, p)["outcome"] == "converged"


def test_port_protocol_default_is_not_a_change(cli, tmp_path):
    """A PodCliqueSet whose ports omit protocol, against a live copy that shows the CRD
    default `protocol: TCP`: no change in diff, and plan is noop (no rollout)."""
    desired_text = pcs().replace("image: busybox\n", "image: busybox\n            ports:\n"
                                                      "            - containerPort: 8080\n", 1)
    live_text = desired_text.replace("- containerPort: 8080\n", "- containerPort: 8080\n              protocol: TCP\n")
    desired, live = write(tmp_path, "d.yaml", desired_text), write(tmp_path, "l.yaml", live_text)
    r, doc = _diff(cli, desired, "--live", live)
    assert r.exit_code == 0 and doc["objects"][0]["status"] == "unchanged", doc
    assert _plan(cli, desired, "--observed", live)["outcome"] == "noop"


# ----------------------------------------------------------------------------- served versions


def test_served_deprecated_version_is_accepted_with_the_crd_warning_and_converted(cli, tmp_path):
    """ray.io/v1alpha1 is served and deprecated in ray.io_rayservices.yaml
    (+kubebuilder:deprecatedversion in ray-operator/apis/ray/v1alpha1/rayservice_types.go);
    conversion strategy None only rewrites apiVersion
    (apiextensions-apiserver pkg/apiserver/conversion/nop_converter.go)."""
    p = write(tmp_path, "in.yaml", rs().replace("apiVersion: ray.io/v1\n", "apiVersion: ray.io/v1alpha1\n"))
    r, findings = _lint(cli, p)
    assert r.exit_code == 0
    assert [(f["rule"], f["severity"]) for f in findings] == [("SC008", "warning")]
    assert "ray.io/v1alpha1 RayService is deprecated; use ray.io/v1 RayService" in findings[0]["message"]
    doc = _plan(cli, p)
    assert doc["target"]["apiVersion"] == "ray.io/v1" and doc["outcome"] == "converged"
    assert any(w["code"] == "SC008" for w in doc["warnings"])


def test_a_v1_only_field_in_a_v1alpha1_manifest_is_an_unknown_field(cli, tmp_path):
    """ray.io_rayservices.yaml's v1alpha1 schema lacks the fields added since (v1alpha1
    "receives no new fields"); a v1alpha1 request is decoded with that schema, so kubectl's
    strict field validation refuses spec.upgradeStrategy, spec.suspend or a worker group's
    numOfHosts there (else the API server would drop them: a None upgrade strategy, a
    suspend, would not be what the operator reads). The same manifest as v1 is fine."""
    v1 = rs(spec="upgradeStrategy:\n  type: None\nsuspend: false", worker="numOfHosts: 1")
    p = write(tmp_path, "in.yaml", v1.replace("apiVersion: ray.io/v1\n", "apiVersion: ray.io/v1alpha1\n"))
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    unknown = sorted((f["path"], f["severity"]) for f in findings if f["rule"] == "SC001")
    assert unknown == [("spec.rayClusterConfig.workerGroupSpecs[groupName=small].numOfHosts", "error"),
                       ("spec.suspend", "error"), ("spec.upgradeStrategy", "error")]
    assert all("ray.io/v1alpha1 RayService has no such field, ray.io/v1 has" in f["message"]
               for f in findings if f["rule"] == "SC001")
    lines = assert_input_error(cli("plan", p), p, "SC001: spec.upgradeStrategy: unknown field 'upgradeStrategy'")
    assert len(lines) == 3
    ok = write(tmp_path, "v1.yaml", v1)
    r, findings = _lint(cli, ok)
    assert r.exit_code == 0 and not [f for f in findings if f["rule"] == "SC001"]
    assert _plan(cli, ok)["strategy"] == "None"


def test_unserved_version_is_refused(cli, tmp_path):
    p = write(tmp_path, "in.yaml", rs().replace("apiVersion: ray.io/v1\n", "apiVersion: ray.io/v2\n"))
    r = cli("plan", p)
    assert_input_error(r, p, "SC005: apiVersion: ray.io/v2 RayService is not served (served: ray.io/v1, ray.io/v1alpha1)")


# ----------------------------------------------------------------------------- duplicates


def test_duplicates_are_a_lint_error_and_the_same_message_stops_plan_and_diff(cli, tmp_path):
    """Two copies of one object (group, kind, namespace after defaulting, name): lint
    names both places; plan and diff exit 2 with the same message."""
    text = pcs() + "---\n" + pcs().replace("  name: inf\n", "  name: inf\n  namespace: default\n", 1)
    p = write(tmp_path, "dup.yaml", text)
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    dups = [f for f in findings if f["rule"] == "SC009"]
    assert len(dups) == 1
    message = dups[0]["message"]
    assert f"{p}:1" in message and f"{p}:{dups[0]['line']}" in message
    for command in ("plan", "next"):
        assert_input_error(cli(command, p), p, f"SC009: {message}")
    assert_input_error(cli("diff", p, "--live", p), p, f"SC009: {message}")


# ----------------------------------------------------------------------------- quantities


@pytest.mark.parametrize("value, canonical", [
    (2, "2"), ("2", "2"), ("2000m", "2"), ("0.5", "500m"), (1000, "1k"), ("1500000", "1500k"),
    ("1024Mi", "1Gi"), ("1536Mi", "1536Mi"), ("1.5Ki", "1536"), ("0.1Ki", "102400m"), ("512", "512"),
    ("1e3", "1e3"), ("0", "0"), ("1n", "1n"), ("0.0000000001", "1n"), (0.25, "250m"),
])
def test_canonical_quantity(value, canonical):
    """resource.Quantity.String / CanonicalizeBytes (k8s.io/apimachinery
    pkg/api/resource/quantity.go): the format follows the suffix; binary SI below 1024
    or not whole prints as decimal SI; precision beyond nano rounds up."""
    assert canonical_quantity(value) == canonical


def test_quantity_spelling_is_not_a_change(cli, tmp_path):
    """`cpu: 2` -> `cpu: "2"`: KubeRay hashes the typed spec
    (ray-operator/controllers/ray/utils/util.go#GenerateHashWithoutReplicasAndWorkersToDelete),
    where both are the same resource.Quantity: no new RayCluster, no change in diff."""
    old = write(tmp_path, "old.yaml", rs(head_ctr="resources: {requests: {cpu: 2, memory: 2048Mi}}"))
    new = write(tmp_path, "new.yaml", rs(head_ctr="resources: {requests: {cpu: '2', memory: 2Gi}}"))
    r, doc = _diff(cli, new, "--live", old)
    assert r.exit_code == 0 and doc["objects"][0]["status"] == "unchanged", doc
    assert _plan(cli, new, "--observed", old)["outcome"] == "noop"
    changed = write(tmp_path, "changed.yaml", rs(head_ctr="resources: {requests: {cpu: '3', memory: 2Gi}}"))
    assert _plan(cli, changed, "--observed", old)["outcome"] == "converged"


# ----------------------------------------------------------------------------- ObjectMeta


@pytest.mark.parametrize("meta, path", [
    ("labels:\n  team: " + "a" * 64, "metadata.labels.team"),
    ("labels:\n  'bad key!': x", "metadata.labels"),
    ("labels:\n  " + "p" * 254 + "/k: x", "metadata.labels"),
    ("annotations:\n  big: " + "a" * (256 * 1024), "metadata.annotations"),
], ids=["label-value-too-long", "label-key-invalid", "label-prefix-too-long", "annotations-over-256KiB"])
def test_object_meta_rules(cli, tmp_path, meta, path):
    """ValidateLabels / IsQualifiedName / IsValidLabelValue (k8s.io/apimachinery
    pkg/apis/meta/v1/validation, pkg/util/validation) and ValidateAnnotations'
    TotalAnnotationSizeLimitB (pkg/api/validation/objectmeta.go)."""
    p = write(tmp_path, "in.yaml", rs(meta=meta))
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    hits = [f for f in findings if f["rule"] == "SC010"]
    assert hits and all(f["path"].startswith(path) for f in hits), findings
    assert_input_error(cli("plan", p), p, "SC010: ")


# ----------------------------------------------------------------------------- lint consumes admitted objects


def test_lint_webhook_rules_see_the_defaulted_object(cli, tmp_path):
    """Grove's validating webhook sees the object after the defaulting webhook
    (operator/internal/webhook/admission/pcs/defaulting/podcliqueset.go#defaultPodCliqueSet):
    a clique without replicas is not "missing a required field" (the webhook sets 1), but
    minAvailable defaults to the replicas as written (0), which validation refuses."""
    p = write(tmp_path, "in.yaml", pcs().replace("        replicas: 1\n", "", 1))
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    assert [(f["rule"], f["path"]) for f in findings] == [("GV010", "spec.template.cliques[name=worker].spec.minAvailable")]


# ----------------------------------------------------------------------------- decoding as kubectl does


@pytest.mark.parametrize("plain, value", [
    ("1:30", "1:30"), ("n", False), ("N", False), ("y", True), ("Yes", True), ("off", False), ("on", True),
    ("yES", "yES"), ("0o3", 3), ("08", 8.0), ("010", 8), ("0x1F", 31), ("-0x1F", -31), ("+5", 5), ("1_000", 1000),
    ("1e3", 1000.0), ("1.0e3", 1000.0), (".5", 0.5), ("1.", 1.0), ("0b101", 5), ("2001-12-14", "2001-12-14"),
    ("~", None), ("", None), ("Null", None), ("nULL", "nULL"), ("1e400", "1e400"), ("1.2.3", "1.2.3"),
    ("99999999999999999999", 1e20), ("9223372036854775808", 2 ** 63),
])
def test_plain_scalars_resolve_as_go_yaml_v2(plain, value):
    """go-yaml v2 resolve (sigs.k8s.io/yaml goyaml.v2/resolve.go#resolve): resolveMap,
    then strconv.ParseInt(plain, 0, 64) with underscores dropped, ParseUint, yamlStyleFloat."""
    from rolloutctl.core.goyaml import go_yaml_resolve

    out = go_yaml_resolve(plain)
    assert out == value and type(out) is type(value)


def test_sexagesimal_is_a_string_to_kubectl(cli, tmp_path):
    """`replicas: 1:30` is 90 to PyYAML but the string "1:30" to kubectl (go-yaml v2 has no
    base-60 numbers): the API server refuses it."""
    p = write(tmp_path, "in.yaml", pcs().replace("  replicas: 1\n", "  replicas: 1:30\n", 1))
    assert_input_error(cli("plan", p), p, 'SC003: spec.replicas: expected integer, got string "1:30"')


def test_n_is_false_to_kubectl(cli, tmp_path):
    """`value: n` stays a string to PyYAML; kubectl sends false, which an env var value
    (a string) cannot be."""
    p = write(tmp_path, "in.yaml", rs(head_ctr="env: [{name: DEBUG, value: n}]"))
    assert_input_error(cli("plan", p), p, "SC003: spec.rayClusterConfig.headGroupSpec.template.spec.containers"
                                          "[name=ray-head].env[name=DEBUG].value: expected string, got boolean false")


@pytest.mark.parametrize("spelling", ["0o3", "03", "3.0", "0x3", "3_0"])
def test_go_integer_spellings_are_numbers(cli, tmp_path, spelling):
    """0o3, 03 (octal), 3.0 and 0x3 are numbers to kubectl (strconv.ParseInt base 0; Go
    prints the float 3.0 as 3), so replicas accepts them; 3_0 is 30."""
    p = write(tmp_path, "in.yaml", pcs(replicas=1).replace("  replicas: 1\n", f"  replicas: {spelling}\n", 1))
    r, findings = _lint(cli, p)
    assert r.exit_code == 0, findings
    doc = _plan(cli, p)
    pods = [a for s in doc["steps"] for a in s["actions"] if a["verb"] == "create" and a["kind"] == "Pod"]
    assert len(pods) == (30 if spelling == "3_0" else 3)


def test_one_object_in_two_files_warns_in_lint_and_stops_plan_and_diff(cli, tmp_path):
    """Variants of one object in two files (samples, per-environment copies) are a lint
    warning (SC013): a repository may hold them. Given to plan or diff together they are
    one input, and the object is ambiguous: exit 2, SC009 naming both files."""
    a = write(tmp_path, "a.yaml", pcs())
    b = write(tmp_path, "b.yaml", pcs(replicas=2))
    r, findings = _lint(cli, a, b)
    assert r.exit_code == 0
    assert [(f["rule"], f["severity"], f["file"]) for f in findings] == [("SC013", "warning", b)]
    assert f"{a}:1 and {b}:1" in findings[0]["message"]
    for command in ("plan", "next"):
        r = cli(command, a, b)
        assert_input_error(r, b, f"SC009: duplicate PodCliqueSet default/inf: at {a}:1 and {b}:1")
        # kubectl would apply both, one after the other: nothing claims the API server refuses them
        assert "would reject" not in r.stderr
    assert_input_error(cli("diff", a, b, "--live", a), b, "SC009: duplicate PodCliqueSet default/inf")


@pytest.mark.parametrize("kind", ["rs", "pcs"])
def test_an_unquoted_fractional_quantity_is_refused_with_the_quoted_form(cli, tmp_path, kind):
    """A quantity field is int-or-string in the CRDs: ``cpu: 0.5`` reaches the API server
    as a JSON number with a fraction, which it refuses ("must be of type integer,string");
    ``"0.5"`` and a whole ``1.0`` (sent as the integer 1) are admitted."""
    def manifest(requests: str) -> str:
        if kind == "rs":
            return rs(head_ctr=f"resources: {{requests: {requests}}}")
        return pcs().replace("image: busybox\n", f"image: busybox\n            resources: {{requests: {requests}}}\n")

    bad = write(tmp_path, "bad.yaml", manifest("{cpu: 0.5, memory: 2Gi}"))
    r = cli("lint", bad, "-o", "json")
    assert r.exit_code == 1
    (f,) = [f for f in r.json()["findings"] if f["rule"] == "SC003"]
    assert f["path"].endswith("requests.cpu") and 'quote it: "0.5"' in f["message"]
    assert cli("plan", bad).exit_code == 2
    good = write(tmp_path, "good.yaml", manifest("{cpu: '0.5', memory: 1.0}"))
    assert cli("lint", good).exit_code == 0, cli("lint", good).stdout
