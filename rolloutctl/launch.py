"""The console scripts' entry points (``rolloutctl``, ``kubectl-rolloutctl``,
``python -m rolloutctl``): the command line, run with Python's cyclic garbage
collector off.

A command is one short process. What it allocates before its work starts (the modules
and classes of typer, click, PyYAML and this package, the schemas, the parsed inputs)
lives until it exits, and the collector's passes over that growing heap free nothing:
they were 7-10 % of ``--help``, of a RayService plan and of ``lint`` over 1,000 files. The planner's worlds form no reference cycles (``core.simulate``), so memory
goes as objects are released, collector or not: peak memory of a 100,000-pod plan, of
a 5,000-pod rolling update and of ``advise`` on the bundled sample is unchanged. Code
that imports the package (the tests, a library user) keeps the collector as it is."""

from __future__ import annotations

import gc


def main() -> None:
    gc.disable()
    from .cli import main as run

    run()


def kubectl_plugin_main() -> None:
    gc.disable()
    from .cli import kubectl_plugin_main as run

    run()
