"""The checks of KubeRay's ``utils/validation.go`` that apply to a RayService: what the
RayService controller's ``validateRayService`` runs (metadata, then spec, the first error
failing the RayService with ``Ready=False/ValidationFailed``) and the RayCluster
controller's ``ValidateRayClusterUpgradeOptions``.

Upstream: ``ray-operator/controllers/ray/utils/validation.go`` of ray-project/kuberay
@ feeaf72f ``ValidateRayServiceMetadata``, ``validateInitializingTimeout``,
``validateRayGroupResources``, ``validateRayGroupLabels``, ``ValidateRayClusterSpec``
(with ``validateWorkerGroupIdleTimeout``, ``validateWorkerGroupPriority``,
``validateGcsFaultToleranceBackend``, ``validateCollectorOptions``, ``validateNetworkPolicy``,
``validateTLSOptions`` and ``validateNoConflictingTLSVolumeMount``), ``ValidateRayServiceSpec``,
``ValidateClusterUpgradeOptions`` and ``ValidateRayClusterUpgradeOptions``. Each check
adds findings to a ``rules.Ctx``, in upstream's order (the first one is the error upstream
returns). The feature gates are the ``Ctx``'s ``OperatorConfig``'s (``features.Enabled``):
a field behind a gate that is off is one finding (RS016, RS018, RS021, RS023, RS024), and
with the gate on upstream's checks of the field's content run instead (RS037–RS040).

Longer than 600 lines on purpose: one upstream Go file, one module (``validation.go`` is
about 1,100 lines; its RayJob, RayCronJob and RayCluster-status checks are left out).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.go_strconv import atoi, quote
from ....core.k8s_syntax import dns1035_label_ok, is_dns1123_label, is_valid_label_value
from ....core.go_time import parse_duration_seconds
from .rules import (R_AUTH, R_AUTOSCALER_ENV, R_AUTOSCALER_OPTS, R_COLLECTOR, R_DELETION_DELAY, R_FT_BACKEND,
                    R_FT_BOTH, R_FT_CONFLICT, R_GROUP_LABELS, R_GROUP_RESOURCES, R_HEAD_CONTAINER,
                    R_HEAD_SVC_NAME, R_HISTORY, R_HISTORY_CONTENT, R_IDLE_TIMEOUT, R_K8S_AUTH, R_MINMAX_RANGE,
                    R_MINMAX_REQUIRED, R_NAME_DNS, R_NAME_LEN, R_NETPOL, R_NETPOL_CONTENT, R_PRIORITY, R_RC_UPGRADE,
                    R_REDIS_ADDRESS, R_REDIS_USERNAME, R_TIMEOUT, R_TLS, R_TLS_CONTENT, R_UPGRADE_OPTIONS,
                    R_UPGRADE_TYPE, R_WG_SUSPEND, R_WORKER_CONTAINER, Ctx)
from .util import (EXTERNAL_STORAGE_NS_ANNOTATION, FT_ENABLED_ANNOTATION, INITIALIZING_TIMEOUT_ANNOTATION,
                   MAX_RAYSERVICE_NAME_LENGTH, UPGRADE_TYPES, as_list, as_mapping,
                   containers_of, env_of, groups_of, head_container, is_autoscaling_enabled,
                   is_autoscaling_v2_enabled, is_incremental_upgrade_enabled, is_k8s_auth,
                   parse_version, qualified_name_ok, v2_env_on, worker_path)


def validate_ray_service_metadata(c: Ctx) -> None:
    """``ValidateRayServiceMetadata`` (utils/validation.go): name length and DNS-1035."""
    name = c.obj.name
    p = ("metadata", "name")
    if len(name) > MAX_RAYSERVICE_NAME_LENGTH:
        c.add(R_NAME_LEN, p, "metadata.name",
              f"RayService name should be no more than {MAX_RAYSERVICE_NAME_LENGTH} characters (got {len(name)})")
    if not dns1035_label_ok(name) or len(name) > 63:
        c.add(R_NAME_DNS, p, "metadata.name", f"RayService name {name!r} should be a valid DNS-1035 label "
              "(lowercase letters, digits and '-', starting with a letter)")


def validate_initializing_timeout(c: Ctx) -> None:
    """``validateInitializingTimeout`` (utils/validation.go)."""
    v = c.obj.annotations.get(INITIALIZING_TIMEOUT_ANNOTATION)
    if v is None or v == "":
        return
    path = ("metadata", "annotations", INITIALIZING_TIMEOUT_ANNOTATION)
    dotted = f"metadata.annotations[{INITIALIZING_TIMEOUT_ANNOTATION}]"
    s = str(v)
    d = parse_duration_seconds(s)
    if d is not None:
        if d <= 0:
            c.add(R_TIMEOUT, path, dotted, f"annotation {INITIALIZING_TIMEOUT_ANNOTATION} must be a positive duration, got: {s}")
        return
    seconds = atoi(s)
    if seconds is not None:
        if seconds <= 0:
            c.add(R_TIMEOUT, path, dotted,
                  f"annotation {INITIALIZING_TIMEOUT_ANNOTATION} must be a positive integer (seconds), got: {s}")
        return
    c.add(R_TIMEOUT, path, dotted, f"annotation {INITIALIZING_TIMEOUT_ANNOTATION} has invalid format: {s}; "
          "expected a Go duration such as '5m' or '1h', or positive integer seconds")


def _ray_group_resources(c: Ctx, path: tuple, dotted: str, label: str, group: Mapping[str, Any]) -> None:
    """``validateRayGroupResources`` (utils/validation.go) of one group."""
    rsp = as_mapping(group.get("rayStartParams"))
    has = any(rsp.get(k) not in (None, "") for k in ("num-cpus", "num-gpus", "memory", "resources"))
    if has and as_mapping(group.get("resources")):
        c.add(R_GROUP_RESOURCES, path + ("resources",), dotted + ".resources",
              f"resource fields should not be set in both rayStartParams and resources for {label} group; "
              "please use only one")


def _ray_group_labels(c: Ctx, path: tuple, dotted: str, label: str, group: Mapping[str, Any]) -> None:
    """``validateRayGroupLabels`` (utils/validation.go) of one group."""
    if "labels" in as_mapping(group.get("rayStartParams")):
        c.add(R_GROUP_LABELS, path + ("rayStartParams", "labels"), dotted + ".rayStartParams.labels",
              f"rayStartParams['labels'] is not supported for {label} group; please use the top-level labels field")
    for k, v in as_mapping(group.get("labels")).items():
        if not qualified_name_ok(str(k)):
            c.add(R_GROUP_LABELS, path + ("labels", k), f"{dotted}.labels[{k}]",
                  f"invalid label key for {label} group: {k!r}")
        sv = "" if v is None else str(v)
        if is_valid_label_value(sv):  # (upstream: validation.IsValidLabelValue; empty is valid)
            c.add(R_GROUP_LABELS, path + ("labels", k), f"{dotted}.labels[{k}]",
                  f"invalid label value for key {k!r} in {label} group: {sv!r}")


def validate_ray_cluster_spec(c: Ctx) -> None:
    """``ValidateRayClusterSpec`` (utils/validation.go): containers, replicas bounds,
    GCS FT, autoscaler, auth, history server, network policy and TLS gates."""
    rc = as_mapping(c.obj.spec.get("rayClusterConfig"))
    base = ("spec", "rayClusterConfig")
    head = as_mapping(rc.get("headGroupSpec"))
    if not containers_of(head.get("template")):
        c.add(R_HEAD_CONTAINER, base + ("headGroupSpec", "template"), "spec.rayClusterConfig.headGroupSpec.template",
              "headGroupSpec should have at least one container")
    hp, hd = base + ("headGroupSpec",), "spec.rayClusterConfig.headGroupSpec"
    _ray_group_resources(c, hp, hd, "Head", head)
    _ray_group_labels(c, hp, hd, "Head", head)
    autoscaling = is_autoscaling_enabled(rc)
    hc = head_container(rc)
    henv = env_of(hc)
    for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))):
        g = as_mapping(g)
        p, d = worker_path(i, g)
        name = g.get("groupName")
        if not containers_of(g.get("template")):
            c.add(R_WORKER_CONTAINER, p + ("template",), d + ".template", "workerGroupSpec should have at least one container")
        mn, mx = g.get("minReplicas"), g.get("maxReplicas")
        # The CRD defaults minReplicas to 0 and maxReplicas to 2147483647, so omission only
        # matters when the object bypasses defaulting; we apply the defaults like the API server.
        if not autoscaling and (mn is None and "minReplicas" in g or mx is None and "maxReplicas" in g):
            c.add(R_MINMAX_REQUIRED, p, d, f"worker group {name} must set both minReplicas and maxReplicas "
                  "when autoscaling is disabled")
        mn = 0 if mn is None else mn
        mx = 2147483647 if mx is None else mx
        if isinstance(mn, int) and mn < 0:
            c.add(R_MINMAX_RANGE, p + ("minReplicas",), d + ".minReplicas", f"worker group {name} has negative minReplicas {mn}")
        if isinstance(mx, int) and mx < 0:
            c.add(R_MINMAX_RANGE, p + ("maxReplicas",), d + ".maxReplicas", f"worker group {name} has negative maxReplicas {mx}")
        if isinstance(mn, int) and isinstance(mx, int) and mn >= 0 and mx >= 0 and mn > mx:
            c.add(R_MINMAX_RANGE, p + ("minReplicas",), d + ".minReplicas",
                  f"worker group {name} has minReplicas {mn} greater than maxReplicas {mx}")
        _ray_group_resources(c, p, d, str(name or f"#{i}"), g)
        _ray_group_labels(c, p, d, str(name or f"#{i}"), g)
        _validate_worker_group_idle_timeout(c, g, p, d, rc, henv)
        _validate_worker_group_priority(c, g, p, d, rc, henv)

    ann = c.obj.annotations
    ft = rc.get("gcsFaultToleranceOptions")
    ftp = base + ("gcsFaultToleranceOptions",)
    if ann.get(FT_ENABLED_ANNOTATION) and ft is not None:
        c.add(R_FT_BOTH, ftp, "spec.rayClusterConfig.gcsFaultToleranceOptions",
              f"{FT_ENABLED_ANNOTATION} annotation and gcsFaultToleranceOptions are both set; use only gcsFaultToleranceOptions")
    ft_enabled = str(ann.get(FT_ENABLED_ANNOTATION, "")).lower() == "true" or ft is not None
    hpath = base + ("headGroupSpec", "template", "spec", "containers", 0)
    hdot = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0]"
    if not ft_enabled and "RAY_REDIS_ADDRESS" in henv:
        c.add(R_REDIS_ADDRESS, hpath + ("env",), hdot + ".env[name=RAY_REDIS_ADDRESS]",
              "RAY_REDIS_ADDRESS is set which implicitly enables GCS fault tolerance, but gcsFaultToleranceOptions is not set")
    if ft is not None:
        rsp = as_mapping(head.get("rayStartParams"))
        if rsp.get("redis-password"):
            c.add(R_FT_CONFLICT, base + ("headGroupSpec", "rayStartParams", "redis-password"),
                  "spec.rayClusterConfig.headGroupSpec.rayStartParams.redis-password",
                  "cannot set redis-password in rayStartParams with gcsFaultToleranceOptions; use its redisPassword")
        for env in ("REDIS_PASSWORD", "RAY_REDIS_ADDRESS"):
            if env in henv:
                c.add(R_FT_CONFLICT, hpath + ("env",), f"{hdot}.env[name={env}]",
                      f"cannot set {env} env var in the head Pod with gcsFaultToleranceOptions; use the options fields")
        if ann.get(EXTERNAL_STORAGE_NS_ANNOTATION):
            c.add(R_FT_CONFLICT, ("metadata", "annotations"), f"metadata.annotations[{EXTERNAL_STORAGE_NS_ANNOTATION}]",
                  "cannot set the ray.io/external-storage-namespace annotation with gcsFaultToleranceOptions; "
                  "use gcsFaultToleranceOptions.externalStorageNamespace")
        _validate_gcs_fault_tolerance_backend(c, as_mapping(ft), hc, ftp)
    if as_mapping(head.get("rayStartParams")).get("redis-username") or "REDIS_USERNAME" in henv:
        c.add(R_REDIS_USERNAME, base + ("headGroupSpec",), "spec.rayClusterConfig.headGroupSpec",
              "cannot set redis username in rayStartParams or environment variables; use gcsFaultToleranceOptions.redisUsername")

    suspended = [(worker_path(i, as_mapping(g)), as_mapping(g).get("groupName"))
                 for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))) if as_mapping(g).get("suspend") is True]
    if not c.cfg.gate("RayJobDeletionPolicy"):
        for (p, d), name in suspended:
            c.add(R_WG_SUSPEND, p + ("suspend",), d + ".suspend", f"worker group {name} can be suspended only "
                  "when the RayJobDeletionPolicy feature gate is enabled")

    v2env = henv.get("RAY_enable_autoscaler_v2")
    if not autoscaling and v2env is not None and str(v2env.get("value")) in ("1", "true"):
        c.add(R_AUTOSCALER_ENV, hpath + ("env",), hdot + ".env[name=RAY_enable_autoscaler_v2]",
              "RAY_enable_autoscaler_v2 cannot be enabled when enableInTreeAutoscaling is false")
    aopts = as_mapping(rc.get("autoscalerOptions"))
    if autoscaling:
        if c.cfg.gate("RayJobDeletionPolicy"):  # (with the gate off the loop above already failed)
            for (p, d), name in suspended:
                c.add(R_WG_SUSPEND, p + ("suspend",), d + ".suspend",
                      f"worker group {name} cannot be suspended with Autoscaler enabled")
        if aopts.get("version") is not None and v2env is not None:
            c.add(R_AUTOSCALER_ENV, base + ("autoscalerOptions", "version"), "spec.rayClusterConfig.autoscalerOptions.version",
                  "both autoscalerOptions.version and head Pod env var RAY_enable_autoscaler_v2 are set; use only the former")
        if is_autoscaling_v2_enabled(rc):
            for path, dotted, label, group in groups_of(c.obj):
                rp = as_mapping(as_mapping(as_mapping(group.get("template")).get("spec"))).get("restartPolicy")
                if rp not in (None, "", "Never"):
                    c.add(R_AUTOSCALER_ENV, path + ("template", "spec", "restartPolicy"), dotted + ".template.spec.restartPolicy",
                          f"restartPolicy for {label} Pods should be Never or unset when using autoscaler v2")
    its = aopts.get("idleTimeoutSeconds")
    if isinstance(its, int) and its < 0:
        c.add(R_AUTOSCALER_OPTS, base + ("autoscalerOptions", "idleTimeoutSeconds"),
              "spec.rayClusterConfig.autoscalerOptions.idleTimeoutSeconds",
              f"autoscalerOptions.idleTimeoutSeconds must be non-negative, got {its}")
    if any(isinstance(e, Mapping) and e.get("name") == "KUBERAY_GEN_AUTOSCALER_START_CMD" for e in as_list(aopts.get("env"))):
        c.add(R_AUTOSCALER_OPTS, base + ("autoscalerOptions", "env"), "spec.rayClusterConfig.autoscalerOptions.env",
              "autoscalerOptions.env must not contain KUBERAY_GEN_AUTOSCALER_START_CMD (it is managed by KubeRay)")
    hso = rc.get("historyServerOptions")
    if hso is not None:
        hsp, hsd = base + ("historyServerOptions",), "spec.rayClusterConfig.historyServerOptions"
        if not c.cfg.gate("RayClusterHistoryServer"):
            c.add(R_HISTORY, hsp, hsd, "RayClusterHistoryServer feature gate is not enabled")
        else:
            co = as_mapping(hso).get("collectorOptions")
            if co is None:
                c.add(R_HISTORY_CONTENT, hsp, hsd + ".collectorOptions", "historyServerOptions.collectorOptions must be set")
            else:
                _validate_collector_options(c, as_mapping(co), hsp + ("collectorOptions",), hsd + ".collectorOptions")
            for j, ctr in enumerate(containers_of(head.get("template"))):
                if ctr.get("name") == COLLECTOR_CONTAINER:
                    c.add(R_HISTORY_CONTENT, hp + ("template", "spec", "containers", j, "name"),
                          f"{hd}.template.spec.containers[name={COLLECTOR_CONTAINER}]",
                          f"head pod template must not define a container with name '{COLLECTOR_CONTAINER}' when "
                          "history server collector options are enabled")
            for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))):
                g = as_mapping(g)
                p, d = worker_path(i, g)
                for j, ctr in enumerate(containers_of(g.get("template"))):
                    if ctr.get("name") == COLLECTOR_CONTAINER:
                        c.add(R_HISTORY_CONTENT, p + ("template", "spec", "containers", j, "name"),
                              f"{d}.template.spec.containers[name={COLLECTOR_CONTAINER}]",
                              f"worker group {_go_string(g.get('groupName'))} pod template must not define a container "
                              f"with name '{COLLECTOR_CONTAINER}' when history server collector options are enabled")
    auth = as_mapping(rc.get("authOptions"))
    ap = base + ("authOptions",)
    if auth.get("mode") == "token":
        ver = parse_version(rc.get("rayVersion"))
        if not rc.get("rayVersion"):
            c.add(R_AUTH, ap, "spec.rayClusterConfig.authOptions",
                  "authOptions.mode is 'token' but rayVersion was not specified; Ray 2.52.0 or later is required")
        elif ver is None:
            c.add(R_AUTH, base + ("rayVersion",), "spec.rayClusterConfig.rayVersion",
                  f"authOptions.mode is 'token' but rayVersion format is invalid: {rc.get('rayVersion')}")
        elif ver < (2, 52, 0):
            c.add(R_AUTH, base + ("rayVersion",), "spec.rayClusterConfig.rayVersion",
                  f"authOptions.mode is 'token' but minimum Ray version is 2.52.0, got {rc.get('rayVersion')}")
        elif is_k8s_auth(rc):
            if ver < (2, 55, 0):
                c.add(R_AUTH, base + ("rayVersion",), "spec.rayClusterConfig.rayVersion",
                      f"authOptions.enableK8sTokenAuth needs Ray 2.55.0 or later, got {rc.get('rayVersion')}")
            elif auth.get("secretName"):
                c.add(R_AUTH, ap, "spec.rayClusterConfig.authOptions.secretName",
                      "authOptions.enableK8sTokenAuth is enabled and authOptions.secretName is also set")
    elif is_k8s_auth(rc):
        c.add(R_AUTH, ap, "spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
              "authOptions.enableK8sTokenAuth is enabled but authOptions.mode is not 'token'")
    if rc.get("networkPolicy") is not None and not c.cfg.gate("RayClusterNetworkPolicy"):
        c.add(R_NETPOL, base + ("networkPolicy",), "spec.rayClusterConfig.networkPolicy",
              "spec.networkPolicy requires the RayClusterNetworkPolicy feature gate to be enabled")
    else:  # (upstream returns at the gate; the rules of the policy run only with it on)
        _validate_network_policy(c, rc)
    if rc.get("tlsOptions") is not None and not c.cfg.gate("RayClusterMTLS"):
        c.add(R_TLS, base + ("tlsOptions",), "spec.rayClusterConfig.tlsOptions",
              "spec.tlsOptions requires the RayClusterMTLS feature gate to be enabled")
    else:
        _validate_tls_options(c, rc)


def _go_string(v: Any) -> str:
    """A string field as Go's ``%s`` writes it: "" when unset."""
    return "" if v is None else str(v)


