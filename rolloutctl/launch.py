"""The console scripts' entry points (``rolloutctl``, ``kubectl-rolloutctl``,
``python -m rolloutctl``): the command line, with Python's cyclic garbage collector
run rarely.

A command is one short process. What it allocates while it starts and reads its inputs
(the modules and classes of typer, click, PyYAML and this package, the schemas, the
parsed and admitted objects) lives until it exits, so the collector's frequent passes
over that growing heap free almost nothing: with the default thresholds they were 7-10 %
of ``--help`` and of a RayService plan, and 20 % of ``lint`` over 10,000 objects.
Collecting the youngest objects every 100,000 net allocations instead of every 700
keeps most of that time and about the memory of collecting often (``lint`` of 10,000
objects, CPU and peak RSS: 4.7 s and 225 MiB, against 5.5 s and 221 MiB with the
defaults and 4.3 s and 246 MiB never collecting). A plan switches the collector off
while it runs and, in a command's process (``core.process``), moves what it made to the
permanent generation when it ends (``core.simulate``). Code that imports the package
(the tests, a library user) keeps the collector as it is.

PyYAML compiles one regular expression when it is imported, for its pure-Python reader
(``yaml/reader.py``, ``Reader.NON_PRINTABLE``: a class of most of Unicode, about 9 ms,
the costliest single step of loading a manifest). The commands read YAML with the C
loader, which never uses it, so a command's process has it compiled at its first use
instead (``_defer_pyyaml_reader_pattern``)."""

from __future__ import annotations

import gc
import re
from typing import Any

from .core.process import mark_command

#: the collector's thresholds for a command's process (youngest generation, then the two older)
THRESHOLDS = (100_000, 50, 1000)


#: the pattern ``yaml/reader.py`` compiles in ``Reader``'s class body (PyYAML 5.1 to 6.x)
PYYAML_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"


class DeferredPattern:
    """A compiled regular expression built when it is first used: every attribute
    (``search``, ``match``, ``pattern`` ...) is the compiled pattern's."""

    __slots__ = ("_source", "_compiled")

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            # a group around it: the same language, and not this object's cache entry
            self._compiled = re.compile(f"(?:{self._source})")
        return getattr(self._compiled, name)


def _defer_pyyaml_reader_pattern() -> None:
    """Put a ``DeferredPattern`` where ``re.compile`` looks first for PyYAML's reader
    pattern (its cache of compiled patterns, keyed by type, pattern and flags), before
    ``yaml`` is imported. A Python whose ``re`` keeps no such cache is left alone: the
    pattern is then compiled at import, as without this."""
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict):
        cache.setdefault((str, PYYAML_NON_PRINTABLE, 0), DeferredPattern(PYYAML_NON_PRINTABLE))


def _command_process() -> None:
    gc.set_threshold(*THRESHOLDS)
    mark_command()
    _defer_pyyaml_reader_pattern()


def main() -> None:
    _command_process()
    from .cli import main as run

    run()


def kubectl_plugin_main() -> None:
    _command_process()
    from .cli import kubectl_plugin_main as run

    run()
