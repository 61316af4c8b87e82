"""Validation of the per-component ``rollingUpdate`` configuration that ai-dynamo/grove
PR #817 adds to cliques and scaling groups (after the modelled commit ``fcc3b3bb``).

Upstream: ai-dynamo/grove PR #817 (``RollingUpdateConfiguration`` validation in the
PodCliqueSet validating webhook). Not in the webhook at fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ....core.go_time import parse_duration_seconds
from .request import Check
from .util import Problem, as_int, as_map, as_str, clique_path, group_path


def validate_rolling_update_configuration(c: Check) -> Iterator[Problem]:
    """A component's ``rollingUpdate`` needs ``maxUnavailable`` > 0 and a positive
    ``progressDeadline``; it is not allowed on a clique that belongs to a scaling
    group, nor under the ``OnDelete`` strategy.

    Upstream: ai-dynamo/grove PR #817 (RollingUpdateConfiguration validation; after the pinned snapshot)

    Bad:
        updateStrategy: {type: OnDelete}
        template:
          cliques:
          - name: frontend
            rollingUpdate: {maxUnavailable: 0}

    Good:
        updateStrategy: {type: RollingRecreate}
        template:
          cliques:
          - name: frontend
            rollingUpdate: {maxUnavailable: 1, progressDeadline: 10m}

    Remediation: Use maxUnavailable >= 1; remove rollingUpdate from scaling-group members and under OnDelete.
    """
    members = c.scaling_group_clique_names()
    on_delete = c.update_type == "OnDelete"
    comps = [(clique_path(i, "rollingUpdate"), cl, as_str(cl.get("name")) in members) for i, cl in c.cliques]
    comps += [(group_path(gi, "rollingUpdate"), g, False) for gi, g in c.groups]
    for path, comp, is_member in comps:
        ru = comp.get("rollingUpdate")
        if ru is None:
            continue
        ru = as_map(ru)
        if is_member:
            yield path, "rollingUpdate is not allowed on a PodClique that belongs to a PodCliqueScalingGroup"
        if on_delete:
            yield path, "rollingUpdate is not allowed with updateStrategy.type OnDelete"
        mu = as_int(ru.get("maxUnavailable"))
        if mu is not None and mu <= 0:
            yield (*path, "maxUnavailable"), f"must be greater than 0 (got {mu})"
        pd = ru.get("progressDeadline")
        if pd is not None:
            secs = parse_duration_seconds(pd)
            if secs is None or secs <= 0:
                yield (*path, "progressDeadline"), f"must be a positive duration (got {pd!r})"
