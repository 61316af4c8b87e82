"""Command-line wiring: the typer app and one command definition per command, each
turning its options into a use case's options (``rolloutctl/commands/``) and the
result into output and an exit code. What the commands share (exit codes, the guard,
output, colour, the job summary, option types and help texts) is ``cli_common``.
Only typer and ``cli_common`` are imported at module level (start-up matters).

Longer than 600 lines on purpose: it is declarations only (about 30 options for each of plan, next and
advise, with their help texts), and typer needs each command's options in that command's own signature.
Splitting it by command would cost ``--help`` an import per command and move no logic.

Exit codes (CONTRACT.md): 0 converged / clean, 1 stuck / differences / lint errors,
2 bad usage or invalid input, 3 the tool could not do its job.
"""

# No ``from __future__ import annotations`` here: typer reads the commands' annotations, and
# string annotations cost it a compile and two evaluations each on every run.
import copy
import os
import sys
from enum import Enum
from typing import List, Optional

import typer

from .core.effects import EFFECTS
from .cli_common import (ALLOW_EMPTY_HELP, CAPACITY_HELP, COLOR_HELP, COMPARE_HELP, CONFIG_HELP, CONTEXT_HELP,
                         EXIT_FINDINGS, EXIT_OK, EXIT_TOOL, FROM_CLUSTER_HELP, GATE_HELP, KUBECONFIG_HELP,
                         GROVE_CONFIG_HELP, KUBERAY_ENV_HELP, KUEUE_HELP, NAMESPACE_HELP, NEVER_READY_HELP, OBSERVED_HELP,
                         TIMEOUT_HELP, ColorMode, DiffFormat, KueueModel, LintFormat, OutputFailed, PlanFormat, emit, err,
                         comma_items, examples, exit_now, operator_options, reads_typed_stdin, repo_config, report_specs,
                         run_guarded, stdout_gone, step_summary, table_width, use_color, write_reports)
