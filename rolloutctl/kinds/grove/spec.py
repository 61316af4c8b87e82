"""A typed, read-only view of a defaulted PodCliqueSet, and the expected children
of each replica (names, gangs, startup dependencies) as the operator computes them.
"""

from __future__ import annotations

from functools import cached_property
from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from . import names
from ...core.records import field, record
from .defaults import as_stored, default_pcs
from .hashing import compute_generation_hash, compute_pclq_pod_template_hash, stored_clique

IN_ORDER = "CliqueStartupTypeInOrder"
EXPLICIT = "CliqueStartupTypeExplicit"


def _int(v: Any, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


@record(frozen=True)
class Clique:
    name: str
    index: int  # position in template.cliques
    replicas: int
    min_available: int
    role_name: str
    starts_after: tuple[str, ...]
    raw: Mapping[str, Any] = field(compare=False, repr=False)
    template_hash: str = ""
    #: the clique as the API server stores it (its quantities: ``defaults.as_stored``)
    stored: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    update_strategy: Mapping[str, Any] = field(default_factory=dict, compare=False)
    rolling_update: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def pod_spec(self) -> Mapping[str, Any]:
        return self.raw.get("spec", {}).get("podSpec") or {}


@record(frozen=True)
class Group:
    name: str
    clique_names: tuple[str, ...]
    replicas: int
    min_available: int
    raw: Mapping[str, Any] = field(compare=False, repr=False)
    update_strategy: Mapping[str, Any] = field(default_factory=dict, compare=False)
    rolling_update: Mapping[str, Any] = field(default_factory=dict, compare=False)


class PCS:
    """The defaulted desired PodCliqueSet."""

    def __init__(self, obj: Obj) -> None:
        # the object's own fields, not the object (a PodCliqueSet is parsed once per
        # object, through ``Obj.derived``, and must not hold it)
        self.labels: Mapping[str, str] = obj.labels
        self.annotations: Mapping[str, str] = obj.annotations
        self._derived: dict[tuple, Any] = {}
        self.raw = default_pcs(dict(obj.raw))
        spec = self.raw.get("spec") or {}
        self.name = obj.name
        self.namespace = obj.namespace
        self.replicas = _int(spec.get("replicas"))
        us = spec.get("updateStrategy") if isinstance(spec.get("updateStrategy"), Mapping) else {}
        self.update_strategy: Mapping[str, Any] = us
        self.strategy_type: str = str(us.get("type") or "RollingRecreate")
        tmpl = spec.get("template") if isinstance(spec.get("template"), Mapping) else {}
        self.template: Mapping[str, Any] = tmpl
        self.startup_type = str(tmpl.get("cliqueStartupType") or "CliqueStartupTypeAnyOrder")
        self.priority_class_name = tmpl.get("priorityClassName")
        sspec = as_stored(obj).get("spec")
        stmpl = sspec.get("template") if isinstance(sspec, Mapping) else None
        #: the template as the API server stores it (``defaults.as_stored``), which the hashes read
        self.stored_template: Mapping[str, Any] | None = stmpl if isinstance(stmpl, Mapping) else None
        cliques: list[Clique] = []
        for i, c in enumerate(tmpl.get("cliques") or []):
            if not isinstance(c, Mapping):
                continue
            cs = c.get("spec") if isinstance(c.get("spec"), Mapping) else {}
            cliques.append(Clique(
                name=str(c.get("name") or ""), index=i,
                replicas=_int(cs.get("replicas"), 1), min_available=_int(cs.get("minAvailable"), 1),
                role_name=str(cs.get("roleName") or ""),
                starts_after=tuple(str(x) for x in (cs.get("startsAfter") or []) if isinstance(x, str)),
                raw=c, stored=(wc := stored_clique(self.stored_template, c)),
                template_hash=compute_pclq_pod_template_hash(c, self.priority_class_name, wc),
                update_strategy=c.get("updateStrategy") if isinstance(c.get("updateStrategy"), Mapping) else {},
                rolling_update=c.get("rollingUpdate") if isinstance(c.get("rollingUpdate"), Mapping) else {},
            ))
        self.cliques = tuple(cliques)
        self.clique_by_name = {c.name: c for c in cliques}
        groups: list[Group] = []
        for g in tmpl.get("podCliqueScalingGroups") or []:
            if not isinstance(g, Mapping):
                continue
            groups.append(Group(
                name=str(g.get("name") or ""),
                clique_names=tuple(str(x) for x in (g.get("cliqueNames") or []) if isinstance(x, str)),
                replicas=_int(g.get("replicas"), 1), min_available=_int(g.get("minAvailable"), 1), raw=g,
                update_strategy=g.get("updateStrategy") if isinstance(g.get("updateStrategy"), Mapping) else {},
                rolling_update=g.get("rollingUpdate") if isinstance(g.get("rollingUpdate"), Mapping) else {},
            ))
        self.groups = tuple(groups)
        self.group_of_clique: dict[str, Group] = {}
        for g in groups:
            for cn in g.clique_names:
                self.group_of_clique.setdefault(cn, g)
        self.standalone = tuple(c for c in cliques if c.name not in self.group_of_clique)

    @cached_property
    def generation_hash(self) -> str:
        return compute_generation_hash(self.template, self.stored_template)

    @staticmethod
    def strategy_of(obj: Obj) -> str:
        """``spec.updateStrategy.type`` of a PodCliqueSet object (RollingRecreate when unset)."""
        spec = obj.raw.get("spec") if isinstance(obj.raw.get("spec"), Mapping) else {}
        us = spec.get("updateStrategy") if isinstance(spec.get("updateStrategy"), Mapping) else {}
        return str(us.get("type") or "RollingRecreate")

    def derived(self, fn: Any, *args: Any) -> Any:
        """``fn(self, *args)``, computed once per argument tuple: a plain function of the
        desired PodCliqueSet (which never changes) and hashable arguments, e.g. the
        objects its components build for ``n`` replicas. Rules read such values through
        this instead of keeping caches."""
        d = self._derived
        k = (fn, args)
        try:
            return d[k]
        except KeyError:
            v = d[k] = fn(self, *args)
            return v

    # names ------------------------------------------------------------------
    def pcsg_fqn(self, replica: int, group: Group) -> str:
        return names.pcsg_name(self.name, replica, group.name)

    def member_pclq_fqn(self, replica: int, group: Group, j: int, clique: str) -> str:
        return names.pclq_name(self.pcsg_fqn(replica, group), j, clique)

    def standalone_pclq_fqn(self, replica: int, clique: str) -> str:
        return names.pclq_name(self.name, replica, clique)

    def template_clique_for(self, pclq_fqn: str) -> Clique | None:
        """The clique template the PodCliqueSet and scaling-group builders use for a
        PodClique: the first in ``cliques`` order whose name is a suffix of the
        PodClique's name (plain string suffix, no ``-`` boundary), so a clique named like
        the tail of a later one captures the later one's PodCliques.
        Upstream: ``podcliqueset/components/podclique/podclique.go`` and
        ``podcliquescalinggroup/components/podclique/podclique.go`` ``buildResource``
        (``lo.FindIndexOf`` with ``strings.HasSuffix``)."""
        for c in self.cliques:
            if pclq_fqn.endswith(c.name):
                return c
        return None

    # startup dependencies ------------------------------------------------------
    def dependency_names_for_base_podgang(self, replica: int, clique: str, group_replicas: Mapping[str, int] | None = None) -> list[str]:
        """``GenerateDependencyNamesForBasePodGang``: a standalone clique is one PCLQ;
        a scaling-group clique expands to its PCLQs in replicas ``0..minAvailable-1``.
        Upstream: ``operator/internal/controller/common/component/utils``."""
        g = self.group_of_clique.get(clique)
        if g is None:
            return [self.standalone_pclq_fqn(replica, clique)]
        return [self.member_pclq_fqn(replica, g, j, clique) for j in range(g.min_available)]

    def standalone_starts_after(self, replica: int, clique: Clique) -> list[str]:
        """``identifyFullyQualifiedStartupDependencyNames`` for a standalone PCLQ.
        Upstream: ``operator/internal/controller/podcliqueset/components/podclique/podclique.go``."""
        if self.startup_type == IN_ORDER:
            if clique.index == 0:
                return []
            return self.dependency_names_for_base_podgang(replica, self.cliques[clique.index - 1].name)
        if self.startup_type == EXPLICIT:
            out: list[str] = []
            for dep in clique.starts_after:
                out.extend(self.dependency_names_for_base_podgang(replica, dep))
            return out
        return []

    def member_starts_after(self, replica: int, group: Group, j: int, clique: Clique) -> list[str]:
        """``identifyFullyQualifiedStartupDependencyNames`` for a scaling-group member
        PCLQ: base-gang replicas depend like standalone ones; scaled replicas keep
        only dependencies inside the same scaling-group replica.
        Upstream: ``operator/internal/controller/podcliquescalinggroup/components/podclique/podclique.go``."""
        if self.startup_type == IN_ORDER:
            if clique.index == 0:
                return []
            parents = [self.cliques[clique.index - 1].name]
        elif self.startup_type == EXPLICIT:
            parents = list(clique.starts_after)
        else:
            return []
        if j < group.min_available:
            out: list[str] = []
            for p in parents:
                out.extend(self.dependency_names_for_base_podgang(replica, p))
            return out
        pcsg = self.pcsg_fqn(replica, group)
        return [names.pclq_name(pcsg, j, p) for p in parents if p in group.clique_names]
