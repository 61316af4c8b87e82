"""Plan summaries on a terminal break between items, never inside one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rolloutctl.render.plan_common import wrap_items

_item = st.text(alphabet="abcdefghij0123456789 ", min_size=1, max_size=20).map(str.strip).filter(bool)


@given(parts=st.lists(_item, min_size=1, max_size=12), width=st.integers(24, 120))
def test_items_stay_whole_and_lines_fit(parts, width):
    lines = wrap_items(parts, width).split("\n")
    assert all(len(ln) <= width for ln in lines)
    # rejoining the lines gives the one-line summary back: no item was cut
    assert " ".join(lines) == " · ".join(parts)


def test_the_readme_sample_summary_keeps_peak_memory_together():
    parts = ["31 creates", "0 deletes", "3 updates", "min ready pods 0", "peak pods 12", "peak cpu 84",
             "peak memory 648Gi", "peak nvidia.com/gpu 40"]
    assert wrap_items(parts, 100) == ("31 creates · 0 deletes · 3 updates · min ready pods 0 · peak pods 12 · "
                                      "peak cpu 84 ·\npeak memory 648Gi · peak nvidia.com/gpu 40")



def test_a_huge_quantity_is_shown_rounded_in_the_summary_line_and_exact_in_json(cli, tmp_path):
    """cpu: 1e400 (a valid quantity) summed over pods: the table's summary line stays within
    the terminal (≈2.00e400), the JSON keeps every digit."""
    from pathlib import Path

    from rolloutctl.render.plan_common import shown_quantity

    assert shown_quantity("648Gi") == "648Gi" and shown_quantity("1" * 20) == "1" * 20
    assert shown_quantity("2" + "0" * 400) == "≈2.00e400"
    assert shown_quantity("12345" + "0" * 30 + "m") == "≈1.23e31"
    assert shown_quantity("99999" + "0" * 30) == "≈1.00e35"
    sample = Path(__file__).resolve().parents[2] / "samples" / "disaggregated-inference.yaml"
    text = sample.read_text()
    assert '{cpu: "2", memory: 4Gi}' in text
    path = tmp_path / "huge.yaml"
    path.write_text(text.replace('{cpu: "2", memory: 4Gi}', "{cpu: 1e400, memory: 4Gi}", 1))
    r = cli("plan", str(path), env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    assert "peak cpu ≈" in r.stdout and max(len(x) for x in r.stdout.splitlines()) <= 100
    r = cli("plan", str(path), "-o", "json")
    assert len(r.json()["summary"]["peak"]["cpu"]) > 400
