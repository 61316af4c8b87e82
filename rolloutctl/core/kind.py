"""The interface every operator model implements (see DESIGN.md, kinds/)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

from .environment import Environment
from .model import Action, Finding, Obj, Stuck, Warning
from .records import field, record
from .world import World

if TYPE_CHECKING:  # diff's vocabulary (core.results) is not imported by a plan
    from .results import Change, Impact


@record(frozen=True)
class Progress:
    """What the world did between two reconcile passes. ``ahead``: the next pass on
    ``world`` as ``(actions, memory)``, when ``advance`` had to run it already (to know
    whether anything would act before a timer fires); the driver uses it instead of
    running that pass again. Only models with ``reconcile_pass`` set it."""

    world: World
    waits: tuple[str, ...] = ()
    progressed: bool = False
    ahead: tuple[list[Action], Mapping[str, Any]] | None = None


class KindModel(Protocol):
    """One operator. ``reconcile`` is the controller's next pass, exactly; ``advance``
    is everything else (scheduler, kubelet, the workload) under ``Environment``."""

    api_version: str
    kind: str
    timed: bool  # whether the model knows wall-clock delays (Step.time)

    def observe(self, desired: Obj | None, observed: Sequence[Obj], env: Environment) -> World: ...

    def strategy(self, desired: Obj) -> str: ...

    def reconcile(self, desired: Obj, world: World) -> list[Action]: ...

    def advance(self, desired: Obj, world: World, env: Environment) -> Progress: ...

    def converged(self, desired: Obj, world: World) -> bool: ...

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck: ...

    def metrics(self, world: World) -> Mapping[str, Any]:
        """``readyPods``, ``pods`` and ``resources`` (milli-units) of the target now."""
        ...

    def counts(self, desired: Obj, world: World) -> Mapping[str, Any]: ...

    def title(self, actions: Sequence[Action], world: World) -> str: ...

    def warnings(self, desired: Obj, world: World) -> list[Warning]: ...

    def validate(self, obj: Obj, old: Obj | None = None) -> list[Finding]: ...

    def classify(self, changes: Sequence[Change], desired: Obj, live: Obj,
                 related: Sequence[Obj] = ()) -> list[Impact]: ...

    def defaults(self, raw: dict) -> dict:
        """``raw`` as the API server stores it (CRD defaults, defaulting webhook)."""
        ...

    def order_matters(self, list_path: tuple) -> bool:
        """Whether reordering the list at ``list_path`` changes what the operator does."""
        ...

    # Optional hooks (``core.simulate`` and ``diff`` fall back to generic behaviour without them):
    #   keeps_empty(path) -> bool                           diff: an empty mapping at path is not absent
    #   phase_of(desired, step) -> hashable label | None   which phase a step belongs to
    #   phase_title(desired, label, steps) -> str | None    the phase's title, e.g.
    #                                                       "replica 3: frontend pods replaced one by one"
    #   operators(desired) -> [Operator]                    modelled operator versions, commits, gates
    #   not_modelled(desired, world) -> [Warning]           what the model leaves out that matters here
    #   idle_title(waits) -> str | None                     the title of a pass that only waits
    #   reconcile_pass(desired, world) -> (actions, memory) ``reconcile`` plus the update of
    #                                                       world memory the same pass leaves
    #                                                       behind (e.g. how it requeues); the
    #                                                       driver sets it with the actions


@record(frozen=True)
class LiveRead:
    """One read of live objects a model needs for a target (``plan``/``next --from-cluster``):
    the objects of one kind in the target's namespace (cluster-wide when not ``namespaced``),
    selected by the owner's labels or by name. Each operator lists its reads next to its
    model (``kinds/<operator>/live.py``); ``load.kubectl`` turns them into ``kubectl get``.

    ``required``: a plan cannot be made without these objects, so a read the cluster's RBAC
    refuses is a failure. Otherwise it is a warning, and ``assumed`` (raw objects) are taken
    as present, as the operator keeps them (``Kubernetes' view`` role cannot read Secrets,
    Roles or RoleBindings). ``after``: the selector is ``after[1] in (names)`` of the objects
    of kind ``after[0]`` read before (a RayCluster's Pods), added to ``selector``; no such
    objects, no read."""

    api_version: str
    kind: str
    resource: str  # fully qualified for kubectl: "podcliques.grove.io", "pods"
    selector: str = ""
    names: tuple[str, ...] = ()
    namespaced: bool = True
    required: bool = True
    assumed: tuple[Mapping[str, Any], ...] = ()
    after: tuple[str, str] | None = None

@record(frozen=True)
class Overlay:
    """Fields the tool models beyond the CRD at the modelled commit (a pull request
    or a design proposal). Admission accepts them (the schema carries them); the
    kind's own rules validate them and warn that upstream does not implement them."""

    name: str
    upstream: str
    paths: tuple[str, ...]


class OptionError(ValueError):
    """A model option (``--kuberay-version``, ``--feature-gate``, ...) that a kind's
    ``check_options`` refuses; the message is one line for the user."""


def resolve(ref: str | None) -> Any:
    """The object a ``"package.module:attribute"`` reference names (the module itself
    for ``"package.module"``; None for None).
    Descriptors name their parts this way so that listing the kinds imports none of
    their rules: a command imports only the parts it uses, when it uses them."""
    if not ref:
        return None
    from importlib import import_module

    mod, _, attr = ref.partition(":")
    return getattr(import_module(mod), attr) if attr else import_module(mod)


@record(frozen=True)
class KindDescriptor:
    """One operator package's entry in the registry (``kinds.KINDS``): everything the
    commands need of it, so that nothing outside ``kinds/`` names an operator.

    Admission (``admit/``): ``served`` maps every served version to its deprecation
    warning ("" when not deprecated); ``version`` is the one the models see (the CRDs
    use ``conversion.strategy: None``, so conversion only rewrites ``apiVersion``);
    ``absent`` maps a served version to the fields of ``version``'s schema that its own
    schema lacks (dotted paths, ``[]`` for a list's items): in a manifest of that version
    they are unknown fields, which strict field validation refuses and which the API
    server otherwise drops before storing the object; ``required`` maps a served version
    to the fields its schema requires and ``version``'s does not (same paths): a
    manifest of that version without one is refused (where its parent is there);
    ``optional`` the converse: fields ``version``'s schema requires and that served
    version's does not (a manifest of that version may leave them out); ``removed``
    maps a field the API once had to what replaces it;
    ``schema`` names a bundled JSON Schema (``schemas/NAME.schema.json``); ``defaults``
    is the operator's defaulting (``raw -> raw``: CRD defaults and defaulting webhook,
    applied after the structural defaults, and by ``diff`` to both sides); ``overlays``
    are fields modelled beyond the CRD.

    The other parts are ``"module:attribute"`` references (``resolve``), imported when
    used: ``model`` the ``KindModel`` class (constructed with the model options);
    ``validate`` the webhook rules ``(obj, old) -> [Finding]``; ``validator``
    ``model options -> (obj, old) -> [Finding]``, those rules under the model options
    (``lint --feature-gate``; a kind without it checks the same whatever the options); ``rules`` their
    ``RuleSpec``s for ``rolloutctl rules``; ``classify`` the diff classifier the model's
    ``classify`` applies; ``live_reads`` ``obj -> [LiveRead]`` (``--from-cluster``);
    ``pod_templates`` ``obj -> [(path, pod spec)]`` of the manifest as written (SC006, SC015-SC019);
    ``injected_into_pods`` what the operator adds to those Pods (SC018, SC019);
    ``children_refused`` ``obj -> [Finding]``: what the API server would refuse of the
    other objects the operator creates from the admitted object (Grove's HPAs, GV302);
    ``pod_budget`` ``raw -> pods`` the manifest asks for (``--max-pods``, checked before
    any model runs); ``check_options`` ``model options -> None``, raising
    ``OptionError``; ``read_schemas`` the ``{(group, kind): JSON Schema}`` of what the
    model reads of observed objects of its own kinds (``core.read_schemas``), which
    admission checks; ``advise`` the module (``"package.module"``) behind the model's
    advise hooks, so that a plan does not import them.

    An *integration* (``option`` set) is an operator that acts on another operator's
    kind (``group``/``kind``): its ``validate`` and ``rules`` apply to every object of
    that kind (they decide themselves whether the object is theirs), and with the model
    option ``option`` given, its ``model`` replaces the kind's, called as
    ``model(option value, desired=..., observed=..., **other options)``, and its
    ``live_reads`` replace the kind's. ``capacity_reads`` (``() -> [LiveRead]``) and
    ``capacity_limits`` (``objects -> [{resource: limit}]``) cap
    ``--capacity from-cluster``. ``unselected`` (``obj -> Warning | None``) is what a
    plan made without the option says of an object the integration would act on (the
    plan models the kind's operator alone).

    ``admits`` lists the (group, kind) of objects of other kinds the package's models
    read and whose admission it models (Kueue's queues), which ``admit_other``
    (``(obj, side) -> [Finding]``, side "desired" or "observed") checks: ``plan``
    before any model, ``lint`` as the objects' own rules."""

    group: str
    kind: str
    version: str = ""
    served: Mapping[str, str] = field(default_factory=dict)
    absent: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    required: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    optional: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: fields the operator's API once had and removed (dotted paths, as ``absent``) -> what
    #: to write instead: an unknown field at such a path says so, not "did you mean"
    removed: Mapping[str, str] = field(default_factory=dict)
    #: the package under ``kinds/`` and the ``operator`` of its rules
    operator: str = ""
    #: who the rules are for, in ``docs/rules.md`` ("Grove PodCliqueSet")
    title: str = ""
    #: the resource name kubectl reads (``podcliquesets.grove.io``)
    resource: str = ""
    schema: str | None = None
    defaults: str | None = None
    overlays: tuple[Overlay, ...] = ()
    model: str | None = None
    validate: str | None = None
    validator: str | None = None
    rules: str | None = None
    classify: str | None = None
    live_reads: str | None = None
    pod_templates: str | None = None
    #: ``(obj, model options) -> [(template path, list, name, what)]``: the containers (``containers``,
    #: ``initContainers``) and ``volumes`` the operator adds to the Pods it makes from
    #: each pod template, whose names a user's must not repeat (SC018, SC019)
    injected_into_pods: str | None = None
    children_refused: str | None = None
    pod_budget: str | None = None
    #: ``lint.pods`` rules (``SC016``) whose case the operator's own validation refuses
    #: before it creates any Pod: its own rule reports it, and the Pod rule does not
    pod_rules_refused_first: tuple[str, ...] = ()
    check_options: str | None = None
    read_schemas: str | None = None
    #: the module of the model's advise hooks (``advice_spaces``, ``rolls_out``, ...),
    #: imported only by ``advise``
    advise: str | None = None
    option: str = ""
    capacity_reads: str | None = None
    capacity_limits: str | None = None
    unselected: str | None = None
    #: what ``plan --compare`` says of the kind when its model compares nothing
    compare_note: str = ""
    upstream: str = ""
    admits: tuple[tuple[str, str], ...] = ()
    admit_other: str | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def integration(self) -> bool:
        return bool(self.option)

    def load(self, part: str) -> Any:
        """The object the reference ``part`` names (None when the kind has none)."""
        return resolve(getattr(self, part))

    def default(self, raw: dict) -> dict:
        """``raw`` as the kind's defaulting leaves it (``defaults``: a function that may
        fill ``raw`` in place, which is the admission's own copy, and returns it)."""
        fn = self.load("defaults")
        return fn(raw) if fn is not None else raw