#: ``utils/constant.go``: the history server collector's container (``CollectorContainerName``), the
#: env vars KubeRay injects into it (``validateCollectorOptions``' forbidden list, in its order)
#: and the storage settings it reads
COLLECTOR_CONTAINER = "ray-history-collector"
COLLECTOR_MANAGED_ENV = ("POD_IP", "FQ_RAY_IP", "RAY_CLUSTER_NAME", "RAY_CLUSTER_NAMESPACE", "RAY_ROLE", "OWNER_KIND",
                         "OWNER_NAME", "EVENTS_PORT")
STORAGE_BACKEND, AZURE_AUTH_MODE = "STORAGE_BACKEND", "AZURE_STORAGE_AUTH_MODE"
AZURE_CONNECTION_STRING, AZURE_ACCOUNT_URL = "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_ACCOUNT_URL"
#: ``ALIYUN_BUCKET``, ``ALIYUN_ENDPOINT``, ``ALIYUN_REGION``
ALIYUN_ENV = ("OSS_BUCKET", "OSS_ENDPOINT", "OSS_REGION")


def _validate_collector_options(c: Ctx, co: Mapping[str, Any], path: tuple, dotted: str) -> None:
    """``validateCollectorOptions`` (utils/validation.go): an image; none of the env vars
    KubeRay injects; ``STORAGE_BACKEND`` with a literal value; and the backend's own
    settings, each set with a value or ``valueFrom``: ``GCS_BUCKET`` (GCS), ``S3_REGION``
    (S3), for AZUREBLOB the connection string (``AZURE_STORAGE_AUTH_MODE``
    connection_string), the account URL (workload_identity, default) or either (no mode),
    and ``OSS_BUCKET``, ``OSS_ENDPOINT``, ``OSS_REGION`` (ALIYUNOSS; in that order). The
    backend is matched in upper case and the auth mode trimmed in lower case; any other
    backend needs nothing more. A name given twice counts as its last entry (upstream
    reads the list into a map)."""
    image = co.get("image")
    if image is None or image == "":
        c.add(R_COLLECTOR, path + ("image",), dotted + ".image", "historyServerOptions.collectorOptions.image must be set")
    env: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for i, e in enumerate(as_list(co.get("env"))):
        if isinstance(e, Mapping):
            env[_go_string(e.get("name"))] = (i, e)

    def at(name: str) -> tuple[tuple, str]:
        return (path + ("env", env[name][0]), f"{dotted}.env[name={name}]") if name in env else (path + ("env",), dotted + ".env")

    def has_value(name: str) -> bool:
        e = env.get(name, (0, None))[1]
        return e is not None and (_go_string(e.get("value")) != "" or e.get("valueFrom") is not None)

    def need(name: str, message: str) -> None:
        if not has_value(name):
            c.add(R_COLLECTOR, *at(name), message)

    for name in COLLECTOR_MANAGED_ENV:
        if name in env:
            c.add(R_COLLECTOR, *at(name), f"historyServerOptions.collectorOptions.env must not contain {name}: it is "
                  "managed by KubeRay and injected automatically into the collector container")
    backend = _go_string(env[STORAGE_BACKEND][1].get("value")) if STORAGE_BACKEND in env else ""
    if backend == "":
        c.add(R_COLLECTOR, *at(STORAGE_BACKEND), f"{STORAGE_BACKEND} environment variable must be set with a literal "
              "string value in historyServerOptions.collectorOptions.env")
        return
    kind = backend.upper()
    if kind == "GCS":
        need("GCS_BUCKET", f"GCS_BUCKET environment variable must be set when {STORAGE_BACKEND} is GCS")
    elif kind == "S3":
        need("S3_REGION", f"S3_REGION environment variable must be set when {STORAGE_BACKEND} is S3")
    elif kind == "AZUREBLOB":
        mode = _go_string(env[AZURE_AUTH_MODE][1].get("value")) if AZURE_AUTH_MODE in env else ""
        mode = mode.strip().lower()
        if mode == "connection_string":
            need(AZURE_CONNECTION_STRING, f"{AZURE_CONNECTION_STRING} environment variable must be set when "
                 f"{STORAGE_BACKEND} is AZUREBLOB and {AZURE_AUTH_MODE} is connection_string")
        elif mode in ("workload_identity", "default"):
            need(AZURE_ACCOUNT_URL, f"{AZURE_ACCOUNT_URL} environment variable must be set when {STORAGE_BACKEND} is "
                 f"AZUREBLOB and {AZURE_AUTH_MODE} is {mode}")
        elif not has_value(AZURE_CONNECTION_STRING) and not has_value(AZURE_ACCOUNT_URL):
            c.add(R_COLLECTOR, path + ("env",), dotted + ".env", f"either {AZURE_CONNECTION_STRING} or {AZURE_ACCOUNT_URL} "
                  f"environment variable must be set when {STORAGE_BACKEND} is AZUREBLOB")
    elif kind == "ALIYUNOSS":
        for name in ALIYUN_ENV:
            need(name, f"{name} environment variable must be set when {STORAGE_BACKEND} is ALIYUNOSS")


