"""Helpers for tests that edit the bundled disaggregated-inference PodCliqueSet and run
the command line on it: the sample, one of its cliques, files, ``plan`` and ``diff``."""

from __future__ import annotations

import yaml

from tests.conftest import SAMPLES


def sample() -> dict:
    return yaml.safe_load((SAMPLES / "disaggregated-inference.yaml").read_text())


def clique(d: dict, name: str) -> dict:
    return next(c for c in d["spec"]["template"]["cliques"] if c["name"] == name)


def write(tmp_path, name: str, d: dict) -> str:
    f = tmp_path / name
    f.write_text(yaml.safe_dump(d))
    return str(f)


def plan(cli, new: dict, old: dict | list, tmp_path, *, codes: tuple[int, ...] = (0,)) -> dict:
    """``plan NEW --observed OLD -o json`` (``old``: a manifest, or objects in a List)."""
    doc = old if isinstance(old, dict) else {"apiVersion": "v1", "kind": "List", "items": old}
    r = cli("plan", write(tmp_path, "new.yaml", new), "--observed", write(tmp_path, "old.yaml", doc), "-o", "json")
    assert r.exit_code in codes, r.stdout + r.stderr
    return r.json()


def diff(cli, new: dict, live: dict, tmp_path) -> dict:
    """``diff NEW --live LIVE -o json``."""
    r = cli("diff", write(tmp_path, "n.yaml", new), "--live", write(tmp_path, "o.yaml", live), "-o", "json")
    return r.json()


def pod_deletes(p: dict) -> int:
    return sum(1 for s in p["steps"] for a in s["actions"] if a["kind"] == "Pod" and a["verb"] == "delete")
