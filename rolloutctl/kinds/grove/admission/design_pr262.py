"""Validation rules of the proposed update-strategy design (``RollingUpdate`` and
``ReplicaRecreate``, ``maxUnavailable``/``maxSurge`` at every level), which the Grove
operator does not implement at the modelled commit
fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24.

Upstream: ai-dynamo/grove PR #262, ``docs/designs/update-strategy.md`` (sections "API
Changes" and "Validation Webhook"). :func:`scaled_value` models apimachinery's
``intstr.GetScaledValueFromIntOrPercent`` and is the one rounding the planner's budgets use.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .request import Check
from .util import Path, Problem, as_int, as_map, clique_path, group_path

# Update strategies of the proposed design (PR #262).
DESIGN_STRATEGIES = ("RollingUpdate", "ReplicaRecreate")
_PERCENT_RE = re.compile(r"^(\d+)%$")


def _budget_fields(c: Check) -> Iterator[tuple[Path, Mapping[str, Any], str, int | None]]:
    """Every proposed maxUnavailable/maxSurge holder: (path, mapping, level, replicas at that level)."""
    us = as_map(c.spec.get("updateStrategy"))
    if isinstance(us.get("rollingUpdate"), Mapping):
        yield ("spec", "updateStrategy", "rollingUpdate"), us["rollingUpdate"], "PodCliqueSet", as_int(c.spec.get("replicas"))
    for i, cl in c.cliques:
        if isinstance(cl.get("updateStrategy"), Mapping):
            yield clique_path(i, "updateStrategy"), cl["updateStrategy"], "PodClique", as_int(as_map(cl.get("spec")).get("replicas"))
    for gi, g in c.groups:
        if isinstance(g.get("updateStrategy"), Mapping):
            yield group_path(gi, "updateStrategy"), g["updateStrategy"], "PodCliqueScalingGroup", as_int(g.get("replicas"))


def scaled_value(value: Any, total: int, round_up: bool) -> int | None:
    """``intstr.GetScaledValueFromIntOrPercent``: an int, or a percentage of ``total``
    rounded up (maxSurge) or down (maxUnavailable). None when malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        m = _PERCENT_RE.fullmatch(value.strip())
        if m:
            v = int(m.group(1)) * total / 100
            return math.ceil(v) if round_up else math.floor(v)
        if value.strip().lstrip("-").isdigit():
            return int(value)
    return None


def proposed_update_strategy_fields(c: Check) -> Iterator[Problem]:
    """The manifest uses update-strategy fields of the proposed design that the Grove
    operator does not implement yet.

    ``spec.updateStrategy.type: RollingUpdate | ReplicaRecreate``,
    ``spec.updateStrategy.rollingUpdate`` and ``updateStrategy`` on cliques and scaling
    groups come from the design discussion; the API server of a current Grove release
    rejects or drops them. rolloutctl plans them as the design describes.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "API Changes")

    Bad:
        spec:
          updateStrategy: {type: ReplicaRecreate}

    Good:
        spec:
          updateStrategy: {type: RollingRecreate}

    Remediation: Use them only to compare strategies with `rolloutctl plan --compare`, not against a live cluster.
    """
    us = as_map(as_map(c.written.get("spec")).get("updateStrategy"))
    if us.get("type") in DESIGN_STRATEGIES:
        yield ("spec", "updateStrategy", "type"), (
            f"updateStrategy.type {us.get('type')} is proposed (PR #262), not implemented by the Grove operator yet")
    for path, _m, level, _r in _budget_fields(c):
        yield path, f"{level} {path[-1]} is proposed (PR #262), not implemented by the Grove operator yet"


def validate_update_budget_non_negative(c: Check) -> Iterator[Problem]:
    """``maxUnavailable`` and ``maxSurge`` must not be negative, at any level.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy: {maxUnavailable: -1}

    Good:
        updateStrategy: {maxUnavailable: 1}

    Remediation: Use 0 or more (or a percentage).
    """
    for path, m, _level, _r in _budget_fields(c):
        for key in ("maxUnavailable", "maxSurge"):
            v = m.get(key)
            if v is None:
                continue
            n = scaled_value(v, 100, key == "maxSurge")
            if n is None:
                yield (*path, key), f"invalid value {v!r}: must be an integer or a percentage such as 25%"
            elif n < 0:
                yield (*path, key), f"must not be negative (got {v!r})"


