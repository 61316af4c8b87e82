"""The interface every operator model implements (see DESIGN.md, kinds/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from .environment import Environment
from .model import Action, Finding, Impact, Change, Obj, Stuck, Warning
from .world import World


@dataclass(frozen=True)
class Progress:
    """What the world did between two reconcile passes."""

    world: World
    waits: tuple[str, ...] = ()
    progressed: bool = False


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

    def classify(self, changes: Sequence[Change], desired: Obj, live: Obj) -> list[Impact]: ...

    def defaults(self, raw: dict) -> dict:
        """``raw`` as the API server stores it (CRD defaults, defaulting webhook)."""
        ...

    def order_matters(self, list_path: tuple) -> bool:
        """Whether reordering the list at ``list_path`` changes what the operator does."""
        ...

    # Optional hooks (``core.simulate`` falls back to generic behaviour without them):
    #   phase_of(desired, step) -> hashable label | None   which phase a step belongs to
    #   phase_title(desired, label, steps) -> str | None    the phase's title, e.g.
    #                                                       "replica 3: frontend pods replaced one by one"
    #   operators(desired) -> [Operator]                    modelled operator versions, commits, gates
    #   not_modelled(desired, world) -> [Warning]           what the model leaves out that matters here
    #   idle_title(waits) -> str | None                     the title of a pass that only waits


@dataclass(frozen=True)
class LiveRead:
    """One read of live objects a model needs for a target (``plan``/``next --from-cluster``):
    the objects of one kind in the target's namespace (cluster-wide when not ``namespaced``),
    selected by the owner's labels or by name. Each operator lists its reads next to its
    model (``kinds/<operator>/live.py``); ``load.kubectl`` turns them into ``kubectl get``.

    ``required``: a plan cannot be made without these objects, so a read the cluster's RBAC
    refuses is a failure. Otherwise it is a warning, and ``assumed`` (raw objects) are taken
    as present, as the operator keeps them (``Kubernetes' view`` role cannot read Secrets,
    Roles or RoleBindings). ``after``: the selector is ``after[1] in (names)`` of the objects
    of kind ``after[0]`` read before (a RayCluster's Pods); no such objects, no read."""

    api_version: str
    kind: str
    resource: str  # fully qualified for kubectl: "podcliques.grove.io", "pods"
    selector: str = ""
    names: tuple[str, ...] = ()
    namespaced: bool = True
    required: bool = True
    assumed: tuple[Mapping[str, Any], ...] = ()
    after: tuple[str, str] | None = None

@dataclass(frozen=True)
class Overlay:
    """Fields the tool models beyond the CRD at the modelled commit (a pull request
    or a design proposal). Admission accepts them (the schema carries them); the
    kind's own rules validate them and warn that upstream does not implement them."""

    name: str
    upstream: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class KindDescriptor:
    """What a kind's registry entry hands the admission step (``admit/``): nothing
    there names an operator. ``served`` maps every served version to its deprecation
    warning ("" when not deprecated); ``version`` is the one the models see (the CRDs
    use ``conversion.strategy: None``, so conversion only rewrites ``apiVersion``).
    ``schema`` names a bundled JSON Schema (``schemas/NAME.schema.json``);
    ``defaulting`` is ``"module:function"`` of the operator's defaulting webhook
    (``raw -> raw``, applied after the structural defaults). ``observed_only`` kinds
    (children the models read) are checked but never planned."""

    group: str
    kind: str
    version: str
    served: Mapping[str, str]
    schema: str | None = None
    defaulting: str | None = None
    overlays: tuple[Overlay, ...] = ()
    model: str | None = None
    upstream: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def default(self, raw: dict) -> dict:
        if not self.defaulting:
            return raw
        from importlib import import_module

        mod, attr = self.defaulting.split(":")
        return getattr(import_module(mod), attr)(raw)
