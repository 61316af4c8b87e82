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
