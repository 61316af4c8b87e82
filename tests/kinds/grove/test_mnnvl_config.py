"""An operator run with MNNVL on (``--grove-config autoMNNVLEnabled=true``): the
webhook accepts ``grove.io/mnnvl-group`` names (mnnvl/webhook.go ValidatePCSOnCreate),
and the plan says what it does not model (the ComputeDomains of computedomain.go and the
injected claims). The e2e files are upstream's (operator/e2e/yaml/auto-mnnvl, fcc3b3bb)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolloutctl.core.kind import OptionError
from rolloutctl.kinds.grove import admission as ADM
from rolloutctl.kinds.grove.mnnvl import required_compute_domains
from rolloutctl.kinds.grove.options import GroveConfig
from rolloutctl.load.documents import parse_documents
from tests.hardening.helpers import assert_input_error

DATA = Path(__file__).resolve().parent / "data"
MIX, INVALID, IGNORED = (str(DATA / n) for n in ("grove-mnnvl-mix.yaml", "grove-mnnvl-invalid.yaml",
                                                  "grove-mnnvl-ignored.yaml"))
ON = ("--grove-config", "autoMNNVLEnabled=true")


def _obj(path: str):
    objs, errs, _ = parse_documents(Path(path).read_text(), path)
    assert not errs
    return objs[0]


def test_gv033_accepts_group_names_only_with_mnnvl_on_and_still_checks_their_syntax():
    mix = _obj(MIX)
    assert [f for f in ADM.validate(mix) if f.rule == "GV033"]
    assert [f for f in ADM.validate(mix, None, GroveConfig(auto_mnnvl_enabled=True)) if f.rule == "GV033"] == []
    bad = [f.message for f in ADM.validate(_obj(INVALID), None, GroveConfig(auto_mnnvl_enabled=True))
           if f.rule == "GV033"]
    assert len(bad) == 1 and "'invalid value with spaces' is not a valid DNS-1123 label" in bad[0]


def test_the_compute_domains_upstream_creates_for_the_comprehensive_mix():
    """testMNNVLEndToEnd (e2e/tests/auto-mnnvl/supported_and_enabled_test.go): one
    ComputeDomain per replica and group: default, train, infer, batch, solo."""
    raw = dict(_obj(MIX).raw)
    assert required_compute_domains(raw) == [f"mnnvl-mix-0-{g}" for g in ("batch", "default", "infer", "solo", "train")]
    raw["spec"] = {**raw["spec"], "replicas": 2}
    assert len(required_compute_domains(raw)) == 10 and required_compute_domains(raw)[5] == "mnnvl-mix-1-batch"
    # a clique without a GPU is never enrolled; none on the PodCliqueSet withdraws all that inherit
    raw["metadata"] = {**raw["metadata"], "annotations": {"grove.io/mnnvl-group": "none"}}
    assert "mnnvl-mix-0-default" not in required_compute_domains(raw)


def test_plan_refuses_the_e2e_file_by_default_and_plans_it_with_mnnvl_on(cli):
    r = cli("plan", MIX)
    lines = assert_input_error(r, MIX, "GV033: ", "--grove-config autoMNNVLEnabled=true")
    assert len(lines) == 6  # metadata, g2, sa2, p2, p5, p8
    r = cli("plan", MIX, *ON, "-o", "json")
    assert r.exit_code == 0, r.stderr
    (p,) = r.json()["plans"] if "plans" in r.json() else [r.json()]
    warn = [w for w in p["warnings"] if w["code"] == "NotModelledMNNVL"]
    assert len(warn) == 1 and "ComputeDomains mnnvl-mix-0-batch, mnnvl-mix-0-default" in warn[0]["message"]
    assert "neither is modelled" in warn[0]["message"]
    # nothing enrolled (no annotation): nothing to warn of
    sample = str(Path(__file__).resolve().parents[3] / "samples" / "disaggregated-inference.yaml")
    r = cli("plan", sample, *ON, "-o", "json")
    assert r.exit_code == 0 and "NotModelledMNNVL" not in r.stdout
    # an invalid group name is refused whatever the configuration
    assert_input_error(cli("plan", INVALID, *ON), INVALID, "GV033: ", "not a valid DNS-1123 label")


def test_the_ignore_annotation_does_not_make_plan_accept_what_the_webhook_refuses(cli):
    """rolloutctl.dev/ignore silences lint; the API server would still refuse the object."""
    assert_input_error(cli("plan", IGNORED), IGNORED, "GV033: ")
    assert cli("plan", IGNORED, *ON).exit_code == 0


@pytest.mark.parametrize("command", ["plan", "next", "lint", "diff", "advise"])
def test_every_command_takes_the_setting_and_refuses_a_bad_one_in_one_line(cli, command):
    extra = {"diff": ["--live", MIX], "advise": ["--observed", MIX]}.get(command, [])
    r = cli(command, MIX, *extra, *ON)
    assert r.exit_code == 0, (command, r.stdout[-500:], r.stderr)
    for item, message in (("autoMNNVL=true", "--grove-config autoMNNVL: not a Grove operator setting the model "
                                             "follows (known: autoMNNVLEnabled)"),
                          ("autoMNNVLEnabled=yes", "--grove-config autoMNNVLEnabled=yes: expected true or false"),
                          ("autoMNNVLEnabled", "--grove-config autoMNNVLEnabled: expected KEY=VALUE")):
        r = cli(command, MIX, *extra, "--grove-config", item)
        assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr, (command, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr, r.stderr


def test_lint_reports_gv033_by_default_and_not_with_mnnvl_on(cli):
    r = cli("lint", MIX)
    assert r.exit_code == 1 and r.stdout.count("GV033 [error]") == 6
    r = cli("lint", MIX, *ON)
    assert r.exit_code == 0 and "GV033" not in r.stdout


def test_options_parse():
    assert GroveConfig.from_items(["autoMNNVLEnabled=TRUE"]).auto_mnnvl_enabled
    assert not GroveConfig.from_items(["autoMNNVLEnabled=true", "autoMNNVLEnabled=false"]).auto_mnnvl_enabled
    with pytest.raises(OptionError):
        GroveConfig.from_items(["x=1"])
