"""The input layer: every kind of bad input is one `PATH:LINE: message`, never a traceback."""

from __future__ import annotations

import io

import pytest

from rolloutctl.load.documents import parse_documents
from rolloutctl.load.files import load_paths
from rolloutctl.load.limits import Limits
from tests.conftest import write

GOOD = """apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  k: v
"""


def errors_of(text: str, **kw) -> list[str]:
    _objs, errs, _n = parse_documents(text, "f.yaml", **kw)
    return [str(e) for e in errs]


def test_objects_remember_file_line_and_field_lines():
    text = "---\n" + GOOD + "---\n" + GOOD.replace("name: a", "name: b")
    objs, errs, n = parse_documents(text, "f.yaml")
    assert not errs and n == 2
    assert [(o.name, o.line) for o in objs] == [("a", 2), ("b", 9)]
    assert objs[1].line_of("data", "k") == 14
    assert objs[1].line_of("data", "missing") == 13  # deepest known prefix


def test_kind_list_items_become_objects_with_their_own_lines():
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n  spec:\n    x: 1\n"
    objs, errs, _ = parse_documents(text, "l.yaml")
    assert not errs
    assert [(o.kind, o.name, o.line) for o in objs] == [("Pod", "p", 4)]
    assert objs[0].line_of("spec", "x") == 9


def test_json_documents_load():
    objs, errs, _ = parse_documents('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}}', "j.json")
    assert not errs and objs[0].name == "j"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a: 1\na: 2\n", "f.yaml:2: duplicate key 'a'"),
        ("- 1\n- 2\n", "f.yaml:1: document is a list, expected a Kubernetes object (a mapping)"),
        ("just a string\n", "f.yaml:1: document is a string"),
        ("apiVersion: v1\nkind: Pod\n", "f.yaml:1: object without metadata.name"),
        ("kind: Pod\nmetadata: {name: x}\n", "f.yaml:1: object without apiVersion"),
        ("apiVersion: v1\nmetadata: {name: x}\n", "f.yaml:1: object without kind"),
        ("apiVersion: v1\nkind: Pod\nmetadata: [1]\n", "f.yaml:3: metadata: must be a mapping"),
        ("a: [\n", "f.yaml:2: YAML syntax error"),
        ("a:\n\tb: 1\n", "f.yaml:2: tab character used for indentation"),
        ("a: !!python/object:os.system x\n", "f.yaml:1: unsupported YAML tag"),
    ],
)
def test_bad_documents_are_reported_with_line(text, expected):
    errs = errors_of(text)
    assert len(errs) == 1 and errs[0].startswith(expected), errs


def test_alias_bomb_is_refused_quickly():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
        prev = name
    errs = errors_of("\n".join(lines) + "\n")
    assert errs and "aliases expand to more than 100000 nodes" in errs[0]


def test_small_aliases_are_fine_and_budget_is_configurable():
    text = "apiVersion: v1\nkind: X\nmetadata: {name: a}\nbase: &b {k: v}\nuse: [*b, *b]\n"
    assert errors_of(text) == []
    assert "aliases expand" in errors_of(text, limits=Limits(max_alias_nodes=1))[0]


def test_deep_nesting_is_refused():
    text = "a: " + "[" * 300 + "]" * 300 + "\n"
    errs = errors_of(text)
    assert errs and "nested deeper than" in errs[0]


def test_files_directories_and_stdin(tmp_path):
    write(tmp_path, "d/one.yaml", GOOD)
    write(tmp_path, "d/sub/two.yml", GOOD.replace("name: a", "name: b"))
    write(tmp_path, "d/ignored.txt", "not yaml: [")
    write(tmp_path, "d/.hidden/three.yaml", "bad: [")
    loaded = load_paths([str(tmp_path / "d")])
    assert not loaded.errors
    assert sorted(o.name for o in loaded.objects) == ["a", "b"]
    loaded = load_paths(["-"], stdin=io.BytesIO(GOOD.encode()))
    assert [o.file for o in loaded.objects] == ["<stdin>"]


def test_unreadable_and_missing_files(tmp_path):
    loaded = load_paths([str(tmp_path / "nope.yaml")])
    assert [str(e) for e in loaded.errors] == [f"{tmp_path / 'nope.yaml'}:0: no such file or directory"]


def test_non_utf8_and_bom(tmp_path):
    p = tmp_path / "bin.yaml"
    p.write_bytes(b"a: 1\nb: \xff\xfe\n")
    errs = [str(e) for e in load_paths([str(p)]).errors]
    assert errs == [f"{p}:2: not UTF-8 text (byte 0xff at offset 8)"]
    q = tmp_path / "bom.yaml"
    q.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert load_paths([str(q)]).objects[0].name == "a"
    # after a byte order mark, the bad byte is still named at its offset in the file
    r = tmp_path / "bom-bin.yaml"
    r.write_bytes(b"\xef\xbb\xbfa: 1\nb: \xff\xfe\n")
    assert [str(e) for e in load_paths([str(r)]).errors] == [f"{r}:2: not UTF-8 text (byte 0xff at offset 11)"]


def test_input_size_limit(tmp_path):
    p = write(tmp_path, "big.yaml", GOOD)
    errs = [str(e) for e in load_paths([p], Limits(max_bytes=10)).errors]
    assert errs == [f"{p}:1: input is larger than 10 bytes; raise --max-input-bytes if this is intended"]


def test_one_bad_file_does_not_hide_the_others(tmp_path):
    write(tmp_path, "a.yaml", "x: [")
    write(tmp_path, "b.yaml", GOOD)
    loaded = load_paths([str(tmp_path)])
    assert len(loaded.errors) == 1 and [o.name for o in loaded.objects] == ["a"]
