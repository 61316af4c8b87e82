"""What each change to a PodCliqueSet will cause (``rolloutctl diff``).

Every decision here is taken by a function of the Grove model, never by a second
copy of an operator rule:

- ``rejected``: the PodCliqueSet validating webhook's rules, ``admission.validate(new, old)``
  (upstream ``operator/internal/webhook/admission/pcs/validation/``), e.g. an
  immutable ``minAvailable``; the impact names the rule;
- which clique's pods roll: the pod-template-hash inputs, ``hashing.pod_template_inputs``
  (upstream ``ComputePCLQPodTemplateHash``), of the defaulted old and new clique
  (``defaults.default_pcs``);
- scaling-group member or standalone: the PodCliqueSet view ``spec.PCS.group_of_clique``;
  a member clique's change recreates whole scaling-group replicas
  (upstream ``podcliquescalinggroup/components/podclique/rollingupdate.go``);
- the update strategy in force: ``spec.PCS.strategy_type`` (``ReplicaRecreate`` recreates
  whole PodCliqueSet replicas; ``OnDelete`` only patches PodCliques);
- ``spec.replicas`` only adds or removes replicas (``controllers.sync_standalone_podcliques``,
  ``sync_scaling_groups``); template ``replicas`` of cliques and scaling groups are read only
  when a PodClique or PodCliqueScalingGroup is created (same functions), so they do not
  touch existing objects; a scaling group's ``annotations`` are patched onto its existing
  PodCliqueScalingGroups (``patch_pcsg_metadata``);
- the PodCliqueSet's labels and annotations: which entries reach the PodGangs, from the
  PodGangs ``objects.build_podgang`` makes of the old and new PodCliqueSet (upstream
  ``podgang.go`` ``buildResource``: ``mirrorPCSMetadata`` skips ``grove.io/`` entries,
  and the operator's own labels win), and when: ``register.pcs_update_reconciles``
  (upstream ``podCliqueSetPredicate``) says whether the update itself makes the
  PodCliqueSet controller reconcile.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...core.diff import split_path
from ...core.paths import Key
from ...core.model import Change, Impact, Obj
from . import admission
from . import names as N
from . import objects as O
from .defaults import default_pcs
from .hashing import pod_template_inputs
from .register import pcs_update_reconciles
from .spec import PCS

#: the order in which impacts are listed: most disruptive first
EFFECT_ORDER = ("rejected", "teardown", "recreate", "rollout", "scale", "in-place", "ignored", "none")

_CLIQUES = ("spec", "template", "cliques")
_GROUPS = ("spec", "template", "podCliqueScalingGroups")


# ----------------------------------------------------------------------------- diff hooks


def defaults(raw: dict) -> dict:
    """Both sides of a diff are compared as the API server stores them: CRD defaults and
    the Grove defaulting webhook (``defaults.default_pcs``)."""
    return default_pcs(raw)


def order_matters(list_path: tuple) -> bool:
    """Reordering ``cliques`` changes the generation hash (computed in ``cliques`` order,
    ``hashing.compute_generation_hash``) and is refused under InOrder/Explicit startup;
    reordering any list inside a clique's pod spec changes its pod template hash (the
    hash renders the pod spec as written; upstream reverted an order-insensitive hash,
    PRs #566/#661). Other lists (e.g. ``podCliqueScalingGroups``) may be reordered freely."""
    if tuple(list_path) == _CLIQUES:
        return True
    return len(list_path) > 4 and tuple(list_path[:3]) == _CLIQUES and "podSpec" in list_path


# ----------------------------------------------------------------------------- classification


