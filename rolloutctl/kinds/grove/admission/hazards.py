"""Warnings for operator behaviour the webhook does not guard against.

Not webhook code: each rule cites the controller function whose behaviour it warns
about, at the modelled Grove commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24:
``operator/internal/controller/podcliqueset/components/podclique/podclique.go``
``buildResource`` (which clique template a PodClique is built from).

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator

from .request import Check
from .util import Problem, as_list, as_str, clique_path


def find_pod_clique_template_by_suffix(c: Check) -> Iterator[Problem]:
    """A clique's name is a suffix of another clique's PodClique name, so the operator
    builds that PodClique from the wrong template.

    The PodCliqueSet and scaling-group controllers find a PodClique's template as the
    first clique (in ``cliques`` order) whose name the PodClique name ends with. With
    cliques ``worker`` then ``pworker``, PodClique ``<pcs>-0-pworker`` gets the
    ``worker`` template.

    Upstream: operator/internal/controller/podcliqueset/components/podclique/podclique.go#buildResource (strings.HasSuffix lookup)

    Bad:
        cliques:
        - name: worker
        - name: pworker

    Good:
        cliques:
        - name: decode-worker
        - name: prefill-worker

    Remediation: Rename cliques so that no name ends with another clique's name.
    """
    cliques = [(i, as_str(cl.get("name"))) for i, cl in c.cliques]
    group_of: dict[str, str] = {}
    for _, g in c.groups:
        for n in as_list(g.get("cliqueNames")):
            group_of.setdefault(as_str(n), as_str(g.get("name")))
    for i, name in cliques:
        if not name:
            continue
        fqn = (f"{c.name}-0-{group_of[name]}-0-{name}" if name in group_of else f"{c.name}-0-{name}")
        first = next((n for _, n in cliques if n and fqn.endswith(n)), name)
        if first != name:
            yield clique_path(i, "name"), (
                f"PodClique {fqn!r} ends with the name of clique {first!r}, which is listed earlier; the operator "
                f"will build it from the {first!r} template")
