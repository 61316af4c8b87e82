"""A modelled kind under another API group (a fork's or an old group, such as
``core.grove.io/v1alpha1``) is not planned; the message says which apiVersion was
found and which is modelled, instead of "no PodCliqueSet found"."""

from __future__ import annotations

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def _other_group(tmp_path: Path) -> str:
    doc = yaml.safe_load((REPO / "samples" / "disaggregated-inference.yaml").read_text())
    doc["apiVersion"] = "core.grove.io/v1alpha1"
    p = tmp_path / "fork.yaml"
    p.write_text("# a fork's group\n" + yaml.safe_dump(doc, sort_keys=False))
    return str(p)


def test_plan_names_the_apiversion_found_and_the_one_modelled(cli, tmp_path):
    path = _other_group(tmp_path)
    r = cli("plan", path)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == (f"{path}:2: apiVersion: core.grove.io/v1alpha1 PodCliqueSet is not modelled: "
                                "rolloutctl models PodCliqueSet of grove.io/v1alpha1")


def test_lint_says_which_apiversion_it_did_not_check(cli, tmp_path):
    r = cli("lint", _other_group(tmp_path))
    assert r.exit_code == 0
    assert "not checked: PodCliqueSet of core.grove.io/v1alpha1 (--strict reports them)" in r.stdout
