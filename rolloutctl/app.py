"""Use cases as plain functions returning core data. No printing, no exit codes:
problems are raised as ``InputProblem`` (exit 2) or ``ToolFailure`` (exit 3) and
turned into messages by the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .core.environment import Environment
from .core.generated_names import always_new_message, generate_name, is_generated, with_generated_name
from .core.model import Impact, Obj, Plan, Warning
from .core.quantity import QuantityError, parse_quantities, parse_quantity
from .kinds import compare_note, is_modelled, model_for
from .load.errors import InputError
from .load.files import Loaded, load_paths
from .load.limits import Limits


class InputProblem(Exception):
    """Bad usage or unreadable/invalid input: exit code 2."""

    def __init__(self, errors: Sequence[InputError | str]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = list(errors)


class ToolFailure(Exception):
    """The tool could not do its job for another reason (kubectl, internal): exit 3."""


@dataclass(frozen=True)
class PlanOptions:
    observed: tuple[str, ...] = ()
    capacity: tuple[str, ...] = ()
    never_ready: tuple[str, ...] = ()
    max_steps: int | None = None  # --max-steps: an explicit cap; None: none
    limits: Limits = field(default_factory=Limits)
    model_options: Mapping[str, Any] = field(default_factory=dict)
    #: the shell's progress line: called with (target, steps so far) while planning
    progress: Any = field(default=None, compare=False)
    #: namespace of desired objects that name none (the repository configuration's; else default)
    namespace: str | None = None
    #: ``--from-cluster``: the observed objects are read with kubectl (``load.kubectl.read_live``)
    from_cluster: bool = False
    context: str | None = None
    kubeconfig: str | None = None
    kubectl_timeout: float = 60.0
    #: ``--allow-empty``: empty standard input for ``--observed -`` means "nothing there"
    allow_empty: bool = False


#: ``--capacity from-cluster``: read allocatable node resources and the namespace's quota
CAPACITY_FROM_CLUSTER = "from-cluster"


def parse_capacity(items: Iterable[str]) -> dict[str, int]:
    """``RESOURCE=QTY`` pairs (``nvidia.com/gpu=16``, ``memory=800Mi``) in milli-units."""
    out: dict[str, int] = {}
    errors = []
    for item in items:
        if item == CAPACITY_FROM_CLUSTER:
            continue
        res, sep, qty = item.partition("=")
        if not sep or not res.strip() or not qty.strip():
            errors.append(f"--capacity {item!r}: expected RESOURCE=QUANTITY, e.g. nvidia.com/gpu=16")
            continue
        try:
            out[res.strip()] = parse_quantity(qty.strip())
        except QuantityError as exc:
            errors.append(f"--capacity {item!r}: {exc}")
    if errors:
        raise InputProblem(errors)
    return out


def check_model_options(model_options: Mapping[str, Any]) -> None:
    """Every kind's check of the model options (``KIND.check_options``: e.g. the KubeRay
    model's ``--kuberay-version``); an unknown name or a bad value is an input error."""
    from .core.kind import OptionError
    from .kinds import check_options

    try:
        check_options(model_options)
    except OptionError as exc:
        raise InputProblem([str(exc)]) from None


def environment(opts: PlanOptions, from_cluster: Mapping[str, int] | None = None) -> Environment:
    """The world assumptions; ``from_cluster`` (``--capacity from-cluster``) is the capacity
    read from the cluster, which explicit ``--capacity RESOURCE=QTY`` values override."""
    if opts.max_steps is not None and opts.max_steps < 1:
        raise InputProblem(["--max-steps must be at least 1"])
    return Environment(capacity={**(from_cluster or {}), **parse_capacity(opts.capacity)},
                       never_ready=tuple(opts.never_ready), max_steps=opts.max_steps)


def load(paths: Sequence[str], limits: Limits, *, what: str = "") -> Loaded:
    loaded = load_paths(paths, limits)
    if loaded.errors:
        raise InputProblem(loaded.errors)
    return loaded


def load_all(*groups: Sequence[str], limits: Limits) -> list[Loaded]:
    """Load several groups of paths (desired, observed, ...) and report the problems
    of all of them at once, one line each, before any of them is used."""
    loaded = [load_paths(g, limits) if g else Loaded() for g in groups]
    errors = [e for l in loaded for e in l.errors]
    if errors:
        raise InputProblem(errors)
    return loaded


