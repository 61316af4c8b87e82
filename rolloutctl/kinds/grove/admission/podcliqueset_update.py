"""The PodCliqueSet webhook's update rules: which parts of the template are immutable
once the PodCliqueSet exists. They run only when the create rules found no error
(``Handler.ValidateUpdate``).

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/podcliqueset.go``, section "validate update of PodCliqueSet": ``validateUpdate``,
``validatePodCliqueSetTemplateSpecUpdate``, ``validatePodCliqueUpdate`` (with
``requiresOrderValidation``) and ``validatePodCliqueScalingGroupConfigsUpdate``. The
topology part of the update (``validateTopologyConstraintsUpdate``) is in
``topologyconstraints.py``.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .request import Check
from .util import EXPLICIT, IN_ORDER, TEMPLATE, Problem, as_list, as_map, as_str, clique_path, group_path


def _old_template(c: Check) -> Mapping[str, Any]:
    return as_map(as_map(as_map(c.old).get("spec")).get("template"))


def _by_name(items: list) -> dict[str, tuple[int, Mapping[str, Any]]]:
    out: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for i, it in enumerate(items):
        if isinstance(it, Mapping):
            out.setdefault(as_str(it.get("name")), (i, it))
    return out


def _changed(new: Any, old: Any) -> bool:
    """``ValidateImmutableField`` compares with semantic equality; nil and empty lists differ
    there for pointers but not for slices. We compare values, treating a missing list as empty."""
    if isinstance(new, list) or isinstance(old, list):
        return (new or []) != (old or [])
    return new != old


def _written_by_name(c: Check, key: str) -> dict[str, Mapping[str, Any]]:
    """The manifest's own ``cliques`` or ``podCliqueScalingGroups`` (before defaulting), by name."""
    tmpl = as_map(as_map(as_map(c.written).get("spec")).get("template"))
    return {n: it for n, (_, it) in _by_name(as_list(tmpl.get(key))).items()}


def _immutable(live: Any, desired: Any, written: Mapping[str, Any] | None, key: str, default: str) -> str:
    """The immutable-field message; where the manifest leaves ``minAvailable`` out, the
    desired value is a default (``default``: where it comes from, given the value), which
    the user never wrote: say so, and how to keep the live value."""
    msg = f"field is immutable (live {live!r}, desired {desired!r})"
    if key == "minAvailable" and written is not None and written.get(key) is None and live is not None:
        msg += (f": the manifest does not set minAvailable, so {default.format(desired=repr(desired))}; "
                f"set minAvailable: {live!r} explicitly to keep the live value")
    return msg


def validate_pod_clique_update(c: Check) -> Iterator[Problem]:
    """Cliques cannot be added, removed or renamed after creation, and under
    ``CliqueStartupTypeInOrder`` or ``Explicit`` their order cannot change.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueUpdate

    Bad:
        # live: cliques [leader, worker]
        cliques:
        - name: leader
        - name: worker
        - name: router

    Good:
        # live: cliques [leader, worker]
        cliques:
        - name: leader
        - name: worker

    Remediation: Create a new PodCliqueSet to change the set of cliques.
    """
    if c.old is None:
        return
    new = as_list(c.template.get("cliques"))
    old = as_list(_old_template(c).get("cliques"))
    if len(new) != len(old):
        yield (*TEMPLATE, "cliques"), (
            f"not allowed to change clique composition ({len(old)} cliques live, {len(new)} desired)")
    old_by = _by_name(old)
    ordered = c.startup_type in (IN_ORDER, EXPLICIT)
    for i, cl in c.cliques:
        n = as_str(cl.get("name"))
        if n not in old_by:
            yield clique_path(i, "name"), f"not allowed to change clique composition, new clique name {n!r} is not allowed"
            continue
        oi, ocl = old_by[n]
        if ordered and oi != i:
            yield clique_path(i, "name"), (
                f"clique order cannot be changed when the startup type is InOrder or Explicit: expected "
                f"{as_str(as_map(old[i]).get('name')) if i < len(old) else '?'!r} at position {i}, got {n!r}")


