"""Topology constraints on update: they cannot be added, removed or changed, except the
two repairs upstream allows.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/topologyconstraints.go``
(``validateTopologyConstraintImmutability``, with ``isAllowedInvalidTopologyConstraintRepair``,
``isAllowedDeprecatedPackDomainMigration`` and ``constraintChanged``; ``forEachTopologyConstraint``).
The create-time checks of this file need the ClusterTopology (domains, hierarchy) and are
not modelled: the model assumes topology-aware scheduling enabled and its domains present
(with it off, the chart's default, ``validate`` refuses every constraint on create:
``disallowConstraintsForCreateWhenTASIsDisabled``), and a plan says so
(``provenance.not_modelled``, ``NotModelledTopology``).

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .request import Check
from .util import TEMPLATE, Path, Problem, as_list, as_map, as_str, clique_path, group_path


def for_each_topology_constraint(pcs: Mapping[str, Any]) -> Iterator[tuple[Path, str, str, Mapping[str, Any] | None]]:
    """``forEachTopologyConstraint`` order: PCS, cliques, scaling groups: (path, kind, name, constraint)."""
    t = as_map(as_map(pcs.get("spec")).get("template"))
    yield (*TEMPLATE, "topologyConstraint"), "PodCliqueSet", "", (
        t.get("topologyConstraint") if isinstance(t.get("topologyConstraint"), Mapping) else None)
    for i, cl in enumerate(as_list(t.get("cliques"))):
        tc = as_map(cl).get("topologyConstraint")
        yield clique_path(i, "topologyConstraint"), "PodClique", as_str(as_map(cl).get("name")), (
            tc if isinstance(tc, Mapping) else None)
    for i, g in enumerate(as_list(t.get("podCliqueScalingGroups"))):
        tc = as_map(g).get("topologyConstraint")
        yield group_path(i, "topologyConstraint"), "PodCliqueScalingGroup", as_str(as_map(g).get("name")), (
            tc if isinstance(tc, Mapping) else None)


def _required_domain(tc: Mapping[str, Any]) -> str:
    return as_str(as_map(tc.get("pack")).get("required")) or as_str(tc.get("packDomain"))


def _preferred_domain(tc: Mapping[str, Any]) -> str:
    return as_str(as_map(tc.get("pack")).get("preferred"))


def validate_topology_constraint_immutability(c: Check) -> Iterator[Problem]:
    """Topology constraints cannot be added, removed or changed after creation, except
    moving the deprecated ``packDomain`` to ``pack.required`` unchanged, or adding a
    missing ``topologyName`` to a legacy constraint.

    Upstream: operator/internal/webhook/admission/pcs/validation/topologyconstraints.go#validateTopologyConstraintImmutability

    Bad:
        # live: pack {required: rack}
        topologyConstraint: {topologyName: tz, pack: {required: zone}}

    Good:
        # live: packDomain rack
        topologyConstraint: {topologyName: tz, pack: {required: rack}}

    Remediation: Keep the live constraint, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    old_by_path: dict[tuple[str, str], Mapping[str, Any] | None] = {}
    for _p, kind, name, tc in for_each_topology_constraint(c.old):
        old_by_path.setdefault((kind, name), tc)
    for path, kind, name, new in for_each_topology_constraint(c.pcs):
        old = old_by_path.get((kind, name))
        if old is None and new is None:
            continue
        label = f"{kind}" + (f" {name!r}" if name else "")
        if old is None:
            yield path, f"{label} topology constraint cannot be added after creation"
            continue
        if new is None:
            yield path, f"{label} topology constraint cannot be removed after creation"
            continue
        changed = (as_str(old.get("topologyName")) != as_str(new.get("topologyName"))
                   or as_str(old.get("packDomain")) != as_str(new.get("packDomain"))
                   or _required_domain(old) != _required_domain(new)
                   or _preferred_domain(old) != _preferred_domain(new))
        if not changed:
            continue
        legacy_repair = (not as_str(old.get("topologyName")) and as_str(old.get("packDomain"))
                         and as_str(new.get("topologyName")) and as_str(new.get("packDomain")) == as_str(old.get("packDomain")))
        migration = (as_str(old.get("packDomain")) and not as_str(new.get("packDomain"))
                     and as_str(as_map(new.get("pack")).get("required"))
                     and as_str(old.get("topologyName")) == as_str(new.get("topologyName"))
                     and _required_domain(new) == as_str(old.get("packDomain"))
                     and _preferred_domain(new) == _preferred_domain(old))
        if legacy_repair or migration:
            continue
        if as_str(old.get("topologyName")) != as_str(new.get("topologyName")):
            msg = (f"{label} topology constraint topologyName cannot be changed from "
                   f"{as_str(old.get('topologyName'))!r} to {as_str(new.get('topologyName'))!r}")
        else:
            msg = (f"{label} topology constraint cannot be changed from required={_required_domain(old)!r} "
                   f"preferred={_preferred_domain(old)!r} to required={_required_domain(new)!r} "
                   f"preferred={_preferred_domain(new)!r}")
        yield path, msg
