"""The console examples in README.md and docs/*.md are what the commands print.

Each ```` ```console ```` block is run as a user would run it from the repository root: every
``$ `` line (with its ``\\`` continuation lines) in bash with ``pipefail``, the installed
``rolloutctl`` first on PATH, colour off, standard output a pipe (so tables have the
renderers' fixed widths). What the block shows after a command must be what the command
writes on standard output, line by line (trailing spaces ignored); a line that is only ``…``
stands for any number of lines left out. A command must not exit 2 or 3 (bad usage, a tool
failure) unless the example shows its standard error (``2>&1``) or its exit code (``echo $?``). A block that cannot run here (it needs a cluster,
or names files a reader would have) says so on the line before its fence:
``<!-- not run: REASON -->``; a block whose command reads a cluster names what stands in for
that read: ``<!-- stand-in: COMMAND => COMMAND -->`` (the first replaced by the second).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
GAP = "…"
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->")
STAND_IN = re.compile(r"<!--\s*stand-in:\s*(.+?)\s*=>\s*(.+?)\s*-->")


class Example:
    def __init__(self, path: Path, line: int, commands: list[tuple[str, list[str]]], not_run: str | None,
                 stand_in: tuple[str, str] | None) -> None:
        self.path, self.line, self.commands, self.not_run, self.stand_in = path, line, commands, not_run, stand_in

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def examples(path: Path) -> list[Example]:
    """The console blocks of ``path``: each command with the lines shown after it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: list[Example] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start = i + 1
        before = lines[i - 1] if i > 0 else ""
        m = NOT_RUN.search(before)
        sub = STAND_IN.search(before)
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        commands: list[tuple[str, list[str]]] = []
        j = 0
        while j < len(body):
            if not body[j].startswith("$ "):
                raise AssertionError(f"{path.name}:{start + j}: output before the first '$ ' command")
            cmd = body[j][2:]
            while cmd.endswith("\\") and j + 1 < len(body):
                j += 1
                cmd = cmd[:-1] + " " + body[j].strip()
            j += 1
            shown: list[str] = []
            while j < len(body) and not body[j].startswith("$ "):
                shown.append(body[j])
                j += 1
            commands.append((cmd, shown))
        out.append(Example(path, start, commands, m.group(1) if m else None,
                           (sub.group(1), sub.group(2)) if sub else None))
    return out


ALL = [e for p in DOCS if p.exists() for e in examples(p)]


def matches(shown: list[str], got: list[str]) -> bool:
    """Whether ``got`` reads as ``shown``: the same lines, where each ``…`` line of
    ``shown`` takes any number of lines of ``got`` (the shortest that lets the rest match)."""
    shown = [s.rstrip() for s in shown]
    got = [g.rstrip() for g in got]
    while shown and not shown[-1]:
        shown.pop()
    while got and not got[-1]:
        got.pop()

    def at(i: int, j: int) -> bool:
        if i == len(shown):
            return j == len(got)
        if shown[i] == GAP:
            return any(at(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and shown[i] == got[j] and at(i + 1, j + 1)

    return at(0, 0)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "FORCE_COLOR", "COLUMNS")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["NO_COLOR"] = "1"
    return env


def test_the_docs_have_console_examples() -> None:
    runnable = [e for e in ALL if e.not_run is None]
    assert len(runnable) >= 10, [e.id for e in ALL]


@pytest.mark.parametrize("example", ALL, ids=[e.id for e in ALL])
def test_console_example(example: Example) -> None:
    if example.not_run is not None:
        pytest.skip(f"not run: {example.not_run}")
    if shutil.which("rolloutctl", path=_env()["PATH"]) is None:
        pytest.skip("no rolloutctl command beside this Python")
    for cmd, shown in example.commands:
        if example.stand_in is not None:
            read, instead = example.stand_in
            assert read in cmd or not shown, f"{example.id}: the stand-in's command is not in `{cmd}`"
            cmd = cmd.replace(read, instead)
        if "| jq" in cmd and shutil.which("jq") is None:
            pytest.skip("jq is not installed")
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=REPO, env=_env(), capture_output=True,
                           text=True, timeout=300)
        got = r.stdout.split("\n")
        if r.returncode >= 2 and "2>&1" not in cmd and "echo $?" not in cmd:
            # bad usage or a tool failure: a copied command must work (an example that shows an
            # error shows its standard error, 2>&1, or its exit code)
            pytest.fail(f"{example.id}: `{cmd}` exited {r.returncode}: {r.stderr.strip()[:300]}")
        if not matches(shown, got):
            diff = "\n".join(difflib.unified_diff([s.rstrip() for s in shown], [g.rstrip() for g in got],
                                                  "shown", "printed", lineterm=""))
            pytest.fail(f"{example.id}: `{cmd}` printed other than the example shows "
                        f"(exit {r.returncode}; stderr: {r.stderr.strip()[:300]})\n{diff}")
