"""Shared helpers of the hardening suite: the sample manifests, mutations of them,
and the one check every bad input must pass (exit code, one line per problem,
``PATH:LINE: message``, nothing on standard output, no traceback)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Callable

import yaml

from tests.conftest import REPO, SAMPLES

PCS_SAMPLE = SAMPLES / "disaggregated-inference.yaml"
#: an input error line: PATH:LINE: message (PATH may itself contain ':' only on Windows drives)
ERROR_LINE = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+): (?P<message>\S[^\n]*)$")


def sample_pcs() -> dict[str, Any]:
    return yaml.safe_load(PCS_SAMPLE.read_text())


def mutated(fn: Callable[[dict[str, Any]], Any], base: dict[str, Any] | None = None) -> str:
    doc = copy.deepcopy(base if base is not None else sample_pcs())
    fn(doc)
    return yaml.safe_dump(doc, sort_keys=False)


def assert_input_error(r: Any, path: str, *fragments: str, code: int = 2) -> list[re.Match]:
    """The contract for bad input: exit ``code``, nothing on stdout, every stderr
    line is ``PATH:LINE: message``, no traceback; returns the parsed lines."""
    assert r.exit_code == code, (r.exit_code, r.stdout[:300], r.stderr[:500])
    assert r.stdout == "", r.stdout[:300]
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert lines, "no message at all"
    parsed = []
    for ln in lines:
        m = ERROR_LINE.match(ln)
        assert m, f"not PATH:LINE: message: {ln!r}"
        assert m["path"] == path, (m["path"], path)
        parsed.append(m)
    text = "\n".join(lines)
    for f in fragments:
        assert f in text, (f, text)
    return parsed


def plan_json_ok(r: Any) -> dict[str, Any]:
    """A successful plan/next: exit 0 or 1, JSON that validates against the schema."""
    import jsonschema

    from rolloutctl.schemas_access import schema

    assert r.exit_code in (0, 1), (r.exit_code, r.stderr[:500])
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator(schema("plan")).validate(doc)
    return doc


__all__ = ["REPO", "SAMPLES", "PCS_SAMPLE", "ERROR_LINE", "sample_pcs", "mutated", "assert_input_error",
           "plan_json_ok", "Path"]
