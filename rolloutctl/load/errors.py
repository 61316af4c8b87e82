"""How the loader reports a problem: an ``InputError`` (file, line, message) for the user
(inside a document it is raised as ``core.goyaml.DocumentError``)."""

from __future__ import annotations

from ..core.records import record
from ..core.text import one_line


@record(frozen=True)
class InputError:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {one_line(self.message)}"
