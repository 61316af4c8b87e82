"""The one function that turns index paths into keyed paths (core.paths.resolve_path),
used where lint findings and plan warnings leave the engine."""

from __future__ import annotations

from hypothesis import given, strategies as st

from rolloutctl.core.paths import keyed_path, resolve_path

NAME = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)


@given(st.lists(NAME, min_size=1, max_size=6, unique=True), st.data())
def test_index_paths_become_keyed_and_point_at_the_same_item(names, data):
    i = data.draw(st.integers(0, len(names) - 1))
    raw = {"spec": {"template": {"cliques": [{"name": n, "spec": {"replicas": 1}} for n in names]}}}
    path, found = resolve_path(raw, f"spec.template.cliques[{i}].spec.replicas")
    assert path == f"spec.template.cliques[name={names[i]}].spec.replicas"
    assert found == ("spec", "template", "cliques", i, "spec", "replicas")
    assert keyed_path(raw, path) == path  # keyed paths stay as they are


def test_lists_without_a_name_key_keep_their_index_and_keys_with_dots_are_found():
    raw = {"spec": {"args": ["a", "b"], "workerGroupSpecs": [{"replicas": 1}, {"groupName": "gpu"}],
                    "resources": {"requests": {"nvidia.com/gpu": 1}}}}
    assert keyed_path(raw, "spec.args[1]") == "spec.args[1]"
    assert keyed_path(raw, "spec.workerGroupSpecs[0].replicas") == "spec.workerGroupSpecs[0].replicas"
    assert keyed_path(raw, "spec.workerGroupSpecs[1].replicas") == "spec.workerGroupSpecs[groupName=gpu].replicas"
    assert resolve_path(raw, "spec.resources.requests.nvidia.com/gpu")[1] == ("spec", "resources", "requests",
                                                                             "nvidia.com/gpu")


def test_paths_that_leave_the_data_keep_the_rest_as_written():
    raw = {"spec": {"cliques": [{"name": "a"}]}}
    assert keyed_path(raw, "spec.cliques[3].name") == "spec.cliques[3].name"
    assert keyed_path(raw, "RayCluster/x.metadata.annotations[a.b/c]") == "RayCluster/x.metadata.annotations[a.b/c]"
    assert keyed_path(raw, "spec.cliques[0].spec.minAvailable") == "spec.cliques[name=a].spec.minAvailable"
