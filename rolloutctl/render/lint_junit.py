"""JUnit XML: one test suite per file, one test case per object (a failure per
object with error findings, listing them; warnings go to system-out). Findings
that belong to no object (unreadable input) are a failed test case of the file."""

from __future__ import annotations

import re
from collections import OrderedDict
from xml.sax.saxutils import escape as _escape, quoteattr as _quoteattr

from ..core.model import Finding, LintReport, ObjectRef

#: what XML 1.0 does not allow in a document at all, escaped or not (its ``Char``
#: production): C0 controls but tab, CR and LF; lone surrogates; U+FFFE and U+FFFF
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(s: str) -> str:
    """``s`` with the characters XML forbids removed (the rest is escaped where it is written)."""
    return _NOT_XML.sub("", s)


def escape(s: str) -> str:
    return _escape(xml_text(s))


def quoteattr(s: str) -> str:
    return _quoteattr(xml_text(s), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _line(f: Finding) -> str:
    where = f" {f.path}:" if f.path else ""
    col = f":{f.col}" if f.col else ""
    return f"{f.file}:{f.line}{col}: {f.rule} [{f.severity}]{where} {f.message}"


def render_lint_junit(report: LintReport, objects: list[tuple[str, ObjectRef | None]] | None = None) -> str:
    """``objects``: every object linted as (file, ref) in input order, so that clean
    objects appear as passing test cases; by default only objects with findings."""
    cases: "OrderedDict[tuple[str, ObjectRef | None], list[Finding]]" = OrderedDict()
    for file, ref in objects or []:
        cases.setdefault((file, ref), [])
    for f in report.findings:
        cases.setdefault((f.file, f.object), []).append(f)
    by_file: "OrderedDict[str, list]" = OrderedDict()
    for (file, ref), fs in sorted(cases.items(), key=lambda kv: (kv[0][0], str(kv[0][1] or ""))):
        by_file.setdefault(file, []).append((ref, fs))
    total = sum(len(v) for v in by_file.values())
    failures = sum(1 for v in by_file.values() for _, fs in v if any(f.severity == "error" for f in fs))
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="rolloutctl lint" tests="{total}" failures="{failures}" errors="0">']
    for file, items in by_file.items():
        nfail = sum(1 for _, fs in items if any(f.severity == "error" for f in fs))
        out.append(f'  <testsuite name={quoteattr(file)} tests="{len(items)}" failures="{nfail}" errors="0">')
        for ref, fs in items:
            name = f"{ref.kind}/{ref.namespace}/{ref.name}" if ref else "input"
            out.append(f'    <testcase name={quoteattr(name)} classname={quoteattr(file)}>')
            errs = [f for f in fs if f.severity == "error"]
            warns = [f for f in fs if f.severity != "error"]
            if errs:
                msg = f"{len(errs)} error{'s' if len(errs) != 1 else ''}: {errs[0].rule} {errs[0].message}"
                body = "\n".join(_line(f) for f in errs)
                out.append(f'      <failure message={quoteattr(msg)} type="lint">{escape(body)}</failure>')
            if warns:
                out.append(f"      <system-out>{escape(chr(10).join(_line(f) for f in warns))}</system-out>")
            out.append("    </testcase>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"
