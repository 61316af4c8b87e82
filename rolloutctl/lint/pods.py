"""Kubernetes' own checks on the containers of a Pod, applied to the pod templates a
modelled kind carries (``KIND.pod_templates``): their resources (SC006), images (SC015),
that there is a container at all (SC016), container names (SC017) and their uniqueness
(SC018), and volume names against the operator's (SC019), counting what the operator adds to the Pods
(``KIND.injected_into_pods``: Grove's startup-order init container, KubeRay's
autoscaler sidecar and workers' ``wait-gcs-ready`` init container). The CRDs (and the operators' webhooks) accept any quantity, no image, no
container and any container name, so nothing refuses the manifest; the pods the
operator creates from it are refused instead, and the rollout never starts.
Upstream: ``k8s.io/kubernetes/pkg/apis/core/validation`` ``ValidateResourceRequirements``
/ ``validateResourceQuantityValue``, ``validateContainerCommon`` (an image is required; a
name is a DNS-1123 label), ``validateContainersOnlyForPod`` (a Pod's image has no leading
or trailing whitespace), ``validateContainers`` (at least one container; names unique)
and ``validateInitContainers`` (init container names unique among init and regular
containers), all under ``ValidatePodSpec``.

A kind whose operator refuses a case itself before it creates any Pod names that rule in
``KIND.pod_rules_refused_first`` (``kinds.pod_rules_refused_first``): its own rule reports
the case, and this module does not report it twice."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

from ..core.model import Finding, Obj
from ..core.quantity import QuantityError, parse_quantity
from ..core.k8s_syntax import is_dns1123_label
from ..kinds import injected_into_pods, pod_rules_refused_first, pod_templates
from .paths import field_path

RULE = "SC006"
IMAGE_RULE = "SC015"
CONTAINERS_RULE = "SC016"
NAME_RULE = "SC017"
DUPLICATE_NAME_RULE = "SC018"
DUPLICATE_VOLUME_RULE = "SC019"
#: the API server's validation order: regular containers, then init containers
_CONTAINER_LISTS = ("containers", "initContainers")
_STANDARD_PREFIXES = ("kubernetes.io/", "requests.", "limits.")
_STANDARD = {"cpu", "memory", "ephemeral-storage", "storage", "pods"}


def is_extended_resource(name: str) -> bool:
    """Extended resources are fully qualified names outside ``kubernetes.io/``
    (``nvidia.com/gpu``); they are integers and cannot be overcommitted."""
    return "/" in name and not name.startswith(_STANDARD_PREFIXES) and not name.startswith("hugepages-")


def pod_specs(obj: Obj) -> Iterator[tuple[tuple, Mapping[str, Any]]]:
    """(path, pod spec) of every pod template in the manifest (its kind's
    ``KIND.pod_templates``; none for a kind the tool does not model)."""
    return pod_templates(obj)


def check_pod_resources(obj: Obj) -> list[Finding]:
    """Negative quantities; extended resources that are fractional, requested without
    a limit, or whose request differs from the limit; requests above limits."""
    out: list[Finding] = []

    def add(path: tuple, message: str) -> None:
        out.append(Finding(RULE, "error", obj.file, obj.line_of(*path), message, field_path(obj.raw, path), obj.ref))

    for base, ps in pod_specs(obj):
        for key in ("initContainers", "containers"):
            ctrs = ps.get(key)
            for ci, c in enumerate(ctrs if isinstance(ctrs, list) else []):
                res = c.get("resources") if isinstance(c, Mapping) else None
                if not isinstance(res, Mapping):
                    continue
                parsed: dict[str, dict[str, int]] = {}
                for kind in ("limits", "requests"):
                    vals = res.get(kind)
                    parsed[kind] = {}
                    for name, value in (vals.items() if isinstance(vals, Mapping) else ()):
                        path = (*base, key, ci, "resources", kind, name)
                        try:
                            q = parse_quantity(value)
                        except QuantityError as exc:
                            msg = str(exc)
                            add(path, "must be greater than or equal to 0" if "negative" in msg else msg)
                            continue
                        if is_extended_resource(str(name)) and q % 1000:
                            add(path, f"{name} is an extended resource: must be a whole number (got {value})")
                            continue
                        parsed[kind][str(name)] = q
                lim, req = parsed["limits"], parsed["requests"]
                for name, q in req.items():
                    path = (*base, key, ci, "resources", "requests", name)
                    if is_extended_resource(name):
                        if name not in lim:
                            add(path, f"{name}: a limit must be set for a resource that cannot be overcommitted")
                        elif lim[name] != q:
                            add(path, f"{name}: the request must equal the limit for a resource that cannot be overcommitted")
                    elif name in lim and q > lim[name]:
                        add(path, f"{name}: the request must be less than or equal to the limit")
    return out


def check_pod_images(obj: Obj) -> list[Finding]:
    """Containers and init containers without an image (absent, null or empty: the
    API server requires one in a Pod) or with one that has leading or trailing
    whitespace (which a Pod may not have)."""
    out: list[Finding] = []
    for base, ps in pod_specs(obj):
        for key in ("initContainers", "containers"):
            ctrs = ps.get(key)
            for ci, c in enumerate(ctrs if isinstance(ctrs, list) else []):
                if not isinstance(c, Mapping):
                    continue
                image = c.get("image")
                if image is None or image == "":
                    msg = (f"container {c.get('name')!r} has no image: the API server refuses its Pods "
                           "(image: Required value)")
                elif isinstance(image, str) and image != image.strip():
                    msg = f"container {c.get('name')!r}: image {image!r} must not have leading or trailing whitespace"
                else:
                    continue
                path = (*base, key, ci, "image") if "image" in c else (*base, key, ci)
                out.append(Finding(IMAGE_RULE, "error", obj.file, obj.line_of(*path), msg,
                                   field_path(obj.raw, (*base, key, ci, "image")), obj.ref))
    return out


def _items(ps: Mapping[str, Any], key: str) -> list[tuple[int, Mapping[str, Any]]]:
    ctrs = ps.get(key)
    return [(ci, c) for ci, c in enumerate(ctrs if isinstance(ctrs, list) else []) if isinstance(c, Mapping)]


def validate_containers(obj: Obj) -> list[Finding]:
    """``validateContainers``' first check: a Pod has at least one container
    (``spec.containers: Required value``). A template that writes ``containers: []``
    (the schema's required field is there, empty) is stored, and every Pod made from it
    is refused. An absent list is the schema's SC002.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainers"""
    out: list[Finding] = []
    for base, ps in pod_specs(obj):
        if isinstance(ps.get("containers"), list) and not ps["containers"]:
            path = (*base, "containers")
            out.append(Finding(CONTAINERS_RULE, "error", obj.file, obj.line_of(*path),
                               "the pod template has no containers: the API server refuses its Pods "
                               "(containers: Required value)", field_path(obj.raw, path), obj.ref))
    return out


def validate_container_common(obj: Obj) -> list[Finding]:
    """``validateContainerCommon``'s name check, for containers and init containers: a
    container's name is required and must be a DNS-1123 label (``ValidateDNS1123Label``:
    lower-case alphanumerics and '-', starting and ending with an alphanumeric, at most
    63 characters). A name that is no string is the schema's SC003.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainerCommon"""
    out: list[Finding] = []
    for base, ps in pod_specs(obj):
        for key in _CONTAINER_LISTS:
            for ci, c in _items(ps, key):
                name = c.get("name")
                if not isinstance(name, str):
                    continue
                if name == "":
                    msg = "a container has no name: the API server refuses its Pods (name: Required value)"
                else:
                    errs = is_dns1123_label(name)
                    if not errs:
                        continue
                    msg = (f"container name {name!r} is not a DNS-1123 label ({'; '.join(errs)}): "
                           "the API server refuses its Pods (name: Invalid value)")
                path = (*base, key, ci, "name")
                out.append(Finding(NAME_RULE, "error", obj.file, obj.line_of(*path), msg,
                                   field_path(obj.raw, path), obj.ref))
    return out


def validate_container_names_unique(obj: Obj, options: Mapping[str, Any] | None = None) -> list[Finding]:
    """The ``allNames`` checks of ``validateContainers`` and ``validateInitContainers``:
    container names are unique among the regular containers, and an init container's
    name is unique among the init and regular containers (``name: Duplicate value``, on
    each later use), counting the containers the operator run with the model ``options``
    adds to the Pods (``KIND.injected_into_pods``). Empty names are SC017's.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainers, #validateInitContainers"""
    out: list[Finding] = []
    injected = injected_into_pods(obj, options)
    for base, ps in pod_specs(obj):
        seen: dict[str, str] = {}
        for key in _CONTAINER_LISTS:
            for ci, c in _items(ps, key):
                name = c.get("name")
                if not isinstance(name, str) or name == "":
                    continue
                if name not in seen:
                    seen[name] = key
                    continue
                where = "twice" if seen[name] == key else f"in both {seen[name]} and {key}"
                path = (*base, key, ci, "name")
                out.append(Finding(DUPLICATE_NAME_RULE, "error", obj.file, obj.line_of(*path),
                                   f"container name {name!r} is used {where}: the API server refuses its "
                                   "Pods (name: Duplicate value)", field_path(obj.raw, path), obj.ref))
        out += _repeats_injected(obj, base, ps, injected, _CONTAINER_LISTS, DUPLICATE_NAME_RULE, "container")
    return out


def _repeats_injected(obj: Obj, base: tuple, ps: Mapping[str, Any], injected: list[tuple[tuple, str, str, str]],
                      lists: tuple[str, ...], rule: str, noun: str) -> list[Finding]:
    """The user's entries of ``lists`` in the pod spec at ``base`` whose name is one the
    operator adds to the same Pods (``KIND.injected_into_pods``): the Pod it makes holds
    the name twice."""
    out: list[Finding] = []
    for at, added_to, name, what in injected:
        if at != base or added_to not in lists:
            continue
        for key in lists:
            for ci, c in _items(ps, key):
                if c.get("name") == name:
                    path = (*base, key, ci, "name")
                    out.append(Finding(rule, "error", obj.file, obj.line_of(*path),
                                       f"{noun} name {name!r} is also the name of {what}, which the operator adds to "
                                       "these Pods: the API server refuses them (name: Duplicate value)",
                                       field_path(obj.raw, path), obj.ref))
    return out


def validate_volume_names_unique(obj: Obj, options: Mapping[str, Any] | None = None) -> list[Finding]:
    """The ``allNames`` check of ``ValidateVolumes`` on the Pods the operator makes: a
    user's volume with the name of one the operator adds (``KIND.injected_into_pods``)
    is there twice (``name: Duplicate value``). Two of the user's own are refused with
    the manifest already (``volumes`` is a list keyed by name in the CRDs: SC014).

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#ValidateVolumes"""
    out: list[Finding] = []
    injected = injected_into_pods(obj, options)
    if injected:
        for base, ps in pod_specs(obj):
            out += _repeats_injected(obj, base, ps, injected, ("volumes",), DUPLICATE_VOLUME_RULE, "volume")
    return out


def check_pod_templates(obj: Obj, options: Mapping[str, Any] | None = None) -> list[Finding]:
    """Every check of this module on ``obj``'s pod templates (SC006, SC015-SC019), less
    the rules whose case ``obj``'s operator refuses itself first; ``options``: the model
    options (the operator's settings decide some of what it adds to the Pods)."""
    found = (check_pod_resources(obj) + check_pod_images(obj) + validate_containers(obj)
             + validate_container_common(obj) + validate_container_names_unique(obj, options)
             + validate_volume_names_unique(obj, options))
    first = pod_rules_refused_first(obj)
    return [f for f in found if f.rule not in first] if first else found
