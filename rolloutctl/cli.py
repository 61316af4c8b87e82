"""Command-line wiring: options, output format, exit codes. No logic beyond
argument handling; only typer is imported at module level (start-up matters).

Exit codes (CONTRACT.md): 0 converged / clean, 1 stuck / differences / lint errors,
2 bad usage or invalid input, 3 the tool could not do its job.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Callable, List, Optional

import typer

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_TOOL = 0, 1, 2, 3

app = typer.Typer(
    name="rolloutctl",
    help="Predict what the KubeRay RayService and Grove PodCliqueSet operators will do with a change, "
    "before you apply it. Read-only: never writes to a cluster.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)


class PlanFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"rolloutctl {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """rolloutctl: plan, next, diff, lint."""


def _err(line: str) -> None:
    from .load.files import one_line

    try:
        sys.stderr.write(one_line(line.rstrip("\n")) + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, OSError):  # nowhere left to say it
        pass


def _stdout_gone() -> None:
    """The reader of standard output went away (``rolloutctl plan … | head``): stop
    quietly, and keep the interpreter from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (test runners)
        pass


def run_guarded(fn: Callable[[], int]) -> None:
    """Run a command body; turn problems into one line each and an exit code.

    Nothing reaches standard output unless ``fn`` returns normally: commands
    compute and render everything first and ``emit`` once, at the end, so a
    failure never leaves a partial result a script could mistake for output."""
    from .app import InputProblem, ToolFailure

    try:
        code = fn()
    except InputProblem as exc:
        for e in exc.errors:
            _err(str(e))
        raise typer.Exit(EXIT_INPUT)
    except ToolFailure as exc:
        _err(f"rolloutctl: {exc}")
        raise typer.Exit(EXIT_TOOL)
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        _err("rolloutctl: interrupted")
        raise typer.Exit(130)
    except BrokenPipeError:
        _stdout_gone()
        raise typer.Exit(EXIT_TOOL)
    except RecursionError:
        if os.environ.get("ROLLOUTCTL_DEBUG"):
            raise
        _err("rolloutctl: internal error: input nested too deeply to process")
        raise typer.Exit(EXIT_TOOL)
    except MemoryError:
        _err("rolloutctl: out of memory (lower the input size or --max-pods)")
        raise typer.Exit(EXIT_TOOL)
    except Exception as exc:  # never a traceback for users
        if os.environ.get("ROLLOUTCTL_DEBUG"):
            raise
        _err(f"rolloutctl: internal error: {type(exc).__name__}: {exc} (set ROLLOUTCTL_DEBUG=1 for a traceback)")
        raise typer.Exit(EXIT_TOOL)
    raise typer.Exit(code)


def use_color(no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def emit(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


# ----------------------------------------------------------------------------- plan / next

_OBSERVED_HELP = ("What is in the cluster now: live objects (kubectl get -o yaml) or the previously applied "
                  "manifest alone (a settled cluster at that spec). Repeatable. Without it the object is new.")
_CAPACITY_HELP = "Total the workload may request, e.g. nvidia.com/gpu=16 or memory=800Mi. Repeatable. Default: unlimited."
_NEVER_READY_HELP = "Objects the plan creates whose names match this glob never become Ready (failure drills). Repeatable."


def _plan_command(first: bool):
    def command(
        paths: List[str] = typer.Argument(None, metavar="[PATH]...", help="Desired manifests: files, directories, or - for stdin."),
        observed: List[str] = typer.Option([], "--observed", help=_OBSERVED_HELP),
        capacity: List[str] = typer.Option([], "--capacity", metavar="RESOURCE=QTY", help=_CAPACITY_HELP),
        never_ready: List[str] = typer.Option([], "--never-ready", metavar="GLOB", help=_NEVER_READY_HELP),
        max_steps: int = typer.Option(500, "--max-steps", min=1, help="Give up (stuck: MaxStepsExceeded) after this many steps."),
        output: PlanFormat = typer.Option(PlanFormat.table, "-o", "--output", help="Output format."),
        no_color: bool = typer.Option(False, "--no-color", help="No colour (also: NO_COLOR=1)."),
        kuberay_version: Optional[str] = typer.Option(None, "--kuberay-version", help="KubeRay operator version to model (RayService)."),
        max_input_bytes: int = typer.Option(64 * 1024 * 1024, "--max-input-bytes", min=1, help="Refuse larger input files."),
        max_alias_nodes: int = typer.Option(100_000, "--max-alias-nodes", min=0, help="Refuse YAML whose aliases expand to more nodes."),
        max_pods: int = typer.Option(100_000, "--max-pods", min=1, help="Refuse to plan a workload of more pods."),
    ) -> None:
        def body() -> int:
            from . import app as usecases
            from .load.files import Limits
            from .render import render_plans

            opts = usecases.PlanOptions(
                observed=tuple(observed), capacity=tuple(capacity), never_ready=tuple(never_ready),
                max_steps=max_steps, limits=Limits(max_input_bytes, max_alias_nodes, max_pods),
                model_options={"kuberay_version": kuberay_version} if kuberay_version else {},
            )
            plans = (usecases.next_step if first else usecases.plan)(paths or ["-"], opts)
            emit(render_plans(plans, output.value, use_color(no_color)))
            return EXIT_FINDINGS if any(p.outcome == "stuck" for p in plans) else EXIT_OK

        run_guarded(body)

    return command


app.command(
    "plan",
    help="The whole step-by-step sequence to convergence, or why it gets stuck.\n\n"
    "Examples:\n\n"
    "  rolloutctl plan samples/disaggregated-inference.yaml\n\n"
    "  rolloutctl plan new.yaml --observed old.yaml --capacity nvidia.com/gpu=16\n\n"
    "  kubectl get pcs,pclq,pcsg,pods,podgangs -o yaml > live.yaml; rolloutctl plan pcs.yaml --observed live.yaml -o json\n\n"
    "Exit codes: 0 converged or nothing to do, 1 stuck, 2 bad input, 3 tool failure.",
)(_plan_command(first=False))

app.command(
    "next",
    help="Only what the next reconcile does (outcome and summary still describe the whole plan).\n\n"
    "Examples:\n\n"
    "  rolloutctl next svc.yaml --observed live.yaml\n\n"
    "Exit codes: 0 converged or nothing to do, 1 stuck, 2 bad input, 3 tool failure.",
)(_plan_command(first=True))


# ----------------------------------------------------------------------------- schema

SCHEMA_NAMES = ("plan", "comparison", "diff", "lint", "rayservice", "podcliqueset")


@app.command("schema", help="Print a bundled JSON Schema: " + ", ".join(SCHEMA_NAMES) + ".\n\n"
             "Example: rolloutctl schema plan > plan.schema.json")
def schema_command(name: str = typer.Argument(..., metavar="NAME", help="One of: " + ", ".join(SCHEMA_NAMES))) -> None:
    def body() -> int:
        from .app import InputProblem
        from .schemas_access import schema_text

        if name not in SCHEMA_NAMES:
            raise InputProblem([f"unknown schema {name!r}; choose one of: {', '.join(SCHEMA_NAMES)}"])
        text = schema_text(name)
        if text is None:
            raise InputProblem([f"schema {name!r} is not bundled in this build"])
        emit(text if text.endswith("\n") else text + "\n")
        return EXIT_OK

    run_guarded(body)


# ----------------------------------------------------------------------------- diff (issue 6)

# ----------------------------------------------------------------------------- lint / rules (issue 7)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