#: ``rayv1.NetworkPolicyMode`` (apis/ray/v1/raycluster_types.go)
DENY_ALL, DENY_ALL_INGRESS, DENY_ALL_EGRESS = "DenyAll", "DenyAllIngress", "DenyAllEgress"


def _validate_network_policy(c: Ctx, rc: Mapping[str, Any]) -> None:
    """``validateNetworkPolicy`` (utils/validation.go), on a ``networkPolicy`` that is set:
    the mode (DenyAll when unset, the CRD's default) decides which rules may be given:
    no ``ingressRules`` under DenyAllEgress, no ``egressRules`` under DenyAllIngress, for
    ``head``, then ``worker``; then every worker group's name must be a DNS-1123 label
    (it is part of the NetworkPolicy's name); then each ``workerGroups`` entry: its rules
    against the mode, and its ``groupName`` must be a worker group's. The DNS-1123 errors are
    apimachinery's ``IsDNS1123Label`` messages without their regex hints (``core.k8s_syntax``)."""
    np = rc.get("networkPolicy")
    if np is None:
        return
    np = as_mapping(np)
    base, dotted = ("spec", "rayClusterConfig", "networkPolicy"), "spec.rayClusterConfig.networkPolicy"
    mode = _go_string(np["mode"]) if np.get("mode") is not None else DENY_ALL

    def rules_against_mode(rules: Mapping[str, Any], path: tuple, dot: str, shown: str) -> None:
        if mode == DENY_ALL_EGRESS and as_list(rules.get("ingressRules")):
            c.add(R_NETPOL_CONTENT, path + ("ingressRules",), dot + ".ingressRules", f"networkPolicy.{shown}.ingressRules "
                  f"cannot be set when mode is {quote(mode)} (ingress is not restricted)")
        if mode == DENY_ALL_INGRESS and as_list(rules.get("egressRules")):
            c.add(R_NETPOL_CONTENT, path + ("egressRules",), dot + ".egressRules", f"networkPolicy.{shown}.egressRules "
                  f"cannot be set when mode is {quote(mode)} (egress is not restricted)")

    for side in ("head", "worker"):
        rules_against_mode(as_mapping(np.get(side)), base + (side,), f"{dotted}.{side}", side)
    names: set[str] = set()
    for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))):
        g = as_mapping(g)
        name = _go_string(g.get("groupName"))
        errs = is_dns1123_label(name)
        if errs:
            p, d = worker_path(i, g)
            c.add(R_NETPOL_CONTENT, p + ("groupName",), d + ".groupName", f"worker group name {quote(name)} must be a "
                  "valid DNS1123 label when networkPolicy is enabled (it is embedded in the NetworkPolicy name): "
                  f"[{' '.join(errs)}]")
        names.add(name)
    for j, wg in enumerate(as_list(np.get("workerGroups"))):
        wg = as_mapping(wg)
        name = _go_string(wg.get("groupName"))
        p = base + ("workerGroups", j)
        d = f"{dotted}.workerGroups" + (f"[groupName={name}]" if name else f"[{j}]")
        rules_against_mode(wg, p, d, f"workerGroups[{quote(name)}]")
        if name not in names:
            c.add(R_NETPOL_CONTENT, p + ("groupName",), d + ".groupName",
                  f"networkPolicy.workerGroups[{quote(name)}] does not match any group name in workerGroupSpecs")


