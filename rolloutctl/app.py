"""What every use case shares: the options of a plan, reading the input, admission,
the input checks that must pass before a model sees an object, ``--from-cluster``
reads, and the model of each target. The use cases themselves are in
``rolloutctl/commands/`` (one module per command). No printing, no exit codes:
problems are raised as ``InputProblem`` (exit 2) or ``ToolFailure`` (exit 3) and
turned into messages by the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Iterable

from .core.applied import SERVER_METADATA, sends_nothing
from .core.environment import Environment
from .core.generated_names import always_new_message, is_generated, with_generated_name
from .core.model import Obj, Warning
from .core.quantity import QuantityError, parse_quantities, parse_quantity
from .core.records import field, record
from .kinds import admit_other, is_modelled, model_for, unselected_warnings
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


@record(frozen=True)
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
    given = parse_capacity(opts.capacity)
    return Environment(capacity={**(from_cluster or {}), **given}, stated=tuple(sorted(given)),
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
        from .kinds import modelled_kinds, other_group_of

        kinds = sorted(modelled_kinds(), key=lambda d: d.kind, reverse=True)
        wanted = " or ".join(f"{d.kind} ({', '.join(f'{d.group}/{v}' for v in d.served)})" for d in kinds)
        # a modelled kind under another API group (a fork's or an old group): say where, and which group is modelled
        near = [(o, d) for o in objs if (d := other_group_of(o)) is not None]
        if near:
            o, d = near[0]
            raise InputProblem([InputError(o.file, o.line, f"apiVersion: {o.api_version} {o.kind} is not modelled: "
                                           f"rolloutctl models {o.kind} of {', '.join(f'{d.group}/{v}' for v in d.served)}")])
        raise InputProblem([InputError("<stdin>" if n == "-" else n, 1, f"no {wanted} found") for n in names])
    return found


@record(frozen=True)
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
REFUSED = "the API server would reject this manifest"
_REFUSED_PODS = "the API server would reject the pods the operator creates from this manifest"
_REFUSED_CHILDREN = "the API server would reject what the operator creates from this manifest"


def refused_creations(obj: Obj, options: Mapping[str, Any] | None = None) -> list[tuple[Any, str]]:
    """The errors of what the API server would refuse of the objects the operator creates
    from the admitted ``obj``, each with who refuses what: its Pods (SC006, SC015-SC019,
    ``lint.pods``) and its other objects (``kinds.children_refused``: Grove's HPAs). The
    object itself is stored; ``plan`` stops with these (exit 2), ``diff`` marks the change
    ``rejected``."""
    from .kinds import children_refused
    from .lint.pods import check_pod_templates

    return ([(f, _REFUSED_PODS) for f in check_pod_templates(obj, options) if f.severity == "error"]
            + [(f, _REFUSED_CHILDREN) for f in children_refused(obj) if f.severity == "error"])


def _live_problem_line(f: Any) -> InputError:
    return InputError(f.file, f.line, f"{f.rule}: {f.path + ': ' if f.path else ''}{f.message}")


def admit_inputs(desired: Sequence[Obj], observed: Sequence[Obj] = (), *, namespace: str | None = None,
                 options: Mapping[str, Any] | None = None) -> Admitted:
    """Every object through admission (``admit.admit``: served versions, null pruning,
    CRD and webhook defaults, namespace, schema, CEL and ObjectMeta validation, canonical
    quantities) before any model sees it, so the models only ever read well-typed,
    stored-form input. What the API server refuses in the desired input (or a wrong
    type in an observed object, which a model would misread) stops here as
    ``PATH:LINE: RULE: field: message`` (exit 2); then Kubernetes' checks on the
    containers of the pod templates (SC006 resources, SC015 images,
    SC016-SC019 containers, their names and volume names: the rules ``lint`` uses), and
    its checks on the other objects the operator creates (``kinds.children_refused``).
    Objects named by the API server (``generateName``) are never duplicates."""
    from .admit import DESIRED, DUPLICATE_OBJECT, OBSERVED, admit
    from .kinds import descriptor, read_schema

    have = admit(observed, descriptor, side=OBSERVED, namespace=namespace, read_schemas=read_schema)
    want = admit(desired, descriptor, side=DESIRED, namespace=namespace, stored=have.objects,
                 distinct=is_generated)
    errors = [_problem_line(f, "" if f.rule == DUPLICATE_OBJECT else REFUSED) for f in want.errors]
    errors += [_live_problem_line(f) for f in have.errors]
    # objects of kinds a model reads without owning them (Kueue's queues): their admission
    errors += [_problem_line(f, REFUSED) for o in want.objects for f in admit_other(o, DESIRED)
               if f.severity == "error"]
    errors += [_live_problem_line(f) for o in have.objects for f in admit_other(o, OBSERVED) if f.severity == "error"]
    if not errors:
        for o in want.objects:
            if is_modelled(o):
                errors += [_problem_line(f, why) for f, why in refused_creations(o, options)]
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
    ``rejected_at_admission`` says so) are planned instead: the plan shows the reaction.
    An apply that sends nothing (``core.applied.sends_nothing``: the manifest is what was
    last applied and the live object holds it) reaches no webhook: nothing is refused."""
    if old is not None and sends_nothing(obj, old):
        return
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


@record
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
        check_not_empty_input(opts.observed, loaded_observed, "--observed")
    desired, observed = loaded_desired.objects, loaded_observed.objects
    if opts.namespace:
        desired = [_with_namespace(o, opts.namespace) for o in desired]
    desired = [with_generated_name(o) for o in desired]  # named by the API server on create
    inputs = Inputs(desired, observed)
    if opts.from_cluster or CAPACITY_FROM_CLUSTER in opts.capacity:
        _read_cluster(inputs, paths, opts, kubectl_run)
    admitted = admit_inputs(inputs.desired, inputs.observed, namespace=opts.namespace, options=opts.model_options)
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


def check_not_empty_input(paths: Sequence[str], loaded: Loaded, flag: str) -> None:
    """``--observed -`` / ``--live -`` that received nothing is a failed pipe
    (``kubectl get … | rolloutctl …`` where kubectl failed), not an empty cluster; so are
    ``--observed`` / ``--live`` files and directories that hold no document at all (``kubectl
    get … > live.yaml`` that failed and left the file empty; an empty ``kind: List`` is
    kubectl's answer for "none", and passes)."""
    if "-" in paths and loaded.empty_stdin:
        raise InputProblem([InputError("<stdin>", 0, f"{flag} -: standard input is empty (did the command before "
                                       "the pipe fail? use set -o pipefail); pass --allow-empty if the cluster "
                                       "really has none of these objects")])
    if paths and not loaded.documents and not loaded.errors:
        named = [p for p in paths if p != "-"] or ["<stdin>"]
        raise InputProblem([InputError(named[0], 0, f"{flag} {' '.join(named)}: no object in "
                                       f"{'it' if len(named) == 1 else 'them'} (did the kubectl get that wrote "
                                       f"{'it' if len(named) == 1 else 'them'} fail?); pass --allow-empty if the "
                                       "cluster really has none of these objects")])


def _read_cluster(inputs: Inputs, paths: Sequence[str], opts: PlanOptions, run: Any) -> None:
    """``--from-cluster``: per target, one ``kubectl get`` per kind its model reads
    (``kinds.live_reads``); ``--capacity from-cluster``: the nodes and quotas."""
    from .kinds import live_reads
    from .load.kubectl import KubectlError, KubectlMissing, read_live

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
                try:
                    inputs.capacity[key] = _cluster_capacity(obj, inputs.observed, opts.model_options, kw)
                except KubectlMissing as exc:  # the capacity read's own remedy: a capacity given by hand
                    raise ToolFailure(str(exc.instead("give the capacity with --capacity RESOURCE=QUANTITY "
                                                      "(e.g. nvidia.com/gpu=16)"))) from None
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


def _generated_warning(obj: Obj) -> tuple[Warning, ...]:
    if not is_generated(obj):
        return ()
    return (Warning("GenerateName", always_new_message(obj, str(obj.metadata.get("generateName"))),
                    "metadata.generateName"),)


def _plan_model(obj: Obj, opts: PlanOptions, desired: Sequence[Obj], observed: Sequence[Obj]) -> Any:
    """The model of ``obj`` under the model options (``kinds.model_for``: an integration's
    when an option selects one, e.g. ``--kueue MODEL``, with the desired and observed input)."""
    return model_for(obj, opts.model_options, desired, observed)


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


def _unmatched_warning(obj: Obj, observed: Sequence[Obj]) -> tuple[Warning, ...]:
    """The observed input holds objects of ``obj``'s kind, none of them ``obj`` (same
    kind, namespace and name): then ``obj`` is planned as new, which a user who meant
    one of them would not expect (a namespace-less manifest goes to ``-n``, else
    ``default``, as ``kubectl apply`` puts it)."""
    if is_generated(obj) or _previous(obj, observed) is not None:
        return ()
    same_kind = sorted({(o.namespace, o.name) for o in observed if o.kind == obj.kind})
    elsewhere = sorted(ns for ns, name in same_kind if name == obj.name)
    # the same name in another namespace, or the one object of the kind the input holds
    # (several are neighbours, e.g. services sharing a queue, not a mistyped name)
    if not elsewhere and len(same_kind) != 1:
        return ()
    shown = ", ".join(f"{ns}/{name}" for ns, name in same_kind[:3]) + (" …" if len(same_kind) > 3 else "")
    hint = (f"; the observed one is in namespace {elsewhere[0]}: set metadata.namespace or pass -n {elsewhere[0]}"
            if elsewhere else "")
    return (Warning("ObservedNotMatched",
                    f"the observed input holds {obj.kind} {shown} but not {obj.namespace}/{obj.name}: objects match by "
                    f"kind, namespace and name, so this plan creates it as new{hint}", "metadata.name"),)


def _live_dump_warning(obj: Obj, observed: Sequence[Obj]) -> tuple[Warning, ...]:
    """The desired manifest is a live object (``kubectl get -o yaml`` output: a status or
    server metadata) and nothing observed matches it: it is planned as new, which a user
    who saved the live object meant as the cluster's state would not expect."""
    if is_generated(obj) or _previous(obj, observed) is not None:
        return ()
    written = obj.written or obj
    server = [k for k in SERVER_METADATA if written.metadata.get(k)]
    if not written.status and not server:
        return ()
    what = ", ".join((["status"] if written.status else []) + [f"metadata.{k}" for k in server])
    return (Warning("DesiredIsLiveObject",
                    f"the manifest holds what only the API server writes ({what}), as kubectl get output does; "
                    "nothing observed matches it, so this plan creates it as new. To plan a change against that "
                    "state, give the file as --observed and the edited manifest as the path", "metadata"),)


def _input_warnings(obj: Obj, observed: Sequence[Obj], opts: PlanOptions) -> tuple[Warning, ...]:
    """What the plan of ``obj`` says of its input before any model runs: a generated name,
    observed objects of its kind that are not it, a live object given as the manifest, and
    what an integration whose option is not given would do (``kinds.unselected_warnings``)."""
    return (_generated_warning(obj) + _unmatched_warning(obj, observed) + _live_dump_warning(obj, observed)
            + tuple(unselected_warnings(obj, opts.model_options)))


# ----------------------------------------------------------------------------- diff (issue 6)

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
        if not re.fullmatch(_DNS_SUBDOMAIN, o.name):
            errors.append(InputError(o.file, o.line_of("metadata", "name"),
                                     f"metadata.name: {o.name[:80]!r} is not a valid Kubernetes name "
                                     "(lower-case letters, digits, '-' and '.')"))
        if not re.fullmatch(_DNS_LABEL, o.namespace):
            errors.append(InputError(o.file, o.line_of("metadata", "namespace"),
                                     f"metadata.namespace: {o.namespace[:80]!r} is not a valid Kubernetes namespace "
                                     "(lower-case letters, digits and '-')"))
    if errors:
        raise InputProblem(errors)
