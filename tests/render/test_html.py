"""``-o html``: one self-contained page whose charts are the plan's numbers.

The page is opened in headless Chromium (Debian's ``chromium``; .ci/run installs it)
as a user would open it: it must load without errors or network requests, and the
chart points, read back through the browser's own SVG DOM, must be the per-step
``after`` numbers of the JSON output. Skipped when Chromium is absent."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLES

PCS, PCS2 = str(SAMPLES / "disaggregated-inference.yaml"), str(SAMPLES / "disaggregated-inference-v2.yaml")
RS, RS2 = str(SAMPLES / "rayservice-text-ml.yaml"), str(SAMPLES / "rayservice-text-ml-new-image.yaml")

#: read back every chart through the browser: its scale, and each polyline's points
#: as the SVG DOM parsed them; any script error or loaded resource is recorded too
PROBE = """
<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message)));
window.addEventListener('load', () => {
  const charts = [...document.querySelectorAll('svg[data-chart]')].map(svg => ({
    chart: svg.dataset.chart, section: svg.closest('section').dataset.target,
    xMin: +svg.dataset.xMin, xMax: +svg.dataset.xMax, yMax: +svg.dataset.yMax,
    plot: svg.dataset.plot.split(' ').map(Number),
    width: svg.getBoundingClientRect().width,
    series: [...svg.querySelectorAll('polyline')].map(p => ({
      name: p.dataset.series, points: [...p.points].map(q => [q.x, q.y])})),
    stuck: [...svg.querySelectorAll('line.stuck')].map(l => +l.dataset.step),
    stuckPoints: [...svg.querySelectorAll('g.stuck-point')].map(g => [g.dataset.series, +g.dataset.step]),
    bands: svg.querySelectorAll('rect.phase').length}));
  const resources = performance.getEntriesByType('resource').map(r => r.name);
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({charts, resources, errors: window.__errors});
  document.body.appendChild(out);
});
</script>
"""


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None and os.environ.get("ROLLOUTCTL_REQUIRE_CHROMIUM") == "1":
        pytest.fail("chromium is required here (ROLLOUTCTL_REQUIRE_CHROMIUM=1) but not installed")
    if exe is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium)")
    return exe


def open_in_chromium(html: str) -> dict:
    exe = _chromium()
    with tempfile.TemporaryDirectory() as d:
        page = Path(d, "page.html")
        page.write_text(html.replace("</body>", PROBE + "</body>"))
        r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync", "--no-first-run",
                            f"--user-data-dir={Path(d, 'profile')}", "--window-size=1100,900",
                            "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                           capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="probe">(.*?)</pre>', r.stdout, re.S)
    assert m, f"the page did not load in Chromium: {r.stderr[-2000:]}"
    import html as H

    return json.loads(H.unescape(m.group(1)))


def values(chart: dict, series: dict) -> list[tuple[float, float]]:
    """Points back to (step, value) through the chart's own scale."""
    left, top, w, h = chart["plot"]
    span = chart["xMax"] - chart["xMin"]
    return [(round(chart["xMin"] + (x - left) / w * span, 3), round((top + h - y) / h * chart["yMax"], 3))
            for x, y in series["points"]]


def _run(cli, *args):
    r = cli(*args)
    assert r.stderr == "", r.stderr
    return r


def _num(q) -> float:
    from rolloutctl.core.quantity import parse_quantity

    return parse_quantity(q) / 1000


def _close(a, b) -> bool:
    return abs(a - b) <= max(1e-6, abs(b) * 1e-4)


