"""Kubernetes' own checks on the containers of a Pod, applied to the pod templates a
modelled kind carries (``KIND.pod_templates``): their resources (SC006) and images
(SC015). The CRDs accept any quantity and no image, so nothing refuses the manifest; the
pods the operator creates from it are refused instead, and the rollout never starts.
Upstream: ``k8s.io/kubernetes/pkg/apis/core/validation`` ``ValidateResourceRequirements``
/ ``validateResourceQuantityValue``, ``validateContainerCommon`` (an image is required) and
``validateContainersOnlyForPod`` (a Pod's image has no leading or trailing whitespace)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

from ..core.model import Finding, Obj
from ..core.quantity import QuantityError, parse_quantity
from ..kinds import pod_templates
from .paths import field_path

RULE = "SC006"
IMAGE_RULE = "SC015"
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


def check_pod_templates(obj: Obj) -> list[Finding]:
    """Every check of this module on ``obj``'s pod templates (SC006, SC015)."""
    return check_pod_resources(obj) + check_pod_images(obj)