def check_scale(objs: Iterable[Obj], limits: Limits) -> None:
    """Refuse a plan whose pods would exceed ``--max-pods`` before modelling it: the
    models create every pod, so ``replicas: 1000000000`` would otherwise run for
    hours and exhaust memory instead of answering (``KIND.pod_budget``)."""
    from .kinds import pod_budget

    errors = []
    for o in objs:
        pods = pod_budget(o)
        if pods is not None and pods > limits.max_pods:
            errors.append(InputError(o.file, o.line_of("spec", "replicas"),
                                     f"{o.kind} {o.namespace}/{o.name} asks for {pods} pods; rolloutctl plans at "
                                     f"most {limits.max_pods} (raise --max-pods if this is intended)"))
    if errors:
        raise InputProblem(errors)


def targets(objs: Sequence[Obj], source: str | Sequence[str]) -> list[Obj]:
    found = sorted((o for o in objs if is_modelled(o)), key=lambda o: (o.kind, o.namespace, o.name))
    if not found:
        names = [source] if isinstance(source, str) else list(source) or ["-"]
        from .kinds import modelled_kinds

        wanted = " or ".join(f"{d.kind} ({d.api_version})" for d in sorted(modelled_kinds(), key=lambda d: d.kind,
                                                                            reverse=True))
        raise InputProblem([InputError("<stdin>" if n == "-" else n, 1, f"no {wanted} found") for n in names])
    return found


@dataclass(frozen=True)
class Admitted:
    """Desired and observed objects as the API server stores them (``admit/``), and
    the warnings admission gave per desired object (``id`` of the admitted object)."""

    desired: list[Obj]
    observed: list[Obj]
    warnings: Mapping[int, tuple[Warning, ...]] = field(default_factory=dict)


def _problem_line(f: Any, why: str) -> InputError:
    return InputError(f.file, f.line, f"{f.rule}: {f.path + ': ' if f.path else ''}{f.message}"
                                      + (f" ({why})" if why else ""))


#: why an admission error stops a plan: the API server refuses the object -- except two
#: copies of one object, which it would take one after the other (the input is ambiguous)
_REFUSED = "the API server would reject this manifest"
_REFUSED_PODS = "the API server would reject the pods the operator creates from this manifest"


def _live_problem_line(f: Any) -> InputError:
    return InputError(f.file, f.line, f"{f.rule}: {f.path + ': ' if f.path else ''}{f.message}")


def admit_inputs(desired: Sequence[Obj], observed: Sequence[Obj] = (), *, namespace: str | None = None) -> Admitted:
    """Every object through admission (``admit.admit``: served versions, null pruning,
    CRD and webhook defaults, namespace, schema, CEL and ObjectMeta validation, canonical
    quantities) before any model sees it, so the models only ever read well-typed,
    stored-form input. What the API server refuses in the desired input (or a wrong
    type in an observed object, which a model would misread) stops here as
    ``PATH:LINE: RULE: field: message`` (exit 2); then Kubernetes' checks on the
    container resources of the pod templates (SC006, the rule ``lint`` uses).
    Objects named by the API server (``generateName``) are never duplicates."""
    from .admit import DESIRED, DUPLICATE_OBJECT, OBSERVED, admit
    from .kinds import descriptor, read_schema
    from .lint.pods import check_pod_resources

    have = admit(observed, descriptor, side=OBSERVED, namespace=namespace, read_schemas=read_schema)
    want = admit(desired, descriptor, side=DESIRED, namespace=namespace, stored=have.objects,
                 distinct=is_generated)
    errors = [_problem_line(f, "" if f.rule == DUPLICATE_OBJECT else _REFUSED) for f in want.errors]
    errors += [_live_problem_line(f) for f in have.errors]
    if not errors:
        for o in want.objects:
            if is_modelled(o):
                errors += [_problem_line(f, _REFUSED_PODS) for f in check_pod_resources(o) if f.severity == "error"]
    if errors:
        raise InputProblem(sorted(set(errors), key=lambda e: (e.file, e.line, e.message)))
    warnings: dict[int, tuple[Warning, ...]] = {}
    for o in want.objects:
        found = tuple(Warning(f.rule, f.message, f.path) for f in want.findings_for(o) if f.severity == "warning")
        if found:
            warnings[id(o)] = found
    return Admitted(want.objects, have.objects, warnings)


