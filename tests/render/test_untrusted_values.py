"""Values from manifests in the human formats: a backtick cannot end a Markdown code span
early (so no HTML or Markdown of the value's own comes through in a pull-request comment),
and control characters (a name that clears the screen or sets the terminal's title) are
shown as ``\\xNN``, not acted on. JSON keeps the values exactly."""

from __future__ import annotations

import json

import yaml

from rolloutctl.render.markdown_text import code_span
from tests.conftest import SAMPLES, write

RS = SAMPLES / "rayservice-text-ml.yaml"
EVIL = "a`<img src=x onerror=alert(1)>`b | c"
ESC = "cpu\x1b]0;pwned\x07\x1b[2J"


def _rs(annotation: str | None = None, group: str | None = None) -> str:
    d = yaml.safe_load(RS.read_text())
    if annotation is not None:
        d["metadata"].setdefault("annotations", {})["note"] = annotation
    if group is not None:
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["groupName"] = group
    return yaml.safe_dump(d)


def test_a_code_span_holds_any_value():
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x`") == "`` `x` ``"
    assert code_span("p|q") == "`p\\|q`" and code_span("p|q", in_table=False) == "`p|q`"
    assert code_span("two\nlines") == "`two\\nlines`"


def test_diff_markdown_keeps_a_backtick_value_inside_its_code_span(cli, tmp_path):
    new = write(tmp_path, "new.yaml", _rs(annotation=EVIL))
    md = cli("diff", new, "--live", str(RS), "-o", "markdown").stdout
    (row,) = [line for line in md.splitlines() if "metadata.annotations" in line and line.startswith("|")]
    cell = row.split(" | ")[2]
    assert cell.startswith("``") and cell.endswith("``") and "<img" in cell  # inside the span, shown as text
    assert cell.count("``") == 2
    doc = json.loads(cli("diff", new, "--live", str(RS), "-o", "json").stdout)
    assert EVIL in json.dumps(doc, ensure_ascii=False)


def test_control_characters_are_shown_not_sent(cli, tmp_path):
    old = write(tmp_path, "old.yaml", _rs(group=ESC))
    new = write(tmp_path, "new.yaml", _rs(group=ESC).replace("replicas: 3", "replicas: 4"))
    for args in (("plan", new, "--observed", old), ("diff", new, "--live", old),
                 ("plan", new, "--observed", old, "-o", "markdown")):
        out = cli(*args, "--no-color").stdout if args[-1] != "markdown" else cli(*args).stdout
        assert "\x1b" not in out and "\x07" not in out, args
        assert "\\x1b]0;pwned" in out, args
    colored = cli("diff", new, "--live", old, "--color", "always").stdout
    assert "\x1b[" in colored and "\x1b]" not in colored and "\\x1b]0;pwned" in colored
