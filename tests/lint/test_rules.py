"""Every rule in the registry has a failing and a passing fixture, run through the
whole lint pipeline (loader, schema, defaulting, webhook rules, suppressions)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from rolloutctl.app import model_options
from rolloutctl.commands.lint import LintOptions, lint
from rolloutctl.core.model import LintReport
from rolloutctl.kinds import validators
from rolloutctl.lint.engine import exit_code
from rolloutctl.lint.registry import all_rules, get_rule, parse_doc
from rolloutctl.load.files import load_paths

from .cases import CASES, Case
from .rs_cases import RS_CASES

ALL = {**CASES, **RS_CASES}


@dataclass
class _Direct:
    report: LintReport
    exit_code: int


def _direct(path: str, live: str | None, options: dict) -> _Direct:
    """The kind's own ``validate`` on the objects as written, bypassing admission (which
    would refuse or default the failing manifest first, as the API server does)."""
    obj = load_paths([path]).objects[0]
    old = load_paths([live]).objects[0] if live else None
    findings = tuple(f for validate in validators(obj, options) for f in validate(obj, old))
    report = LintReport(1, 1, findings)
    return _Direct(report, exit_code(report))


def _run(tmp_path: Path, name: str, case: Case, text: str):
    f = tmp_path / f"{name}.yaml"
    f.write_text(text)
    lv: tuple[str, ...] = ()
    if case.live is not None:
        lf = tmp_path / f"{name}-live.yaml"
        lf.write_text(case.live)
        lv = (str(lf),)
    first: list[str] = []
    if case.before is not None:
        bf = tmp_path / f"{name}-before.yaml"
        bf.write_text(case.before)
        first = [str(bf)]
    options = model_options({"feature_gates": case.gates})
    if case.direct:
        return _direct(str(f), lv[0] if lv else None, options), str(f)
    cfg = None
    if case.config is not None:
        from rolloutctl.load.config import parse

        cf = tmp_path / ".rolloutctl.yaml"
        cf.write_text(case.config)
        # the fixture's entry expires in the past: only the failing run reads it
        cfg = parse(case.config if name == "fail" else case.config.replace("2020-", "2999-"), str(cf))
        return lint([str(f)], LintOptions(live=lv, strict=case.strict, config=cfg, model_options=options)), str(cf)
    return lint([*first, str(f)], LintOptions(live=lv, strict=case.strict, model_options=options)), str(f)


#: rules no bundled CRD can trigger, each tested where it is built
UNIT_TESTED = {"SC012": "tests/admit/test_cel_and_observed.py (no bundled CRD rule needs a CEL extension)"}


def test_every_rule_has_fixtures():
    missing = [r.id for r in all_rules() if r.id not in ALL and r.id not in UNIT_TESTED]
    assert not missing, f"rules without pass/fail fixtures: {missing}"


@pytest.mark.parametrize("rule_id", sorted(ALL))
def test_rule_fails_on_bad_fixture(tmp_path, rule_id):
    case = ALL[rule_id]
    result, file = _run(tmp_path, "fail", case, case.fail)
    hits = [f for f in result.report.findings if f.rule == rule_id]
    assert hits, f"{rule_id} not reported; got {[(f.rule, f.message) for f in result.report.findings]}"
    for f in hits:
        assert f.file == file and f.line >= 1
        assert f.severity == get_rule(rule_id).severity
    if get_rule(rule_id).severity == "error":
        assert result.exit_code == (2 if rule_id == "IN001" else 1)


@pytest.mark.parametrize("rule_id", sorted(ALL))
def test_rule_passes_on_good_fixture(tmp_path, rule_id):
    case = ALL[rule_id]
    result, _ = _run(tmp_path, "ok", case, case.ok)
    assert not [f for f in result.report.findings if f.rule == rule_id]
    errors = [(f.rule, f.path, f.message) for f in result.report.findings if f.severity == "error"]
    assert not errors and result.exit_code == 0


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_rule_is_documented(rule):
    assert rule.severity in ("error", "warning")
    assert rule.summary and rule.upstream
    assert rule.bad and rule.good
    if rule.operator != "kuberay":  # KubeRay rules say who enforces them instead of a remediation
        assert rule.remediation
    else:
        assert rule.description


def test_parse_doc_sections():
    d = parse_doc('''Summary line.

    More text
    on two lines.

    Upstream: a/b.go#F

    Bad:
        x: 1

    Good:
        x: 2

    Remediation: Do it.
    ''')
    assert d == {"summary": "Summary line.", "description": "More text on two lines.", "upstream": "a/b.go#F",
                 "bad": "x: 1", "good": "x: 2", "remediation": "Do it."}