@pytest.mark.parametrize("args", [
    (PCS2, "--observed", PCS),
    (PCS, "--capacity", "nvidia.com/gpu=16"),  # stuck: the stuck point is marked
    (RS2, "--observed", RS),
])
def test_plan_page_loads_and_its_points_are_the_plan(cli, args):
    html = _run(cli, "plan", *args, "-o", "html").stdout
    plan = _run(cli, "plan", *args, "-o", "json").json()
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    got = open_in_chromium(html)
    assert got["errors"] == [] and got["resources"] == []
    steps = plan["steps"]
    charts = {c["chart"]: c for c in got["charts"]}
    pods = charts["pods"]
    assert pods["width"] > 0 and pods["bands"] == len(plan["phases"])
    series = {s["name"]: s for s in pods["series"]}
    expect_ready = [(float(s["step"]), float(s["after"]["readyPods"])) for s in steps]
    expect_total = [(float(s["step"]), float(s["after"]["pods"])) for s in steps]
    for name, expect in (("ready pods", expect_ready), ("total pods", expect_total)):
        pts = values(pods, series[name])
        assert len(pts) == len(expect)
        assert all(_close(a[0], b[0]) and _close(a[1], b[1]) for a, b in zip(pts, expect)), (name, pts, expect)
    resources = sorted({r for s in steps for r in s["after"]["requests"]})
    assert sorted(c[len("requested "):] for c in charts if c.startswith("requested ")) == resources
    for r in resources:
        (s,) = charts[f"requested {r}"]["series"]
        pts = values(charts[f"requested {r}"], s)
        assert all(_close(v, _num(st["after"]["requests"].get(r, 0))) for (_, v), st in zip(pts, steps))
    if plan["outcome"] == "stuck":
        assert pods["stuck"] == [float(steps[-1]["step"])]
    else:
        assert pods["stuck"] == []


def test_compare_page_puts_every_strategy_on_one_chart(cli):
    args = (PCS2, "--observed", PCS, "--compare", "--capacity", "nvidia.com/gpu=48")
    html = _run(cli, "plan", *args, "-o", "html").stdout
    comparison = _run(cli, "plan", *args, "-o", "json").json()
    got = open_in_chromium(html)
    assert got["errors"] == [] and got["resources"] == []
    ready = next(c for c in got["charts"] if c["chart"] == "ready pods, every strategy")
    assert [s["name"] for s in ready["series"]] == [r["strategy"] for r in comparison["rows"] if r["steps"]]
    # each strategy's line: as many points as it has steps, ending at its final ready count
    for s, row in zip(ready["series"], [r for r in comparison["rows"] if r["steps"]]):
        pts = values(ready, s)
        assert len(pts) == row["steps"]
        assert min(v for _, v in pts) >= row["minReadyPods"] - 1e-6
    # stuck strategies are marked where their line ends
    assert ready["stuckPoints"] == [[r["strategy"], float(r["steps"])] for r in comparison["rows"]
                                    if r["steps"] and r["outcome"] == "stuck"]
    assert ready["stuckPoints"], "the chosen capacity leaves at least one strategy stuck"


def test_html_without_chromium_is_still_one_self_contained_page(cli):
    html = _run(cli, "plan", PCS2, "--observed", PCS, "-o", "html").stdout
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= 2
    assert "<script" not in html and "src=" not in html and "<link" not in html
    assert html == _run(cli, "plan", PCS2, "--observed", PCS, "-o", "html").stdout  # deterministic


def test_diff_refuses_html(cli):
    r = cli("diff", PCS2, "--live", PCS, "-o", "html")
    assert r.exit_code == 2 and "'html' is not one of 'table', 'json', 'yaml', 'markdown'" in r.stderr


def test_a_stuck_page_says_what_blocks_it_and_the_remedies(cli):
    """The page gives what the table gives of a stuck plan: the reason and message, what it
    is blocked on, each remedy; and each warning's field."""
    import html as html_lib
    import json

    args = (PCS2, "--observed", PCS, "--capacity", "nvidia.com/gpu=8")
    doc = json.loads(cli("plan", *args, "-o", "json").stdout)
    page = html_lib.unescape(cli("plan", *args, "-o", "html").stdout)
    st = doc["stuck"]
    assert st["remedies"] and st["blockedOn"]
    for remedy in st["remedies"]:
        assert f"remedy: {remedy}" in page
    for ref in st["blockedOn"]:
        assert f"{ref['kind']} {ref['name']}" in page
    for w in doc["warnings"]:
        if w.get("path"):
            assert f"({w['path']})" in page, w
