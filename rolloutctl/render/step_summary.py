"""GitHub Actions job summaries: under GitHub Actions, commands append their
Markdown report to the file named by ``$GITHUB_STEP_SUMMARY`` (GitHub renders it
on the run's summary page), whatever ``-o`` format they print.

Shared by ``plan``, ``diff`` and ``lint``. Pure: ``active`` reads the environment it
is given and ``summary_bytes`` makes the bytes to append; the CLI shell
(``cli.append_step_summary``) renders the Markdown only when a summary is wanted and
writes the file.
"""

from __future__ import annotations

from typing import Mapping

#: GitHub's limit for one step's summary is 1 MiB; stay well under it
MAX_BYTES = 1024 * 1024 - 4096
CUT_NOTE = "\n_(summary cut at GitHub's 1 MiB limit; the command's own output has everything)_\n"


def active(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` is a GitHub Actions step's with a job summary file."""
    return environ.get("GITHUB_ACTIONS") == "true" and bool(environ.get("GITHUB_STEP_SUMMARY"))


def summary_bytes(markdown: str) -> bytes:
    """What to append for ``markdown``: UTF-8, ending in a newline and a blank line,
    cut (with a note) below GitHub's 1 MiB limit."""
    text = markdown if markdown.endswith("\n") else markdown + "\n"
    data = text.encode("utf-8")
    if len(data) > MAX_BYTES:
        data = data[: MAX_BYTES - len(CUT_NOTE)].decode("utf-8", "ignore").encode("utf-8") + CUT_NOTE.encode()
    return data + b"\n"
