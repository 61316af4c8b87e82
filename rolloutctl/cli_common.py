"""What the CLI's commands share: exit codes, the guard that turns problems into one
line and an exit code, standard output and error, colour and width, the GitHub job
summary, report files, the repository configuration, and the option types and help
texts several commands use. Only the standard library and typer are imported at module
level (start-up matters: ``rolloutctl --help`` imports this module).

Exit codes (CONTRACT.md): 0 converged / clean, 1 stuck / differences / lint errors,
2 bad usage or invalid input, 3 the tool could not do its job.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Any, Callable, List, Mapping, Optional, Sequence

import typer

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_TOOL = 0, 1, 2, 3


def examples(*commands: str) -> str:
    """An "Examples:" block of help text that is never re-wrapped (click's ``\\b``
    paragraph marker): each command stays on one line, copyable, at any terminal width."""
    return "Examples:\n\n\b\n" + "\n".join("  " + c for c in commands) + "\n\n"


class KueueModel(str, Enum):
    top_level = "top-level"
    nested = "nested"
    legacy = "legacy"


class PlanFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"
    html = "html"  # plan, next, plan --compare: one self-contained page with charts


class DiffFormat(str, Enum):
    """``diff``'s formats: plan's without the charts page."""
    table = "table"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"


class LintFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    junit = "junit"
    markdown = "markdown"


def err(line: str) -> None:
    """One line on standard error (never a traceback, whatever stderr can hold)."""
    from .load.files import one_line

    text = one_line(line.rstrip("\n")) + "\n"
    try:
        try:
            sys.stderr.write(text)
        except UnicodeEncodeError:  # a stderr that is not UTF-8: say it in ASCII
            sys.stderr.write(text.encode("ascii", "backslashreplace").decode("ascii"))
        sys.stderr.flush()
    except (BrokenPipeError, OSError, ValueError):  # nowhere left to say it
        pass


def stdout_gone() -> None:
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
            err(str(e))
        raise typer.Exit(EXIT_INPUT)
    except ToolFailure as exc:
        err(f"rolloutctl: {exc}")
        raise typer.Exit(EXIT_TOOL)
    except typer.Exit:
        raise
    except OutputFailed as exc:
        err(f"rolloutctl: {exc}")
        stdout_gone()
        raise typer.Exit(EXIT_TOOL)
    except KeyboardInterrupt:
        err("rolloutctl: interrupted")
        raise typer.Exit(130)
    except BrokenPipeError:
        stdout_gone()
        raise typer.Exit(EXIT_TOOL)
    except RecursionError:
        if os.environ.get("ROLLOUTCTL_DEBUG"):
            raise
        err("rolloutctl: internal error: input nested too deeply to process")
        raise typer.Exit(EXIT_TOOL)
    except MemoryError:
        err("rolloutctl: out of memory (lower the input size or --max-pods)")
        raise typer.Exit(EXIT_TOOL)
    except Exception as exc:  # never a traceback for users
        if os.environ.get("ROLLOUTCTL_DEBUG"):
            raise
        err(f"rolloutctl: internal error: {type(exc).__name__}: {exc} (set ROLLOUTCTL_DEBUG=1 for a traceback)")
        raise typer.Exit(EXIT_TOOL)
    raise typer.Exit(code)


class ColorMode(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


COLOR_HELP = ("Colour: auto (on a terminal, unless NO_COLOR is set or TERM=dumb; FORCE_COLOR forces it), "
               "always or never. --no-color wins over --color always.")


def use_color(no_color: bool, color: "ColorMode | str" = "auto") -> bool:
    """``--no-color``/``--color never`` > ``--color always`` > NO_COLOR (any value,
    no-color.org) > FORCE_COLOR (any value but 0/false) > TERM=dumb > whether stdout is a
    terminal."""
    mode = color.value if isinstance(color, ColorMode) else color
    if no_color or mode == "never":
        return False
    if mode == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "").lower() not in ("", "0", "false", "no"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty()
    except (ValueError, AttributeError):
        return False


def table_width() -> int | None:
    """The terminal's width when writing to one; otherwise the renderers' fixed widths
    (so piped and saved output is the same everywhere)."""
    if not sys.stdout.isatty():
        return None
    import shutil

    return max(60, min(200, shutil.get_terminal_size((100, 24)).columns))


class OutputFailed(Exception):
    """Standard output cannot take the result (an encoding without these characters, a
    full disk): one line on stderr, exit 3."""


def reads_typed_stdin(command: str, paths: Sequence[str], what: str) -> bool:
    """No path on a terminal: the command reads what is typed, and says so (a spinner would
    look like work). ``what``: the advice, e.g. ``plan it``."""
    if paths or not sys.stdin.isatty():
        return False
    err(f"rolloutctl {command}: reading manifests from standard input (end with Ctrl-D; give a file or a "
        f"directory to {what})")
    return True


def emit(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start] if isinstance(exc.object, str) and exc.start < len(exc.object) else "?"
        raise OutputFailed(f"standard output is {getattr(sys.stdout, 'encoding', None) or 'not UTF-8'} and cannot "
                           f"hold {bad!r}: use a UTF-8 locale (LC_ALL=C.UTF-8) or PYTHONIOENCODING=utf-8") from None
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed(f"cannot write to standard output: {exc.strerror or exc}") from None


def append_step_summary(markdown: Callable[[], str], environ: Mapping[str, str] | None = None) -> bool:
    """Under GitHub Actions, append the command's Markdown (rendered only then) to the
    job summary ($GITHUB_STEP_SUMMARY), whatever -o printed; the bytes come from
    render/step_summary.py. Returns whether it was written: a summary file that cannot
    be written is one line on stderr and does not fail the command (the command's own
    output and exit code are what CI acts on)."""
    env = os.environ if environ is None else environ
    if env.get("GITHUB_ACTIONS") != "true":  # the usual case: nothing more is imported
        return False
    from .render.step_summary import active, summary_bytes

    if not active(env):
        return False
    data = summary_bytes(markdown())
    path = env["GITHUB_STEP_SUMMARY"]
    try:
        with open(path, "ab") as f:
            f.write(data)
    except OSError as exc:
        try:
            sys.stderr.write(f"rolloutctl: cannot append to GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}\n")
        except OSError:
            pass
        return False
    return True


def step_summary(markdown: Callable[[], str]) -> None:
    """``append_step_summary`` for this process's environment."""
    append_step_summary(markdown)


