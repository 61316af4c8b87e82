"""What kind of process runs the planner: one console command (``rolloutctl.launch``
marks it), or code that imports the package (the tests, a library user), the default.

A command's process ends soon after its plans and keeps what they made until then, so
the planner may hand that memory to the collector's permanent generation
(``core.simulate``); code that imports the package keeps the collector as it was."""

from __future__ import annotations

_state = {"command": False}


def mark_command() -> None:
    """This process is one console command (called once, by its entry point)."""
    _state["command"] = True


def is_command() -> bool:
    return _state["command"]
