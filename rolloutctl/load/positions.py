"""Where a problem is: the line of a YAML parser error (libyaml reports reader errors at
byte offsets), and the template a line of ``helm template`` output came from (its
``# Source:`` comments)."""

from __future__ import annotations

import bisect

import yaml

from ..core.records import record
from ..core.text import one_line
from ..core.text import quote

_SOURCE = "# Source: "


def _source_comment(line: str) -> str | None:
    """The template path of a ``# Source: PATH`` line (no space right after the colon's
    space, trailing whitespace dropped), else None."""
    if not line.startswith(_SOURCE):
        return None
    path = line[len(_SOURCE):].rstrip()
    return path if path and not path[0].isspace() else None


@record(frozen=True)
class HelmSources:
    """The ``# Source: CHART/templates/FILE`` comment lines of one rendered file
    (``helm template`` writes one before each document), with the rendered text, so
    a rendered line can be traced to its template."""

    comments: tuple[tuple[int, str], ...]  # (line of the comment, template path), in order
    lines: tuple[str, ...]

    def source_of(self, line: int) -> tuple[str, int] | None:
        """(template path, line of its comment) of the document holding rendered ``line``."""
        i = bisect.bisect_left(self.comments, (line, "")) - 1
        return (self.comments[i][1], self.comments[i][0]) if i >= 0 else None


def helm_sources(text: str) -> HelmSources | None:
    """The ``# Source:`` comments of rendered text, or None when it has none."""
    if _SOURCE not in text:
        return None
    lines = text.splitlines()
    comments = tuple((i + 1, path) for i, ln in enumerate(lines) if (path := _source_comment(ln)) is not None)
    return HelmSources(comments, tuple(lines)) if comments else None


def syntax_error(exc: yaml.MarkedYAMLError, text: str, language: str = "YAML") -> tuple[int, str]:
    """(line, message) of a YAML syntax error; tabs in indentation get their own message.
    An error at the end of a text with no final newline is on its last line (the parser's
    mark is on a line that does not exist); after a final newline it is on the empty line
    that follows, as an editor shows it. ``language``: what the file is named as (``JSON`` for a ``.json``
    file, which is read as the YAML it is a part of)."""
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 1
    problem = exc.problem or exc.context or f"invalid {language}"
    lines = text.splitlines()
    line = max(1, min(line, len(lines) + (1 if text.endswith(("\n", "\r")) else 0)))
    bad = lines[line - 1] if 0 < line <= len(lines) else ""
    if "'\t'" in problem or bad[: len(bad) - len(bad.lstrip(" \t"))].count("\t"):
        return line, "tab character used for indentation (YAML allows only spaces)"
    return line, f"{language} syntax error: {one_line(problem, 200)}"


def reader_error(exc: yaml.reader.ReaderError, text: str, byte_positions: bool) -> tuple[int, str]:
    """(line, message) of a character YAML does not allow; ``byte_positions``: the parser
    (libyaml) counts the position in bytes of UTF-8, not in characters."""
    pos = exc.position if isinstance(exc.position, int) else 0
    before = text.encode("utf-8", "surrogatepass")[:pos] if byte_positions else text[:pos]
    line = before.count(b"\n" if byte_positions else "\n") + 1  # type: ignore[arg-type]
    char = exc.character
    code = f"#x{char:04x}" if isinstance(char, int) else quote(char)
    return line, f"character {code} is not allowed in YAML ({one_line(exc.reason, 100)})"