CONFIG_HELP = ("Repository configuration (default: the nearest .rolloutctl.yaml in this directory or a parent): "
                "ignores, default -n, --fail-on and operator versions. See docs/ci.md.")


def repo_config(path: Optional[str]):  # type: ignore[no-untyped-def]
    from .app import InputProblem
    from .load.config import ConfigError, load

    try:
        return load(path)
    except ConfigError as exc:
        raise InputProblem([str(exc)]) from None


def report_specs(specs: List[str], output_given: bool) -> list[tuple[str, str]]:
    from .app import InputProblem

    out, errors = [], []
    formats = [f.value for f in LintFormat]
    for spec in specs:
        fmt, sep, dest = spec.partition("=")
        fmt = fmt.strip().lower()
        if not sep or not dest or fmt not in formats:
            errors.append(f"--report {spec!r}: expected FORMAT=FILE with FORMAT one of {', '.join(formats)} "
                          "(e.g. --report sarif=rolloutctl.sarif; FILE - is standard output)")
            continue
        out.append((fmt, dest))
    dashes = [d for _, d in out if d == "-"]
    if len(dashes) > 1:
        errors.append("--report: standard output (-) can take one report only")
    elif dashes and output_given:
        errors.append("--report FORMAT=-: standard output already carries -o; write one of them to a file")
    if errors:
        raise InputProblem(errors)
    return out