def validate_update_budget_not_both_zero(c: Check) -> Iterator[Problem]:
    """``maxUnavailable`` and ``maxSurge`` must not both be 0: at least one must be positive
    or the update can never make progress.

    Unset values take the design defaults (maxUnavailable 1, maxSurge 0). The values are
    compared as written ("If maxUnavailable=0 (or "0%"), then maxSurge cannot be 0 (or
    "0%")"), as a Deployment's are: a percentage that rounds to 0 at the current replicas
    is accepted, and the update then allows one unavailable object.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy: {maxUnavailable: 0, maxSurge: 0}

    Good:
        updateStrategy: {maxUnavailable: 0, maxSurge: 1}

    Remediation: Allow one unavailable replica or one surge replica.
    """
    for path, m, _level, _r in _budget_fields(c):
        # the values as written, as a Deployment's validation compares them (a percentage's
        # number: "10%" is not 0 even where it rounds to 0; budgets.resolve then allows one)
        mu = scaled_value(m.get("maxUnavailable", 1), 100, False)
        ms = scaled_value(m.get("maxSurge", 0), 100, True)
        if mu == 0 and ms == 0:
            key = "maxUnavailable" if "maxUnavailable" in m else "maxSurge"
            yield (*path, key), "maxUnavailable and maxSurge must not both be 0; at least one must be greater than 0"


def validate_update_budget_max_unavailable(c: Check) -> Iterator[Problem]:
    """``maxUnavailable`` must not exceed the replicas at its level (PodCliqueSet replicas,
    scaling-group replicas, or clique pods).

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        cliques:
        - name: frontend
          spec: {replicas: 2}
          updateStrategy: {maxUnavailable: 3}

    Good:
        cliques:
        - name: frontend
          spec: {replicas: 2}
          updateStrategy: {maxUnavailable: 1}

    Remediation: Lower maxUnavailable to at most replicas.
    """
    for path, m, level, r in _budget_fields(c):
        if r is None or m.get("maxUnavailable") is None:
            continue
        mu = scaled_value(m.get("maxUnavailable"), r, False)
        if mu is not None and mu > r:
            yield (*path, "maxUnavailable"), f"maxUnavailable {mu} exceeds the {level} replicas ({r})"


def validate_rolling_update_pcs_budget(c: Check) -> Iterator[Problem]:
    """Under ``RollingUpdate``, PodCliqueSet-level ``rollingUpdate.maxUnavailable``/``maxSurge``
    are not allowed: PodCliqueSet replicas are always updated one at a time.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy:
          type: RollingUpdate
          rollingUpdate: {maxSurge: 1}

    Good:
        updateStrategy:
          type: ReplicaRecreate
          rollingUpdate: {maxSurge: 1}

    Remediation: Remove rollingUpdate, or set budgets on cliques and scaling groups instead.
    """
    us = as_map(c.spec.get("updateStrategy"))
    if us.get("type") != "RollingUpdate":
        return
    ru = as_map(us.get("rollingUpdate"))
    for key in ("maxUnavailable", "maxSurge"):
        if ru.get(key) is not None:
            yield ("spec", "updateStrategy", "rollingUpdate", key), (
                f"{key} is not allowed at PodCliqueSet level with type RollingUpdate "
                "(replicas are updated one at a time); use ReplicaRecreate or component budgets")


def validate_replica_recreate_components(c: Check) -> Iterator[Problem]:
    """Under ``ReplicaRecreate``, cliques and scaling groups must not have their own
    ``updateStrategy``: the whole replica is recreated at once.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy: {type: ReplicaRecreate}
        template:
          cliques:
          - name: frontend
            updateStrategy: {maxSurge: 1}

    Good:
        updateStrategy: {type: RollingUpdate}
        template:
          cliques:
          - name: frontend
            updateStrategy: {maxSurge: 1}

    Remediation: Remove the component updateStrategy, or use RollingUpdate.
    """
    if as_map(c.spec.get("updateStrategy")).get("type") != "ReplicaRecreate":
        return
    for path, _m, level, _r in _budget_fields(c):
        if level != "PodCliqueSet":
            yield path, f"{level} updateStrategy is not allowed with type ReplicaRecreate"
