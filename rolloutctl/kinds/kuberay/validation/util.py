"""What KubeRay's validation reads of a RayService, and the helpers of ``utils/util.go``
it calls: the names and annotations it checks, the initializing timeout (a Go duration,
``core.go_time``, or integer seconds, ``core.go_strconv``) and versions, autoscaling and
the incremental-upgrade switch, the groups of a cluster spec.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/utils/util.go``
``IsAutoscalingEnabled``, ``IsAutoscalingV2Enabled``, ``IsIncrementalUpgradeEnabled``;
``utils/constant.go`` (annotations, ``MaxRayServiceNameLength``); ``rayservice_controller.go``
``getInitializingTimeout``; apimachinery's ``version.ParseGeneric`` and
``validation.IsQualifiedName``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from ....core.go_strconv import atoi
from ....core.go_time import parse_duration_seconds
from ....core.goyaml import DocumentError, first_document
from ....core.k8s_syntax import is_qualified_name
from ....core.model import Obj
from ..operator import DEFAULT_CONFIG, OperatorConfig

UPSTREAM = "ray-operator/controllers/ray/utils/validation.go"
CTRL = "ray-operator/controllers/ray/rayservice_controller.go"

#: ``utils.MaxRayServiceNameLength`` = MaxRayClusterNameLength (53) - 6
MAX_RAYSERVICE_NAME_LENGTH = 47
KUBERAY_CONTROLLER = "ray.io/kuberay-operator"
MANAGED_BY_VALUES = (KUBERAY_CONTROLLER, "kueue.x-k8s.io/multikueue")
INITIALIZING_TIMEOUT_ANNOTATION = "ray.io/initializing-timeout"
FT_ENABLED_ANNOTATION = "ray.io/ft-enabled"
EXTERNAL_STORAGE_NS_ANNOTATION = "ray.io/external-storage-namespace"
UPGRADE_TYPES = ("NewClusterWithIncrementalUpgrade", "NewCluster", "None")
INCREMENTAL = "NewClusterWithIncrementalUpgrade"



def parse_initializing_timeout(value: Any) -> float | None:
    """``getInitializingTimeout`` (rayservice_controller.go): Go duration first, then
    integer seconds; None when absent or unparsable."""
    if not isinstance(value, str) or value == "":
        return None
    d = parse_duration_seconds(value)
    if d is not None:
        return d
    seconds = atoi(value)
    if seconds is not None:
        return float(seconds)
    return None


def parse_version(v: Any) -> tuple[int, ...] | None:
    """``k8s.io/apimachinery/pkg/util/version.ParseGeneric``: at least two numeric parts,
    the first without a leading zero ("illegal zero-prefixed version component"). The
    parts come padded to three with zeros, so that tuples compare as ``AtLeast`` does
    (a missing part counts as 0: "2.52" is 2.52.0)."""
    if not isinstance(v, str):
        return None
    m = re.match(r"^v?([0-9]+(?:\.[0-9]+)+)", v.lstrip())
    if not m:
        return None
    parts = m.group(1).split(".")
    if parts[0].startswith("0") and parts[0] != "0":
        return None
    nums = tuple(int(p) for p in parts)
    return nums + (0,) * (3 - len(nums))


def as_mapping(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def containers_of(template: Any) -> list[Mapping[str, Any]]:
    return [c for c in as_list(as_mapping(as_mapping(template).get("spec")).get("containers")) if isinstance(c, Mapping)]


def env_of(container: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for e in as_list(container.get("env")):
        if isinstance(e, Mapping) and isinstance(e.get("name"), str):
            out.setdefault(e["name"], e)
    return out


def is_autoscaling_enabled(spec: Mapping[str, Any]) -> bool:
    """``utils.IsAutoscalingEnabled`` (utils/util.go)."""
    return spec.get("enableInTreeAutoscaling") is True


def is_autoscaling_v2_enabled(spec: Mapping[str, Any]) -> bool:
    """``utils.IsAutoscalingV2Enabled`` (utils/util.go)."""
    return as_mapping(spec.get("autoscalerOptions")).get("version") == "v2"


def is_incremental_upgrade_enabled(rs_spec: Mapping[str, Any], cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """``utils.IsIncrementalUpgradeEnabled`` (utils/util.go): the RayServiceIncrementalUpgrade
    gate (default on) and ``upgradeStrategy.type`` NewClusterWithIncrementalUpgrade."""
    return cfg.gate("RayServiceIncrementalUpgrade") and as_mapping(rs_spec.get("upgradeStrategy")).get("type") == INCREMENTAL


def is_k8s_auth(spec: Mapping[str, Any]) -> bool:
    return as_mapping(spec.get("authOptions")).get("enableK8sTokenAuth") is True


def worker_path(i: int, g: Mapping[str, Any]) -> tuple[tuple, str]:
    name = g.get("groupName")
    sel = f"[groupName={name}]" if isinstance(name, str) and name else f"[{i}]"
    return ("spec", "rayClusterConfig", "workerGroupSpecs", i), f"spec.rayClusterConfig.workerGroupSpecs{sel}"


def qualified_name_ok(key: str) -> bool:
    """``validation.IsQualifiedName`` finds nothing wrong with ``key`` (``core.k8s_syntax``)."""
    return not is_qualified_name(key)


def groups_of(obj: Obj) -> Iterable[tuple[tuple, str, str, Mapping[str, Any]]]:
    rc = as_mapping(obj.spec.get("rayClusterConfig"))
    yield (("spec", "rayClusterConfig", "headGroupSpec"), "spec.rayClusterConfig.headGroupSpec", "Head",
           as_mapping(rc.get("headGroupSpec")))
    for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))):
        g = as_mapping(g)
        p, d = worker_path(i, g)
        yield p, d, str(g.get("groupName") or f"#{i}"), g


def head_container(rc: Mapping[str, Any]) -> Mapping[str, Any]:
    cs = containers_of(as_mapping(rc.get("headGroupSpec")).get("template"))
    return cs[0] if cs else {}


def v2_env_on(henv: Mapping[str, Mapping[str, Any]]) -> bool:
    e = henv.get("RAY_enable_autoscaler_v2")
    return e is not None and str(e.get("value")) in ("1", "true")


def serve_config(config: str) -> tuple[Any, str | None]:
    """``spec.serveConfigV2`` as ``yaml.Unmarshal([]byte(spec.ServeConfigV2),
    &serveConfig)`` reads it in ``updateServeDeployment`` (rayservice_controller.go;
    ``k8s.io/apimachinery/pkg/util/yaml.Unmarshal`` into ``map[string]any``: go-yaml v2
    through ``sigs.k8s.io/yaml``, which reads the first document only, a repeated key's
    last value winning; ``core.goyaml.first_document``, which reads it as kubectl reads a
    manifest): (the value, None), or (None, why it does not decode)."""
    try:
        return first_document(config), None
    except DocumentError as exc:
        return None, f"{exc.message} at line {exc.line}"
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return None, f"{exc.problem or exc.context or 'not YAML'}{where}"
    except yaml.YAMLError as exc:
        return None, " ".join(str(exc).split())
    except Exception as exc:  # noqa: BLE001 - (defensive: whatever else the decoder raises leaves it undecodable)
        return None, f"not YAML: {type(exc).__name__}: {' '.join(str(exc).split())}"


def _applications(doc: Any) -> list[Any]:
    apps = doc.get("applications") if isinstance(doc, dict) else None
    return apps if isinstance(apps, list) else []


def serve_config_applications(config: str) -> list[Any]:
    """The ``applications`` a Serve config declares (``serve_config``; none when it is
    empty, does not parse or lists none)."""
    if not config or not config.strip():
        return []
    return _applications(serve_config(config)[0])


def _unmarshal_error(doc: Any, err: str | None) -> str | None:
    if err is not None:
        return err
    if doc is None or isinstance(doc, dict):
        return None
    kind = "list" if isinstance(doc, list) else "string" if isinstance(doc, str) else "scalar"
    return f"the document is a {kind}, not a mapping"


def serve_config_unmarshal_error(config: str) -> str | None:
    """Why ``yaml.Unmarshal([]byte(spec.ServeConfigV2), &serveConfig)`` fails, as
    ``updateServeDeployment`` (rayservice_controller.go) runs it before submitting the
    config (``serve_config``): a YAML syntax error, or a document that is not a mapping
    (a list, a string). None when it decodes; an empty config decodes (to nothing)."""
    if not config or not config.strip():
        return None
    return _unmarshal_error(*serve_config(config))


def decode_serve_config(config: str) -> tuple[list[Any], str | None]:
    """The applications a Serve config declares (``serve_config_applications``) and why it
    does not unmarshal (``serve_config_unmarshal_error``), from one decoding of it."""
    if not config or not config.strip():
        return [], None
    doc, err = serve_config(config)
    return _applications(doc), _unmarshal_error(doc, err)


def _decoded(obj: Any) -> tuple[Any, str | None]:
    """``serve_config`` of an object's ``spec.serveConfigV2`` (a RayService's, or a cluster's
    Serve state: the config last submitted), once per object (``Obj.derived``): (None, None)
    when it is empty or not a string."""
    config = obj.spec.get("serveConfigV2")
    return serve_config(config) if isinstance(config, str) and config.strip() else (None, None)


def serve_config_document(obj: Any) -> Any:
    """The decoded ``spec.serveConfigV2`` of an object that holds one (``_decoded``); None
    when it is empty, not a string or does not decode."""
    return obj.derived(_decoded)[0]


def decoded_serve_config(obj: Any) -> tuple[list[Any], str | None]:
    """``decode_serve_config`` of a RayService's ``spec.serveConfigV2``, from the object's one
    decoding of it (``_decoded``), for the rules that read both. A config that is not a
    string (a schema error) has none."""
    doc, err = obj.derived(_decoded)
    return _applications(doc), _unmarshal_error(doc, err)
