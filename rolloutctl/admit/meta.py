"""ObjectMeta rules the API server applies to every object it admits.

Upstream: k8s.io/apimachinery ``pkg/api/validation/objectmeta.go``
(``ValidateObjectMetaAccessor``: the name as a DNS subdomain for custom resources,
``ValidateAnnotations`` with ``TotalAnnotationSizeLimitB`` = 256 KiB),
``pkg/apis/meta/v1/validation/validation.go`` (``ValidateLabels``) and
``pkg/util/validation/validation.go`` (``IsQualifiedName``, ``IsValidLabelValue``,
``IsDNS1123Subdomain``, ``IsDNS1123Label``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.k8s_syntax import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from ..core.model import Finding, Obj
from ..core.paths import field_path

RULE = "SC010"

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
def check_object_meta(obj: Obj) -> list[Finding]:
    """ObjectMeta findings (rule SC010) of one object; values of the wrong type are the
    schema's to report."""
    md = obj.raw.get("metadata")
    if not isinstance(md, Mapping):
        return []
    out: list[Finding] = []

    def add(path: tuple, message: str) -> None:
        out.append(Finding(RULE, "error", obj.file, obj.line_of(*path), message, field_path(obj.raw, path), obj.ref))

    name = md.get("name")
    if isinstance(name, str) and name:
        for e in is_dns1123_subdomain(name):
            add(("metadata", "name"), f"Invalid value: {_short(name)}: {e}")
    ns = md.get("namespace")
    if isinstance(ns, str) and ns:
        for e in is_dns1123_label(ns):
            add(("metadata", "namespace"), f"Invalid value: {_short(ns)}: {e}")
    labels = md.get("labels")
    if isinstance(labels, Mapping):
        for k, v in labels.items():
            for e in is_qualified_name(str(k)):
                add(("metadata", "labels", k), f"Invalid value: {_short(k)}: label key {e}")
            if isinstance(v, str):
                for e in is_valid_label_value(v):
                    add(("metadata", "labels", k), f"Invalid value: {_short(v)}: label value {e}")
    annotations = md.get("annotations")
    if isinstance(annotations, Mapping):
        total = 0
        for k, v in annotations.items():
            for e in is_qualified_name(str(k).lower()):
                add(("metadata", "annotations", k), f"Invalid value: {_short(k)}: annotation key {e}")
            total += len(str(k).encode("utf-8", "surrogatepass")) + (len(v.encode("utf-8", "surrogatepass")) if isinstance(v, str) else 0)
        if total > TOTAL_ANNOTATION_SIZE_LIMIT:
            add(("metadata", "annotations"), f"Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes "
                f"(annotations total {total} bytes)")
    return out


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 70 else r[:60] + "…" + r[-6:]