def validate_pod_clique_update_immutable_fields(c: Check) -> Iterator[Problem]:
    """A clique's ``roleName``, ``minAvailable``, ``startsAfter``, ``podSpec.schedulerName`` and
    ``resourceSharing`` cannot change after creation.

    A manifest that leaves ``minAvailable`` out gets the defaulting webhook's value, the
    clique's replicas (``defaultPodCliqueTemplateSpecs``), so changing ``replicas``
    changes it too: the message then says the value was defaulted and to set the live
    one explicitly.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueUpdate (ValidateImmutableField calls)

    Bad:
        # live: minAvailable 2
        spec: {replicas: 4, minAvailable: 3}

    Good:
        # live: minAvailable 2
        spec: {replicas: 4, minAvailable: 2}

    Remediation: Keep the live value (set minAvailable explicitly when replicas change), or recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    old_by = _by_name(as_list(_old_template(c).get("cliques")))
    written = _written_by_name(c, "cliques")
    for i, cl in c.cliques:
        n = as_str(cl.get("name"))
        if n not in old_by:
            continue
        ocl = old_by[n][1]
        s, os_ = as_map(cl.get("spec")), as_map(ocl.get("spec"))
        ws = as_map(written[n].get("spec")) if n in written else None
        for key in ("roleName", "minAvailable", "startsAfter"):
            if _changed(s.get(key), os_.get(key)):
                yield clique_path(i, "spec", key), _immutable(
                    os_.get(key), s.get(key), ws, key, "Grove's defaulting webhook sets it to the clique's replicas "
                    "({desired})")
        sn, osn = as_map(s.get("podSpec")).get("schedulerName"), as_map(os_.get("podSpec")).get("schedulerName")
        if (sn or "") != (osn or ""):
            yield clique_path(i, "spec", "podSpec", "schedulerName"), f"field is immutable (live {osn!r}, desired {sn!r})"
        if _changed(cl.get("resourceSharing"), ocl.get("resourceSharing")):
            yield clique_path(i, "resourceSharing"), "field is immutable"


def validate_pod_clique_set_template_spec_update(c: Check) -> Iterator[Problem]:
    """``cliqueStartupType``, ``resourceClaimTemplates`` and the PodCliqueSet-level
    ``resourceSharing`` cannot change after creation.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueSetTemplateSpecUpdate

    Bad:
        # live: CliqueStartupTypeAnyOrder
        template:
          cliqueStartupType: CliqueStartupTypeExplicit

    Good:
        # live: CliqueStartupTypeAnyOrder
        template:
          cliqueStartupType: CliqueStartupTypeAnyOrder

    Remediation: Keep the live value, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    ot = _old_template(c)
    for key in ("cliqueStartupType", "resourceClaimTemplates", "resourceSharing"):
        if _changed(c.template.get(key), ot.get(key)):
            detail = f" (live {ot.get(key)!r}, desired {c.template.get(key)!r})" if key == "cliqueStartupType" else ""
            yield (*TEMPLATE, key), f"field is immutable{detail}"


def validate_pod_clique_scaling_group_configs_update(c: Check) -> Iterator[Problem]:
    """Scaling groups cannot be added, removed or renamed, and a group's ``cliqueNames``,
    ``minAvailable`` and ``resourceSharing`` cannot change. ``replicas`` and ``scaleConfig``
    may change.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueScalingGroupConfigsUpdate

    Bad:
        # live: prefill minAvailable 1
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pleader], replicas: 2, minAvailable: 2}

    Good:
        # live: prefill minAvailable 1
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pleader], replicas: 3, minAvailable: 1}

    Remediation: Keep the live values, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    new = as_list(c.template.get("podCliqueScalingGroups"))
    old = as_list(_old_template(c).get("podCliqueScalingGroups"))
    if len(new) != len(old):
        yield (*TEMPLATE, "podCliqueScalingGroups"), "not allowed to add or remove PodCliqueScalingGroupConfigs"
        return
    old_by = _by_name(old)
    written = _written_by_name(c, "podCliqueScalingGroups")
    for gi, g in c.groups:
        n = as_str(g.get("name"))
        if n not in old_by:
            yield group_path(gi, "name"), (
                f"not allowed to change scaling group composition, new scaling group name {n!r} is not allowed")
            continue
        og = old_by[n][1]
        for key in ("cliqueNames", "minAvailable", "resourceSharing"):
            if _changed(g.get(key), og.get(key)):
                yield group_path(gi, key), _immutable(og.get(key), g.get(key), written.get(n), key,
                                                      "the CRD's default applies ({desired})")
