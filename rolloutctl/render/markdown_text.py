"""Values in Markdown: a code span that shows the value as it is, whatever backticks or
pipes it holds (CommonMark: a span delimited by more backticks than any run inside it;
GitHub tables: ``\\|`` inside a cell), on one line."""

from __future__ import annotations

import re

_RUNS = re.compile(r"`+")


def code_span(text: str, *, in_table: bool = True, limit: int = 500) -> str:
    """``text`` as an inline code span: newlines written ``\\n``, at most ``limit``
    characters (then ``…``), the delimiter one backtick longer than the longest run inside,
    with a space inside it when the value starts or ends with a backtick (CommonMark strips
    one), and ``|`` escaped in a table cell (GitHub's tables read it before the span)."""
    if not text:
        return ""
    t = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    if len(t) > limit:
        t = t[:limit - 1] + "…"
    if in_table:
        t = t.replace("|", "\\|")
    fence = "`" * (max((len(m) for m in _RUNS.findall(t)), default=0) + 1)
    pad = " " if t.startswith("`") or t.endswith("`") else ""
    return f"{fence}{pad}{t}{pad}{fence}"