def reject_invalid(model: Any, obj: Obj, old: Obj | None) -> None:
    """A plan of a manifest the operator's webhook would reject is meaningless:
    stop with the rule that rejects it. Rules only a controller enforces (the model's
    ``rejected_at_admission`` says so) are planned instead: the plan shows the reaction."""
    at_admission = getattr(model, "rejected_at_admission", None)
    findings = [f for f in model.validate(obj, old)
                if f.severity == "error" and (at_admission is None or at_admission(f))]
    if findings:
        raise InputProblem([InputError(f.file or obj.file, f.line or obj.line,
                                       f"{f.rule}: {f.path + ': ' if f.path else ''}{f.message} "
                                       "(the operator would reject this manifest)") for f in findings])


def model_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """The model options given (``--kuberay-version``, ``--feature-gate``, ... as
    ``kuberay_version``, ``feature_gates``, ...), empty ones left out, checked by every
    kind (``check_model_options``)."""
    options = {k: (tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in given.items() if v}
    if options:
        check_model_options(options)
    return options


@dataclass
class Inputs:
    """What ``plan``/``next``/``plan --compare`` model: desired and observed objects, and,
    with ``--from-cluster``, the warnings of the reads (per target) and the capacity read."""

    desired: list[Obj]
    observed: list[Obj]
    warnings: dict[tuple, tuple[Warning, ...]] = field(default_factory=dict)
    capacity: dict[tuple, dict[str, int]] = field(default_factory=dict)

    def __iter__(self):  # desired, observed = checked_inputs(...)
        return iter((self.desired, self.observed))


def checked_inputs(paths: Sequence[str], opts: PlanOptions, *, kubectl_run: Any = None) -> Inputs:
    """Desired and observed objects for ``plan``/``next``/``plan --compare``, after
    every input check that must pass before a model sees them: readable files,
    admission (no duplicates, what the API server stores), a modellable size."""
    check_stdin_once(paths, opts.observed)
    loaded_desired, loaded_observed = load_all(paths, opts.observed, limits=opts.limits)
    if not opts.allow_empty:
        check_not_empty_stdin(opts.observed, loaded_observed, "--observed")
    desired, observed = loaded_desired.objects, loaded_observed.objects
    if opts.namespace:
        desired = [_with_namespace(o, opts.namespace) for o in desired]
    desired = [with_generated_name(o) for o in desired]  # named by the API server on create
    inputs = Inputs(desired, observed)
    if opts.from_cluster or CAPACITY_FROM_CLUSTER in opts.capacity:
        _read_cluster(inputs, paths, opts, kubectl_run)
    admitted = admit_inputs(inputs.desired, inputs.observed, namespace=opts.namespace)
    inputs.desired, inputs.observed = admitted.desired, admitted.observed
    for o in inputs.desired:
        if id(o) in admitted.warnings:
            key = _match_key(o)
            inputs.warnings[key] = inputs.warnings.get(key, ()) + admitted.warnings[id(o)]
    check_scale([*inputs.desired, *inputs.observed], opts.limits)
    return inputs


def check_stdin_once(*groups: Sequence[str]) -> None:
    """Standard input can be read once: ``-`` named twice (``plan - --observed -``) is a
    usage error, not a second, empty read that looks like an empty cluster."""
    if sum(list(g).count("-") for g in groups) > 1:
        raise InputProblem(["standard input (-) can be read only once: give the other input as a file"])


def check_not_empty_stdin(paths: Sequence[str], loaded: Loaded, flag: str) -> None:
    """``--observed -`` / ``--live -`` that received nothing is a failed pipe
    (``kubectl get … | rolloutctl …`` where kubectl failed), not an empty cluster."""
    if "-" in paths and loaded.empty_stdin:
        raise InputProblem([InputError("<stdin>", 0, f"{flag} -: standard input is empty (did the command before "
                                       "the pipe fail? use set -o pipefail); pass --allow-empty if the cluster "
                                       "really has none of these objects")])


def _read_cluster(inputs: Inputs, paths: Sequence[str], opts: PlanOptions, run: Any) -> None:
    """``--from-cluster``: per target, one ``kubectl get`` per kind its model reads
    (``kinds.live_reads``); ``--capacity from-cluster``: the nodes and quotas."""
    from .kinds import live_reads
    from .load.kubectl import KubectlError, read_live

    found = [o for o in targets(inputs.desired, paths) if not is_generated(o)]  # generateName: always new
    check_names_for_kubectl(found)
    kw = dict(context=opts.context, kubeconfig=opts.kubeconfig, timeout=opts.kubectl_timeout, limits=opts.limits,
              run=run)
    try:
        for obj in found:
            key = _match_key(obj)
            if opts.from_cluster:
                state = read_live(live_reads(obj, opts.model_options), obj.namespace, **kw)
                inputs.observed.extend(state.objects)
                inputs.warnings[key] = tuple(state.warnings)
            if CAPACITY_FROM_CLUSTER in opts.capacity:
                inputs.capacity[key] = _cluster_capacity(obj, inputs.observed, opts.model_options, kw)
    except KubectlError as exc:
        raise ToolFailure(str(exc)) from None


def _cluster_capacity(obj: Obj, observed: Sequence[Obj], options: Mapping[str, Any],
                      kw: Mapping[str, Any]) -> dict[str, int]:
    """``--capacity from-cluster``: the allocatable resources of the schedulable nodes,
    capped by the namespace's ResourceQuotas (hard minus what other pods use: the quota's
    ``used`` less this workload's own pods) and by what the integration the model options
    select reads (``kinds.capacity_reads``: with ``--kueue``, the nominal quota of the
    ClusterQueues). Other workloads' pods on the nodes are not subtracted: it is the
    most the workload could get."""
    from .core.environment import add, pod_requests
    from .core.kind import LiveRead
    from .kinds import capacity_limits, capacity_reads
    from .load.kubectl import read_live

    reads = [LiveRead("v1", "Node", "nodes", namespaced=False),
             LiveRead("v1", "ResourceQuota", "resourcequotas")]
    reads += capacity_reads(obj, options)
    state = read_live(reads, obj.namespace, **kw)
    cap: dict[str, int] = {}
    for node in state.objects:
        if node.kind != "Node" or node.spec.get("unschedulable") is True:
            continue
        conds = node.status.get("conditions") if isinstance(node.status.get("conditions"), list) else []
        if any(isinstance(c, Mapping) and c.get("type") == "Ready" and c.get("status") != "True" for c in conds):
            continue
        add(cap, parse_quantities(node.status.get("allocatable")))
    own: dict[str, int] = {}
    for pod in observed:
        if pod.kind == "Pod" and pod.namespace == obj.namespace and pod.status.get("phase") not in ("Succeeded", "Failed"):
            add(own, pod_requests(pod.spec))

    def cap_at(res: str, limit: int) -> None:
        cap[res] = min(cap[res], limit) if res in cap else limit

    for q in state.objects:
        if q.kind != "ResourceQuota":
            continue
        hard = parse_quantities(q.status.get("hard") or q.spec.get("hard"))
        used = parse_quantities(q.status.get("used"))
        for key, limit in hard.items():
            res = key[len("requests."):] if key.startswith("requests.") else key
            if res in ("pods", "count") or "/" in key and key.split("/")[0] in ("count",) or key.startswith("limits."):
                continue
            cap_at(res, max(0, limit - used.get(key, 0) + own.get(res, 0)))
    for limits in capacity_limits(obj, options, state.objects):
        for res, limit in limits.items():
            cap_at(res, limit)
    return cap




def plan(paths: Sequence[str], opts: PlanOptions, *, kubectl_run: Any = None) -> list[Plan]:
    """``rolloutctl plan``: one Plan per RayService or PodCliqueSet in ``paths``."""
    from .core.simulate import simulate

    environment(opts)  # usage errors first
    inputs = checked_inputs(paths, opts, kubectl_run=kubectl_run)
    desired, observed = inputs
    plans = []
    for obj in targets(desired, paths):
        env = environment(opts, inputs.capacity.get(_match_key(obj)))
        model = _plan_model(obj, opts, desired, observed)
        old = _previous(obj, observed)
        reject_invalid(model, obj, old)
        world = model.observe(obj, _related(obj, observed), env)
        on_step = (lambda n, ref=obj.ref: opts.progress(ref, n)) if opts.progress is not None else None
        plans.append(simulate(model, obj, world, env, extra_warnings=_input_warnings(obj, observed)
                              + inputs.warnings.get(_match_key(obj), ()), on_step=on_step))
    return plans


def _generated_warning(obj: Obj) -> tuple[Warning, ...]:
    if not is_generated(obj):
        return ()
    return (Warning("GenerateName", always_new_message(obj, str(obj.metadata.get("generateName"))),
                    "metadata.generateName"),)


def _plan_model(obj: Obj, opts: PlanOptions, desired: Sequence[Obj], observed: Sequence[Obj]) -> Any:
    """The model of ``obj`` under the model options (``kinds.model_for``: an integration's
    when an option selects one, e.g. ``--kueue MODEL``, with the desired and observed input)."""
    return model_for(obj, opts.model_options, desired, observed)


def next_step(paths: Sequence[str], opts: PlanOptions, *, kubectl_run: Any = None) -> list[Plan]:
    """``rolloutctl next``: the immediate reconcile pass of each plan (even when it
    only waits or requeues); outcome, stuck and summary describe the whole plan."""
    from .core.simulate import first_step

    return [first_step(p) for p in plan(paths, opts, kubectl_run=kubectl_run)]


def _previous(obj: Obj, observed: Sequence[Obj]) -> Obj | None:
    if is_generated(obj):
        return None  # a new object on every create
    for o in observed:
        if o.kind == obj.kind and o.name == obj.name and o.namespace == obj.namespace:
            return o
    return None


def _related(obj: Obj, observed: Sequence[Obj]) -> list[Obj]:
    """Observed objects that may belong to ``obj``: the same top-level object and
    every child kind in its namespace (the model filters by owner labels)."""
    if is_generated(obj):
        return []  # a new object on every create: nothing live is its own
    return [o for o in observed if o.namespace == obj.namespace and
            (not is_modelled(o) or (o.kind == obj.kind and o.name == obj.name))]


def _input_warnings(obj: Obj, observed: Sequence[Obj]) -> tuple[Warning, ...]:
    return _generated_warning(obj)


# ----------------------------------------------------------------------------- diff (issue 6)


@dataclass(frozen=True)
class DiffOptions:
    live: tuple[str, ...] = ()
    from_cluster: bool = False
    context: str | None = None
    namespace: str | None = None
    prune: bool = False
    kubectl_timeout: float = 60.0
    limits: Limits = field(default_factory=Limits)
    model_options: Mapping[str, Any] = field(default_factory=dict)
    #: server-side apply: removals and conflicts from managedFields of ``field_manager``
    server_side: bool = False
    field_manager: str = "kubectl"
    force_conflicts: bool = False
    #: the repository configuration's ``ignore:`` entries in force (those without ``rule``)
    ignores: tuple[Any, ...] = ()
    kubeconfig: str | None = None
    #: ``--allow-empty``: empty standard input for ``--live -`` means "nothing there"
    allow_empty: bool = False


def diff(paths: Sequence[str], opts: DiffOptions, *, kubectl_run: Any = None) -> Any:
    """``rolloutctl diff``: desired manifests against the live state, with what each
    change will cause (``core.model.Diff``). Objects are matched by (api group, kind,
    namespace, name); kinds the tool does not model are skipped (CONTRACT.md)."""
    from .core.model import Diff, ObjectDiff

    if opts.from_cluster and opts.live:
        raise InputProblem(["rolloutctl diff: give either --live PATH or --from-cluster, not both"])
    if not opts.from_cluster and not opts.live:
        raise InputProblem(["rolloutctl diff: say where the live state comes from: --live PATH "
                            "(e.g. kubectl get rayservice my-svc -o yaml | rolloutctl diff svc.yaml --live -) "
                            "or --from-cluster"])
    if list(opts.live).count("-") + list(paths).count("-") > 1:
        raise InputProblem(["rolloutctl diff: standard input (-) can be read only once: give the desired "
                            "manifests or the live state as a file"])
    from .admit import DESIRED, DUPLICATE_OBJECT, admit
    from .kinds import descriptor

    loaded_desired = [with_generated_name(o) for o in load(paths, opts.limits).objects]

    def admitted(stored: Sequence[Obj] = ()) -> tuple[list[Obj], dict[int, list[Any]]]:
        found = admit(loaded_desired, descriptor, side=DESIRED, namespace=opts.namespace, stored=stored,
                      distinct=is_generated)
        dups = [f for f in found.errors if f.rule == DUPLICATE_OBJECT]
        if dups:
            raise InputProblem([InputError(f.file, f.line, f"{f.rule}: {f.message}") for f in dups])
        # what the API server refuses is diff's to report (a `rejected` change, exit 1), not an input error
        return found.objects, {id(o): [f for f in fs if f.severity == "error"] for o, fs in zip(found.objects,
                                                                                                 found.found)}

    objs, refused = admitted()
    desired = targets(objs, paths)
    fresh = [o for o in desired if is_generated(o)]
    desired = [o for o in desired if not is_generated(o)]
    if opts.from_cluster:
        check_names_for_kubectl(desired)
        live_raw = _live_from_cluster(desired, opts, kubectl_run)
    else:
        loaded_live = load(opts.live, opts.limits)
        if not opts.allow_empty:
            check_not_empty_stdin(opts.live, loaded_live, "--live")
        live_raw = [o for o in loaded_live.objects if is_modelled(o)]
    live = admit_inputs((), live_raw, namespace=opts.namespace).observed
    _check_live_duplicates(live)
    if live:  # the CRDs' update (transition) rules need the stored object
        objs, refused = admitted(live)
        desired = [o for o in targets(objs, paths) if not is_generated(o)]
    by_key = {_match_key(o): o for o in live}
    results: list[ObjectDiff] = []
    seen: set[tuple] = set()
    ignored = 0
    for named in fresh:
        # named by the API server on create: never the same object as a live one
        prefix = str(named.metadata.get("generateName"))
        errors = refused.get(id(named)) or _pod_refusals(named)
        impact = _refused(errors) if errors else _added_impact(named, _model_for(named, opts.model_options))
        if not any(i.effect == "rejected" for i in impact):
            impact = (Impact("scale", always_new_message(named, prefix), ("metadata.generateName",)),)
        results.append(ObjectDiff(named.ref, "added", (), impact))
    for obj in desired:
        key = _match_key(obj)
        seen.add(key)
        model = _model_for(obj, opts.model_options)
        old = by_key.get(key)
        errors = refused.get(id(obj)) or _pod_refusals(obj)
        if old is None:
            results.append(ObjectDiff(obj.ref, "added", (), _refused(errors) if errors else _added_impact(obj, model)))
            continue
        hooks = diff_hooks(obj, model)
        conflicts: list[tuple[str, list[str]]] = []
        changes = _diff_objects(obj, old, hooks, opts, conflicts)
        kept = tuple(c for c in changes if not _ignored_change(obj, c, opts.ignores))
        ignored += len(changes) - len(kept)
        changes = kept
        impact: tuple = ()
        if errors:
            results.append(ObjectDiff(obj.ref, "changed" if changes else "unchanged", changes, _refused(errors)))
            continue
        if changes and model is not None:
            # the kind judges the same defaulted objects the diff compared
            impact = tuple(model.classify(changes, _defaulted(obj, hooks), _defaulted(old, hooks)))
        if conflicts and not opts.force_conflicts:
            kept_paths = {c.path for c in changes}
            impact += tuple(Impact("rejected", f"server-side apply conflict: {path} is managed by "
                                   f"{', '.join(owners)}; the apply fails unless it forces conflicts "
                                   f"(--force-conflicts, which takes the field from them)", (path,))
                            for path, owners in conflicts if path in kept_paths)
        results.append(ObjectDiff(obj.ref, "changed" if changes else "unchanged", changes, impact))
    if opts.prune:
        for o in live:
            if _match_key(o) not in seen and not o.owner_references:
                results.append(ObjectDiff(o.ref, "removed", (), (_removed_impact(o),)))
    results.sort(key=lambda d: (d.target.kind, d.target.namespace, d.target.name))
    return Diff(tuple(results), ignored=ignored)


def _pod_refusals(obj: Obj) -> list[Any]:
    """SC006: the pods the operator would create from ``obj`` are refused (``lint.pods``)."""
    from .lint.pods import check_pod_resources

    return [f for f in check_pod_resources(obj) if f.severity == "error"]


def _refused(findings: Sequence[Any]) -> tuple:
    """Impacts of a desired object the API server refuses: the change is never stored."""
    return tuple(Impact("rejected", f"{f.rule}: {f.message} (the API server would reject this manifest)",
                        (f.path,) if f.path else ()) for f in sorted(set(findings), key=lambda f: f.sort_key()))


def _check_live_duplicates(live: Sequence[Obj]) -> None:
    """Two live copies of one object cannot both be the cluster's: which one to compare with is unknown."""
    from .admit import duplicates

    found = duplicates(live)
    if found:
        raise InputProblem([InputError(f.file, f.line, f"{f.rule}: {f.message}") for f in found])


def _ignored_change(obj: Obj, change: Any, ignores: Sequence[Any]) -> bool:
    """A change an ``ignore:`` entry without ``rule`` covers (kind/namespace/name/file/path globs)."""
    return any(i.matches(rule=None, kind=obj.kind, namespace=obj.namespace, name=obj.name, file=obj.file,
                         path=change.path) for i in ignores)


def _diff_objects(desired: Obj, live: Obj, hooks: Any, opts: DiffOptions | None = None,
                  conflicts: list | None = None) -> tuple:
    from .core.diff import diff_objects

    if opts is not None and opts.server_side:
        from .core.managed_fields import ownership

        return diff_objects(desired, live, hooks, ownership(live.raw, opts.field_manager), conflicts)
    return diff_objects(desired, live, hooks)


def _defaulted(obj: Obj, hooks: Any) -> Obj:
    return Obj(hooks.defaults(dict(obj.raw)), obj.file, obj.line, obj.lines)


def diff_hooks(obj: Obj, model: Any) -> Any:
    """What the kind adds to the generic diff: its defaulting (``model.defaults``) and
    which list orders matter (``model.order_matters``)."""
    from .core import diff as D

    return D.DiffHooks(defaults=model.defaults, order_matters=model.order_matters)


def _model_for(obj: Obj, options: Mapping[str, Any]) -> Any:
    return model_for(obj, options)


def _with_namespace(obj: Obj, namespace: str) -> Obj:
    """Objects without ``metadata.namespace`` go to ``-n`` (else ``default``), as
    ``kubectl apply`` would put them."""
    if obj.metadata.get("namespace"):
        return obj
    raw = dict(obj.raw)
    raw["metadata"] = {**obj.metadata, "namespace": namespace}
    return Obj(raw, obj.file, obj.line, obj.lines, obj.cols)


def _match_key(o: Obj) -> tuple[str, str, str, str]:
    return (o.api_version.split("/")[0], o.kind, o.namespace, o.name)


_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
_DNS_LABEL = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"


def check_names_for_kubectl(objs: Sequence[Obj]) -> None:
    """Names and namespaces that go on kubectl's command line must be Kubernetes
    names: no object of another shape can exist in a cluster, and a name such as
    ``--server=https://elsewhere`` would otherwise be read by kubectl as an option."""
    import re

    errors = []
    for o in objs:
        if not re.match(_DNS_SUBDOMAIN, o.name):
            errors.append(InputError(o.file, o.line_of("metadata", "name"),
                                     f"metadata.name: {o.name[:80]!r} is not a valid Kubernetes name "
                                     "(lower-case letters, digits, '-' and '.')"))
        if not re.match(_DNS_LABEL, o.namespace):
            errors.append(InputError(o.file, o.line_of("metadata", "namespace"),
                                     f"metadata.namespace: {o.namespace[:80]!r} is not a valid Kubernetes namespace "
                                     "(lower-case letters, digits and '-')"))
    if errors:
        raise InputProblem(errors)


def _live_from_cluster(desired: Sequence[Obj], opts: DiffOptions, run: Any) -> list[Obj]:
    from .load.kubectl import KubectlError, Target, fetch

    from .kinds import kind_of

    wanted = [Target(o.api_version.split("/")[0], o.kind, o.namespace, o.name,
                     getattr(kind_of(o), "resource", "")) for o in desired]
    try:
        objs = fetch(wanted, prune=opts.prune, context=opts.context, timeout=opts.kubectl_timeout,
                     limits=opts.limits, run=run, managed_fields=opts.server_side, kubeconfig=opts.kubeconfig)
    except KubectlError as exc:
        raise ToolFailure(str(exc)) from None
    return [o for o in objs if is_modelled(o)]


def _added_impact(obj: Obj, model: Any) -> tuple:
    """A new object: the webhook's create rules decide whether it is accepted at all
    (the kind's own ``validate``, the rules ``lint`` and ``plan`` use)."""
    from .core.model import Impact

    errors = [f for f in (model.validate(obj, None) if model is not None else []) if f.severity == "error"]
    if errors:
        return tuple(Impact("rejected", f"{f.rule}: {f.message}", (f.path,) if f.path else ()) for f in errors)
    return (Impact("scale", f"new {obj.kind}: the operator creates everything it owns; nothing existing is replaced",
                   ()),)


def _removed_impact(obj: Obj) -> Any:
    from .core.model import Impact

    return Impact("teardown", f"{obj.kind} is not in the manifests: kubectl apply --prune deletes it and Kubernetes "
                  "garbage-collects everything it owns", ())


# ----------------------------------------------------------------------------- lint (issue 7)


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class LintResult:
    report: Any  # core.model.LintReport
    #: every object read, as (file, ref), in input order (JUnit lists clean objects too)
    objects: tuple[tuple[str, Any], ...]
    exit_code: int


def lint(paths: Sequence[str], opts: LintOptions, stdin: Any = None) -> LintResult:
    """``rolloutctl lint``: schema and admission rules over every object in ``paths``.
    Unreadable input becomes ``IN001`` findings (and exit code 2), not an exception."""
    from .lint.engine import LintInput, exit_code
    from .lint.engine import lint as run_lint

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
                                namespace=opts.namespace or (cfg.namespace if cfg is not None else None)))
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

    from .lint.engine import baseline_key

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


