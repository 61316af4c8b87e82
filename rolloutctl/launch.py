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

PyYAML and the json package compile regular expressions when they are imported that a
command never uses: PyYAML's pure-Python reader (``yaml/reader.py``, a class of most of
Unicode, about 9 ms), its implicit resolvers and timestamp constructor (the commands read
YAML, manifests and Serve configs alike, as events with the C parser and resolve scalars
as Go does, ``core/goyaml``), and json's pure-Python decoder, scanner and encoder (its C ones
are used). A command's process has the patterns these modules compile at import built at
their first use instead (``_defer_library_patterns``); a matching method a module binds at
import (json.decoder's ``_w=WHITESPACE.match`` default arguments) compiles when called."""

from __future__ import annotations

import gc
import re
import sys
from typing import Any, Callable

from .core.process import mark_command

#: the collector's thresholds for a command's process (youngest generation, then the two older)
THRESHOLDS = (100_000, 50, 1000)


#: the modules (name prefixes) whose patterns a command's process compiles at first use:
#: those the commands never use (a used one pays a Python call on every use)
DEFERRED_PATTERN_MODULES = ("yaml.reader", "yaml.resolver", "yaml.constructor", "json.decoder", "json.scanner",
                            "json.encoder")


class DeferredPattern:
    """A compiled regular expression built when it is first used: every attribute
    (``search``, ``match``, ``pattern`` ...) is the compiled pattern's."""

    __slots__ = ("_source", "_flags", "_compile", "_compiled")

    def __init__(self, source: str, flags: int, compile: Callable[[str, int], Any]) -> None:
        self._source, self._flags, self._compile = source, flags, compile
        self._compiled: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pattern(), name)

    def _pattern(self) -> Any:
        if self._compiled is None:
            self._compiled = self._compile(self._source, self._flags)
        return self._compiled


def _calls_when_called(name: str) -> Callable[..., Any]:
    def method(self: DeferredPattern, *args: Any) -> Any:
        return getattr(self._pattern(), name)(*args)

    method.__name__ = name
    return method


# The matching methods compile the pattern when called, not when looked up: a module may
# bind one at import (json.decoder's ``_w=WHITESPACE.match`` default arguments).
for _name in ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"):
    setattr(DeferredPattern, _name, _calls_when_called(_name))


def _defer_library_patterns() -> None:
    """``re.compile`` called from a module of ``DEFERRED_PATTERN_MODULES`` gives a
    ``DeferredPattern``; from anywhere else, the compiled pattern as before. (Those
    modules only call methods of their patterns; none hands one to another function
    of ``re``, which would refuse it.)"""
    compile_now = re.compile
    if getattr(compile_now, "defers", False):
        return  # (already)

    def compile(pattern: Any, flags: int = 0) -> Any:
        if isinstance(pattern, (str, bytes)) and str(sys._getframe(1).f_globals.get("__name__", "")).startswith(
                DEFERRED_PATTERN_MODULES):
            return DeferredPattern(pattern, flags, compile_now)
        return compile_now(pattern, flags)

    compile.defers = True  # type: ignore[attr-defined]
    re.compile = compile  # type: ignore[assignment]


def _command_process() -> None:
    gc.set_threshold(*THRESHOLDS)
    mark_command()
    _defer_library_patterns()


def main() -> None:
    _command_process()
    from .cli import main as run

    run()


def kubectl_plugin_main() -> None:
    _command_process()
    from .cli import kubectl_plugin_main as run

    run()
