"""Update strategies plug into the Grove controllers through ``Policy``.

The controllers' component syncs (``controller/``) create, scale and garbage-collect; a policy
adds what a strategy does on top in each controller's pass. ``strategies.STRATEGIES``
maps a PodCliqueSet's ``spec.updateStrategy.type`` to its policy.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...core.environment import Environment
from ...core.model import Action, Obj, Stuck, Warning
from ...core.world import World
from .controller.podclique.components.pod.syncflow import sync_pods
from .spec import PCS


class Policy:
    """The do-nothing-more policy: children are created and scaled, never rolled."""

    name = "RollingRecreate"

    def warm(self, pcs: PCS, world: World) -> None:
        """Compute the world views the strategy's passes read on the round's input
        world, so that the passes' worlds and the next round's derive them from it."""

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
        PodGang sync's expected gangs); ``live_replicas``: ``controller.podcliqueset.components.podgang.live_pcsg_replicas``."""
        return {}

    def pcsg_pass(self, pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
        """Extra PodCliqueScalingGroup-controller work for one PCSG."""
        return []

    def pclq_pass(self, pcs: PCS, pclq: Obj, world: World) -> list[Action]:
        """The PodClique controller's pod work for one PodClique."""
        return sync_pods(pclq, world)

    # What the passes read besides their own object, for the work queue
    # (``register.py``): a selection maps the PodCliqueSet status to (a value, the
    # PodCliqueSet replicas the pass treats specially). A status change that changes
    # the value enqueues every object of the pass; one that only moves replicas in or
    # out enqueues theirs. A requeue says the pass's result depends on more than that
    # (it runs again next round).
    def pclq_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """What ``pclq_pass`` reads of the PodCliqueSet status (the plain pod sync: nothing)."""
        return ((), frozenset())

    def pclq_requeue(self, pcs: PCS, pclq: Obj, world: World) -> bool:
        """``pclq_pass`` of ``pclq`` runs again next round even without an event."""
        return False

    def pcsg_hooks_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """Like ``pclq_selection`` for ``may_create_pcsg_replica`` and
        ``surge_pcsg_replicas`` (read by the scaling-group controller's PodClique sync)."""
        return ((), frozenset())

    def pcsg_hooks_requeue(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return False

    def pcsg_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """Like ``pclq_selection`` for ``pcsg_pass``."""
        return ((), frozenset())

    def pcsg_requeue(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return False

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