# ----------------------------------------------------------------------------- plan --compare (issue 4)


@dataclass(frozen=True)
class Compared:
    """One target's Comparison and the strategy its manifest asks for."""

    comparison: Any
    own_strategy: str

    @property
    def own_row_stuck(self) -> bool:
        """Exit code 1 of ``plan --compare``: the manifest's own strategy gets stuck
        (other rows being stuck is information, not failure)."""
        return any(r.strategy == self.own_strategy and r.outcome == "stuck" for r in self.comparison.rows)


def compare(paths: Sequence[str], opts: PlanOptions) -> list[Compared]:
    """``rolloutctl plan --compare``: for each target, the same change planned under
    every update strategy its kind has, side by side (CONTRACT.md ``Comparison``).
    The manifest itself must be valid; the variants are derived from it."""
    environment(opts)
    inputs = checked_inputs(paths, opts)
    desired, observed = inputs
    out = []
    for obj in targets(desired, paths):
        env = environment(opts, inputs.capacity.get(_match_key(obj)))
        model = _plan_model(obj, opts, desired, observed)
        if not hasattr(model, "compare"):
            raise InputProblem([InputError(obj.file, obj.line, f"plan --compare: no alternative update strategies "
                                           f"are modelled for {obj.kind}"
                                           + compare_note(obj))])
        reject_invalid(model, obj, _previous(obj, observed))
        out.append(Compared(model.compare(obj, _related(obj, observed), env), model.own_strategy(obj)))
    return out


