"""The loader under hostile and odd input: every problem is one `PATH:LINE: message`
value, valid YAML that other tools accept is accepted, and nothing is slow or
unbounded. (Kubernetes reads manifests with sigs.k8s.io/yaml; where it and PyYAML
differ, we follow Kubernetes.)"""

from __future__ import annotations

import io
import os
import time

import pytest

from rolloutctl.load.documents import parse_documents
from rolloutctl.load.files import load_paths, one_line
from rolloutctl.load.limits import Limits
from tests.conftest import write

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"


def parse(text: str, **kw):
    objs, errs, n = parse_documents(text, "f.yaml", **kw)
    return objs, [str(e) for e in errs], n


# ----------------------------------------------------------------------------- valid YAML is accepted


def test_tab_inside_a_block_scalar_is_content_not_indentation():
    objs, errs, _ = parse(CM + "data:\n  run.sh: |\n    if true; then\n    \techo hi\n    fi\n")
    assert errs == []
    assert objs[0].raw["data"]["run.sh"] == "if true; then\n\techo hi\nfi\n"


def test_json_indented_with_tabs_loads():
    text = '{\n\t"apiVersion": "v1",\n\t"kind": "ConfigMap",\n\t"metadata": {\n\t\t"name": "j"\n\t}\n}\n'
    objs, errs, _ = parse(text)
    assert errs == [] and objs[0].name == "j"


def test_tab_indentation_is_still_named_plainly():
    _, errs, _ = parse(CM + "data:\n\tk: v\n")
    assert errs == ["f.yaml:6: tab character used for indentation (YAML allows only spaces)"]


def test_merge_keys_with_overrides_are_not_duplicates():
    # (a key "y" would be the boolean true to kubectl: go-yaml v2 resolve.go)
    text = CM + "base: &b {a: 1, c: 3}\nx:\n  <<: *b\n  a: 2\nz:\n  <<: [{a: 9, d: 4}, *b]\n"
    objs, errs, _ = parse(text)
    assert errs == []
    assert objs[0].raw["x"] == {"a": 2, "c": 3}
    assert objs[0].raw["z"] == {"a": 9, "d": 4, "c": 3}  # the earlier merged mapping wins


def test_merge_key_spelled_as_a_value_is_just_text():
    objs, errs, _ = parse(CM + "data: {k: <<}\n")
    assert errs == [] and objs[0].raw["data"] == {"k": "<<"}


def test_merge_of_a_scalar_is_an_error_with_its_line():
    _, errs, _ = parse(CM + "x:\n  <<: 5\n")
    assert errs == ["f.yaml:6: merge key '<<' needs a mapping or a list of mappings"]


def test_keys_become_strings_as_kubernetes_makes_them():
    objs, errs, _ = parse(CM + "data: {1: a, true: b, ~: c, 1.5: d}\n")
    assert errs == []
    assert list(objs[0].raw["data"]) == ["1", "true", "null", "1.5"]
    assert objs[0].line_of("data", "1") == 5


def test_keys_that_collide_after_conversion_are_duplicates():
    _, errs, _ = parse(CM + 'data:\n  1: a\n  "1": b\n')
    assert errs == ["f.yaml:7: duplicate key '1'"]


@pytest.mark.parametrize("bom, codec", [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"),
                                        (b"\xef\xbb\xbf", "utf-8")])
def test_utf16_and_utf8_with_a_byte_order_mark(tmp_path, bom, codec):
    p = tmp_path / "w.yaml"
    p.write_bytes(bom + CM.encode(codec))
    loaded = load_paths([str(p)])
    assert loaded.errors == [] and loaded.objects[0].name == "a"


def test_timestamps_binary_and_the_value_key_stay_text():
    objs, errs, _ = parse(CM + "t: 2001-12-14t21:59:43.10-05:00\nb: !!binary aGk=\nv: =\n")
    assert errs == []
    assert objs[0].raw["t"] == "2001-12-14t21:59:43.10-05:00"
    assert objs[0].raw["b"] == "aGk=" and objs[0].raw["v"] == "="


# ----------------------------------------------------------------------------- one line per problem, with its line