def classify(changes: Sequence[Change], desired: Obj, live: Obj) -> list[Impact]:
    """One impact per consequence, each with the paths of the changes that cause it."""
    if not changes:
        return []
    rejected = rejections(desired, live)
    if rejected:
        return rejected
    new, old = PCS(desired), PCS(live)
    parsed = [(c, split_path(c.path)) for c in changes]
    claimed: set[str] = set()
    impacts: list[Impact] = []

    # pod templates: which cliques roll, and how
    strategy = new.strategy_type
    recreated_groups: dict[str, list[str]] = {}
    for clique in new.cliques:
        before = old.clique_by_name.get(clique.name)
        if before is None:
            continue
        a = pod_template_inputs(before.raw, old.priority_class_name, before.stored)
        b = pod_template_inputs(clique.raw, new.priority_class_name, clique.stored)
        if a == b:
            continue
        paths = _template_paths(parsed, clique.name, a, b)
        claimed.update(paths)
        group = new.group_of_clique.get(clique.name)
        if old.replicas == 0:
            # no replica runs: no PodClique or pod exists to update (the PodCliqueSet controller's
            # replica loop has nothing to visit); replicas created later are built from the new template
            impacts.append(Impact("none", f"clique {clique.name}: pod template changed, but the PodCliqueSet has 0 "
                                  "replicas: no pod runs, so none is replaced (replicas created later get the new "
                                  "template)", tuple(paths)))
        elif strategy == "OnDelete":
            impacts.append(Impact("in-place", f"clique {clique.name}: pod template changed; under OnDelete its "
                                  "PodCliques are updated in place and existing pods keep the old template until "
                                  "you delete them", tuple(paths)))
        elif strategy == "ReplicaRecreate":
            impacts.append(Impact("recreate", f"clique {clique.name}: pod template changed; under ReplicaRecreate "
                                  "each PodCliqueSet replica is torn down and recreated as a whole", tuple(paths)))
        elif group is not None:
            recreated_groups.setdefault(group.name, []).extend(paths)
            impacts.append(Impact("recreate", f"clique {clique.name}: pod template changed; it is a member of "
                                  f"scaling group {group.name}, so every replica of {group.name} is deleted and "
                                  "recreated whole (all its cliques), one at a time", tuple(paths)))
        else:
            impacts.append(Impact("rollout", f"clique {clique.name}: pod template changed; its pods are replaced "
                                  f"one at a time ({strategy}, one PodCliqueSet replica at a time)", tuple(paths)))

    moved = _podgang_metadata_moves(old, new)
    reconciles = pcs_update_reconciles(live, desired)
    for c, seg in parsed:
        if c.path in claimed:
            continue
        if tuple(seg[:2]) in (("metadata", "labels"), ("metadata", "annotations")):
            impacts.append(_metadata_impact(c, seg, moved, reconciles))
            continue
        impacts.append(_field_impact(c, seg, new, old, strategy, recreated_groups, rolls=bool(claimed and old.replicas)))
    return _merge(impacts)


def rejections(desired: Obj, live: Obj) -> list[Impact]:
    """The webhook's verdict on the update, one impact per error finding."""
    names = {r.id: r.name for r in admission.RULES}
    out = []
    for f in admission.validate(desired, live):
        if f.severity != "error":
            continue
        rule = f"{f.rule} {names[f.rule]}" if f.rule in names else f.rule
        where = f"{f.path}: " if f.path else ""
        out.append(Impact("rejected", f"{rule}: {where}{f.message}; the PodCliqueSet webhook refuses the whole "
                          "update", (f.path,) if f.path else ()))
    return out


def _template_paths(parsed: list[tuple[Change, list[Any]]], clique: str, a: Mapping[str, Any],
                    b: Mapping[str, Any]) -> list[str]:
    """The changes that feed the inputs of ``clique``'s pod template hash that differ.
    ``pod_template_inputs`` takes the clique's ``labels``, ``annotations`` and
    ``spec.podSpec``, with the template's ``priorityClassName`` injected into the pod spec."""
    prefixes: list[tuple] = []
    base = (*_CLIQUES, Key("name", clique))
    for k in sorted(set(a) | set(b)):
        if a.get(k) == b.get(k):
            continue
        if k == "podSpec":
            prefixes += [(*base, "spec", "podSpec"), ("spec", "template", "priorityClassName")]
        else:
            prefixes.append((*base, k))
    out = []
    for c, seg in parsed:
        t = tuple(seg)
        if any(t[:len(p)] == p or p[:len(t)] == t for p in prefixes) and t != _CLIQUES:
            out.append(c.path)
    return out