#: ``utils/constant.go``: the TLS settings KubeRay manages when TLS is on (``validateTLSOptions``'
#: forbidden env vars, in its order; ``RayTLSVolumeName``, ``RayTLSCertMountPath``)
TLS_ENV = ("RAY_USE_TLS", "RAY_TLS_SERVER_CERT", "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT")
RAY_TLS_VOLUME, RAY_TLS_MOUNT_PATH = "ray-tls", "/etc/ray/tls"
_TLS_MANAGED = "- the operator manages TLS configuration automatically"


def _validate_tls_options(c: Ctx, rc: Mapping[str, Any]) -> None:
    """``validateTLSOptions`` (utils/validation.go), when ``utils.IsTLSEnabled`` (the
    RayClusterMTLS gate on and ``tlsOptions.enabled: true``): the Ray container (the first)
    of the head, then of each worker group, sets none of the TLS env vars KubeRay manages
    and mounts nothing where it mounts the certificates
    (``validateNoConflictingTLSVolumeMount``); nor does ``autoscalerOptions``."""
    if not (c.cfg.gate("RayClusterMTLS") and as_mapping(rc.get("tlsOptions")).get("enabled") is True):
        return
    base = ("spec", "rayClusterConfig")
    groups = [(base + ("headGroupSpec",), "spec.rayClusterConfig.headGroupSpec", "head Pod",
               as_mapping(rc.get("headGroupSpec")))]
    for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))):
        g = as_mapping(g)
        p, d = worker_path(i, g)
        groups.append((p, d, f"worker group {quote(_go_string(g.get('groupName')))}", g))
    for p, d, where, group in groups:
        cs = containers_of(group.get("template"))
        if not cs:
            continue
        cp, cd = p + ("template", "spec", "containers", 0), d + ".template.spec.containers[0]"
        envs = env_of(cs[0])
        for name in TLS_ENV:
            if name in envs:
                c.add(R_TLS_CONTENT, cp + ("env",), f"{cd}.env[name={name}]", f"cannot set {name} environment variable "
                      f"in {where} when tlsOptions is set {_TLS_MANAGED}")
        _validate_no_conflicting_tls_volume_mount(c, cs[0], cp, cd, where)
    aopts = rc.get("autoscalerOptions")
    if aopts is None:
        return
    aopts = as_mapping(aopts)
    ap, ad = base + ("autoscalerOptions",), "spec.rayClusterConfig.autoscalerOptions"
    envs = env_of(aopts)
    for name in TLS_ENV:
        if name in envs:
            c.add(R_TLS_CONTENT, ap + ("env",), f"{ad}.env[name={name}]", f"cannot set {name} environment variable in "
                  "autoscalerOptions.env when tlsOptions is set - the operator manages TLS configuration for the "
                  "autoscaler automatically")
    _validate_no_conflicting_tls_volume_mount(c, aopts, ap, ad, "autoscalerOptions.volumeMounts")