@pytest.mark.parametrize("text, expected", [
    (CM + "z: a\x07b\n", "f.yaml:5: character #x0007 is not allowed in YAML"),
    ("a: \u00e9\u00e9\n" + CM + "z: \x00\n", "f.yaml:6: character #x0000 is not allowed in YAML"),
    (CM + "x: *nope\n", "f.yaml:5: alias *nope refers to no complete anchor"),
    (CM + "x: &a [1, *a]\n", "f.yaml:5: alias *a refers to no complete anchor"),
    (CM + "x: !foo bar\n", "f.yaml:5: unsupported YAML tag !foo"),
    (CM + "x: !!python/object/apply:os.system [ls]\n", "f.yaml:5: unsupported YAML tag"),
    (CM + "x: !!int abc\n", "f.yaml:5: bad int value 'abc'"),
    (CM + "? [a]\n: 1\n", "f.yaml:5: a mapping key must be a scalar"),
    ("apiVersion: v1\nkind: List\nitems: {}\n", "f.yaml:3: items: a List needs a list of objects, got a mapping"),
    ("apiVersion: v1\nkind: List\nitems: null\n", "f.yaml:3: items: a List needs a list of objects, got null"),
    (CM + "image: {{ .Values.image }}\n", "f.yaml:5: a mapping key must be a scalar (line 5 holds a template "
                                          "expression {{ ... }}: render the chart first"),
    (CM + "{% if gpu %}\nx: 1\n{% endif %}\n", "f.yaml:5: YAML syntax error: found character that cannot start any "
                                                 "token (line 5 holds a template tag {% ... %}: render the template"),
    ("apiVersion: v1\nkind: 5\nmetadata: {name: a}\n", "f.yaml:2: kind: must be a string, got number 5"),
    ("apiVersion: v1\nkind: X\nmetadata:\n  name: no\n", "f.yaml:4: metadata.name: must be a string, got boolean false"),
    ("apiVersion: v1\nkind: X\nmetadata: {name: [a]}\n", "f.yaml:3: metadata.name: must be a string, got a list"),
    ("apiVersion: v1\nkind: X\nmetadata: {name: a, namespace: {}}\n", "f.yaml:3: metadata.namespace: must be a string"),
    ("%YAML 9.9\n---\n" + CM, "f.yaml:1: YAML syntax error"),
    (CM + 'x: "\\ud800"\n', "f.yaml:5: YAML syntax error"),
])
def test_each_problem_is_one_line_with_its_line(text, expected):
    _, errs, _ = parse(text)
    assert len(errs) == 1 and errs[0].startswith(expected), errs
    assert "\n" not in errs[0]


def test_huge_values_are_not_repeated_in_messages():
    _, errs, _ = parse(CM + "x: !!int 1" + "0" * 6000 + "\n")
    assert len(errs) == 1 and len(errs[0]) < 400 and errs[0].startswith("f.yaml:5: bad int value")


def test_messages_never_span_lines():
    assert one_line("a\nb\x1b[31m") == "a\\nb\\x1b[31m"
    assert len(one_line("x" * 5000)) == 1000


def test_a_bad_document_does_not_hide_the_next_ones():
    text = CM + "---\n" + CM.replace("name: a", "name: b") + "k: 1\nk: 2\n---\n" + CM.replace("name: a", "name: c")
    objs, errs, n = parse(text)
    assert [o.name for o in objs] == ["a", "c"] and n == 3
    assert errs == ["f.yaml:11: duplicate key 'k'"]


# ----------------------------------------------------------------------------- limits and budgets


def test_alias_budget_is_per_file_and_counts_only_aliases():
    """A long multi-document file without aliases never trips the alias budget, and
    every document keeps the line of every field."""
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a{i}\ndata:\n  k: {{a: [1, 2]}}\n"
    text = "---\n".join(doc.format(i=i) for i in range(3000))
    objs, errs, _ = parse(text, limits=Limits(max_alias_nodes=0))
    assert errs == [] and len(objs) == 3000
    assert all(o.line_of("data", "k", "a", 1) == o.line + 5 for o in objs)


def test_aliases_are_counted_at_their_expanded_size():
    text = CM + "a: &a [1, 2, 3, 4]\nb: [*a, *a]\n"  # each alias expands to 5 nodes
    assert parse(text, limits=Limits(max_alias_nodes=10))[1] == []
    errs = parse(text, limits=Limits(max_alias_nodes=9))[1]
    assert len(errs) == 1 and errs[0].startswith("f.yaml:6: YAML aliases expand to more than 9 nodes")


def test_billion_laughs_is_refused_fast_and_small():
    lines = [CM + 'l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    t = time.perf_counter()
    _, errs, _ = parse("\n".join(lines) + "\n")
    assert time.perf_counter() - t < 2
    assert len(errs) == 1 and "aliases expand to more than 100000 nodes" in errs[0]


def test_aliases_spread_over_documents_share_one_budget():
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a%d}\nx: &x [1, 2, 3]\ny: [*x, *x]\n"
    text = "---\n".join(doc % i for i in range(10))  # 8 nodes per document, 80 in all
    assert parse(text, limits=Limits(max_alias_nodes=80))[1] == []
    assert "aliases expand" in parse(text, limits=Limits(max_alias_nodes=79))[1][0]


def test_deep_nesting_of_any_depth_is_one_error():
    for depth in (300, 5000, 200_000):
        _, errs, _ = parse("a: " + "[" * depth + "]" * depth + "\n")
        assert len(errs) == 1 and ("nested deeper than 256" in errs[0] or "nesting depth" in errs[0]), errs
        _, errs, _ = parse("a: " + "{b: " * depth + "1" + "}" * depth + "\n")
        assert len(errs) == 1, errs


def test_size_limit_applies_to_stdin_too():
    loaded = load_paths(["-"], Limits(max_bytes=10), stdin=io.BytesIO(CM.encode()))
    assert [str(e) for e in loaded.errors] == [
        "<stdin>:1: input is larger than 10 bytes; raise --max-input-bytes if this is intended"]


