"""Findings in ``helm template`` output, traced to the chart template that made them.

``helm template`` writes ``# Source: CHART/templates/FILE`` before each document
(helm ``pkg/action/action.go`` ``renderResources``, and ``pkg/releaseutil``'s
manifest splitting). A finding at a rendered line is moved to the template file and
the template line when both can be known: the template is found on disk (the
``# Source:`` path below the working directory or one of its parents, or beside the
rendered file, or below a chart of that name up to three directories below the working
directory or the rendered file: ``./charts/llm``) and exactly one template line, or the nearest of several, reads
as the rendered line does (lines holding ``{{`` are never taken: their rendered text
is not theirs). Otherwise the finding stays at the rendered line and its message
names the template.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from ..core.model import Finding
from ..core.records import replace
from ..load.positions import HelmSources


def _template_file(source: str, rendered: str, cache: dict[str, Path | None]) -> Path | None:
    if source in cache:
        return cache[source]
    rel = Path(source)
    found = None
    if not rel.is_absolute() and ".." not in rel.parts:
        cwd = Path.cwd()
        bases = [cwd, *cwd.parents]
        roots = [cwd]
        if rendered and not rendered.startswith("<"):
            here = Path(rendered).resolve().parent
            bases += [here, *here.parents]
            roots.append(here)
        for base in bases:
            cand = base / rel
            if cand.is_file():
                found = cand
                break
        if found is None and len(rel.parts) > 1:
            # ``helm template ./charts/llm``: the path starts with the chart's name, which is a
            # chart directory below the working directory (or beside the rendered file)
            for chart in _charts_named(rel.parts[0], roots):
                cand = chart.joinpath(*rel.parts[1:])
                if cand.is_file():
                    found = cand
                    break
    cache[source] = found
    return found


#: how deep below a directory a chart is looked for (``charts/llm``, ``deploy/charts/llm``)
CHART_DEPTH = 3


def _charts_named(name: str, roots: list[Path]) -> list[Path]:
    """The chart directories up to ``CHART_DEPTH`` below ``roots`` whose ``Chart.yaml``
    names the chart ``name`` (the name ``helm template`` writes in ``# Source:``), then the
    directories named ``name``, in path order."""
    found: list[Path] = []
    for root in roots:
        for depth in range(CHART_DEPTH + 1):
            for chart_yaml in sorted(root.glob("/".join(["*"] * depth + ["Chart.yaml"]))):
                if _chart_name(chart_yaml) == name and chart_yaml.parent not in found:
                    found.append(chart_yaml.parent)
    for root in roots:  # then a directory of that name (a chart is usually in one)
        for depth in range(CHART_DEPTH):
            for d in sorted(root.glob("/".join(["*"] * depth + [name]))):
                if d.is_dir() and d not in found:
                    found.append(d)
    return found


def _chart_name(chart_yaml: Path) -> str | None:
    """The ``name:`` of a Chart.yaml (a top-level ``name: VALUE`` line)."""
    try:
        text = chart_yaml.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("name:"):
            return line[len("name:"):].split("#", 1)[0].strip().strip("'\"") or None
    return None


def _shown(p: Path) -> str:
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return str(p)
    return rel if not rel.startswith("..") else str(p)


def _template_lines(path: Path, cache: dict[Path, list[str] | None]) -> list[str] | None:
    if path not in cache:
        try:
            with open(path, "rb") as fh:
                data = fh.read(8 * 1024 * 1024)
            cache[path] = data.decode("utf-8", "replace").splitlines()
        except OSError:
            cache[path] = None
    return cache[path]


def to_templates(findings: list[Finding], sources: Mapping[str, HelmSources]) -> list[Finding]:
    """``findings`` with every one in a rendered file moved to its template (see the module)."""
    if not sources:
        return findings
    files: dict[str, Path | None] = {}
    texts: dict[Path, list[str] | None] = {}
    out = []
    for f in findings:
        src = sources.get(f.file)
        hit = src.source_of(f.line) if src is not None and f.line > 0 else None
        if hit is None:
            out.append(f)
            continue
        template, comment_line = hit
        path = _template_file(template, f.file, files)
        tlines = _template_lines(path, texts) if path is not None else None
        rendered = src.lines[f.line - 1].strip() if 0 < f.line <= len(src.lines) else ""
        tline = 0
        if tlines is not None and rendered:
            offset = f.line - comment_line  # the line's place in its rendered document
            cands = [i + 1 for i, t in enumerate(tlines) if t.strip() == rendered and "{{" not in t]
            if cands:
                tline = min(cands, key=lambda n: (abs(n - offset), n))
        if path is not None and tline:
            col = f.col
            if col:  # the column moves with the line's indentation
                r_ind = len(src.lines[f.line - 1]) - len(src.lines[f.line - 1].lstrip())
                t_ind = len(tlines[tline - 1]) - len(tlines[tline - 1].lstrip())  # type: ignore[index]
                col = max(1, col - r_ind + t_ind)
            out.append(replace(f, file=_shown(path), line=tline, col=col))
        else:
            out.append(replace(f, message=f"{f.message} (rendered from {template})"))
    return out
