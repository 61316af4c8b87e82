"""The update strategies of a PodCliqueSet, as data: ``spec.updateStrategy.type`` ->
the ``Policy`` class that adds the strategy's work to the controllers' passes.

``RollingRecreate`` (the default) and ``OnDelete`` are the operator's
(``operator/api/core/v1alpha1/podcliqueset.go`` ``UpdateStrategyType``);
``RollingUpdate`` and ``ReplicaRecreate`` follow the design discussion (ai-dynamo/grove
PR #262, docs/grove-proposed.md). No strategy module registers itself: a new
strategy is one ``Policy`` subclass and one line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .ondelete import OnDelete
from .policy import Policy
from .proposed.replica_recreate import ReplicaRecreatePolicy
from .proposed.rolling_update import RollingUpdatePolicy
from .rolling_recreate import RollingRecreate
from .spec import PCS

#: ``spec.updateStrategy.type`` -> its policy
STRATEGIES: Mapping[str, type[Policy]] = MappingProxyType({
    "RollingRecreate": RollingRecreate,
    "OnDelete": OnDelete,
    "RollingUpdate": RollingUpdatePolicy,
    "ReplicaRecreate": ReplicaRecreatePolicy,
})


def policy_named(strategy_type: str) -> Policy:
    """The policy of a ``spec.updateStrategy.type``; a type no strategy models
    (admission refuses it) creates and scales children without rolling them."""
    factory = STRATEGIES.get(strategy_type)
    return factory() if factory is not None else Policy()


def policy_for(pcs: PCS) -> Policy:
    """The policy of ``pcs``'s ``spec.updateStrategy.type`` (``policy_named``)."""
    return policy_named(pcs.strategy_type)
