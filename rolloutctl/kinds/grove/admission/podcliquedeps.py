"""Clique dependencies under ``CliqueStartupTypeExplicit``: every ``startsAfter`` entry
names a clique, and the entries form no cycle.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/podcliquedeps.go`` (``PodCliqueDependencyGraph``: ``GetUnknownCliques``,
``GetStronglyConnectedCliques``), called from ``validateCliqueDependencies`` in
``podcliqueset.go``.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .request import Check
from .util import EXPLICIT, Problem, as_list, as_map, as_str, clique_path


def get_unknown_cliques(c: Check) -> Iterator[Problem]:
    """Under ``CliqueStartupTypeExplicit``, every ``startsAfter`` entry must name a clique.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliquedeps.go#GetUnknownCliques (called from validateCliqueDependencies)

    Bad:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: worker
          spec: {startsAfter: [leader]}

    Good:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: leader
        - name: worker
          spec: {startsAfter: [leader]}

    Remediation: Fix the name in startsAfter or add the missing clique.
    """
    if c.startup_type != EXPLICIT:
        return
    known = {as_str(cl.get("name")) for _, cl in c.cliques}
    for i, cl in c.cliques:
        for j, dep in enumerate(as_list(as_map(cl.get("spec")).get("startsAfter"))):
            if as_str(dep).strip() and dep not in known:
                yield clique_path(i, "spec", "startsAfter", j), (
                    f"unknown clique name {dep!r}: all clique dependencies must be defined as cliques")


def strongly_connected_cliques(adjacency: Mapping[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of size > 1, as ``GetStronglyConnectedCliques``
    computes them (self-loops are a separate check). Deterministic: nodes in insertion order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = [0]

    def connect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in adjacency.get(v, []):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in list(adjacency):
        if v not in index:
            connect(v)
    return out


def get_strongly_connected_cliques(c: Check) -> Iterator[Problem]:
    """Under ``CliqueStartupTypeExplicit``, ``startsAfter`` must not form a cycle.

    A cycle means no clique in it can ever start.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliquedeps.go#GetStronglyConnectedCliques (called from validateCliqueDependencies)

    Bad:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: a
          spec: {startsAfter: [b]}
        - name: b
          spec: {startsAfter: [a]}

    Good:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: a
        - name: b
          spec: {startsAfter: [a]}

    Remediation: Remove one dependency of the cycle.
    """
    if c.startup_type != EXPLICIT:
        return
    adjacency: dict[str, list[str]] = {}
    first_index: dict[str, int] = {}
    for i, cl in c.cliques:
        name = as_str(cl.get("name"))
        first_index.setdefault(name, i)
        adjacency.setdefault(name, []).extend(as_str(d) for d in as_list(as_map(cl.get("spec")).get("startsAfter")))
    for comp in strongly_connected_cliques(adjacency):
        members = sorted(comp, key=lambda n: first_index.get(n, 0))
        i = first_index.get(members[0], 0)
        cycle = " -> ".join(members + [members[0]])
        yield clique_path(i, "spec", "startsAfter"), f"clique must not have circular dependencies: {cycle}"