def write_reports(reports: list[tuple[str, str]]) -> None:
    """Write every ``(file, text)``; a report that cannot be written is bad usage (exit 2)."""
    from .app import InputProblem

    errors = []
    for dest, text in reports:
        try:
            with open(dest, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except OSError as exc:
            errors.append(f"{dest}:0: cannot write the report: {exc.strerror or exc}")
    if errors:
        raise InputProblem(errors)


OBSERVED_HELP = ("What is in the cluster now: live objects (kubectl get -o yaml) or the previously applied "
                  "manifest alone (a settled cluster at that spec). Repeatable. Without it the object is new.")
CAPACITY_HELP = ("Total the workload may request, e.g. nvidia.com/gpu=16 or memory=800Mi, or from-cluster (the "
                  "schedulable nodes' allocatable resources, capped by the namespace's ResourceQuotas and, with "
                  "--kueue, the ClusterQueues). Repeatable, or comma-separated (nvidia.com/gpu=16,memory=800Gi). "
                  "Default: unlimited.")
FROM_CLUSTER_HELP = ("Read what is in the cluster now with your kubectl (kubectl get only): the object and every "
                      "kind its operator creates for it, selected by the operator's labels.")
CONTEXT_HELP = "kubectl context for --from-cluster."
KUBECONFIG_HELP = "kubeconfig file for --from-cluster (default: kubectl's own, KUBECONFIG)."
NAMESPACE_HELP = "Namespace of manifests that name none (default: default)."
TIMEOUT_HELP = ("How long to wait for each kubectl get: seconds (30, 2.5) or a duration as kubectl's "
                "--request-timeout takes it (30s, 2m, 1m30s); at least 1 s.")
ALLOW_EMPTY_HELP = ("Live or observed input with no object (empty standard input, or files and directories that hold "
                    "none) means the cluster has none of the objects.")
KUEUE_HELP = ("RayService under Kueue: top-level (Kueue owns spec.suspend; Kueue PR #11264, unmerged), nested "
               "(Kueue >= v0.17 owns rayClusterConfig.suspend) or legacy (Kueue manages each RayCluster). Kueue "
               "objects (ClusterQueue, LocalQueue, ResourceFlavor, Workload) come from --observed and the desired files.")
COMPARE_HELP = ("Plan the same change under every update strategy (Grove: RollingRecreate, RollingUpdate, "
                 "ReplicaRecreate, ScaleThenRoll; a RayService: NewCluster, NewClusterWithIncrementalUpgrade, None; "
                 "with --kueue: the three Kueue models) side by side. "
                 "Exit 1 only when the manifest's own strategy gets stuck.")
NEVER_READY_HELP = "Objects the plan creates whose names match this glob never become Ready (failure drills). Repeatable."
GATE_HELP = ("KubeRay operator feature gate (RayService), as the operator's --feature-gates takes it, e.g. "
              "RayServiceIncrementalUpgrade=false. Repeatable; default: the gates of the modelled commit.")
KUBERAY_ENV_HELP = ("KubeRay operator environment variable that changes RayService behaviour, e.g. "
                     "ENABLE_ZERO_DOWNTIME=false (a spec without upgradeStrategy.type then never creates a new "
                     "cluster). Repeatable; default: unset.")


GROVE_CONFIG_HELP = ("Grove operator configuration (the chart's config:) the model follows, e.g. "
                     "autoMNNVLEnabled=true (config.network.autoMNNVLEnabled: grove.io/mnnvl-group names are "
                     "accepted). Repeatable; default: the chart's values (false).")


def comma_items(values: List[str]) -> tuple[str, ...]:
    """A repeatable option's values with comma-separated ones split (``a=1,b=2`` is
    ``a=1`` and ``b=2``, as kubectl's ``--limits`` and ``--requests`` take them)."""
    return tuple(part.strip() for v in values for part in v.split(",") if part.strip())


def kubectl_timeout(value: Any) -> float:
    """``--kubectl-timeout`` (``load.kubectl.timeout_seconds``) as a usage error when bad."""
    if isinstance(value, (int, float)) or str(value).strip().isdigit():
        seconds = float(value)
        if seconds >= 1:
            return seconds  # (the default, without importing the loader)
    from .load.kubectl import timeout_seconds

    try:
        return timeout_seconds(str(value))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def operator_options(version: str | None, gates: List[str], env: List[str], grove: List[str] = (),
                     cfg: Any = None) -> dict:
    """The model options of the operator settings given (``--kuberay-version``,
    ``--feature-gate``, ``--kuberay-env``, ``--grove-config``), checked by every kind;
    ``cfg`` (the repository configuration) gives its ``operators.featureGates``,
    ``kuberayEnv`` and ``groveConfig`` first, so the command line's win. A bad setting
    in the file is named by its file and line."""
    from .app import InputProblem, model_options

    sources = (("feature_gates", "featureGates", gates), ("kuberay_env", "kuberayEnv", env),
               ("grove_config", "groveConfig", grove))
    given: dict[str, Any] = {"kuberay_version": version}
    for option, key, cli_items in sources:
        from_file = getattr(cfg, option, ()) if cfg is not None else ()
        for item, line in from_file:
            try:
                model_options({option: [item]})
            except InputProblem as exc:
                name = item.partition("=")[0]
                raise InputProblem([f"{cfg.path}:{line}: operators.{key}.{name}: {m}" for m in exc.errors]) from None
        given[option] = [item for item, _line in from_file] + list(cli_items)
    return model_options(given)


def exit_now(code: object) -> None:
    """End the process with ``code`` (a ``SystemExit`` code) once standard output and
    error are flushed, without the interpreter's teardown: freeing every module, class
    and function one by one and a last full collection cost a fifth of ``--help`` and
    more of a plan, and nothing is left to release (files are closed by their ``with``
    blocks, subprocesses waited for, nothing registers ``atexit`` work). A code that is
    not an integer, or a stream that cannot be flushed (a reader that went away), takes
    the interpreter's ordinary way out, which reports it as before."""
    if code is None:
        code = 0
    if not isinstance(code, int):
        raise SystemExit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    os._exit(code)