def _validate_no_conflicting_tls_volume_mount(c: Ctx, container: Mapping[str, Any], path: tuple, dotted: str,
                                              where: str) -> None:
    """``validateNoConflictingTLSVolumeMount`` (utils/validation.go): no volume mount named
    ``ray-tls`` or at ``/etc/ray/tls`` (upstream's own loop over ``autoscalerOptions.volumeMounts``
    is the same check); the name is checked before the path of each mount."""
    for i, m in enumerate(as_list(container.get("volumeMounts"))):
        m = as_mapping(m)
        if m.get("name") == RAY_TLS_VOLUME:
            c.add(R_TLS_CONTENT, path + ("volumeMounts", i), f"{dotted}.volumeMounts[name={RAY_TLS_VOLUME}]",
                  f"cannot use volume mount named {quote(RAY_TLS_VOLUME)} in {where} when tlsOptions is set {_TLS_MANAGED}")
        elif m.get("mountPath") == RAY_TLS_MOUNT_PATH:
            c.add(R_TLS_CONTENT, path + ("volumeMounts", i), f"{dotted}.volumeMounts[{i}]",
                  f"cannot use volume mount at path {quote(RAY_TLS_MOUNT_PATH)} in {where} when tlsOptions is set "
                  f"{_TLS_MANAGED}")


