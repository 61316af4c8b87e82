"""An unsubstituted ``${...}`` placeholder (envsubst, Terraform, CI templates) that makes a
field invalid is named as such, as a Helm ``{{ }}`` expression is: the file is a template."""

from __future__ import annotations

from tests.lint.cases import rs

RS = rs(meta="namespace: ${NAMESPACE}")


def test_lint_and_plan_say_the_value_is_a_placeholder(cli, tmp_path):
    p = tmp_path / "svc.yaml"
    p.write_text(RS)
    r = cli("lint", str(p))
    assert r.exit_code == 1 and f"{p}:5: SC010 [error] metadata.namespace: Invalid value: '${{NAMESPACE}}'" in r.stdout
    assert "a ${...} placeholder: substitute it first, e.g. envsubst" in r.stdout
    r = cli("plan", str(p))
    assert r.exit_code == 2 and "a ${...} placeholder" in r.stderr and "Traceback" not in r.stderr


def test_a_valid_manifest_gets_no_hint(cli, tmp_path):
    p = tmp_path / "svc.yaml"
    p.write_text(RS.replace("${NAMESPACE}", "ml"))
    assert "placeholder" not in cli("lint", str(p)).stdout
