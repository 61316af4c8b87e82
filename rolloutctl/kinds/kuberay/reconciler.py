"""What one call of the RayService controller's ``Reconcile`` works with: the RayService
it read, the status it builds, the informer cache with the pass's own writes, and how
the pass ends (controller-runtime's requeue).

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``RayServiceReconciler`` and ``updateStatusIfChanged``;
``ray-operator/controllers/ray/common/association.go``
``RayServiceRayClustersAssociationOptions``. The rule functions of
``rayservice_controller.py``, ``suspend.py``, ``incremental_upgrade.py`` and ``status.py``
take a :class:`Reconciler` as their first argument, as the Go methods take ``r``.

Objects created in a pass are visible to later steps of the same pass, except the
Gateway (``incremental_upgrade.reconcile_gateway``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Action, Obj
from ...core.trees import copy_tree
from ...core.world import World
from .api import L_CRD, L_NAME, REQUEUE, RS, display, rule
from .consistency import inconsistent_ray_service_statuses
from .operator import OperatorConfig


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


#: How a pass ends, as controller-runtime requeues it (``ctrl.Result`` / error).
REQUEUE_2S = f"requeue in {REQUEUE} s"
REQUEUE_NONE = "no requeue (the next pass comes with a change to the RayService or an object it owns)"
REQUEUE_BACKOFF = "requeue with controller-runtime's backoff (the pass returns an error)"


class Stop(Exception):
    """An early return of ``Reconcile`` (error or short-circuit), with how it requeues."""

    def __init__(self, result: str = REQUEUE_2S, why: str = "") -> None:
        super().__init__(why)
        self.result = result
        self.why = why



class Reconciler:
    """One call of ``RayServiceReconciler.Reconcile``: ``actions`` is what it does,
    ``result`` how upstream requeues after it and ``why`` what it waits for."""

    def __init__(self, desired: Obj, world: World, config: OperatorConfig, version: str) -> None:
        self.config = config
        self.version = version
        self.d = desired
        self.w = world
        self.ns = desired.namespace
        self.name = desired.name
        self.now = world.now
        self.actions: list[Action] = []
        self.rs = world.get(RS, self.ns, self.name)
        self.orig: dict = copy_tree(dict(self.rs.status)) if self.rs else {}
        self.written: dict = self.orig  # (both only read; a status write sets a copy of ``st``)
        self.st: dict = copy_tree(self.orig)
        self.objs: dict[tuple, Obj | None] = {}  # objects written in this pass
        self.gen = int((self.rs.metadata.get("generation") if self.rs else None) or 1)
        #: how this pass ends (upstream's requeue) and, for an early return, why
        self.result = REQUEUE_2S
        self.why = ""

    def get(self, kind: str, name: str | None) -> Obj | None:
        """The object as this pass sees it: its own writes first, then the informer cache."""
        if not name:
            return None
        k = (kind, self.ns, name)
        if k in self.objs:
            return self.objs[k]
        return self.w.get(kind, self.ns, name)

    def assoc(self, kind: str) -> list[Obj]:
        """``common.RayServiceRayClustersAssociationOptions``: namespace + the two labels."""
        labels = {L_NAME: self.name, L_CRD: "RayService"}
        seen = {o.name: o for o in self.w.select(kind, labels) if o.namespace == self.ns}
        for (k, ns, n), o in self.objs.items():
            if k == kind and ns == self.ns:
                if o is None:
                    seen.pop(n, None)
                elif all(o.labels.get(a) == b for a, b in labels.items()):
                    seen[n] = o
        return [seen[n] for n in sorted(seen)]

    def act(self, verb: str, kind: str, name: str, reason: str, fn: str, *, payload: Mapping | None = None,
            fields: Mapping | None = None, role: str | None = None, revision: str | None = None,
            rule_str: str | None = None) -> None:
        """Record an action; a create or update is visible to the rest of the pass."""
        self.actions.append(Action(verb=verb, kind=kind, name=display(name) or name, namespace=self.ns,
                                   reason=reason, rule=rule_str or rule(fn), role=role, revision=revision,
                                   fields=dict(fields or {}), payload=payload,
                                   uid=name if display(name) != name else None))
        if verb in ("create", "update") and payload is not None:
            self.objs[(kind, self.ns, name)] = Obj(payload)

    def rs_view(self) -> dict:
        """The RayService the controller reads: the desired spec under the live name."""
        return {"metadata": {"name": self.name, "namespace": self.ns}, "spec": dict(self.d.spec)}

    def role_of(self, cluster: str) -> str | None:
        """The role of ``cluster`` in the status being built: active, pending or None."""
        if cluster == self.active_name():
            return "active"
        if cluster == self.pending_name():
            return "pending"
        return None

    def active_name(self) -> str:
        """The active cluster's name in the status being built."""
        return str(_m(self.st.get("activeServiceStatus")).get("rayClusterName") or "")

    def pending_name(self) -> str:
        """The pending cluster's name in the status being built."""
        return str(_m(self.st.get("pendingServiceStatus")).get("rayClusterName") or "")

    def sub(self, which: str) -> dict:
        """A writable copy of ``activeServiceStatus`` or ``pendingServiceStatus`` in the status being built."""
        s = dict(_m(self.st.get(which)))
        self.st[which] = s
        return s

    def write_status(self, fn: str, reason: str) -> None:
        """``updateStatusIfChanged`` / the final ``Status().Update``: only when
        ``InconsistentRayServiceStatuses`` reports a difference."""
        if not inconsistent_ray_service_statuses(self.written, self.st):
            return
        assert self.rs is not None
        raw = dict(self.rs.raw)
        raw["status"] = copy_tree(self.st)
        raw["status"]["lastUpdateTime"] = self.now
        fields = status_fields(self.written, self.st)
        self.actions.append(Action("status", RS, self.name, self.ns, reason, rule(fn), fields=fields, payload=raw))
        self.written = copy_tree(self.st)

    def role_of_world(self, cluster: str) -> str | None:
        """The role of ``cluster`` in the status the pass started from."""
        if self.rs is None:
            return None
        o = _m(self.rs.status)
        if cluster == _m(o.get("activeServiceStatus")).get("rayClusterName"):
            return "active"
        if cluster == _m(o.get("pendingServiceStatus")).get("rayClusterName"):
            return "pending"
        return None


