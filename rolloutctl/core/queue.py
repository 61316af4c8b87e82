"""Controllers as controller-runtime wires them, and the work queue a plan's rounds
take keys from.

An operator is a set of controllers. Each one reconciles one kind (``For``), watches
others (``Owns``, ``Watches``), and a watch turns an event on a watched object into
the keys it enqueues (an event handler, after the watch's predicates). A real
controller's work queue hands each enqueued key to ``Reconcile(key)`` once; a key
whose reconcile wrote something or asked to be requeued comes back.

A model declares its controllers as data (``Controller``, ``Watch``) next to the
rules they run, each naming the upstream builder call it models. The driver
(``core/simulate.py``) owns one ``WorkQueue`` per plan, as a controller manager owns
its queues, and passes it to the model's round: the round asks ``take`` which keys to
reconcile (the keys the events since the controller last ran map to, plus those
requeued), reconciles exactly those in key order, and reports back through
``requeue``. The rules themselves stay plain functions of (object, world).

A queue made with ``everything=True`` enqueues every key every round: the reference
the tests compare the queue against (the same plans, step for step).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from .model import Obj
from .records import record
from .world import Key, World

#: ``Watch.enqueue``: (object before, object after, the world now) -> names of the
#: controller's objects to enqueue, or None for every one of them (a resync)
Handler = Callable[[Obj | None, Obj | None, World], Iterable[str] | None]


@record(frozen=True)
class Watch:
    """One watch of a controller: events on ``kind`` objects, through ``enqueue``.
    ``upstream``: the builder call, handler and predicate it models."""

    kind: str
    enqueue: Handler
    upstream: str


@record(frozen=True)
class Controller:
    """A controller: the kind it reconciles, what it watches, where upstream wires it."""

    name: str
    kind: str
    watches: tuple[Watch, ...]
    upstream: str



def own_name(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """``For(kind)``: an event on a reconciled object enqueues that object."""
    o = new if new is not None else old
    return [o.name] if o is not None else []


def by_controller_owner(kind: str) -> Handler:
    """controller-runtime's ``handler.EnqueueRequestForOwner(..., owner, OnlyControllerOwner())``
    (what ``Owns`` installs): an event on an object enqueues the ``kind`` object named by
    its controller owner reference, before and after the event (same namespace)."""

    def enqueue(old: Obj | None, new: Obj | None, world: World) -> list[str]:
        out: list[str] = []
        for o in (old, new):
            if o is None:
                continue
            for ref in o.owner_references:
                if ref.get("kind") == kind and ref.get("controller") is True and ref.get("name") not in out:
                    out.append(str(ref.get("name")))
        return out

    return enqueue


class by_label:
    """An event enqueues the object named by ``label`` on the event's object, before
    and after (``EnqueueRequestForOwner`` and the map functions that read an owner's
    name from a label). A handler that is data: the queue reads ``label`` itself
    (``_enqueued``) instead of calling it for every event."""

    __slots__ = ("label",)

    def __init__(self, label: str) -> None:
        self.label = label

    def __call__(self, old: Obj | None, new: Obj | None, world: World) -> list[str]:
        label = self.label
        out = []
        for o in (old, new):
            if o is not None:
                v = o.labels.get(label)
                if v is not None and v not in out:
                    out.append(v)
        return out


@record
class _State:
    token: object  # the round input world this controller saw last
    pending: set[str]  # keys requeued by its last reconciles
    local: set[str] | None  # keys the round's earlier passes enqueued then (None: every key)


class WorkQueue:
    """The work queues of one plan: per controller and scope (the object a model plans,
    e.g. one PodCliqueSet), the world it last saw and the keys it requeued."""

    def __init__(self, everything: bool = False) -> None:
        self.everything = everything
        self._states: dict[tuple[str, Any], _State] = {}
        self._inputs: dict[tuple[str, Any], Any] = {}
        self._idle: object = None

    def take(self, controller: Controller, scope: Any, base: World, world: World) -> set[str] | None:
        """The keys ``controller`` reconciles now, on ``world`` (derived by the round's
        earlier controllers from the round's input world ``base``): those the events
        since it last ran map to, and those it requeued. None: every key (the first
        round, as an informer's initial list enqueues every object; a world the queue
        cannot relate to the last one; ``everything``).

        The events come from three change sets: from the input world it saw last to
        this one, from this one to ``world`` (the round's earlier passes), and the
        last round's earlier passes (its input world had not seen them, and what the
        controller did on them may be undone since)."""
        key = (controller.name, scope)
        st = self._states.get(key)
        table = _watch_table(controller)
        local = _enqueued(table, world, base.token, world)
        if st is None:
            self._states[key] = _State(base.token, set(), local)
            return None
        last_token, last_local = st.token, st.local
        st.token, st.local = base.token, local
        if self.everything or local is None or last_local is None:
            return None
        main = _enqueued(table, base, last_token, world)
        if main is None:
            return None
        return st.pending | main | local | last_local

    def requeue(self, controller: Controller, scope: Any, names: Iterable[str]) -> None:
        """The keys whose reconcile just ran and must run again next round (it wrote
        something, or its result depends on more than its watches report: upstream's
        ``Requeue``/``RequeueAfter``). Every other key just taken is done."""
        self._states[(controller.name, scope)].pending = set(names)

    def inputs(self, controller: Controller, scope: Any, value: Any) -> Any:
        """Record what ``controller``'s keys were computed from this round (a hashable
        value, e.g. the replicas its expected objects follow) and return the value of
        the last round (None: not known). A pass compares them to add the keys whose
        expected objects moved."""
        k = (controller.name, scope)
        prev = self._inputs.get(k)
        self._inputs[k] = value
        return prev

    # the driver's side ------------------------------------------------------------
    def idle(self, world: World) -> None:
        """The round on ``world`` found nothing to do (then time may pass)."""
        self._idle = world.token

    def was_idle(self, world: World) -> bool:
        return self._idle is world.token


def _watch_table(controller: Controller) -> dict[str, tuple[list[str], list[Handler]]]:
    """Per watched kind: the labels of its ``by_label`` watches (read by ``_enqueued``)
    and its other handlers (called)."""
    by_kind: dict[str, tuple[list[str], list[Handler]]] = {}
    for w in controller.watches:
        labels, handlers = by_kind.setdefault(w.kind, ([], []))
        if isinstance(w.enqueue, by_label):
            labels.append(w.enqueue.label)
        else:
            handlers.append(w.enqueue)
    return by_kind


def _enqueued(table: Mapping[str, tuple[list[str], list[Handler]]], changed: World, token: object,
              world: World) -> set[str] | None:
    """The keys enqueued by the events from the world ``token`` came from to ``changed``
    (only the watched kinds' changes are looked at; handlers see ``world``, the world
    the controller reconciles); None: every key (a handler asks for a resync, or those
    changes are not known)."""
    of_kind = changed.changes_by_kind_since(token)
    if of_kind is None:
        return None
    out: set[str] = set()
    add = out.add
    for kind, (labels, handlers) in table.items():
        for _k, old, new in of_kind(kind):
            for label in labels:
                if old is not None:
                    v = old.labels.get(label)
                    if v is not None:
                        add(v)
                if new is not None:
                    v = new.labels.get(label)
                    if v is not None:
                        add(v)
            for h in handlers:
                got = h(old, new, world)
                if got is None:
                    return None
                out.update(got)
    return out


class Round:
    """One round's side of the work queue for the object a model plans (``scope``):
    what its passes call. Without a queue (``EVERY_KEY``) every pass gets every key
    and nothing is remembered, as on a controller's start."""

    def __init__(self, queue: WorkQueue | None, scope: tuple, base: World | None) -> None:
        self.queue, self.scope, self.base = queue, scope, base

    def keys(self, ctl: Controller, world: World, scope: tuple = ()) -> set[str] | None:
        """The keys ``ctl`` reconciles on ``world`` (None: every one); ``scope``: what
        else its keys depend on (a new scope starts from every key)."""
        if self.queue is None or self.base is None:
            return None
        return self.queue.take(ctl, self.scope + scope, self.base, world)

    def inputs(self, ctl: Controller, value: Any, scope: tuple = ()) -> Any:
        """``WorkQueue.inputs``; None without a queue."""
        return self.queue.inputs(ctl, self.scope + scope, value) if self.queue is not None else None

    def done(self, ctl: Controller, again: list[str], scope: tuple = ()) -> None:
        """``WorkQueue.requeue``; nothing without a queue."""
        if self.queue is not None:
            self.queue.requeue(ctl, self.scope + scope, again)


#: the round of a pass called without a work queue: every key, nothing remembered
EVERY_KEY = Round(None, (), None)