def _field_impact(c: Change, seg: list[Any], new: PCS, old: PCS, strategy: str,
                  recreated_groups: Mapping[str, list[str]], rolls: bool = False) -> Impact:
    """The impact of one change that is not a pod-template input (``rolls``: pod
    templates of running replicas change in the same apply)."""
    t = tuple(seg)
    if t == ("spec", "replicas"):
        return Impact("scale", _replicas_message(c), (c.path,))
    if t == _CLIQUES:
        # (under InOrder/Explicit startup the webhook refuses a reordering: see ``rejections``)
        return Impact("none", "cliques reordered: the generation hash changes and every replica is visited, "
                      "but no clique's pod template changes, so no pod is replaced", (c.path,))
    if t[:3] == _CLIQUES and len(t) >= 5 and isinstance(t[3], Key):
        clique = t[3].value
        rest = t[4:]
        if rest == ("spec", "replicas"):
            group = new.group_of_clique.get(clique)
            if group is not None and group.name in recreated_groups or strategy == "ReplicaRecreate":
                return Impact("recreate", f"clique {clique}: new replicas apply to the PodCliques recreated by "
                              "this update", (c.path,))
            if group is not None and strategy == "OnDelete":
                # createOrUpdatePCLQs rebuilds every member: GROVE_PCSG_TEMPLATE_NUM_PODS moves
                return Impact("in-place", f"clique {clique}: existing PodCliques keep their replicas, but under "
                              f"OnDelete every member PodClique of scaling group {group.name} is patched with the "
                              "group's new template size (env GROVE_PCSG_TEMPLATE_NUM_PODS), which pods created "
                              "later see; no pod is replaced", (c.path,))
            return Impact("ignored", f"clique {clique}: replicas is read only when a PodClique is created; "
                          "existing PodCliques keep their replicas (new PodCliqueSet replicas and recreated "
                          "scaling-group replicas use it)", (c.path,))
        if rest[:2] == ("spec", "autoScalingConfig"):
            return Impact("in-place", f"clique {clique}: its HorizontalPodAutoscaler is updated; no pod is replaced",
                          (c.path,))
        if rest[:3] == ("spec", "podSpec", "priorityClassName"):
            return _clique_priority_impact(c, clique, new, strategy)
        if rest[:1] in (("labels",), ("annotations",)) or rest[:2] == ("spec", "podSpec"):
            # an input of the pod template hash that the hash does not tell apart
            return Impact("none", f"clique {clique}: the pod template is the same once Go decodes it (a plain "
                          "field's zero value, such as false, 0 or \"\", is its absence; a quantity's number and "
                          "its text are kept), so the pod template hash "
                          "does not change (utils/kubernetes/pod.go ComputeHash); no pod is replaced", (c.path,))
    if t[:3] == _GROUPS and len(t) >= 5 and isinstance(t[3], Key):
        group = t[3].value
        rest = t[4:]
        if rest == ("replicas",):
            return Impact("ignored", f"scaling group {group}: replicas is read only when a PodCliqueScalingGroup "
                          "is created; existing ones keep their replicas", (c.path,))
        if rest[:1] == ("annotations",):
            # buildResource patches labels and annotations of existing PodCliqueScalingGroups on every sync
            return Impact("in-place", f"scaling group {group}: its PodCliqueScalingGroups' annotations are patched; "
                          "no pod is replaced", (c.path,))
        if rest[:1] == ("scaleConfig",):
            return Impact("in-place", f"scaling group {group}: its HorizontalPodAutoscaler is updated; no pod is "
                          "replaced", (c.path,))
    if t[:3] == ("spec", "template", "headlessServiceConfig"):
        return Impact("in-place", "the headless Services of every replica are updated in place", (c.path,))
    if t[:2] == ("spec", "updateStrategy"):
        if rolls:  # the operator reads the strategy in the same reconcile as the new templates
            return Impact("none", f"the update strategy ({strategy}) is the one this change's pod-template edits "
                          "roll out under (the operator reads it in the same reconcile)", (c.path,))
        return Impact("none", "the update strategy applies to the next pod-template change; nothing rolls now",
                      (c.path,))
    return Impact("none", "not part of any pod template: no pod is replaced", (c.path,))


def _podgang_metadata_moves(old: PCS, new: PCS) -> dict[str, set[str]]:
    """The label and annotation keys whose value on a PodGang differs between the old
    and the new PodCliqueSet: what ``mirrorPCSMetadata`` carries over (not ``grove.io/``
    entries, nor the labels the operator sets itself: ``getLabels``, which win)."""
    a = O.build_podgang(old, old.name, [])["metadata"]
    b = O.build_podgang(new, new.name, [])["metadata"]
    out = {}
    for which in ("labels", "annotations"):
        x, y = a.get(which) or {}, b.get(which) or {}
        out[which] = {k for k in set(x) | set(y) if x.get(k) != y.get(k)}
    return out


