"""The LintReport as JSON (CONTRACT.md shape, ``schemas/lint.schema.json``)."""

from __future__ import annotations

import json

from ..core.model import LintReport


def render_lint_json(report: LintReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
