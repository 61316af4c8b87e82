"""``rolloutctl lint``: schema and admission rules over every object read."""

from __future__ import annotations

from typing import Any, Sequence

from ..app import InputProblem, _with_namespace, check_stdin_once
from ..core.records import field, record
from ..load.errors import InputError
from ..load.files import Loaded, load_paths
from ..load.limits import Limits


@record(frozen=True)
class LintOptions:
    live: tuple[str, ...] = ()
    strict: bool = False
    limits: Limits = field(default_factory=Limits)
    #: the repository configuration (``config.Config``; None: none)
    config: Any = None
    #: a report written by ``lint -o json`` whose findings do not count
    baseline: str | None = None
    #: reading no input at all is fine (else exit 2)
    allow_empty: bool = False
    #: ``-n``: the namespace of objects that name none (else the configuration's, else ``default``)
    namespace: str | None = None
    #: the model options the operators' rules read (``--feature-gate``), as ``app.model_options`` returns them
    model_options: Any = field(default_factory=dict)


@record(frozen=True)
class LintResult:
    report: Any  # core.model.LintReport
    #: every object read, as (file, ref), in input order (JUnit lists clean objects too)
    objects: tuple[tuple[str, Any], ...]
    exit_code: int


def lint(paths: Sequence[str], opts: LintOptions, stdin: Any = None) -> LintResult:
    """``rolloutctl lint``: schema and admission rules over every object in ``paths``.
    Unreadable input becomes ``IN001`` findings (and exit code 2), not an exception."""
    from ..lint.engine import LintInput, exit_code
    from ..lint.engine import lint as run_lint

    check_stdin_once(paths, opts.live)
    baseline = read_baseline(opts.baseline) if opts.baseline else None
    # documents that are no Kubernetes object (a workflow, package.json) are not lint's business
    loaded = load_paths(paths, opts.limits, stdin=stdin, skip_non_objects=True)
    if not opts.allow_empty:
        check_some_input(paths, loaded)
    live = load_paths(opts.live, opts.limits) if opts.live else Loaded()
    cfg = opts.config
    if cfg is not None and cfg.namespace:  # objects naming no namespace go where kubectl apply -n would put them
        loaded.objects = [_with_namespace(o, cfg.namespace) for o in loaded.objects]
    report = run_lint(LintInput(objects=loaded.objects, errors=loaded.errors, files=loaded.files,
                                live=live.objects, live_errors=live.errors, strict=opts.strict,
                                ignores=cfg.active_ignores() if cfg else (),
                                expired=cfg.expired_ignores() if cfg else (),
                                baseline=baseline, sources=loaded.sources,
                                namespace=opts.namespace or (cfg.namespace if cfg is not None else None),
                                model_options=opts.model_options))
    return LintResult(report, tuple((o.file, o.ref) for o in loaded.objects), exit_code(report))


def check_some_input(paths: Sequence[str], loaded: Loaded) -> None:
    """Zero is not green: a lint that read nothing at all (an empty directory, an empty
    standard input, a pattern that matched nothing) is an input error, so a broken
    step before it cannot pass as a clean run. Files read that hold no object are fine."""
    stdin_read = 1 if "-" in paths else 0
    if loaded.files - stdin_read > 0 or (stdin_read and not loaded.empty_stdin):
        return
    if loaded.errors:
        return  # unreadable input says so itself (exit 2)
    errors = []
    for p in paths:
        if p == "-":
            errors.append(InputError("<stdin>", 0, "no input: standard input was empty (did the command before "
                                     "the pipe fail?); give --allow-empty if an empty run is fine"))
        else:
            errors.append(InputError(p, 0, "no input: no *.yaml, *.yml or *.json file here; "
                                     "give --allow-empty if an empty run is fine"))
    raise InputProblem(errors or ["rolloutctl lint: no input"])


def read_baseline(path: str) -> list[tuple]:
    """The findings of a report written by ``lint -o json``, as ``engine.baseline_key`` tuples."""
    import json

    from ..lint.engine import baseline_key

    try:
        with open(path, "rb") as fh:
            text = fh.read(64 * 1024 * 1024).decode("utf-8-sig")
    except FileNotFoundError:
        raise InputProblem([InputError(path, 0, "--baseline: no such file")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputProblem([InputError(path, 0, f"--baseline: cannot read: {getattr(exc, 'strerror', None) or exc}")]) from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputProblem([InputError(path, getattr(exc, "lineno", 1), "--baseline: not JSON; write the baseline "
                                       "with rolloutctl lint -o json > FILE")]) from None
    if not isinstance(doc, dict) or doc.get("kind") != "LintReport" or not isinstance(doc.get("findings"), list):
        raise InputProblem([InputError(path, 1, "--baseline: not a rolloutctl lint report "
                                       "(write it with rolloutctl lint -o json > FILE)")])
    out = []
    for f in doc["findings"]:
        if not isinstance(f, dict):
            continue
        o = f.get("object")
        ref = (str(o.get("kind", "")), str(o.get("namespace", "")), str(o.get("name", ""))) if isinstance(o, dict) else None
        out.append(baseline_key(str(f.get("rule", "")), str(f.get("file", "")), ref, str(f.get("path", "")),
                                str(f.get("message", ""))))
    return out