def _metadata_impact(c: Change, seg: list[Any], moved: Mapping[str, set[str]], reconciles: bool) -> Impact:
    """A change of the PodCliqueSet's labels or annotations (one entry, or the whole map).
    Upstream: ``podgang.go`` ``buildResource`` mirrors them onto every PodGang when the
    PodCliqueSet controller reconciles; ``register.go`` ``podCliqueSetPredicate`` lets an
    update through only on a generation change or a changed ``grove.io/reconcile-trigger``,
    and neither labels nor annotations bump the generation."""
    which = str(seg[1])
    if len(seg) >= 3:
        keys = {str(seg[2])}
    else:
        a = c.old if isinstance(c.old, Mapping) else {}
        b = c.new if isinstance(c.new, Mapping) else {}
        keys = {str(k) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    if keys & moved[which]:
        skipped = sorted(keys - moved[which])
        but = f" (not {', '.join(skipped)}: grove.io/ entries are not mirrored, the operator's own labels win)" \
            if skipped else ""
        when = "in the reconcile this update triggers" if reconciles else (
            "at the PodCliqueSet's next reconcile, which this update does not start (register.go "
            "podCliqueSetPredicate lets an update through on a generation change or a changed "
            f"{N.A_RECONCILE_TRIGGER} annotation, and labels and annotations leave the generation as it is): within "
            "seconds while a rolling update or a minAvailable breach keeps the controller requeueing, else when "
            "something else brings one")
        return Impact("in-place", f"the PodCliqueSet's {which}{but} are mirrored onto every PodGang {when}; no pod is "
                      "replaced", (c.path,))
    if which == "annotations" and N.A_RECONCILE_TRIGGER in keys:
        return Impact("none", f"{N.A_RECONCILE_TRIGGER} changed: the PodCliqueSet controller reconciles (register.go "
                      "podCliqueSetPredicate); no pod is replaced", (c.path,))
    own = sorted(k for k in keys if not k.startswith("grove.io/"))
    if which == "labels" and own:
        return Impact("none", f"label {', '.join(own)}: the operator sets its own value on every PodGang, over the "
                      "PodCliqueSet's (podgang.go buildResource: getLabels wins over mirrorPCSMetadata); nothing is "
                      "mirrored, no pod is replaced", (c.path,))
    return Impact("none", "not part of any pod template: no pod is replaced", (c.path,))


def _clique_priority_impact(c: Change, clique: str, new: PCS, strategy: str) -> Impact:
    """A clique's own ``podSpec.priorityClassName``: the pod template hash takes the
    PodCliqueSet's instead (``ComputePCLQPodTemplateHash``), so no pod rolls, but the
    PodClique specs that get patched carry it into every pod made later. Standalone
    PodCliques are patched on every sync (``podcliqueset/components/podclique``
    ``buildResource``); scaling-group members only under OnDelete (``podcliquescalinggroup/
    components/podclique/sync.go``: ``createOrUpdatePCLQs``, else ``createExpectedPCLQs``)."""
    if new.group_of_clique.get(clique) is None or strategy == "OnDelete":
        return Impact("in-place", f"clique {clique}: its PodCliques' pod spec is patched in place; running pods keep "
                      "their priority class, pods created later get the new one; no pod is replaced", (c.path,))
    return Impact("ignored", f"clique {clique}: a scaling-group member's PodCliques are not patched under {strategy}; "
                  "only PodCliques created later (new or recreated replicas) get it; no pod is replaced", (c.path,))


def _replicas_message(c: Change) -> str:
    old, new = c.old if isinstance(c.old, int) else 0, c.new if isinstance(c.new, int) else 0
    if new > old:
        idx = f"{old}" if new - old == 1 else f"{old}-{new - 1}"
        return f"replicas {old} → {new}: replica {idx} is created with all its children; nothing is replaced"
    idx = f"{new}" if old - new == 1 else f"{new}-{old - 1}"
    return f"replicas {old} → {new}: replica {idx} is deleted with all its children; nothing else is touched"


def _merge(impacts: list[Impact]) -> list[Impact]:
    """Impacts with the same effect and message become one, with all their paths."""
    merged: dict[tuple[str, str], list[str]] = {}
    for i in impacts:
        paths = merged.setdefault((i.effect, i.message), [])
        paths.extend(p for p in i.paths if p not in paths)
    out = [Impact(e, m, tuple(sorted(p))) for (e, m), p in merged.items()]
    return sorted(out, key=lambda i: (EFFECT_ORDER.index(i.effect) if i.effect in EFFECT_ORDER else 99, i.message))
