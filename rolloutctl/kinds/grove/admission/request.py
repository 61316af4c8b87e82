"""The admission request as the PodCliqueSet validating webhook sees it.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/handler.go`` (``ValidateCreate`` and
``ValidateUpdate`` decode the object and build a ``pcsValidator`` with ``newPCSValidator``,
``podcliqueset.go``; ``validatePodCliqueSetWithBackend`` picks the scheduler backend whose
own validation runs, :attr:`Check.scheduler_backend`). The defaulting webhook runs first
(``operator/internal/webhook/admission/pcs/defaulting/podcliqueset.go``, modelled in
``kinds/grove/defaults.py``). On update, the object sent is the manifest as ``kubectl
apply`` patches it in: a JSON merge patch for a custom resource, lists replaced whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.model import Obj
from ..defaults import default_pcs
from ..options import DEFAULT_CONFIG, GroveConfig
from .util import as_list, as_map, as_str, clique_scheduler_name


class Check:
    """What a rule sees, as ``newPCSValidator`` (podcliqueset.go) builds the validator:
    the object as the webhook sees it (defaulted), the object as written (``written``:
    to tell a user-set value from a default), the live object (``old``, defaulted)
    when the request is an update, and the operator configuration the handler was
    built with (``cfg``: ``Handler.networkConfig``)."""

    def __init__(self, obj: Obj, old: Obj | None = None, cfg: GroveConfig = DEFAULT_CONFIG) -> None:
        self.obj = obj
        self.cfg = cfg
        self.written: Mapping[str, Any] = (obj.written or obj).raw
        self.old: Mapping[str, Any] | None = default_pcs(dict(old.raw)) if old is not None else None
        # an update sends the manifest as kubectl apply builds it: for a custom resource a
        # JSON merge patch, which replaces lists (``cliques``) whole, so the webhook
        # defaults a clique's absent ``minAvailable`` afresh rather than keeping the live one
        self.pcs: Mapping[str, Any] = default_pcs(dict(obj.raw))
        self.creating = old is None

    # shortcuts over the defaulted object
    @property
    def name(self) -> str:
        return as_str(as_map(self.pcs.get("metadata")).get("name"))

    @property
    def spec(self) -> Mapping[str, Any]:
        return as_map(self.pcs.get("spec"))

    @property
    def template(self) -> Mapping[str, Any]:
        return as_map(self.spec.get("template"))

    @property
    def cliques(self) -> list[tuple[int, Mapping[str, Any]]]:
        return [(i, c) for i, c in enumerate(as_list(self.template.get("cliques"))) if isinstance(c, Mapping)]

    @property
    def groups(self) -> list[tuple[int, Mapping[str, Any]]]:
        return [(i, g) for i, g in enumerate(as_list(self.template.get("podCliqueScalingGroups")))
                if isinstance(g, Mapping)]

    @property
    def startup_type(self) -> Any:
        return self.template.get("cliqueStartupType")

    @property
    def update_type(self) -> str:
        return as_str(as_map(self.spec.get("updateStrategy")).get("type")) or "RollingRecreate"

    @property
    def scheduler_backend(self) -> str:
        """The scheduler backend whose ``ValidatePodCliqueSet`` the webhook runs
        (``handler.go`` ``validatePodCliqueSetWithBackend``): the first clique's
        ``schedulerName``, an empty one meaning the default profile
        (``registry.GetOrDefault``), ``default-scheduler`` as the operator configuration
        defaults it. The validator has already required every clique to name the same
        scheduler (GV009); a name no backend exists for is GV009's error too."""
        return clique_scheduler_name(next((cl for _, cl in self.cliques), {}))

    def scaling_group_clique_names(self) -> set[str]:
        """``getScalingGroupCliqueNames``."""
        return {n for _, g in self.groups for n in as_list(g.get("cliqueNames")) if isinstance(n, str)}