from .cli_common import kubectl_timeout as parse_timeout

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


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"rolloutctl {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """rolloutctl: plan, next, advise, diff, lint."""


# ----------------------------------------------------------------------------- plan / next


def _plan_command(first: bool):
    def command(
        paths: List[str] = typer.Argument(None, metavar="[PATH]...", help="Desired manifests: files, directories, or - for stdin."),
        observed: List[str] = typer.Option([], "--observed", "--live", metavar="PATH", help=OBSERVED_HELP),
        capacity: List[str] = typer.Option([], "--capacity", metavar="RESOURCE=QTY", help=CAPACITY_HELP),
        never_ready: List[str] = typer.Option([], "--never-ready", metavar="GLOB", help=NEVER_READY_HELP),
        max_steps: Optional[int] = typer.Option(None, "--max-steps", min=1, help="An explicit cap: give up (stuck: "
                                                "MaxStepsExceeded) after this many steps. Default: no cap; the plan runs "
                                                "until it converges or stops progressing."),
        output: PlanFormat = typer.Option(PlanFormat.table, "-o", "--output", help="Output format."),
        no_color: bool = typer.Option(False, "--no-color", help="No colour (also: NO_COLOR=1)."),
        color: ColorMode = typer.Option(ColorMode.auto, "--color", help=COLOR_HELP),
        kuberay_version: Optional[str] = typer.Option(None, "--kuberay-version", help="KubeRay operator version to model (RayService)."),
        max_input_bytes: int = typer.Option(64 * 1024 * 1024, "--max-input-bytes", min=1, help="Refuse larger input files."),
        max_alias_nodes: int = typer.Option(100_000, "--max-alias-nodes", min=0, help="Refuse YAML whose aliases expand to more nodes."),
        max_pods: int = typer.Option(100_000, "--max-pods", min=1, help="Refuse to plan a workload of more pods."),
        compare: bool = typer.Option(False, "--compare", hidden=first, help=COMPARE_HELP),
        steps: bool = typer.Option(False, "--steps", hidden=first, help="Table: one row per step (under its phase) "
                                   "instead of one row per phase."),
        kueue: Optional[KueueModel] = typer.Option(None, "--kueue", metavar="MODEL", help=KUEUE_HELP),
        feature_gate: List[str] = typer.Option([], "--feature-gate", metavar="NAME=BOOL", help=GATE_HELP),
        kuberay_env: List[str] = typer.Option([], "--kuberay-env", metavar="NAME=VALUE", help=KUBERAY_ENV_HELP),
        grove_config: List[str] = typer.Option([], "--grove-config", metavar="KEY=VALUE", help=GROVE_CONFIG_HELP),
        config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
        from_cluster: bool = typer.Option(False, "--from-cluster", help=FROM_CLUSTER_HELP),
        context: Optional[str] = typer.Option(None, "--context", help=CONTEXT_HELP),
        namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help=NAMESPACE_HELP),
        kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", metavar="FILE", help=KUBECONFIG_HELP),
        kubectl_timeout: float = typer.Option("60", "--kubectl-timeout", metavar="SECONDS|DURATION", parser=parse_timeout, help=TIMEOUT_HELP),
        allow_empty: bool = typer.Option(False, "--allow-empty", help=ALLOW_EMPTY_HELP),
    ) -> None:
        def body() -> int:
            from .app import InputProblem, PlanOptions
            from .commands import plan as planning
            from .load.limits import Limits
            from .render import render_plans
            from .render.plan_common import counted

            from .render.progress import Progress, heartbeat_wanted, wanted

            typing_stdin = reads_typed_stdin("next" if first else "plan", paths, "plan it")
            line = Progress("comparing strategies" if compare else "planning", wanted(output.value) and not typing_stdin,
                            color=use_color(no_color, color), heartbeat=heartbeat_wanted())
            cfg = repo_config(config)
            kuberay_ = kuberay_version or cfg.kuberay_version
            kueue_ = kueue.value if kueue else cfg.kueue
            opts = PlanOptions(
                observed=tuple(observed), capacity=comma_items(capacity), never_ready=tuple(never_ready),
                max_steps=max_steps, limits=Limits(max_input_bytes, max_alias_nodes, max_pods),
                model_options={**operator_options(kuberay_, feature_gate, kuberay_env, grove_config, cfg),
                               **({"kueue": kueue_} if kueue_ else {})},
                progress=lambda ref, n: line.update(f"{ref.kind} {ref.namespace}/{ref.name}: {counted(n, 'steps')}"),
                from_cluster=from_cluster, context=context, namespace=namespace or cfg.namespace,
                kubeconfig=kubeconfig, kubectl_timeout=kubectl_timeout, allow_empty=allow_empty,
            )
            if compare:
                if first:
                    raise InputProblem(["--compare works with plan, not next"])
                from .commands import compare as comparing
                from .render import render_comparisons

                with line:
                    results = comparing.compare(paths or ["-"], opts)
                emit(render_comparisons([r.comparison for r in results], output.value, use_color(no_color, color), table_width()))
                step_summary(lambda: render_comparisons([r.comparison for r in results], "markdown", False))
                return EXIT_FINDINGS if any(r.own_row_stuck for r in results) else EXIT_OK
            with line:
                plans = (planning.next_step if first else planning.plan)(paths or ["-"], opts)
            emit(render_plans(plans, output.value, use_color(no_color, color), table_width(), steps=steps))
            step_summary(lambda: render_plans(plans, "markdown", False))
            return EXIT_FINDINGS if any(p.outcome == "stuck" for p in plans) else EXIT_OK

        run_guarded(body)

    return command


app.command(
    "plan",
    help="The whole step-by-step sequence to convergence, or why it gets stuck.\n\n"
    + examples(
        "rolloutctl plan samples/disaggregated-inference.yaml",
        "rolloutctl plan new.yaml --observed old.yaml --capacity nvidia.com/gpu=16",
        "rolloutctl plan pcs.yaml --from-cluster --context prod -n inference -o json",
        "rolloutctl plan pcs.yaml --from-cluster --capacity from-cluster",
        "kubectl get pcs,pclq,pcsg,pods,podgangs -o yaml > live.yaml",
        "rolloutctl plan pcs.yaml --observed live.yaml -o json",
        "rolloutctl plan new.yaml --observed old.yaml --capacity nvidia.com/gpu=16 --compare",
        "rolloutctl plan new.yaml --observed old.yaml --steps   # every step, not one row per phase",
        "rolloutctl plan svc.yaml --observed live.yaml --feature-gate RayServiceIncrementalUpgrade=false",
        "rolloutctl plan svc.yaml --observed old.yaml --kuberay-env ENABLE_ZERO_DOWNTIME=false",
        "rolloutctl plan pcs.yaml --grove-config autoMNNVLEnabled=true   # Grove run with MNNVL on",
        "rolloutctl plan new.yaml --observed old.yaml -o html > plan.html   # charts, one self-contained page",
    )
    + "Exit codes: 0 converged or nothing to do, 1 stuck (with --compare: the manifest's own strategy is stuck), "
    "2 bad input, 3 tool failure.",
)(_plan_command(first=False))

app.command(
    "next",
    help="Only what the next reconcile pass does now, even when it only waits or requeues "
    "(outcome and summary still describe the whole plan).\n\n"
    + examples(
        "rolloutctl next svc.yaml --observed live.yaml",
        "rolloutctl next svc.yaml --observed live.yaml --feature-gate RayServiceIncrementalUpgrade=false",
        "rolloutctl next pcs.yaml --grove-config autoMNNVLEnabled=true",
        "set -o pipefail; kubectl get rayservice my-svc -o yaml | rolloutctl next svc.yaml --observed -",
    )
    + "Exit codes: 0 converged or nothing to do, 1 stuck, 2 bad input, 3 tool failure.",
)(_plan_command(first=True))


# ----------------------------------------------------------------------------- advise


class Objective(str, Enum):
    steps = "steps"
    peak = "peak"
    time = "time"


@app.command(
    "advise",
    help="The fastest safe way to roll this change out: plans every update strategy and budget in a defined grid "
    "(the same model as plan) and recommends the best that converges within --capacity and keeps --min-ready, "
    "with the exact manifest patch.\n\n"
    + examples(
        "rolloutctl advise samples/disaggregated-inference-v2.yaml --observed samples/disaggregated-inference.yaml",
        "rolloutctl advise new.yaml --observed old.yaml --capacity nvidia.com/gpu=48 --min-ready 75%",
        "rolloutctl advise svc.yaml --observed live.yaml --minimize time -o json",
        "rolloutctl advise new.yaml --observed old.yaml --grove-config autoMNNVLEnabled=true",
        "rolloutctl advise pcs.yaml --from-cluster --context prod -n inference --capacity from-cluster -o html > advice.html",
    )
    + "Exit codes: 0 a recommendation, 1 nothing meets the constraints, 2 bad usage or invalid input "
    "(e.g. --minimize time on an untimed kind), 3 tool failure.",
)
def advise_command(
    paths: List[str] = typer.Argument(None, metavar="[PATH]...", help="Desired manifests: files, directories, or - for stdin."),
    observed: List[str] = typer.Option([], "--observed", "--live", metavar="PATH", help=OBSERVED_HELP.replace(" Without it the object is new.",
                                                                                     " Required unless --from-cluster.")),
    capacity: List[str] = typer.Option([], "--capacity", metavar="RESOURCE=QTY", help=CAPACITY_HELP),
    min_ready: Optional[str] = typer.Option(None, "--min-ready", metavar="N|P%",
                                            help="Ready pods never below N, or P% of the desired pods. Default: every "
                                            "clique keeps minAvailable (Grove), the service keeps serving (RayService)."),
    minimize: Objective = typer.Option(Objective.steps, "--minimize",
                                       help="steps (default), peak (the first --capacity resource, GPUs if none) or "
                                       "time (timed models: RayService). Ties: the other two, then the simplest manifest."),
    exhaustive: bool = typer.Option(False, "--exhaustive", help="Plan the whole grid, beyond the default budget (~20x one plan)."),
    no_proposed: bool = typer.Option(False, "--no-proposed", help="Only strategies the operator implements (no design proposals)."),
    never_ready: List[str] = typer.Option([], "--never-ready", metavar="GLOB", help=NEVER_READY_HELP),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", min=1, help="An explicit cap: a candidate that needs more steps is stuck (MaxStepsExceeded). Default: none."),
    output: PlanFormat = typer.Option(PlanFormat.table, "-o", "--output", help="Output format."),
    no_color: bool = typer.Option(False, "--no-color", help="No colour (also: NO_COLOR=1)."),
    color: ColorMode = typer.Option(ColorMode.auto, "--color", help=COLOR_HELP),
    kuberay_version: Optional[str] = typer.Option(None, "--kuberay-version", help="KubeRay operator version to model (RayService)."),
    max_input_bytes: int = typer.Option(64 * 1024 * 1024, "--max-input-bytes", min=1, help="Refuse larger input files."),
    max_alias_nodes: int = typer.Option(100_000, "--max-alias-nodes", min=0, help="Refuse YAML whose aliases expand to more nodes."),
    max_pods: int = typer.Option(100_000, "--max-pods", min=1, help="Refuse to plan a workload of more pods."),
    kueue: Optional[KueueModel] = typer.Option(None, "--kueue", metavar="MODEL", help=KUEUE_HELP),
    feature_gate: List[str] = typer.Option([], "--feature-gate", metavar="NAME=BOOL", help=GATE_HELP),
    kuberay_env: List[str] = typer.Option([], "--kuberay-env", metavar="NAME=VALUE", help=KUBERAY_ENV_HELP),
    grove_config: List[str] = typer.Option([], "--grove-config", metavar="KEY=VALUE", help=GROVE_CONFIG_HELP),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    from_cluster: bool = typer.Option(False, "--from-cluster", help=FROM_CLUSTER_HELP),
    context: Optional[str] = typer.Option(None, "--context", help=CONTEXT_HELP),
    namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help=NAMESPACE_HELP),
    kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", metavar="FILE", help=KUBECONFIG_HELP),
    kubectl_timeout: float = typer.Option("60", "--kubectl-timeout", metavar="SECONDS|DURATION", parser=parse_timeout, help=TIMEOUT_HELP),
    allow_empty: bool = typer.Option(False, "--allow-empty", help=ALLOW_EMPTY_HELP),
) -> None:
    def body() -> int:
        from .app import PlanOptions
        from .commands.advise import AdviseOptions, advise
        from .load.limits import Limits
        from .render import render_advice
        from .render.plan_common import counted
        from .render.progress import Progress, heartbeat_wanted, wanted

        # the operator settings and repository defaults are plan's, so advise plans what plan would
        # a search may take minutes: a plain line now and then on any standard error that is not a terminal
        typing_stdin = reads_typed_stdin("advise", paths, "advise on it")
        line = Progress("advising", wanted(output.value) and not typing_stdin, color=use_color(no_color, color),
                        heartbeat=heartbeat_wanted(outside_ci=True, fmt=output.value))
        cfg = repo_config(config)
        kueue_ = kueue.value if kueue else cfg.kueue
        plan_opts = PlanOptions(
            observed=tuple(observed), capacity=comma_items(capacity), never_ready=tuple(never_ready), max_steps=max_steps,
            limits=Limits(max_input_bytes, max_alias_nodes, max_pods),
            model_options={**operator_options(kuberay_version or cfg.kuberay_version, feature_gate, kuberay_env,
                                              grove_config, cfg),
                           **({"kueue": kueue_} if kueue_ else {})},
            from_cluster=from_cluster, context=context, namespace=namespace or cfg.namespace, kubeconfig=kubeconfig,
            kubectl_timeout=kubectl_timeout, allow_empty=allow_empty)
        with line:
            advices = advise(paths or ["-"], AdviseOptions(
                plan=plan_opts, min_ready=min_ready, objective=minimize.value, exhaustive=exhaustive,
                proposed=not no_proposed,
                progress=lambda ref, n, used: line.update(
                    f"{ref.kind} {ref.namespace}/{ref.name}: {counted(n, 'candidates')} planned"
                    + (f", {used:.0%} of the search budget" if used is not None else ""))))
        emit(render_advice(advices, output.value, use_color(no_color, color), table_width()))
        return EXIT_OK if all(a.recommendation is not None for a in advices) else EXIT_FINDINGS

    run_guarded(body)


# ----------------------------------------------------------------------------- diff

@app.command(
    "diff",
    help="What changes before kubectl apply, and what each change will cause.\n\n"
    "Compares the desired manifests with the live objects (matched by API group, kind, namespace and name) "
    "and asks the operator's model what each change does: none, in-place, scale, rollout, recreate, "
    "teardown, ignored or rejected. Read-only: never writes to a cluster.\n\n"
    + examples(
        "set -o pipefail; kubectl get rayservice my-svc -o yaml | rolloutctl diff svc.yaml --live -",
        "rolloutctl diff manifests/ --from-cluster --context prod -n serving",
        "rolloutctl diff pcs.yaml --live live.yaml --fail-on rollout,recreate,teardown,rejected -o markdown",
        "rolloutctl diff manifests/ --live live.yaml --server-side --field-manager argocd-controller",
        "rolloutctl diff pcs.yaml --live live.yaml --grove-config autoMNNVLEnabled=true",
    )
    + "Defaults for -n, --fail-on and --kuberay-version, and ignored paths, come from .rolloutctl.yaml (docs/ci.md).\n\n"
    + "Exit codes: 0 no differences, 1 differences found (with --fail-on: a change has one of those effects), "
    "2 bad usage or invalid input, 3 kubectl missing or failing, or another tool failure.",
)
def diff_command(  # noqa: C901 - options are wiring
    paths: List[str] = typer.Argument(None, metavar="[PATH]...", help="Desired manifests: files, directories, or - for stdin."),
    live: List[str] = typer.Option([], "--live", "--observed", metavar="PATH", help="Live state: a kubectl get -o yaml snapshot (kind: List "
                                   "included), a directory, or - for stdin. Repeatable."),
    from_cluster: bool = typer.Option(False, "--from-cluster", help="Read the live objects with your kubectl (kubectl get only)."),
    context: Optional[str] = typer.Option(None, "--context", help=CONTEXT_HELP),
    namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help=NAMESPACE_HELP),
    kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", metavar="FILE", help=KUBECONFIG_HELP),
    allow_empty: bool = typer.Option(False, "--allow-empty", help=ALLOW_EMPTY_HELP),
    prune: bool = typer.Option(False, "--prune", help="Also report live objects missing from the manifests (not owned ones)."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="EFFECT[,EFFECT]",
                                          help="Exit 1 only if some change has one of these effects: " + ", ".join(EFFECTS) + "."),
    output: DiffFormat = typer.Option(DiffFormat.table, "-o", "--output", help="Output format."),
    no_color: bool = typer.Option(False, "--no-color", help="No colour (also: NO_COLOR=1)."),
    color: ColorMode = typer.Option(ColorMode.auto, "--color", help=COLOR_HELP),
    kubectl_timeout: float = typer.Option("60", "--kubectl-timeout", metavar="SECONDS|DURATION", parser=parse_timeout, help=TIMEOUT_HELP),
    kuberay_version: Optional[str] = typer.Option(None, "--kuberay-version", help="KubeRay operator version to model (RayService)."),
    server_side: bool = typer.Option(False, "--server-side", help="Diff as server-side apply (Argo CD, Flux): removals and "
                                     "conflicts from managedFields of --field-manager, not the last-applied annotation."),
    field_manager: str = typer.Option("kubectl", "--field-manager", help="Field manager of --server-side."),
    force_conflicts: bool = typer.Option(False, "--force-conflicts", help="With --server-side: the apply takes fields "
                                         "other managers own (no conflict is reported)."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    max_input_bytes: int = typer.Option(64 * 1024 * 1024, "--max-input-bytes", min=1, help="Refuse larger input files."),
    max_alias_nodes: int = typer.Option(100_000, "--max-alias-nodes", min=0, help="Refuse YAML whose aliases expand to more nodes."),
    feature_gate: List[str] = typer.Option([], "--feature-gate", metavar="NAME=BOOL", help=GATE_HELP),
    kuberay_env: List[str] = typer.Option([], "--kuberay-env", metavar="NAME=VALUE", help=KUBERAY_ENV_HELP),
    grove_config: List[str] = typer.Option([], "--grove-config", metavar="KEY=VALUE", help=GROVE_CONFIG_HELP),
) -> None:
    def body() -> int:
        from .app import InputProblem
        from .commands.diff import DiffOptions, diff
        from .load.config import describe_expired
        from .load.limits import Limits
        from .render import render_diff

        cfg = repo_config(config)
        fail_spec = fail_on if fail_on is not None else (",".join(cfg.fail_on) if cfg.fail_on else None)
        kuberay_ = kuberay_version or cfg.kuberay_version
        if not server_side and (field_manager != "kubectl" or force_conflicts):
            raise InputProblem(["--field-manager and --force-conflicts work with --server-side"])
        effects: set[str] = set()
        if fail_spec is not None:
            effects = {e.strip() for e in fail_spec.split(",") if e.strip()}
            unknown = sorted(effects - set(EFFECTS))
            if unknown or not effects:
                raise InputProblem([f"--fail-on {fail_spec!r}: unknown effect {', '.join(unknown) or '(none given)'}; "
                                    f"choose from {', '.join(EFFECTS)}"])
        if not paths:
            raise InputProblem(["rolloutctl diff: give the desired manifests (a file, a directory, or - for stdin)"])
        opts = DiffOptions(
            live=tuple(live), from_cluster=from_cluster, context=context, namespace=namespace or cfg.namespace,
            prune=prune, kubectl_timeout=kubectl_timeout, limits=Limits(max_input_bytes, max_alias_nodes),
            model_options=operator_options(kuberay_, feature_gate, kuberay_env, grove_config, cfg),
            server_side=server_side, field_manager=field_manager, force_conflicts=force_conflicts,
            ignores=tuple(i for i in cfg.active_ignores() if i.rule is None),
            kubeconfig=kubeconfig, allow_empty=allow_empty,
        )
        result = diff(paths, opts)
        for i in cfg.expired_ignores():
            err(f"{i.source}:{i.line}: warning: {describe_expired(i)}")
        emit(render_diff(result, output.value, use_color(no_color, color), table_width()))
        step_summary(lambda: render_diff(result, "markdown", False))
        if fail_spec is not None:
            hit = any(i.effect in effects for o in result.objects for i in o.impact)
            return EXIT_FINDINGS if hit else EXIT_OK
        # a change the API server or the operator refuses is a finding even when nothing differs
        return EXIT_FINDINGS if any(o.status != "unchanged" or any(i.effect == "rejected" for i in o.impact)
                                    for o in result.objects) else EXIT_OK

    run_guarded(body)


# ----------------------------------------------------------------------------- lint / rules


@app.command(
    "lint",
    help="Check manifests as the API server and the operators' webhooks would: schemas, admission rules, "
    "proposed-design rules and known operator hazards, with file and line.\n\n"
    + examples(
        "rolloutctl lint manifests/",
        "rolloutctl lint pcs.yaml --live live-pcs.yaml   # also the update (immutable-field) rules",
        "rolloutctl lint -o sarif manifests/ > rolloutctl.sarif",
        "rolloutctl lint manifests/ --report sarif=rolloutctl.sarif --report junit=rolloutctl.xml",
        "rolloutctl lint manifests/ -o json > baseline.json",
        "rolloutctl lint manifests/ --baseline baseline.json",
        "helm template ./chart | rolloutctl lint -   # findings point at the chart's templates",
        "rolloutctl lint svc.yaml --feature-gate RayClusterNetworkPolicy=true   # check networkPolicy, not refuse it",
        "rolloutctl lint pcs.yaml --grove-config autoMNNVLEnabled=true   # accept grove.io/mnnvl-group names",
    )
    + "Silence one finding on an object with the annotation rolloutctl.dev/ignore: \"ID: reason\", or for the "
    "repository with ignore: entries in .rolloutctl.yaml (docs/ci.md). With GITHUB_ACTIONS=true and no -o, the "
    "output is GitHub workflow annotations and the Markdown report is appended to $GITHUB_STEP_SUMMARY.\n\n"
    "Exit codes: 0 no errors (warnings allowed), 1 at least one error, 2 unreadable input, no input at all "
    "(an empty directory or standard input; --allow-empty), a bad configuration or bad usage, 3 tool failure.",
)
def lint_command(
    paths: List[str] = typer.Argument(None, metavar="[PATH]...", help="Manifests: files, directories, or - for stdin."),
    live: List[str] = typer.Option([], "--live", "--observed", metavar="PATH", help="The live objects (kubectl get -o yaml); adds the update "
                                   "rules. Repeatable."),
    strict: bool = typer.Option(False, "--strict", help="Report objects of kinds rolloutctl does not check (IN002)."),
    output: Optional[LintFormat] = typer.Option(None, "-o", "--output", help="Output format (default text; github under GitHub Actions)."),
    report: List[str] = typer.Option([], "--report", metavar="FORMAT=FILE",
                                     help="Also write the report in FORMAT (text, json, sarif, github, junit, markdown) "
                                     "to FILE; repeatable; FILE - is standard output (once)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="FILE",
                                           help="A report written by lint -o json: its findings are not shown and do "
                                           "not fail the run; only new ones do."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    allow_empty: bool = typer.Option(False, "--allow-empty", help="Reading no input at all is not an error."),
    no_color: bool = typer.Option(False, "--no-color", help="No colour (also: NO_COLOR=1)."),
    color: ColorMode = typer.Option(ColorMode.auto, "--color", help=COLOR_HELP),
    max_input_bytes: int = typer.Option(64 * 1024 * 1024, "--max-input-bytes", min=1, help="Refuse larger input files."),
    max_alias_nodes: int = typer.Option(100_000, "--max-alias-nodes", min=0, help="Refuse YAML whose aliases expand to more nodes."),
    namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help="Namespace of objects that name none (default: default)."),
    feature_gate: List[str] = typer.Option([], "--feature-gate", metavar="NAME=BOOL", help=GATE_HELP),
    kuberay_env: List[str] = typer.Option([], "--kuberay-env", metavar="NAME=VALUE", help=KUBERAY_ENV_HELP),
    grove_config: List[str] = typer.Option([], "--grove-config", metavar="KEY=VALUE", help=GROVE_CONFIG_HELP),
) -> None:
    def body() -> int:
        from .commands.lint import LintOptions, lint
        from .load.limits import Limits

        from .render.progress import Progress, heartbeat_wanted, wanted

        reports = report_specs(report, output is not None)
        cfg = repo_config(config)
        model_options = operator_options(None, feature_gate, kuberay_env, grove_config, cfg)
        to_stdout = next((f for f, d in reports if d == "-"), None)
        github = os.environ.get("GITHUB_ACTIONS") == "true"
        fmt = output.value if output else (to_stdout or ("github" if github else "text"))
        typing_stdin = reads_typed_stdin("lint", paths, "lint it")
        with Progress("linting", wanted(fmt) and not typing_stdin, color=use_color(no_color, color),
                      heartbeat=heartbeat_wanted()):
            result = lint(paths or ["-"], LintOptions(
                live=tuple(live), strict=strict, limits=Limits(max_input_bytes, max_alias_nodes), config=cfg,
                baseline=baseline, allow_empty=allow_empty, namespace=namespace, model_options=model_options))
        write_reports([(d, _render_lint(result, f, False)) for f, d in reports if d != "-"])
        step_summary(lambda: _render_lint(result, "markdown", False))
        emit(_render_lint(result, fmt, use_color(no_color, color) and fmt == "text"))
        if fmt != "text" or any(d != "-" for _f, d in reports):
            # an input error is also one line on standard error (CONTRACT.md), so a CI log shows it when the
            # report is a file or a machine format
            for f in result.report.findings:
                if f.rule == "IN001":
                    err(f"{f.file}:{f.line}: {f.message}")
        return result.exit_code

    run_guarded(body)


def _render_lint(result, fmt: str, color: bool) -> str:  # type: ignore[no-untyped-def]
    from . import __version__
    from .render import render_lint

    def rule_docs():  # type: ignore[no-untyped-def]
        from .lint.registry import rule_docs as docs

        return docs()

    return render_lint(result.report, fmt, color, objects=list(result.objects), rule_docs=rule_docs,
                       version=__version__)


class RulesFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


@app.command(
    "rules",
    help="List the lint rules, or explain one (its upstream source, a bad and a good example, the remedy).\n\n"
    + examples(
        "rolloutctl rules",
        "rolloutctl rules GV005",
    ).rstrip(),
)
def rules_command(
    rule_id: Optional[str] = typer.Argument(None, metavar="[RULE_ID]", help="Explain this rule."),
    output: RulesFormat = typer.Option(RulesFormat.text, "-o", "--output", help="Output format."),
) -> None:
    def body() -> int:
        import json

        from .app import InputProblem
        from .lint import docs, registry

        if rule_id:
            try:
                rule = registry.get_rule(rule_id)
            except registry.UnknownRule as exc:
                raise InputProblem([str(exc)]) from None
            rules = [rule]
        else:
            rules = list(registry.all_rules())
        if output is RulesFormat.json:
            emit(json.dumps([{"id": r.id, "name": r.name, "severity": r.severity, "scope": r.scope,
                              "operator": r.operator, "summary": r.summary, "description": r.description,
                              "upstream": r.upstream, "bad": r.bad, "good": r.good, "remediation": r.remediation}
                             for r in rules], indent=2) + "\n")
        elif output is RulesFormat.markdown:
            emit(docs.render_rules_markdown(rules))
        elif rule_id:
            emit(docs.render_rule_text(rules[0]))
        else:
            emit(docs.render_rules_list(rules))
        return EXIT_OK

    run_guarded(body)


# ----------------------------------------------------------------------------- schema

SCHEMA_NAMES = ("plan", "comparison", "diff", "lint", "advice", "rayservice", "podcliqueset")


@app.command("schema", help="Print a bundled JSON Schema: " + ", ".join(SCHEMA_NAMES) + ".\n\n"
             + examples("rolloutctl schema plan > plan.schema.json").rstrip())
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


# ----------------------------------------------------------------------------- completion

#: the environment variable a completion script sets when it asks for completions
COMPLETE_VAR = "_ROLLOUTCTL_COMPLETE"


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


@app.command(
    "completion",
    help="Print the shell completion script for bash, zsh or fish.\n\n"
    + examples(
        "eval \"$(rolloutctl completion bash)\"   # in ~/.bashrc",
        "rolloutctl completion zsh > \"${fpath[1]}/_rolloutctl\"",
        "rolloutctl completion fish > ~/.config/fish/completions/rolloutctl.fish",
    ).rstrip(),
)
def completion_command(shell: Shell = typer.Argument(..., metavar="SHELL", help="bash, zsh or fish.")) -> None:
    from typer._completion_shared import get_completion_script

    script = get_completion_script(prog_name="rolloutctl", complete_var=COMPLETE_VAR, shell=shell.value)
    try:  # not run_guarded: it imports the loaders, and this must stay as cheap as --help
        emit(script if script.endswith("\n") else script + "\n")
    except OutputFailed as exc:
        err(f"rolloutctl: {exc}")
        stdout_gone()
        raise typer.Exit(EXIT_TOOL)
    except BrokenPipeError:
        stdout_gone()
        raise typer.Exit(EXIT_TOOL)


def _completing() -> None:
    """A completion script is asking (``_ROLLOUTCTL_COMPLETE=complete_bash …``): register
    typer's shell classes. Only then: start-up stays as cheap as ``--help``."""
    if os.environ.get(COMPLETE_VAR):
        from typer._completion_classes import completion_init

        completion_init()


