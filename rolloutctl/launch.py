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
(the tests, a library user) keeps the collector as it is."""

from __future__ import annotations

import gc

from .core.process import mark_command

#: the collector's thresholds for a command's process (youngest generation, then the two older)
THRESHOLDS = (100_000, 50, 1000)


def _command_process() -> None:
    gc.set_threshold(*THRESHOLDS)
    mark_command()


def main() -> None:
    _command_process()
    from .cli import main as run

    run()


def kubectl_plugin_main() -> None:
    _command_process()
    from .cli import kubectl_plugin_main as run

    run()
