"""``rolloutctl advise`` as a user runs it: formats, exit codes, usage errors."""

from __future__ import annotations

import jsonschema
import pytest

from rolloutctl.schemas_access import schema
from tests.advise.helpers import RS_NEW, RS_OLD
from tests.advise.small import small_pair


@pytest.fixture
def small(tmp_path):
    return small_pair(tmp_path)


def test_json_validates_is_deterministic_and_exit_0(cli, small):
    new, old = small
    r = cli("advise", new, "--observed", old, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("advice")).validate(doc)
    assert doc["kind"] == "Advice" and doc["objective"] == "steps" and doc["optimal"] is True
    assert doc["recommendation"]["patch"]["spec"]["updateStrategy"]["type"] == doc["recommendation"]["strategy"]
    assert doc["frontier"][0] == doc["recommendation"]
    assert cli("advise", new, "--observed", old, "-o", "json").stdout == r.stdout


def test_schema_command_lists_advice(cli):
    r = cli("schema", "advice")
    assert r.exit_code == 0 and '"title": "rolloutctl Advice"' in r.stdout
    assert "advice" in cli("schema", "--help").stdout


def test_nothing_meets_the_constraints_exits_1_with_reasons(cli, small):
    new, old = small
    r = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=2")
    assert r.exit_code == 1, r.stderr
    assert "No candidate meets the constraints." in r.stdout
    assert "cannot meet the constraints: InsufficientCapacity" in r.stdout


def test_table_and_markdown_show_patch_frontier_and_search(cli, small):
    new, old = small
    t = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "--min-ready", "75%")
    assert t.exit_code == 0, t.stderr
    for text in ("Recommendation:", "Patch (merge into the manifest", "Frontier", "Searched:", "min ready: 75% (5 ready pods)"):
        assert text in t.stdout
    m = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "-o", "markdown")
    assert m.exit_code == 0
    assert "```yaml" in m.stdout and "| Strategy |" in m.stdout.replace("|  | Strategy", "| Strategy")


@pytest.mark.parametrize("args,message", [
    (["--minimize", "time"], "--minimize time: the PodCliqueSet model is untimed"),
    (["--min-ready", "lots"], "--min-ready 'lots'"),
    (["--min-ready", "120%"], "--min-ready '120%'"),
])
def test_usage_errors_exit_2_with_one_line(cli, small, args, message):
    new, old = small
    r = cli("advise", new, "--observed", old, *args)
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_observed_is_required(cli, small):
    new, _old = small
    r = cli("advise", new)
    assert r.exit_code == 2 and "--observed" in r.stderr


def test_minimize_time_on_a_timed_kind(cli):
    r = cli("advise", RS_NEW, "--observed", RS_OLD, "--minimize", "time", "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert doc["objective"] == "time" and doc["recommendation"]["time"] is not None
    assert {x["strategy"]: x["reason"] for x in doc["rejected"]} == {
        "NewClusterWithIncrementalUpgrade": "AutoscalingRequired", "None": "NotRolledOut"}


@pytest.mark.parametrize("name,content,fragments", [c for c in __import__(
    "tests.hardening.test_bad_input_cli", fromlist=["FILE_CASES"]).FILE_CASES][:6])
def test_bad_input_is_one_line_and_exit_2(cli, small, tmp_path, name, content, fragments):
    from tests.hardening.helpers import assert_input_error

    _new, old = small
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(content)
    r = cli("advise", str(bad), "--observed", old)
    assert_input_error(r, str(bad), *fragments)


def test_manifest_the_operator_rejects_exits_2(cli, small, tmp_path):
    import yaml
    from tests.hardening.helpers import assert_input_error

    new, old = small
    doc = yaml.safe_load(open(new).read())
    doc["spec"]["updateStrategy"] = {"type": "RollingUpdate"}
    doc["spec"]["template"]["cliques"][0]["updateStrategy"] = {"maxUnavailable": 0, "maxSurge": 0}
    p = tmp_path / "rejected.yaml"
    p.write_text(yaml.safe_dump(doc))
    r = cli("advise", str(p), "--observed", old)
    assert_input_error(r, str(p), "the operator would reject this manifest")


def test_html_page_loads_and_charts_the_recommended_plan(cli, small, tmp_path):
    from tests.advise.helpers import patched
    from tests.render.test_html import open_in_chromium, values

    new, old = small
    page = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "-o", "html")
    assert page.exit_code == 0, page.stderr
    html = page.stdout
    assert html == cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "-o", "html").stdout
    assert "Recommendation:" in html and 'class="patch"' in html
    assert "https://" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    doc = cli("advise", new, "--observed", old, "--capacity", "nvidia.com/gpu=6", "-o", "json").json()
    rec = doc["recommendation"]
    plan = cli("plan", patched(new, rec["patch"], tmp_path), "--observed", old, "--capacity", "nvidia.com/gpu=6",
               "-o", "json").json()
    got = open_in_chromium(html)
    assert got["errors"] == [] and got["resources"] == []
    charts = {c["chart"]: c for c in got["charts"]}
    ready = charts["ready pods"]
    series = {s["name"]: s for s in ready["series"]}
    first = series[f"1. {rec['strategy']}"]
    assert values(ready, first) == [(float(s["step"]), float(s["after"]["readyPods"])) for s in plan["steps"]]
    assert "as is" in series