# ----------------------------------------------------------------------------- advise (issue 18)


@dataclass(frozen=True)
class AdviseOptions:
    plan: PlanOptions = field(default_factory=PlanOptions)
    min_ready: str | None = None
    objective: str = "steps"
    exhaustive: bool = False
    proposed: bool = True  # also the strategies proposed upstream but not implemented


def advise(paths: Sequence[str], opts: AdviseOptions, *, kubectl_run: Any = None) -> list[Any]:
    """``rolloutctl advise``: for each target, the strategy and budgets that roll the
    change out best under the constraints (``rolloutctl/advise``, CONTRACT.md ``Advice``).
    The observed state comes from ``--observed`` or ``--from-cluster``, as for ``plan``."""
    from .advise import OBJECTIVES, Search, parse_min_ready

    if opts.objective not in OBJECTIVES:
        raise InputProblem([f"--minimize {opts.objective!r}: choose one of {', '.join(OBJECTIVES)}"])
    if not opts.plan.observed and not opts.plan.from_cluster:
        raise InputProblem(["rolloutctl advise: say what runs now with --observed PATH (the live objects or the "
                            "previously applied manifest) or --from-cluster; advise compares ways to roll a change out"])
    environment(opts.plan)  # usage errors first
    inputs = checked_inputs(paths, opts.plan, kubectl_run=kubectl_run)
    desired, observed = inputs
    out = []
    for obj in targets(desired, paths):
        env = environment(opts.plan, inputs.capacity.get(_match_key(obj)))
        model = _plan_model(obj, opts.plan, desired, observed)
        if not hasattr(model, "advice_spaces"):
            raise InputProblem([InputError(obj.file, obj.line, f"rolloutctl advise: no strategies are modelled for "
                                           f"{obj.kind} with these options")])
        if opts.objective == "time" and not model.timed:
            raise InputProblem([InputError(obj.file, obj.line, f"--minimize time: the {obj.kind} model is untimed "
                                           "(its plans have no durations); use --minimize steps or peak")])
        old = _previous(obj, observed)
        reject_invalid(model, obj, old)
        try:
            floor = parse_min_ready(opts.min_ready, model.desired_pods(obj))
        except ValueError as exc:
            raise InputProblem([str(exc)]) from None
        search = Search(lambda o=obj: _plan_model(o, opts.plan, desired, observed), obj, _related(obj, observed),
                        old, env, floor, opts.objective, exhaustive=opts.exhaustive,
                        capacity_order=tuple(env.capacity), proposed=opts.proposed,
                        warnings=inputs.warnings.get(_match_key(obj), ()))
        out.append(search.run())
    return out
