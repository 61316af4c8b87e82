"""``rolloutctl diff``: the desired manifests against the live objects, and what each
change will cause."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..app import (REFUSED, InputProblem, ToolFailure, _match_key, admit_inputs, check_names_for_kubectl,
                   check_not_empty_input, load, refused_creations, targets)
from ..core.generated_names import always_new_message, is_generated, with_generated_name
from ..core.model import Impact, Obj
from ..core.records import field, record
from ..kinds import is_modelled, model_for
from ..load.errors import InputError
from ..load.limits import Limits


@record(frozen=True)
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
    from ..core.model import Diff, ObjectDiff

    if opts.from_cluster and opts.live:
        raise InputProblem(["rolloutctl diff: give either --live PATH or --from-cluster, not both"])
    if not opts.from_cluster and not opts.live:
        raise InputProblem(["rolloutctl diff: say where the live state comes from: --live PATH "
                            "(e.g. kubectl get rayservice my-svc -o yaml | rolloutctl diff svc.yaml --live -) "
                            "or --from-cluster"])
    if list(opts.live).count("-") + list(paths).count("-") > 1:
        raise InputProblem(["rolloutctl diff: standard input (-) can be read only once: give the desired "
                            "manifests or the live state as a file"])
    from ..admit import DESIRED, DUPLICATE_OBJECT, admit
    from ..kinds import descriptor

    loaded_desired = [with_generated_name(o) for o in load(paths, opts.limits).objects]

    def admitted(stored: Sequence[Obj] = ()) -> tuple[list[Obj], dict[int, list[Any]]]:
        # server-side apply merges by field ownership (``ownership``), not by a merge patch
        found = admit(loaded_desired, descriptor, side=DESIRED, namespace=opts.namespace, stored=stored,
                      distinct=is_generated, merge_live=not opts.server_side)
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
    related_live: list[Obj] = []  # the live objects of other kinds given (a RayService's clusters)
    if opts.from_cluster:
        check_names_for_kubectl(desired)
        live_raw = _live_from_cluster(desired, opts, kubectl_run)
    else:
        loaded_live = load(opts.live, opts.limits)
        if not opts.allow_empty:
            check_not_empty_input(opts.live, loaded_live, "--live")
        live_raw = [o for o in loaded_live.objects if is_modelled(o)]
        related_live = [o for o in loaded_live.objects if not is_modelled(o)]
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
        errors = _refusals(named, refused, opts.model_options)
        impact = errors or _added_impact(named, _model_for(named, opts.model_options))
        if not any(i.effect == "rejected" for i in impact):
            impact = (Impact("scale", always_new_message(named, prefix), ("metadata.generateName",)),)
        results.append(ObjectDiff(named.ref, "added", (), impact))
    for obj in desired:
        key = _match_key(obj)
        seen.add(key)
        model = _model_for(obj, opts.model_options)
        old = by_key.get(key)
        errors = _refusals(obj, refused, opts.model_options)
        if old is None:
            results.append(ObjectDiff(obj.ref, "added", (), errors or _added_impact(obj, model)))
            continue
        hooks = diff_hooks(obj, model)
        conflicts: list[tuple[str, list[str]]] = []
        changes = _diff_objects(obj, old, hooks, opts, conflicts)
        kept = tuple(c for c in changes if not _ignored_change(obj, c, opts.ignores))
        ignored += len(changes) - len(kept)
        changes = kept
        impact: tuple = ()
        if errors:
            results.append(ObjectDiff(obj.ref, "changed" if changes else "unchanged", changes, errors))
            continue
        if changes and model is not None:
            # the kind judges the same defaulted objects the diff compared
            impact = tuple(model.classify(changes, _defaulted(obj, hooks), _defaulted(old, hooks),
                                          [o for o in related_live if o.namespace == old.namespace]))
        if conflicts and not opts.force_conflicts:
            impact += tuple(Impact("rejected", f"server-side apply conflict: {path} is managed by "
                                   f"{', '.join(owners)}{f', {note}' if note else ''}; the apply fails unless it "
                                   f"forces conflicts (--force-conflicts, which takes the field from them)", (path,))
                            for path, owners, note in conflicts if any(_under(c.path, path) for c in changes))
        results.append(ObjectDiff(obj.ref, "changed" if changes else "unchanged", changes, impact))
    if opts.prune:
        for o in live:
            if _match_key(o) not in seen and not o.owner_references:
                results.append(ObjectDiff(o.ref, "removed", (), (_removed_impact(o),)))
    results.sort(key=lambda d: (d.target.kind, d.target.namespace, d.target.name))
    return Diff(tuple(results), ignored=ignored)


def _under(path: str, top: str) -> bool:
    """Whether the change path ``path`` is ``top`` or below it."""
    return path == top or (path.startswith(top) and path[len(top):len(top) + 1] in (".", "["))


def _refusals(obj: Obj, refused: Mapping[int, Any], options: Mapping[str, Any]) -> tuple:
    """The ``rejected`` impacts of ``obj``: the API server refuses the object (admission's
    findings in ``refused``; the change is never stored), else what it would refuse of the
    objects the operator creates from it (``app.refused_creations``: the object is stored,
    the rollout never starts); () when neither."""
    found = refused.get(id(obj))
    pairs = [(f, REFUSED) for f in found] if found else refused_creations(obj, options)
    return tuple(Impact("rejected", f"{f.rule}: {f.message} ({why})", (f.path,) if f.path else ())
                 for f, why in sorted(set(pairs), key=lambda p: (p[0].sort_key(), p[1])))


def _check_live_duplicates(live: Sequence[Obj]) -> None:
    """Two live copies of one object cannot both be the cluster's: which one to compare with is unknown."""
    from ..admit import duplicates

    found = duplicates(live)
    if found:
        raise InputProblem([InputError(f.file, f.line, f"{f.rule}: {f.message}") for f in found])


