"""Admission rules for a PodCliqueSet: the Grove validating webhook (create and
update), the CRD's CEL rules, the validation rules of the proposed update-strategy
designs, and warnings for known operator hazards.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/``. One module per Go file of that
directory, under the same name: ``podcliqueset.go`` (split in ``podcliqueset.py``,
``podcliqueset_template.py`` and ``podcliqueset_update.py`` by its create and update
sections), ``podcliquedeps.go``, ``topologyconstraints.go``, ``util.go``; ``handler.go``'s
decoding is ``request.py`` and its ``ValidateCreate``/``ValidateUpdate`` is :func:`validate`.
``mnnvl_webhook.py`` is ``operator/internal/mnnvl/webhook.go``, which ``ValidateUpdate``
calls besides the validator. The scheduler backend's own ``ValidatePodCliqueSet``, which
``handler.go`` ``validatePodCliqueSetWithBackend`` runs on create and update for the
backend the cliques name, is one module per backend file under
``operator/internal/scheduler/``: ``kai_backend.py`` (``kai/backend.go``),
``volcano_backend.py`` and ``volcano_queue.py`` (``volcano/backend.go``, ``volcano/queue.go``)
and ``lpx_backend.py`` (``lpx/backend.go``); ``default-scheduler``'s checks nothing.
Rules that are not webhook code at that commit have their own modules, named after what
they model: ``crd_validations.py`` (the CRD's ``x-kubernetes-validations``),
``design_pr262.py`` (ai-dynamo/grove PR #262, ``docs/designs/update-strategy.md``),
``rolling_update_pr817.py`` (ai-dynamo/grove PR #817), ``hazards.py`` (operator
behaviour the webhook does not guard against) and ``hpa.py`` (what the API server refuses
of the objects the operator creates from an admitted PodCliqueSet: :func:`validate_children`).

Every rule is one function named after the upstream function it models. It receives a
:class:`~.request.Check` (the defaulted object, the object as written, and the live
object on update) and yields ``(path, message)`` pairs; :func:`validate` turns them into
:class:`~rolloutctl.core.model.Finding` values with file and line. The docstring of a
rule is its documentation (``rolloutctl rules ID``): a summary, an ``Upstream:`` line,
``Bad:``/``Good:`` examples and a ``Remediation:``. :data:`RULES` lists them all, as
data, in the order ``rolloutctl rules`` shows them.

Things the webhook checks against the operator's configuration or the cluster
(scheduler backend enabled, topology-aware scheduling enabled, ClusterTopology
domains, MNNVL enabled, the Volcano queue existing and Open) are assumed to be present
and enabled (CONTRACT.md); a scheduler name no Grove backend exists for is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ....core.model import Finding, Obj
from ....core.paths import field_path
from . import (crd_validations, design_pr262, hazards, hpa, kai_backend, lpx_backend, mnnvl_webhook, podcliquedeps,
               podcliqueset, podcliqueset_template, podcliqueset_update, rolling_update_pr817, topologyconstraints,
               volcano_backend, volcano_queue)
from ....core.records import record
from ..options import DEFAULT_CONFIG, GroveConfig
from .request import Check
from .util import Problem

@record(frozen=True)
class RuleSpec:
    """A rule as data: the lint registry reads these (id, name, severity, scope) and
    the function's docstring. ``scope``: ``create`` (create and update), ``update``
    (only with the live object), ``design`` (proposed API), ``hazard`` (operator
    behaviour worth a warning)."""

    id: str
    name: str
    severity: str
    scope: str
    check: Callable[[Check], Iterable[Problem]]
    enforcer: str = ""

    @property
    def doc(self) -> str:
        return self.check.__doc__ or ""


RULES: tuple[RuleSpec, ...] = (
    RuleSpec("GV001", "pcs-name-dns-subdomain", "error", "create", podcliqueset.validate_object_meta),
    RuleSpec("GV002", "pcs-replicas-non-negative", "error", "create", podcliqueset.validate_pod_clique_set_spec),
    RuleSpec("GV003", "cliques-required", "error", "create", podcliqueset.validate_pod_clique_templates),
    RuleSpec("GV004", "clique-name-dns-subdomain", "error", "create", podcliqueset.validate_pod_clique_template_name),
    RuleSpec("GV005", "name-length-budget", "error", "create", podcliqueset.validate_pod_name_constraints),
    RuleSpec("GV006", "clique-labels-annotations", "error", "create", podcliqueset.validate_pod_clique_template_spec),
    RuleSpec("GV007", "clique-names-unique", "error", "create", podcliqueset.slice_must_have_unique_elements_clique_names),
    RuleSpec("GV008", "role-names-unique", "error", "create", podcliqueset.slice_must_have_unique_elements_role_names),
    RuleSpec("GV009", "scheduler-name-consistent", "error", "create", podcliqueset.validate_scheduler_names),
    RuleSpec("GV010", "clique-replicas-min-available", "error", "create", podcliqueset.validate_pod_clique_spec),
    RuleSpec("GV011", "starts-after-entries", "error", "create", podcliqueset.validate_pod_clique_spec_starts_after),
    RuleSpec("GV012", "starts-after-unknown-clique", "error", "create", podcliquedeps.get_unknown_cliques),
    RuleSpec("GV013", "starts-after-cycle", "error", "create", podcliquedeps.get_strongly_connected_cliques),
    RuleSpec("GV014", "clique-autoscaling-bounds", "error", "create", podcliqueset.validate_scale_config),
    RuleSpec("GV015", "pod-spec-create-forbidden-fields", "error", "create", podcliqueset.validate_pod_spec),
    RuleSpec("GV016", "pod-spec-restart-policy-ignored", "warning", "create", podcliqueset.validate_pod_spec_restart_policy),
    RuleSpec("GV017", "container-env-names", "error", "create", podcliqueset.validate_container_env_vars),
    RuleSpec("GV018", "scaling-group-names", "error", "create", podcliqueset_template.validate_pod_clique_scaling_group_configs),
    RuleSpec("GV019", "scaling-group-unknown-clique", "error", "create", podcliqueset_template.validate_scaling_group_pod_clique_names),
    RuleSpec("GV020", "clique-in-one-scaling-group", "error", "create", podcliqueset_template.slice_must_have_unique_elements_group_members),
    RuleSpec("GV021", "scaling-group-replicas-min-available", "error", "create", podcliqueset_template.validate_pod_clique_scaling_group_configs_bounds),
    RuleSpec("GV022", "scaling-group-member-autoscaling", "error", "create", podcliqueset_template.validate_pod_clique_scaling_group_configs_member_autoscaling),
    RuleSpec("GV023", "termination-delay-positive", "error", "create", podcliqueset_template.validate_termination_delay),
    RuleSpec("GV024", "resource-claim-templates", "error", "create", podcliqueset_template.validate_resource_claim_templates),
    RuleSpec("GV025", "resource-sharing", "error", "create", podcliqueset_template.validate_resource_sharing_specs),
    RuleSpec("GV026", "topology-name", "error", "create", podcliqueset_template.resolve_effective_topology_name_field_errors),
    RuleSpec("GV027", "topology-pack", "error", "create", crd_validations.topology_constraint_crd_rules),
    RuleSpec("GV028", "rolling-update-configuration", "error", "create", rolling_update_pr817.validate_rolling_update_configuration),
    RuleSpec("GV029", "kai-queue", "error", "create", kai_backend.resolve_queue_name_for_pod_clique_set),
    RuleSpec("GV030", "volcano-topology-unsupported", "error", "create", volcano_backend.validate_topology_constraints),
    RuleSpec("GV031", "volcano-queue", "error", "create", volcano_queue.validate_queue_annotations),
    RuleSpec("GV032", "lpx-topology-unsupported", "error", "create", lpx_backend.validate_pod_clique_set),
    RuleSpec("GV033", "mnnvl-annotation", "error", "create", mnnvl_webhook.validate_pcs_on_create),
    RuleSpec("GV101", "clique-composition-immutable", "error", "update", podcliqueset_update.validate_pod_clique_update),
    RuleSpec("GV102", "clique-fields-immutable", "error", "update", podcliqueset_update.validate_pod_clique_update_immutable_fields),
    RuleSpec("GV103", "template-spec-immutable", "error", "update", podcliqueset_update.validate_pod_clique_set_template_spec_update),
    RuleSpec("GV104", "scaling-groups-immutable", "error", "update", podcliqueset_update.validate_pod_clique_scaling_group_configs_update),
    RuleSpec("GV105", "topology-immutable", "error", "update", topologyconstraints.validate_topology_constraint_immutability),
    RuleSpec("GV106", "mnnvl-annotation-immutable", "error", "update", mnnvl_webhook.validate_pcs_on_update),
    RuleSpec("GV201", "design-update-fields", "warning", "design", design_pr262.proposed_update_strategy_fields),
    RuleSpec("GV202", "design-budget-non-negative", "error", "design", design_pr262.validate_update_budget_non_negative),
    RuleSpec("GV203", "design-budget-zero-zero", "error", "design", design_pr262.validate_update_budget_not_both_zero),
    RuleSpec("GV204", "design-max-unavailable-bound", "error", "design", design_pr262.validate_update_budget_max_unavailable),
    RuleSpec("GV205", "design-rolling-update-pcs-budget", "error", "design", design_pr262.validate_rolling_update_pcs_budget),
    RuleSpec("GV206", "design-replica-recreate-components", "error", "design", design_pr262.validate_replica_recreate_components),
    RuleSpec("GV301", "clique-name-suffix", "warning", "hazard", hazards.find_pod_clique_template_by_suffix),
    RuleSpec("GV302", "scaling-group-hpa-refused", "error", "children", hpa.build_resource, enforcer="apiserver"),
)


#: update rules that ``Handler.ValidateUpdate`` calls itself, after the validator and
#: whatever it found (the validator's own update rules run only when neither the
#: validator, these, nor the scheduler backend found an error)
HANDLER_UPDATE_CHECKS = (mnnvl_webhook.validate_pcs_on_update,)


def _in_scope(scope: str) -> tuple[RuleSpec, ...]:
    return tuple(r for r in RULES if r.scope == scope)


def validate(obj: Obj, old: Obj | None = None, cfg: GroveConfig = DEFAULT_CONFIG) -> list[Finding]:
    """All findings for a PodCliqueSet, as the API server would answer a create
    (``old`` None) or an update from ``old``: ``Handler.ValidateCreate`` and
    ``Handler.ValidateUpdate`` (``handler.go``).

    Defaulting runs first (``default_pcs``). The create-and-update rules (the
    validator's and the scheduler backend's) run on both. As in
    ``Handler.ValidateUpdate``, the MNNVL immutability rule (``HANDLER_UPDATE_CHECKS``)
    runs on every update, and the validator's update rules run only when none of those
    found an error. Design rules and hazard warnings always run. Sorted by line.
    """
    c = Check(obj, old, cfg)
    findings: list[Finding] = []

    def run(rules: Iterable[RuleSpec]) -> None:
        for r in rules:
            for path, message in r.check(c):
                findings.append(Finding(
                    rule=r.id, severity=r.severity, file=obj.file, line=obj.line_of(*path),
                    message=message, path=field_path(c.pcs, path), object=obj.ref))

    run(_in_scope("create"))
    if old is not None:
        run(r for r in _in_scope("update") if r.check in HANDLER_UPDATE_CHECKS)
        if not any(f.severity == "error" for f in findings):
            run(r for r in _in_scope("update") if r.check not in HANDLER_UPDATE_CHECKS)
    run(_in_scope("design"))
    run(_in_scope("hazard"))
    return sorted(set(findings), key=Finding.sort_key)


def validate_children(obj: Obj) -> list[Finding]:
    """What the API server would refuse of the objects the operator creates from the
    admitted PodCliqueSet ``obj`` (the ``children`` rules: GV302, its HPAs), as findings
    with file and line. The object itself is stored: ``plan`` stops with these before it
    starts, ``diff`` marks the change ``rejected``, ``lint`` reports them
    (``KIND.children_refused``)."""
    c = Check(obj)
    return sorted({Finding(rule=r.id, severity=r.severity, file=obj.file, line=obj.line_of(*path), message=message,
                           path=field_path(c.pcs, path), object=obj.ref)
                   for r in _in_scope("children") for path, message in r.check(c)}, key=Finding.sort_key)


def validator(options: Mapping[str, Any]) -> Callable[..., list[Finding]]:
    """``validate`` under the operator configuration the model options describe
    (``--grove-config``; accepted by ``options.check_options``), for ``lint``: with
    ``autoMNNVLEnabled=true``, a ``grove.io/mnnvl-group`` group name is accepted (GV033)."""
    cfg = GroveConfig.from_options(options)

    def configured(obj: Obj, old: Obj | None = None) -> list[Finding]:
        return validate(obj, old, cfg)

    return configured
