"""The CEL rules (``x-kubernetes-validations``) of the PodCliqueSet CRD on topology
constraints, which the API server checks before the webhook is called.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/api/core/v1alpha1/crds/grove.io_podcliquesets.yaml``, generated from the
``+kubebuilder:validation:XValidation`` markers of ``operator/api/core/v1alpha1/podcliqueset.go``.
Not webhook code; the rule is kept with the admission rules because it answers the same
request.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .request import Check
from .topologyconstraints import for_each_topology_constraint
from .util import Problem


def topology_constraint_crd_rules(c: Check) -> Iterator[Problem]:
    """A topology constraint needs ``pack`` (with ``required`` or ``preferred``); the deprecated
    ``packDomain`` cannot be combined with ``pack.required`` and cannot be used on new objects.

    These are CEL rules of the CRD (x-kubernetes-validations), checked by the API server.

    Upstream: operator/api/core/v1alpha1/crds/grove.io_podcliquesets.yaml (x-kubernetes-validations of topologyConstraint and PodCliqueSet)

    Bad:
        topologyConstraint: {topologyName: tz, packDomain: rack}

    Good:
        topologyConstraint: {topologyName: tz, pack: {required: rack}}

    Remediation: Use pack.required (or pack.preferred) instead of packDomain.
    """
    for path, _kind, _name, tc in for_each_topology_constraint(c.pcs):
        if tc is None:
            continue
        pack = tc.get("pack")
        has_pd = tc.get("packDomain") is not None
        if pack is None and not has_pd:
            yield (*path, "pack"), "topologyConstraint must specify pack or deprecated packDomain"
        if isinstance(pack, Mapping):
            if pack.get("required") is None and pack.get("preferred") is None:
                yield (*path, "pack"), "pack must specify at least one of required or preferred"
            if has_pd and pack.get("required") is not None:
                yield (*path, "pack", "required"), "must not set both pack.required and deprecated packDomain"
        if has_pd and c.creating:
            yield (*path, "packDomain"), "packDomain is deprecated and cannot be used on new workloads; use pack.required"