def _validate_worker_group_idle_timeout(c: Ctx, g: Mapping[str, Any], p: tuple, d: str,
                                        rc: Mapping[str, Any], henv: Mapping[str, Mapping[str, Any]]) -> None:
    """``validateWorkerGroupIdleTimeout`` (utils/validation.go)."""
    its = g.get("idleTimeoutSeconds")
    if its is None:
        return
    name = g.get("groupName")
    if isinstance(its, int) and its < 0:
        c.add(R_IDLE_TIMEOUT, p + ("idleTimeoutSeconds",), d + ".idleTimeoutSeconds",
              f"worker group {name}: idleTimeoutSeconds must be non-negative, got {its}")
        return
    if is_autoscaling_v2_enabled(rc) or v2_env_on(henv):
        return
    c.add(R_IDLE_TIMEOUT, p + ("idleTimeoutSeconds",), d + ".idleTimeoutSeconds",
          f"worker group {name}: idleTimeoutSeconds is set, but autoscaler v2 is not enabled "
          "(set spec.rayClusterConfig.autoscalerOptions.version: v2)")


def _validate_worker_group_priority(c: Ctx, g: Mapping[str, Any], p: tuple, d: str,
                                    rc: Mapping[str, Any], henv: Mapping[str, Mapping[str, Any]]) -> None:
    """``validateWorkerGroupPriority`` (utils/validation.go)."""
    prio = g.get("priority")
    if prio in (None, 0):
        return
    name = g.get("groupName")
    rv = rc.get("rayVersion")
    ver = parse_version(rv)
    msg = None
    if not rv:
        msg = f"worker group {name}: priority is set, but rayVersion was not specified; Ray 2.56.0 or later is required"
    elif ver is None:
        msg = f"worker group {name}: priority is set, but rayVersion format is invalid: {rv}"
    elif ver < (2, 56, 0):
        msg = f"worker group {name}: priority is set, but minimum Ray version is 2.56.0, got {rv}"
    elif not (is_autoscaling_v2_enabled(rc) or v2_env_on(henv)):
        msg = f"worker group {name}: priority is set to {prio}, but autoscaler v2 is not enabled"
    if msg:
        c.add(R_PRIORITY, p + ("priority",), d + ".priority", msg)