def _app_for(argv: List[str]) -> typer.Typer:
    """The app to run for these arguments. typer turns every registered command into a
    click command on each run, inspecting each function's signature and options (about
    20 ms of start-up, most of it for commands the run never uses). ``rolloutctl NAME ...``
    with NAME one of the commands gets an app holding only that command (with the root
    options); anything else (``--help``, ``--version``, a mistyped command, shell
    completion) gets the whole app, so listings and "No such command" suggestions stay as
    they are."""
    if not argv or os.environ.get(COMPLETE_VAR):
        return app
    chosen = [c for c in app.registered_commands if c.name == argv[0]]
    if len(chosen) != 1:
        return app
    one = copy.copy(app)
    one.registered_commands = chosen
    return one


def run(**kw: str) -> None:
    """The command line of this process (``sys.argv``), in this process: ends with
    ``SystemExit`` carrying the exit code, as any click program does. ``main`` is the
    same, then leaves the process."""
    _completing()
    try:
        _app_for(sys.argv[1:])(complete_var=COMPLETE_VAR, **kw)
    except BrokenPipeError:  # ``rolloutctl --help | head``
        stdout_gone()
        sys.exit(EXIT_TOOL)
    except UnicodeEncodeError:  # help or usage text to a stdout that is not UTF-8
        err("rolloutctl: standard output cannot hold this text: use a UTF-8 locale (LC_ALL=C.UTF-8)")
        stdout_gone()
        sys.exit(EXIT_TOOL)
    except OSError as exc:  # help or usage text to a full disk (/dev/full)
        err(f"rolloutctl: cannot write to standard output: {exc.strerror or exc}")
        stdout_gone()
        sys.exit(EXIT_TOOL)


def _main(**kw: str) -> None:
    """The process entry points: run the command line, then leave (``cli_common.exit_now``)."""
    try:
        run(**kw)
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


def main() -> None:
    _main()


def kubectl_plugin_main() -> None:
    """``kubectl-rolloutctl``: the same commands as a kubectl plugin (``kubectl rolloutctl plan …``);
    kubectl finds any executable named ``kubectl-*`` on PATH and passes the arguments through."""
    _main(prog_name="kubectl rolloutctl")


if __name__ == "__main__":  # pragma: no cover
    main()
