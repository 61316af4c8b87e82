"""SARIF 2.1.0 for code-scanning upload: one run, the rules that appear with their
help text, and one result per finding with a physical location and start line."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from ..core.model import LintReport

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/rolloutctl/rolloutctl/blob/main/docs/rules.md"


def _uri(path: str) -> str:
    """A file name as a SARIF ``artifactLocation.uri`` (SARIF 2.1.0 §3.10.3: a URI
    reference): relative to the working directory when the file is below it, so that
    code scanning places it in the repository, and percent-encoded (RFC 3986) so that
    spaces, ``#``, ``?``, ``%`` or non-ASCII letters in a name cannot break it; a file
    elsewhere becomes an absolute ``file:`` URI."""
    import os
    from urllib.parse import quote

    p = path.replace("\\", "/")
    if p.startswith("<") and p.endswith(">"):  # <stdin>
        return quote(p, safe="")
    if os.path.isabs(path):
        try:
            rel = os.path.relpath(path)
        except ValueError:
            rel = ""
        if rel and not rel.startswith(".."):
            p = rel.replace("\\", "/")
        else:
            return "file://" + quote(p if p.startswith("/") else "/" + p, safe="/")
    while p.startswith("./"):
        p = p[2:]
    return "/".join(quote(seg, safe="") for seg in p.split("/"))  # ':' too: it would read as a scheme


def render_lint_sarif(report: LintReport, rules: Mapping[str, Mapping[str, str]], version: str = "") -> str:
    """``rules``: ID -> {name, severity, summary, help} (plain data from the registry)."""
    used = sorted({f.rule for f in report.findings})
    descriptors = []
    index: dict[str, int] = {}
    for rid in used:
        meta = rules.get(rid, {})
        index[rid] = len(descriptors)
        descriptors.append({
            "id": rid,
            "name": meta.get("name", rid),
            "shortDescription": {"text": meta.get("summary", rid)},
            "fullDescription": {"text": meta.get("help", meta.get("summary", rid))},
            "help": {"text": meta.get("help", meta.get("summary", rid))},
            "helpUri": f"{INFO_URI}#{rid.lower()}",
            "defaultConfiguration": {"level": "error" if meta.get("severity", "error") == "error" else "warning"},
            "properties": {"upstream": meta.get("upstream", "")},
        })
    results: list[dict[str, Any]] = []
    for f in report.findings:
        fp = hashlib.sha256(f"{f.rule}|{_uri(f.file)}|{f.path}|{f.message}".encode()).hexdigest()[:32]
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": f"{f.path}: {f.message}" if f.path else f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.file)},
                "region": {"startLine": max(f.line, 1), **({"startColumn": f.col} if f.col else {})},
            }}],
            "partialFingerprints": {"rolloutctl/v1": fp},
        }
        if f.object is not None:
            result["locations"][0]["logicalLocations"] = [{
                "name": f.object.name, "kind": "object",
                "fullyQualifiedName": f"{f.object.kind}/{f.object.namespace}/{f.object.name}"}]
        results.append(result)
    driver: dict[str, Any] = {"name": "rolloutctl", "informationUri": INFO_URI, "rules": descriptors}
    if version:
        driver["version"] = version
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": driver}, "results": results,
                     "columnKind": "unicodeCodePoints"}]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