#: ``utils/constant.go``: what KubeRay manages for the embedded GCS store
RAY_GCS_STORAGE, RAY_GCS_STORAGE_PATH = "RAY_gcs_storage", "RAY_gcs_storage_path"
GCS_STORAGE_VOLUME, GCS_STORAGE_MOUNT_PATH = "gcs-storage", "/data/gcs"


def _validate_gcs_fault_tolerance_backend(c: Ctx, ft: Mapping[str, Any], hc: Mapping[str, Any], ftp: tuple) -> None:
    """``validateGcsFaultToleranceBackend`` (utils/validation.go)."""
    dotted = "spec.rayClusterConfig.gcsFaultToleranceOptions"
    backend = ft.get("backend") or "redis"
    if backend == "rocksdb":
        if not c.cfg.gate("GCSFaultToleranceEmbeddedStorage"):
            c.add(R_FT_BACKEND, ftp + ("backend",), dotted + ".backend",
                  "the embedded RocksDB GCS FT backend requires the GCSFaultToleranceEmbeddedStorage feature gate")
        for f in ("redisAddress", "redisUsername", "redisPassword", "externalStorageNamespace"):
            # (the strings when not empty, the credentials when set at all: pointers, `{}` included)
            if ft.get(f) if f in ("redisAddress", "externalStorageNamespace") else ft.get(f) is not None:
                c.add(R_FT_BACKEND, ftp + (f,), f"{dotted}.{f}", f"cannot set gcsFaultToleranceOptions.{f} when backend is 'rocksdb'")
        storage = as_mapping(ft.get("storage"))
        if storage.get("claimName") and (storage.get("size") is not None or storage.get("storageClassName") is not None
                                         or as_list(storage.get("accessModes"))):
            c.add(R_FT_BACKEND, ftp + ("storage",), dotted + ".storage", "gcsFaultToleranceOptions.storage.claimName is "
                  "mutually exclusive with size, storageClassName, and accessModes")
        hp = ("spec", "rayClusterConfig", "headGroupSpec", "template", "spec")
        hd = "spec.rayClusterConfig.headGroupSpec.template.spec"
        henv = env_of(hc)
        for env in (RAY_GCS_STORAGE, RAY_GCS_STORAGE_PATH):
            if env in henv:
                c.add(R_FT_BACKEND, hp + ("containers", 0, "env"), f"{hd}.containers[0].env[name={env}]",
                      f"cannot set {env} env var in the head Pod when the embedded GCS FT backend is used; KubeRay "
                      "manages it")
        for m in as_list(hc.get("volumeMounts")):
            m = as_mapping(m)
            if m.get("mountPath") == GCS_STORAGE_MOUNT_PATH or m.get("name") == GCS_STORAGE_VOLUME:
                c.add(R_FT_BACKEND, hp + ("containers", 0, "volumeMounts"), f"{hd}.containers[0].volumeMounts",
                      f"cannot set a volume mount named {GCS_STORAGE_VOLUME!r} or mounted at {GCS_STORAGE_MOUNT_PATH} in "
                      "the head container when the embedded GCS FT backend is used; KubeRay manages it")
        head_pod = as_mapping(as_mapping(as_mapping(as_mapping(c.obj.spec.get("rayClusterConfig")).get(
            "headGroupSpec")).get("template")).get("spec"))
        if any(as_mapping(v).get("name") == GCS_STORAGE_VOLUME for v in as_list(head_pod.get("volumes"))):
            c.add(R_FT_BACKEND, hp + ("volumes",), f"{hd}.volumes", f"cannot set a volume named {GCS_STORAGE_VOLUME!r} "
                  "in the head Pod when the embedded GCS FT backend is used; KubeRay manages it")
    elif ft.get("storage") is not None:
        c.add(R_FT_BACKEND, ftp + ("storage",), dotted + ".storage",
              "cannot set gcsFaultToleranceOptions.storage when backend is 'redis'; it only applies to 'rocksdb'")


