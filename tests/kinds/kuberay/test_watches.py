"""The RayService controller's watches as data (``rayservice_controller.CONTROLLER``,
upstream ``SetupWithManager``): every kind a ``Reconcile`` pass reads is either watched
or listed as read without a watch (with the reason), and the event handlers map events
to RayService keys as controller-runtime's predicates and ``EnqueueRequestForOwner`` do."""

from __future__ import annotations

import copy

from rolloutctl.core.model import Obj
from rolloutctl.core.world import World
from rolloutctl.kinds.kuberay.api import RC, RS, SVC
from rolloutctl.kinds.kuberay.model import RayServiceModel
from rolloutctl.kinds.kuberay.rayservice_controller import (CONTROLLER, NOT_WATCHED, owning_rayservice,
                                                            rayservice_event)

from .helpers import base, incremental, new_image, plan, settled


def _kinds_read_by_passes(monkeypatch, runs) -> set[str]:
    read: set[str] = set()
    active = [False]
    run_pass = RayServiceModel.run_pass

    def recording(self, desired, world):
        active[0] = True
        try:
            return run_pass(self, desired, world)
        finally:
            active[0] = False

    def wrap(name):
        orig = getattr(World, name)

        def method(self, kind, *args, **kwargs):
            if active[0]:
                read.add(kind)
            return orig(self, kind, *args, **kwargs)

        monkeypatch.setattr(World, name, method)

    for name in ("get", "of_kind", "index", "select"):
        wrap(name)
    monkeypatch.setattr(RayServiceModel, "run_pass", recording)
    for desired, observed in runs:
        plan(desired, observed)
    return read


def test_every_kind_a_pass_reads_is_watched_or_said_why_not(monkeypatch):
    old = base()
    runs = [(new_image(old), settled(old)), (new_image(incremental(old)), settled(incremental(old))), (old, None)]
    read = _kinds_read_by_passes(monkeypatch, runs)
    watched = {w.kind for w in CONTROLLER.watches}
    assert CONTROLLER.kind == RS and RS in watched
    assert read == watched | set(NOT_WATCHED), (read, watched)
    assert not watched & set(NOT_WATCHED)
    assert all("SetupWithManager" in w.upstream for w in CONTROLLER.watches)


def _with(raw: dict, **md) -> Obj:
    d = copy.deepcopy(raw)
    d["metadata"].update(md)
    return Obj(d)


def test_the_rayservice_predicates_ignore_status_only_updates():
    rs = base()
    rs["metadata"]["generation"] = 1
    old = Obj(rs)
    w = World([old])
    status_only = copy.deepcopy(rs)
    status_only["status"] = {"serviceStatus": "Running"}
    assert rayservice_event(old, Obj(status_only), w) == []
    assert rayservice_event(old, _with(rs, generation=2), w) == ["text-ml"]  # GenerationChangedPredicate
    assert rayservice_event(old, _with(rs, labels={"team": "ads"}), w) == ["text-ml"]  # LabelChangedPredicate
    assert rayservice_event(old, _with(rs, annotations={"a": "b"}), w) == ["text-ml"]  # AnnotationChanged
    assert rayservice_event(None, old, w) == ["text-ml"] and rayservice_event(old, None, w) == ["text-ml"]


def test_owned_objects_enqueue_their_controller_owner_only():
    def owned(kind, refs):
        return Obj({"apiVersion": "v1", "kind": kind, "metadata": {"name": "x", "namespace": "ml-serving",
                                                                   "ownerReferences": refs}})

    ctrl = {"apiVersion": "ray.io/v1", "kind": RS, "name": "text-ml", "controller": True}
    plain = {"apiVersion": "ray.io/v1", "kind": RS, "name": "other"}
    assert owning_rayservice(None, owned(RC, [ctrl, plain]), World()) == ["text-ml"]
    assert owning_rayservice(owned(SVC, [plain]), None, World()) == []
    moved = dict(ctrl, name="new-owner")
    assert owning_rayservice(owned(SVC, [ctrl]), owned(SVC, [moved]), World()) == ["text-ml", "new-owner"]
