"""The MNNVL part of the PodCliqueSet webhook's update: the ``grove.io/mnnvl-group``
annotation cannot be added, removed or changed once the PodCliqueSet exists.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/mnnvl/webhook.go`` (``ValidatePCSOnUpdate``,
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