def validate_ray_service_spec(c: Ctx) -> None:
    """``ValidateRayServiceSpec`` (utils/validation.go): k8s token auth, the cluster spec,
    head Service name, upgrade type, deletion delay and (incremental) upgrade options."""
    spec = c.obj.spec
    rc = as_mapping(spec.get("rayClusterConfig"))
    if is_k8s_auth(rc):
        c.add(R_K8S_AUTH, ("spec", "rayClusterConfig", "authOptions", "enableK8sTokenAuth"),
              "spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
              "K8s token auth mode is currently not supported for RayService")
    validate_ray_cluster_spec(c)
    hs = as_mapping(as_mapping(rc.get("headGroupSpec")).get("headService"))
    if as_mapping(hs.get("metadata")).get("name"):
        c.add(R_HEAD_SVC_NAME, ("spec", "rayClusterConfig", "headGroupSpec", "headService", "metadata", "name"),
              "spec.rayClusterConfig.headGroupSpec.headService.metadata.name",
              "spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set")
    us = as_mapping(spec.get("upgradeStrategy"))
    t = us.get("type")
    if t is not None and t not in UPGRADE_TYPES:
        c.add(R_UPGRADE_TYPE, ("spec", "upgradeStrategy", "type"), "spec.upgradeStrategy.type",
              f"spec.upgradeStrategy.type value {t} is invalid, valid options are {', '.join(UPGRADE_TYPES)}")
    dd = spec.get("rayClusterDeletionDelaySeconds")
    if isinstance(dd, int) and dd < 0:
        c.add(R_DELETION_DELAY, ("spec", "rayClusterDeletionDelaySeconds"), "spec.rayClusterDeletionDelaySeconds",
              f"spec.rayClusterDeletionDelaySeconds should be a non-negative integer, got {dd}")
    if is_incremental_upgrade_enabled(spec, c.cfg):
        validate_cluster_upgrade_options(c)


def validate_cluster_upgrade_options(c: Ctx) -> None:
    """``ValidateClusterUpgradeOptions`` (utils/validation.go); first failing check only,
    as upstream. ``maxSurgePercent`` takes the CRD default 100 when omitted."""
    spec = c.obj.spec
    rc = as_mapping(spec.get("rayClusterConfig"))
    base = ("spec", "upgradeStrategy", "clusterUpgradeOptions")
    dotted = "spec.upgradeStrategy.clusterUpgradeOptions"

    def fail(field: str, msg: str) -> None:
        path = base + ((field,) if field else ())
        c.add(R_UPGRADE_OPTIONS, path, dotted + (f".{field}" if field else ""), msg)

    if not is_autoscaling_enabled(rc):
        c.add(R_UPGRADE_OPTIONS, ("spec", "rayClusterConfig", "enableInTreeAutoscaling"),
              "spec.rayClusterConfig.enableInTreeAutoscaling", "Ray Autoscaler is required for NewClusterWithIncrementalUpgrade")
        return
    opts = as_mapping(spec.get("upgradeStrategy")).get("clusterUpgradeOptions")
    if not isinstance(opts, Mapping):
        c.add(R_UPGRADE_OPTIONS, ("spec", "upgradeStrategy"), "spec.upgradeStrategy",
              "clusterUpgradeOptions are required for NewClusterWithIncrementalUpgrade")
        return
    ms = opts.get("maxSurgePercent", 100)
    ss = opts.get("stepSizePercent")
    iv = opts.get("intervalSeconds")
    if not isinstance(ms, int) or ms < 0 or ms > 100:
        return fail("maxSurgePercent", "maxSurgePercent must be between 0 and 100")
    if not isinstance(ss, int) or ss < 0 or ss > 100:
        return fail("stepSizePercent", "stepSizePercent must be between 0 and 100")
    if ss > ms:
        return fail("stepSizePercent", "stepSizePercent must be less than or equal to maxSurgePercent")
    if not isinstance(iv, int) or iv <= 0:
        return fail("intervalSeconds", "intervalSeconds must be greater than 0")
    if not opts.get("gatewayClassName"):
        return fail("gatewayClassName", "gatewayClassName is required for NewClusterWithIncrementalUpgrade")


def validate_ray_cluster_upgrade_options(c: Ctx) -> None:
    """``ValidateRayClusterUpgradeOptions`` (utils/validation.go), which the RayCluster
    controller applies to every RayCluster the RayService creates."""
    if ray_cluster_upgrade_options_error(as_mapping(c.obj.spec.get("rayClusterConfig")), True) is not None:
        c.add(R_RC_UPGRADE, ("spec", "rayClusterConfig", "upgradeStrategy", "type"),
              "spec.rayClusterConfig.upgradeStrategy.type",
              "upgradeStrategy cannot be set when RayCluster is created by RayService; the RayCluster controller "
              "will refuse the cluster (event InvalidRayClusterSpec) and the RayService never becomes ready")


def ray_cluster_upgrade_options_error(cluster_spec: Mapping[str, Any], created_by_ray_service: bool) -> str | None:
    """``ValidateRayClusterUpgradeOptions`` (utils/validation.go) as the RayCluster controller
    applies it in ``rayClusterReconcile``: a RayCluster created by a RayService must not
    set ``upgradeStrategy``; otherwise its type must be Recreate or None. The error, or None."""
    us = as_mapping(cluster_spec.get("upgradeStrategy"))
    t = us.get("type")
    if t is None:
        return None
    if t not in ("Recreate", "None"):
        return f"The RayCluster spec is invalid: Spec.UpgradeStrategy.Type value {t} is invalid, valid options are Recreate or None"
    if created_by_ray_service:
        return "upgradeStrategy cannot be set when RayCluster is created by RayService"
    return None
