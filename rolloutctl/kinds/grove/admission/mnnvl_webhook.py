"""The MNNVL part of the PodCliqueSet webhook: on create, a ``grove.io/mnnvl-group``
annotation must name a group (a DNS-1123 label) or ``none``, and only ``none`` is
accepted while MNNVL is off in the operator configuration (``autoMNNVLEnabled``, the
handler's ``networkConfig``: ``--grove-config``, the chart's ``false`` by default); on
update, the annotation cannot be added, removed or changed once the PodCliqueSet exists.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/mnnvl/webhook.go`` (``ValidatePCSOnCreate``,
``validateMNNVLAnnotationsOnCreate``; ``helpers.go`` ``ValidateMNNVLGroupName``),
(``ValidatePCSOnUpdate``,
``validatePodCliqueSetTemplateSpecOnUpdate``, ``validateMNNVLAnnotationsImmutability``)
over ``operator/internal/utils/kubernetes/annotations.go``
(``ValidateAnnotationsImmutability``). ``handler.go`` ``ValidateUpdate`` runs it on every
update, after the validator and whatever the validator found, and whether or not MNNVL
is enabled in the operator configuration (immutability is not an enablement question).

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ....core.k8s_syntax import is_dns1123_label
from ..names import A_MNNVL_GROUP as MNNVL_GROUP
from .request import Check
from .util import Problem, as_list, as_map, as_str, clique_path, group_path


def _annotations_immutability(old: Any, new: Any, base: tuple) -> Iterator[Problem]:
    """``ValidateAnnotationsImmutability`` for the one MNNVL key."""
    old_a, new_a = as_map(old), as_map(new)
    path = (*base, MNNVL_GROUP)
    had, has = MNNVL_GROUP in old_a, MNNVL_GROUP in new_a
    if not had and has:
        yield path, f"annotation {MNNVL_GROUP} cannot be added after creation"
    elif had and not has:
        yield path, f"annotation {MNNVL_GROUP} cannot be removed after creation"
    elif had and has and as_str(old_a.get(MNNVL_GROUP)) != as_str(new_a.get(MNNVL_GROUP)):
        yield path, (f"annotation {MNNVL_GROUP} is immutable and cannot be changed from "
                     f"{as_str(old_a.get(MNNVL_GROUP))!r} to {as_str(new_a.get(MNNVL_GROUP))!r}")


def _by_name(items: list) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for it in items:
        if isinstance(it, Mapping):
            out[as_str(it.get("name"))] = it  # a later duplicate wins, as in upstream's map
    return out


def validate_pcs_on_update(c: Check) -> Iterator[Problem]:
    """The ``grove.io/mnnvl-group`` annotation cannot be added, removed or changed after creation.

    Checked on the PodCliqueSet's own metadata, on each clique (matched by name with
    the live one; a new clique is left to the composition rule) and on each scaling
    group (matched by name). It applies whether or not MNNVL is enabled: ``none``,
    accepted on create, cannot be added later either. The annotation is part of the
    pod template, so without this rule the change would look like a rollout.

    Upstream: operator/internal/mnnvl/webhook.go#ValidatePCSOnUpdate

    Bad:
        # live: clique frontend without annotations
        cliques:
        - name: frontend
          annotations: {grove.io/mnnvl-group: none}

    Good:
        # live: clique frontend without annotations
        cliques:
        - name: frontend
          annotations: {team: serving}

    Remediation: Keep grove.io/mnnvl-group as it was created; to change it, create a new PodCliqueSet.
    """
    if c.old is None:
        return
    yield from _annotations_immutability(as_map(c.old.get("metadata")).get("annotations"),
                                         as_map(c.pcs.get("metadata")).get("annotations"), ("metadata", "annotations"))
    old_t = as_map(as_map(c.old.get("spec")).get("template"))
    old_cliques = _by_name(as_list(old_t.get("cliques")))
    for i, cl in c.cliques:
        old = old_cliques.get(as_str(cl.get("name")))
        if old is not None:
            yield from _annotations_immutability(old.get("annotations"), cl.get("annotations"), clique_path(i, "annotations"))
    old_groups = _by_name(as_list(old_t.get("podCliqueScalingGroups")))
    for i, g in c.groups:
        old = old_groups.get(as_str(g.get("name")))
        if old is not None:
            yield from _annotations_immutability(old.get("annotations"), g.get("annotations"), group_path(i, "annotations"))


#: what the tool adds to upstream's message: the setting it assumed, and how to say otherwise
NOT_ENABLED_HINT = ("modelled with the chart's autoMNNVLEnabled: false; --grove-config autoMNNVLEnabled=true "
                    "describes an operator with MNNVL on")

#: the opt-out value (``AnnotationMNNVLGroupOptOut``), accepted whether MNNVL is on or off
OPT_OUT = "none"


def _annotations_on_create(annotations: Any, base: tuple, auto_mnnvl_enabled: bool) -> Iterator[Problem]:
    """``validateMNNVLAnnotationsOnCreate`` for one set of annotations: the value's
    syntax (``ValidateMNNVLGroupName``), then, with MNNVL off, any value but ``none``."""
    a = as_map(annotations)
    if MNNVL_GROUP not in a:
        return
    value, path = as_str(a.get(MNNVL_GROUP)), (*base, MNNVL_GROUP)
    if value == "":
        yield path, "mnnvl-group value must not be empty"
    elif value != OPT_OUT and is_dns1123_label(value):
        yield path, f"mnnvl-group value {value!r} is not a valid DNS-1123 label: {'; '.join(is_dns1123_label(value))}"
    if not auto_mnnvl_enabled and value != OPT_OUT:
        yield path, (f"MNNVL is not enabled in the operator configuration. Either enable MNNVL globally or remove "
                     f"the {MNNVL_GROUP} annotation ({NOT_ENABLED_HINT})")


def validate_pcs_on_create(c: Check) -> Iterator[Problem]:
    """A ``grove.io/mnnvl-group`` annotation must name a group or ``none``, and only ``none`` while MNNVL is off.

    Checked on create, on the PodCliqueSet's own metadata, each clique and each scaling
    group: the value must not be empty and must be ``none`` or a DNS-1123 label; any
    value but ``none`` is refused while the operator configuration has MNNVL off
    (``autoMNNVLEnabled: false``, the Helm chart's default). An operator with MNNVL on
    is described with ``--grove-config autoMNNVLEnabled=true`` (plan, next, diff, lint,
    advise): group names are then accepted.

    Upstream: operator/internal/mnnvl/webhook.go#ValidatePCSOnCreate

    Bad:
        cliques:
        - name: worker
          annotations: {grove.io/mnnvl-group: nvl-a}   # MNNVL off

    Good:
        cliques:
        - name: worker
          annotations: {grove.io/mnnvl-group: none}

    Remediation: Remove the annotation (or set it to none), or enable MNNVL in the Grove operator configuration (and say so: --grove-config autoMNNVLEnabled=true).
    """
    if not c.creating:
        return
    on = c.cfg.auto_mnnvl_enabled
    yield from _annotations_on_create(as_map(c.pcs.get("metadata")).get("annotations"), ("metadata", "annotations"), on)
    for i, cl in c.cliques:
        yield from _annotations_on_create(cl.get("annotations"), clique_path(i, "annotations"), on)
    for i, g in c.groups:
        yield from _annotations_on_create(g.get("annotations"), group_path(i, "annotations"), on)
