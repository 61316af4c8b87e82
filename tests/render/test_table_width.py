"""Tables of plans with long object names stay inside the width: rich widens a column
to its longest word and then crops the lines, which cut off the right-hand column and
its border (a scaling group's pod names are longer than the Objects column)."""

from __future__ import annotations

import yaml
from typer.testing import CliRunner

from rolloutctl.cli import app

runner = CliRunner()


def _pcs(image: str) -> dict:
    pod = {"containers": [{"name": "main", "image": image, "resources": {"requests": {"cpu": "10m"}}}]}
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
            "metadata": {"name": "multinode-aggregated", "namespace": "default"},
            "spec": {"replicas": 1, "template": {
                "cliques": [{"name": n, "spec": {"roleName": n, "replicas": 2, "podSpec": pod}}
                            for n in ("leader", "worker")],
                "podCliqueScalingGroups": [{"name": "model-instance", "cliqueNames": ["leader", "worker"],
                                            "replicas": 2}]}}}


def _table_lines(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln[:1] in "┏┃┡│├└"]


def test_a_steps_table_with_long_names_keeps_its_right_border(tmp_path, monkeypatch):
    import rolloutctl.cli as C

    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(yaml.safe_dump(_pcs("engine:1")))
    new.write_text(yaml.safe_dump(_pcs("engine:2")))
    for args in (["--steps"], []):
        for columns in (100, 80, 60):  # what table_width() gives on a terminal that wide
            monkeypatch.setattr(C, "table_width", lambda: columns)
            r = runner.invoke(app, ["plan", str(new), "--observed", str(old), "--no-color", *args])
            assert r.exit_code == 0, r.output
            lines = _table_lines(r.stdout)
            # the pod names are longer than the Objects column could be: they are folded, not cropped
            if args:
                assert any("+ Pod" in ln for ln in lines)
            assert lines and all(ln.rstrip()[-1] in "┓┃┩│┤┘" for ln in lines), (args, columns, lines[:3])
            assert {len(ln) for ln in lines} == {len(lines[0])} and len(lines[0]) <= columns, (args, columns)