def test_a_large_kind_list_loads_in_linear_time():
    """`kubectl get pods -o yaml` of thousands of pods is one `kind: List`: splitting
    the field lines per item must not be quadratic."""
    item = ("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    labels: {{a: b, c: d}}\n"
            "  spec:\n    containers:\n    - name: c\n      image: i\n      resources: {{requests: {{cpu: '1'}}}}\n")
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(item.format(i=i) for i in range(4000))
    t = time.perf_counter()
    objs, errs, _ = parse(text)
    elapsed = time.perf_counter() - t
    assert errs == [] and len(objs) == 4000
    assert objs[3999].line_of("spec", "containers", 0, "image") == 4 + 3999 * 10 + 8
    assert elapsed < 20  # quadratic splitting took minutes


# ----------------------------------------------------------------------------- files and directories


def test_directory_walk_skips_hidden_and_survives_a_symlink_loop(tmp_path):
    write(tmp_path, "d/a.yaml", CM)
    write(tmp_path, "d/.git/x.yaml", "bad: [")
    write(tmp_path, "d/sub/.hidden.yaml", "bad: [")
    os.symlink(tmp_path / "d", tmp_path / "d" / "sub" / "loop")
    loaded = load_paths([str(tmp_path / "d")])
    assert loaded.errors == [] and [o.name for o in loaded.objects] == ["a"]


def test_directory_order_is_by_path_components(tmp_path):
    write(tmp_path, "d/a-b.yaml", CM.replace("name: a", "name: second"))
    write(tmp_path, "d/a/b.yaml", CM.replace("name: a", "name: first"))
    loaded = load_paths([str(tmp_path / "d")])
    assert [o.name for o in loaded.objects] == ["first", "second"]


def test_empty_and_comment_only_files_hold_no_objects(tmp_path):
    for text in ("", "\n\n", "# only a comment\n", "---\n---\n", "~\n", "---\n...\n"):
        p = write(tmp_path, "e.yaml", text)
        loaded = load_paths([p])
        assert loaded.errors == [] and loaded.objects == [], text


def test_a_directory_named_like_a_manifest_is_walked_not_read(tmp_path):
    write(tmp_path, "x.yaml/inner.yaml", CM)
    loaded = load_paths([str(tmp_path / "x.yaml")])
    assert loaded.errors == [] and [o.name for o in loaded.objects] == ["a"]


def test_integral_floats_are_integers_as_kubernetes_stores_them():
    """kubectl converts YAML to JSON and Go prints the float64 2.0 as 2, so the
    operator reads `replicas: 2.0` as 2; fractions and huge values stay floats."""
    objs, errs, _ = parse(CM + "a: 2.0\nb: -3.0\nc: 2.5\nd: 1e300\nf: '2.0'\ng: 1e3\n")
    assert errs == []
    raw = objs[0].raw
    assert (raw["a"], raw["b"], raw["c"], raw["f"], raw["g"]) == (2, -3, 2.5, "2.0", 1000)
    assert type(raw["a"]) is int and type(raw["d"]) is float


@pytest.mark.parametrize("word", [".inf", "-.Inf", ".NaN"])
def test_nan_and_infinity_cannot_be_sent(word):
    """sigs.k8s.io/yaml converts YAML to JSON with encoding/json, which refuses NaN and
    infinities ("json: unsupported value"): kubectl fails before sending anything."""
    _, errs, _ = parse(CM + f"e: {word}\n")
    assert errs == [f"f.yaml:5: {word}: kubectl sends YAML as JSON, which has no NaN or infinity "
                    "(quote it to send a string)"]


def test_a_typed_list_as_kubectl_get_prints_it_is_read_as_its_items():
    """``kubectl get rayservices -o yaml`` prints ``kind: RayServiceList``; kubectl reads
    any document whose ``items`` is a list as a list (``Unstructured.IsList``)."""
    objs, errors, _ = parse("apiVersion: ray.io/v1\nkind: RayServiceList\nitems:\n"
                            "- {apiVersion: ray.io/v1, kind: RayService, metadata: {name: a}}\n"
                            "- {apiVersion: ray.io/v1, kind: RayService, metadata: {name: b}}\n")
    assert not errors and [(o.kind, o.name, o.line) for o in objs] == [("RayService", "a", 4), ("RayService", "b", 5)]


def test_a_json_file_is_named_json_and_its_error_is_on_a_line_it_has(tmp_path):
    """A ``.json`` file is read as the YAML it is a part of: its syntax error says JSON, and
    one that ends without a newline is on its last line, not one after it."""
    from rolloutctl.load.files import load_paths

    p = tmp_path / "rs.json"
    p.write_text('{"apiVersion": "ray.io/v1", "kind": "RayService", "spec": {')
    (err,) = load_paths([str(p)]).errors
    assert err.line == 1 and err.message.startswith("JSON syntax error: "), err
    y = tmp_path / "rs.yaml"
    y.write_text("a: [\n")
    (err,) = load_paths([str(y)]).errors
    assert err.line == 2 and err.message.startswith("YAML syntax error: "), err  # the empty line after the newline
