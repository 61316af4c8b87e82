"""GitHub Actions job summaries: under GitHub Actions, commands append their
Markdown report to the file named by ``$GITHUB_STEP_SUMMARY`` (GitHub renders it
on the run's summary page), whatever ``-o`` format they print.

Shared by ``plan``, ``diff`` and ``lint``; the command renders its Markdown only
when ``active()`` says a summary is wanted.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Mapping

#: GitHub's limit for one step's summary is 1 MiB; stay well under it
MAX_BYTES = 1024 * 1024 - 4096


def active(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs as a GitHub Actions step with a job summary file."""
    env = os.environ if environ is None else environ
    return env.get("GITHUB_ACTIONS") == "true" and bool(env.get("GITHUB_STEP_SUMMARY"))


def append(markdown: str | Callable[[], str], environ: Mapping[str, str] | None = None) -> bool:
    """Append ``markdown`` (or what the callable returns, rendered only when needed)
    to ``$GITHUB_STEP_SUMMARY``. Returns whether it was written; a summary file that
    cannot be written is reported on stderr in one line and does not fail the
    command (the command's own output and exit code are what CI acts on)."""
    env = os.environ if environ is None else environ
    if not active(env):
        return False
    text = markdown() if callable(markdown) else markdown
    if not text.endswith("\n"):
        text += "\n"
    data = text.encode("utf-8")
    if len(data) > MAX_BYTES:
        note = "\n_(summary cut at GitHub's 1 MiB limit; the command's own output has everything)_\n"
        data = data[: MAX_BYTES - len(note)].decode("utf-8", "ignore").encode("utf-8") + note.encode()
    path = env["GITHUB_STEP_SUMMARY"]
    try:
        with open(path, "ab") as f:
            f.write(data + b"\n")
    except OSError as exc:
        try:
            sys.stderr.write(f"rolloutctl: cannot append to GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}\n")
        except OSError:
            pass
        return False
    return True
