"""``.rolloutctl.yaml`` parsing and matching (load/config.py); the CLI behaviour is in
tests/cli/test_ci_gate.py."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, strategies as st

from rolloutctl.load.config import find, parse, path_matches

SEG = st.from_regex(r"[a-z]{1,6}|\[name=[a-z]{1,4}\]", fullmatch=True)


@given(st.lists(SEG, min_size=1, max_size=5), st.lists(SEG, min_size=0, max_size=3))
def test_a_path_pattern_covers_the_path_and_everything_below_it(head, tail):
    def join(segs):
        out = ""
        for s in segs:
            out += s if s.startswith("[") or not out else "." + s
        return out

    prefix = join(head)
    assert path_matches(prefix, join(head + tail))
    if not head[0].startswith("["):
        assert not path_matches(prefix + "x", prefix)  # a longer pattern never covers a shorter path


def test_entries_match_rule_object_file_and_path():
    cfg = parse("ignore:\n  - {rule: 'GV2*', kind: PodCliqueSet, name: 'llm-*', file: 'charts/**', "
                "path: spec.updateStrategy, reason: r, expires: 2030-01-01}\n")
    (i,) = cfg.ignores
    hit = dict(rule="GV201", kind="PodCliqueSet", namespace="default", name="llm-a",
               file="charts/x/templates/pcs.yaml", path="spec.updateStrategy.type")
    assert i.matches(**hit)
    assert not i.matches(**{**hit, "rule": "GV101"})
    assert not i.matches(**{**hit, "rule": None})  # a diff change: only entries without rule
    assert not i.matches(**{**hit, "name": "other"})
    assert not i.matches(**{**hit, "file": "manifests/pcs.yaml"})
    assert not i.matches(**{**hit, "path": "spec.replicas"})
    assert cfg.active_ignores(dt.date(2030, 1, 1)) == (i,) and cfg.expired_ignores(dt.date(2030, 1, 2)) == (i,)
    assert i.line == 2 and i.source == ".rolloutctl.yaml"


def test_find_walks_up_and_stops_at_the_nearest(tmp_path):
    (tmp_path / ".rolloutctl.yaml").write_text("ignore: []\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find(deep) == str(tmp_path / ".rolloutctl.yaml")
    (tmp_path / "a" / ".rolloutctl.yml").write_text("ignore: []\n")
    assert find(deep) == str(tmp_path / "a" / ".rolloutctl.yml")


def test_find_stops_at_the_repository_root(tmp_path):
    (tmp_path / ".rolloutctl.yaml").write_text("ignore: []\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "deploy").mkdir()
    assert find(repo / "deploy") is None  # the file above the repository is not its configuration
    (repo / ".rolloutctl.yaml").write_text("ignore: []\n")
    assert find(repo / "deploy") == str(repo / ".rolloutctl.yaml")
