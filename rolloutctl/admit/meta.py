"""ObjectMeta rules the API server applies to every object it admits.

Upstream: k8s.io/apimachinery ``pkg/api/validation/objectmeta.go``
(``ValidateObjectMetaAccessor``: the name as a DNS subdomain for custom resources,
``ValidateAnnotations`` with ``TotalAnnotationSizeLimitB`` = 256 KiB),
``pkg/apis/meta/v1/validation/validation.go`` (``ValidateLabels``) and
``pkg/util/validation/validation.go`` (``IsQualifiedName``, ``IsValidLabelValue``,
``IsDNS1123Subdomain``, ``IsDNS1123Label``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..core.model import Finding, Obj
from ..core.paths import field_path

RULE = "SC010"

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def is_dns1123_subdomain(v: str) -> list[str]:
    out = []
    if len(v) > 253:
        out.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.match(v):
        out.append("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                   "and must start and end with an alphanumeric character")
    return out


def is_dns1123_label(v: str) -> list[str]:
    out = []
    if len(v) > 63:
        out.append("must be no more than 63 characters")
    if not _DNS1123_LABEL.match(v):
        out.append("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                   "and must start and end with an alphanumeric character")
    return out


def is_qualified_name(v: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS-subdomain prefix and ``/``, then a name of
    at most 63 characters (label and annotation keys)."""
    parts = v.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return ["prefix part must be non-empty"]
        errs = is_dns1123_subdomain(prefix)
        if errs:
            return [f"prefix part {e}" for e in errs]
    else:
        return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character, with an optional DNS subdomain prefix and '/'"]
    if not name:
        return ["name part must be non-empty"]
    if len(name) > 63:
        return ["name part must be no more than 63 characters"]
    if not _QUALIFIED_NAME.match(name):
        return ["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character"]
    return []


def is_valid_label_value(v: str) -> list[str]:
    out = []
    if len(v) > 63:
        out.append("must be no more than 63 characters")
    if not _LABEL_VALUE.match(v):
        out.append("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character")
    return out


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
