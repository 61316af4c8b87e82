"""Update strategies plug into the Grove controllers through ``Policy``.

The controllers in ``controllers.py`` create, scale and garbage-collect; a policy
adds what a strategy does on top in each controller's pass. ``strategies.STRATEGIES``
maps a PodCliqueSet's ``spec.updateStrategy.type`` to its policy.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...core.environment import Environment
from ...core.model import Action, Obj, Stuck, Warning
from ...core.world import World
from . import controllers as C
from .spec import PCS


class Policy:
    """The do-nothing-more policy: children are created and scaled, never rolled."""

    name = "RollingRecreate"

    def pcs_pass(self, pcs: PCS, world: World, status: Mapping[str, Any], gang: Any = None) -> list[Action]:
        """Extra PodCliqueSet-controller work (update orchestration, status writes)."""
        return []

    def may_create_pcsg_replica(self, pcs: PCS, pcsg: Obj, j: int, world: World) -> bool:
        return True

    def gang_termination_suppressed(self, pcs: PCS, world: World) -> bool:
        """Gang termination does not run now. The snapshot's strategies never suppress
        it (an updating PodClique or scaling group reports ``MinAvailableBreached``
        Unknown instead, so it cannot breach)."""
        return False

    def surge_pcs_replicas(self, pcs: PCS, world: World) -> int:
        """PodCliqueSet replicas kept above ``spec.replicas`` as surge (proposed
        ReplicaRecreate with maxSurge); the PodCliqueSet components build them."""
        return 0

    def surge_pcsg_replicas(self, pcs: PCS, pcsg: Obj, world: World) -> int:
        """Scaling-group replicas kept above ``spec.replicas`` as surge (proposed
        RollingUpdate); they are not scaled in and their scaled PodGangs are expected."""
        return 0

    def pcsg_surges(self, pcs: PCS, world: World, live_replicas: Sequence[int]) -> Mapping[str, int]:
        """Every scaling group whose ``surge_pcsg_replicas`` is not 0, with it (the
        PodGang sync's expected gangs); ``live_replicas``: ``controllers.live_pcsg_replicas``."""
        return {}

    def pcsg_pass(self, pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
        """Extra PodCliqueScalingGroup-controller work for one PCSG."""
        return []

    def pclq_pass(self, pcs: PCS, pclq: Obj, world: World) -> list[Action]:
        """The PodClique controller's pod work for one PodClique."""
        return C.sync_pods(pclq, world)

    def pclq_pass_key(self, pcs: PCS, world: World) -> Any:
        """What ``pclq_pass`` reads besides the PodClique and its pods, as
        ``(value, replicas)``: a value the model compares between rounds and the
        PodCliqueSet replicas whose objects the pass treats specially (the selected
        ones); None: the pass reads more (then the model runs it for every PodClique
        every round). A PodClique whose pass did nothing is not visited again until
        it, its pods or the value change, or its replica enters or leaves the set."""
        return ((), frozenset()) if type(self).pclq_pass is Policy.pclq_pass else None

    def pclq_pass_settles(self, pcs: PCS, pclq: Obj, world: World) -> bool:
        """Whether an empty ``pclq_pass`` of ``pclq`` depends only on the PodClique, its
        pods and ``pclq_pass_key`` (so it stays empty while they do not change)."""
        return True

    def pcsg_hooks_key(self, pcs: PCS, world: World) -> Any:
        """Like ``pclq_pass_key`` for ``may_create_pcsg_replica`` and
        ``surge_pcsg_replicas`` (read by the scaling-group controller's PodClique sync)."""
        plain = type(self).may_create_pcsg_replica is Policy.may_create_pcsg_replica and \
            type(self).surge_pcsg_replicas is Policy.surge_pcsg_replicas
        return ((), frozenset()) if plain else None

    def pcsg_hooks_settle(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return True

    def pcsg_pass_key(self, pcs: PCS, world: World) -> Any:
        """Like ``pclq_pass_key`` for ``pcsg_pass`` (a scaling group, its member
        PodCliques and this key)."""
        return ((), frozenset()) if type(self).pcsg_pass is Policy.pcsg_pass else None

    def pcsg_pass_settles(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return True

    def converged(self, pcs: PCS, world: World) -> bool:
        """No update left to do (creation completeness is checked by the model)."""
        return True

    def diagnose(self, pcs: PCS, world: World, env: Environment) -> Stuck | None:
        """A strategy-specific reason the plan cannot move, if any."""
        return None

    def warnings(self, pcs: PCS, world: World) -> list[Warning]:
        return []

    def counts(self, pcs: PCS, world: World) -> Mapping[str, Any]:
        return {}

    def title(self, actions: Sequence[Action], world: World) -> str | None:
        """A step title a person reads; None lets the model count verbs and kinds."""
        return None