def _ignored_change(obj: Obj, change: Any, ignores: Sequence[Any]) -> bool:
    """A change an ``ignore:`` entry without ``rule`` covers (kind/namespace/name/file/path globs)."""
    return any(i.matches(rule=None, kind=obj.kind, namespace=obj.namespace, name=obj.name, file=obj.file,
                         path=change.path) for i in ignores)


def _diff_objects(desired: Obj, live: Obj, hooks: Any, opts: DiffOptions | None = None,
                  conflicts: list | None = None) -> tuple:
    from ..core.diff import diff_objects

    if opts is not None and opts.server_side:
        from ..core.managed_fields import ownership

        return diff_objects(desired, live, hooks, ownership(live.raw, opts.field_manager, _list_types(desired)),
                            conflicts)
    return diff_objects(desired, live, hooks)


def _list_types(obj: Obj) -> Any:
    """``path -> list type`` of the lists of ``obj``'s kind, read from its schema
    (``admit.listtype.list_type``): how server-side apply merges them."""
    from functools import partial

    from ..admit.listtype import list_type
    from ..admit.schema import load_schema
    from ..kinds import kind_of

    kind = kind_of(obj)
    if kind is None or not kind.schema:
        return lambda path: None
    return partial(list_type, load_schema(f"{kind.schema}.schema.json"))


def _defaulted(obj: Obj, hooks: Any) -> Obj:
    """``obj`` with the kind's defaults, still knowing how the manifest wrote it."""
    out = Obj(hooks.defaults(dict(obj.raw)), obj.file, obj.line, obj.lines)
    out.written = obj.written
    return out


def diff_hooks(obj: Obj, model: Any) -> Any:
    """What the kind adds to the generic diff: its defaulting (``model.defaults``),
    which list orders matter (``model.order_matters``) and, where the kind has the
    optional hooks, which empty mappings and lists count (``model.keeps_empty``) and the
    form of the object it compares (``model.stored``); patched as a custom resource."""
    from ..core import diff as D

    optional = {name: hook for name in ("keeps_empty", "stored") if (hook := getattr(model, name, None)) is not None}
    # every kind the tool diffs is a custom resource: client-side apply sends a JSON merge patch
    return D.DiffHooks(defaults=model.defaults, order_matters=model.order_matters, merge_patch=True, **optional)


def _model_for(obj: Obj, options: Mapping[str, Any]) -> Any:
    return model_for(obj, options)


def _live_from_cluster(desired: Sequence[Obj], opts: DiffOptions, run: Any) -> list[Obj]:
    from ..load.kubectl import KubectlError, Target, fetch

    from ..kinds import kind_of

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
    from ..core.model import Impact

    errors = [f for f in (model.validate(obj, None) if model is not None else []) if f.severity == "error"]
    if errors:
        return tuple(Impact("rejected", f"{f.rule}: {f.message}", (f.path,) if f.path else ()) for f in errors)
    return (Impact("scale", f"new {obj.kind}: the operator creates everything it owns; nothing existing is replaced",
                   ()),)


def _removed_impact(obj: Obj) -> Any:
    from ..core.model import Impact

    return Impact("teardown", f"{obj.kind} is not in the manifests: kubectl apply --prune deletes it and Kubernetes "
                  "garbage-collects everything it owns", ())