def status_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """What a status write changes, compactly (condition = "Status/Reason")."""
    out: dict[str, Any] = {}
    oc = {c.get("type"): c for c in _l(old.get("conditions"))}
    for c in _l(new.get("conditions")):
        o = oc.pop(c.get("type"), None)
        if o is None or (o.get("status"), o.get("reason")) != (c.get("status"), c.get("reason")):
            out.setdefault("conditions", {})[c.get("type")] = f"{c.get('status')}/{c.get('reason')}"
    for t in oc:
        out.setdefault("conditions", {})[t] = "removed"
    for k in ("numServeEndpoints", "serviceStatus", "observedGeneration"):
        if old.get(k) != new.get(k) and (old.get(k) or new.get(k)):
            out[k] = new.get(k)
    for k in ("activeServiceStatus", "pendingServiceStatus"):
        o, n = _m(old.get(k)), _m(new.get(k))
        if (o.get("rayClusterName") or "") != (n.get("rayClusterName") or ""):
            out[f"{k}.rayClusterName"] = display(n.get("rayClusterName")) or ""
        for f in ("targetCapacity", "trafficRoutedPercent"):
            if o.get(f) != n.get(f):
                out[f"{k}.{f}"] = n.get(f)
        oa = {a: _m(v).get("status") for a, v in _m(o.get("applicationStatuses")).items()}
        na = {a: _m(v).get("status") for a, v in _m(n.get("applicationStatuses")).items()}
        if oa != na:
            out[f"{k}.applicationStatuses"] = dict(sorted(na.items()))
    return out


def outcome_text(p: Reconciler) -> str:
    """How the pass ends, as one line: what it waits for and how it requeues."""
    return f"{p.why}; {p.result}" if p.why else p.result
