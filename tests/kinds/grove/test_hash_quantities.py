"""Grove's pod template hash sees a quantity as the manifest wrote it.

The API server stores a custom resource's quantities as written; the operator decodes
them into ``resource.Quantity`` values, which keep the parsed digits and scale (and the
text, when it is canonical), and ``ComputeHash`` prints them with ``dump.ForHash``
(``operator/internal/utils/kubernetes/pod.go``, ai-dynamo/grove @ fcc3b3bb;
k8s.io/apimachinery ``pkg/api/resource/quantity.go`` ``ParseQuantity``). Where the
defaulting webhook has something to add, its patch (controller-runtime
``CustomDefaulter``: from the request to the re-marshalled object) writes every quantity
in its canonical form, so only a manifest the webhook leaves as it is keeps its text. For
such a manifest rewriting ``memory: 4Gi`` as ``4096Mi`` changes the hash and replaces the
pods, while ``cpu: 2`` and ``cpu: "2"`` (kubectl sends both as the text 2) do not. The
PodCliques the operator writes hold canonical quantities (``json.Marshal``), so a live
PodClique is read against the template's text."""

from __future__ import annotations

import copy

import pytest

from rolloutctl.core.quantity import as_written, stored_text
from tests.kinds.grove import sample_edits as E
from tests.kinds.grove.operator_world import settled_world, webhook_defaults


def _sample(complete: bool = True) -> dict:
    """The bundled sample; ``complete``: with every default the webhook would add."""
    d = E.sample()
    return webhook_defaults(d) if complete else d


def _requests(d: dict) -> dict:
    return E.clique(d, "frontend")["spec"]["podSpec"]["containers"][0]["resources"]["requests"]


def _plan(cli, tmp_path, new: dict, observed: dict | list) -> dict:
    return E.plan(cli, new, observed, tmp_path, codes=(0, 1))


_pod_deletes = E.pod_deletes


@pytest.mark.parametrize("old,new,rolls", [
    ("4Gi", "4096Mi", True),
    ("2", "2000m", True),
    ("0.5", "500m", True),
    ("2", 2, False),
    (2, 2.0, False),  # kubectl sends the YAML number 2.0 as 2
    ("4Gi", "4Gi", False),
])
def test_a_quantity_rewritten_in_another_form_rolls_the_clique(cli, tmp_path, old, new, rolls):
    """A manifest the defaulting webhook leaves as it is: stored as written."""
    before, after = _sample(), _sample()
    _requests(before)["cpu" if "i" not in str(old) else "memory"] = old
    _requests(after)["cpu" if "i" not in str(old) else "memory"] = new
    p = _plan(cli, tmp_path, after, before)
    assert (p["outcome"] == "converged") is rolls, p["outcome"]
    assert _pod_deletes(p) == (2 if rolls else 0)


@pytest.mark.parametrize("old,new", [("4Gi", "4096Mi"), ("2", "2000m"), ("0.5", "500m")])
def test_where_the_webhook_defaults_the_manifest_its_patch_stores_quantities_canonical(cli, tmp_path, old, new):
    """The webhook adds defaults (this manifest sets no terminationDelay, minAvailable,
    restartPolicy ...), so both forms are stored canonical: nothing rolls."""
    before, after = _sample(complete=False), _sample(complete=False)
    key = "cpu" if "i" not in old else "memory"
    _requests(before)[key], _requests(after)[key] = old, new
    p = _plan(cli, tmp_path, after, before)
    assert p["outcome"] == "noop" and _pod_deletes(p) == 0


def _canonical_pclqs(world: list[dict]) -> list[dict]:
    """The live objects as the operator writes them: PodClique pod specs with canonical
    quantities (``json.Marshal`` of the decoded template)."""
    out = copy.deepcopy(world)
    for o in out:
        if o["kind"] == "PodClique":
            for c in o["spec"]["podSpec"]["containers"]:
                req = (c.get("resources") or {}).get("requests") or {}
                if req.get("cpu") == "0.5":
                    req["cpu"] = "500m"
    return out


def test_live_podcliques_with_canonical_quantities_match_a_template_that_writes_them_otherwise(cli, tmp_path):
    manifest = _sample()
    _requests(manifest)["cpu"] = "0.5"
    live = _canonical_pclqs(settled_world(manifest))
    assert _plan(cli, tmp_path, manifest, live)["outcome"] == "noop"
    # the live PodCliqueSet keeps the text it was applied with: "500m" is a new template
    again = copy.deepcopy(manifest)
    _requests(again)["cpu"] = "500m"
    p = _plan(cli, tmp_path, again, live)
    assert p["outcome"] == "converged" and _pod_deletes(p) == 2
    # a manifest the webhook defaults is stored "500m" whatever it says: a new template too
    partial = _sample(complete=False)
    _requests(partial)["cpu"] = "0.5"
    p = _plan(cli, tmp_path, partial, live)
    assert p["outcome"] == "converged" and _pod_deletes(p) == 2


def test_as_written_puts_back_only_the_quantities_admission_rewrote():
    admitted = {"requests": {"cpu": "500m", "memory": "4Gi"}, "image": "x:1", "args": ["2"]}
    written = {"requests": {"cpu": 0.5, "memory": "4Gi"}, "image": "x:1", "args": [2]}
    assert as_written(admitted, written) == {"requests": {"cpu": "0.5", "memory": "4Gi"}, "image": "x:1", "args": ["2"]}
    assert stored_text(1.0) == "1" and stored_text(0.25) == "0.25" and stored_text(3) == "3"


def test_diff_shows_a_quantity_rewritten_in_another_form_and_its_rollout(cli, tmp_path):
    before, after = _sample(), _sample()
    _requests(after)["memory"] = "4096Mi"
    (obj,) = E.diff(cli, after, before, tmp_path)["objects"]
    assert [(c["old"], c["new"]) for c in obj["changes"]] == [("4Gi", "4096Mi")]
    assert [i["effect"] for i in obj["impact"]] == ["rollout"]
    _requests(after)["memory"] = "4Gi"
    _requests(after)["cpu"] = 2  # "2" in the live object: kubectl sends both as 2
    assert E.diff(cli, after, before, tmp_path)["objects"][0]["changes"] == []


@pytest.mark.parametrize("groups,rolls", [(None, False), ([], True)])
def test_a_template_without_scaling_groups_is_always_patched_by_the_webhook(cli, tmp_path, groups, rolls):
    """``defaultPodCliqueScalingGroupConfigs`` returns a new, empty slice for an absent
    (nil) one, which ``reflect.DeepEqual`` tells apart: the webhook patches every such
    PodCliqueSet, so its quantities are stored canonical. ``podCliqueScalingGroups: []``
    comes back as it was."""
    before = _sample()
    del before["spec"]["template"]["podCliqueScalingGroups"]
    if groups is not None:
        before["spec"]["template"]["podCliqueScalingGroups"] = groups
    after = copy.deepcopy(before)
    _requests(after)["memory"] = "4096Mi"
    p = _plan(cli, tmp_path, after, before)
    assert (p["outcome"] == "converged") is rolls, p["outcome"]
