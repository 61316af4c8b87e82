"""Renderers: core data in, text out. No renderer computes a result or writes a file.
The ``render_*`` functions here are the one dispatcher from (document, format) to a
renderer module; each module is imported only when its format is asked for."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..core.model import API_VERSION, Plan


def plans_document(plans: Sequence[Plan]) -> dict[str, Any]:
    """One Plan as itself; several as a ``PlanList``."""
    if len(plans) == 1:
        return plans[0].to_dict()
    return {"apiVersion": API_VERSION, "kind": "PlanList", "items": [p.to_dict() for p in plans]}


def render_plans(plans: Sequence[Plan], fmt: str, color: bool, width: int | None = None, steps: bool = False) -> str:
    """``steps``: the table lists every step (under its phase) instead of one row per phase."""
    if fmt == "json":
        from .data import collector_paused, to_json
        with collector_paused():  # the document is millions of containers for a large plan
            return to_json(plans_document(plans))
    if fmt == "yaml":
        from .data import to_yaml
        return to_yaml(plans_document(plans))
    from .console import printable

    if fmt == "markdown":
        from .plan_markdown import render
        return printable(render(plans))
    if fmt == "html":
        from .plan_html import render_plans as html
        return printable(html(plans))
    from .plan_table import render
    return printable(render(plans, color, width, steps=steps) if width else render(plans, color, steps=steps), color)


def render_comparisons(comparisons: Sequence[Any], fmt: str, color: bool, width: int | None = None) -> str:
    """``plan --compare`` output (``kind: Comparison``; several as ``ComparisonList``)."""
    if fmt in ("json", "yaml"):
        from .comparison_data import render
        return render(comparisons, fmt)
    from .console import printable

    if fmt == "markdown":
        from .comparison_markdown import render
        return printable(render(comparisons))
    if fmt == "html":
        from .plan_html import render_comparisons as html
        return printable(html(comparisons))
    from .comparison_table import render
    return printable(render(comparisons, color, width) if width else render(comparisons, color), color)


def render_advice(advices: Sequence[Any], fmt: str, color: bool, width: int | None = None) -> str:
    """``advise`` output (``kind: Advice``; several as ``AdviceList``)."""
    if fmt in ("json", "yaml"):
        from .data import to_json, to_yaml
        doc = advices[0].to_dict() if len(advices) == 1 else {
            "apiVersion": API_VERSION, "kind": "AdviceList", "items": [a.to_dict() for a in advices]}
        return to_json(doc) if fmt == "json" else to_yaml(doc)
    from .console import printable

    if fmt == "markdown":
        from .advice_markdown import render
        return printable(render(advices))
    if fmt == "html":
        from .advice_html import render as html
        return printable(html(advices))
    from .advice_table import render
    return printable(render(advices, color, width) if width else render(advices, color), color)


def render_diff(diff: Any, fmt: str, color: bool, width: int | None = None) -> str:
    """``diff`` output (``kind: Diff``)."""
    if fmt == "json":
        from .data import to_json
        return to_json(diff.to_dict())
    if fmt == "yaml":
        from .data import to_yaml
        return to_yaml(diff.to_dict())
    from .console import printable

    if fmt == "markdown":
        from .diff_markdown import render
        return printable(render(diff))
    from .diff_table import render
    return printable(render(diff, color, width) if width else render(diff, color), color)


def render_lint(report: Any, fmt: str, color: bool, *, objects: Sequence[Any] = (),
                rule_docs: Callable[[], Mapping[str, Any]] = dict, version: str = "") -> str:
    """``lint`` output (``kind: LintReport``): ``objects`` (file, ref) of every object
    read (JUnit lists clean ones too); ``rule_docs`` the rule descriptors SARIF carries,
    asked for only by SARIF; ``version`` the tool's, for SARIF."""
    if fmt == "json":
        from .lint_json import render_lint_json
        return render_lint_json(report)
    if fmt == "sarif":
        from .lint_sarif import render_lint_sarif
        return render_lint_sarif(report, rule_docs(), version)
    from .console import printable

    if fmt == "github":
        from .lint_github import render_lint_github
        return printable(render_lint_github(report))
    if fmt == "junit":
        from .lint_junit import render_lint_junit
        return render_lint_junit(report, list(objects))
    if fmt == "markdown":
        from .lint_markdown import render_lint_markdown
        return printable(render_lint_markdown(report))
    from .lint_text import render_lint_text
    return printable(render_lint_text(report, color), color)
