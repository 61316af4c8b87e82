"""Kubernetes name and key syntax, one copy for admission, generated names and the
operators' webhook rules.

Models ``k8s.io/apimachinery/pkg/util/validation/validation.go``: ``IsDNS1123Label``,
``IsDNS1123Subdomain``, ``IsQualifiedName`` and ``IsValidLabelValue``. Each function
returns the API server's messages (without its regex hints); an empty list means valid.
"""

from __future__ import annotations

import re

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_RE = re.compile(rf"^{_LABEL}$")
DNS1123_SUBDOMAIN_RE = re.compile(rf"^{_LABEL}(\.{_LABEL})*$")
QUALIFIED_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                  "and must start and end with an alphanumeric character")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
              "and must start and end with an alphanumeric character")
_QUALIFIED_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")


def is_dns1123_subdomain(value: str) -> list[str]:
    """``IsDNS1123Subdomain``: lower-case RFC 1123 subdomain of at most 253 characters."""
    out = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        out.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX} characters")
    if not DNS1123_SUBDOMAIN_RE.fullmatch(value):
        out.append(_SUBDOMAIN_MSG)
    return out


def is_dns1123_label(value: str) -> list[str]:
    """``IsDNS1123Label``: lower-case RFC 1123 label of at most 63 characters."""
    out = []
    if len(value) > DNS1123_LABEL_MAX:
        out.append(f"must be no more than {DNS1123_LABEL_MAX} characters")
    if not DNS1123_LABEL_RE.fullmatch(value):
        out.append(_LABEL_MSG)
    return out


def is_qualified_name(value: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS-subdomain prefix and ``/``, then a name of at
    most 63 characters (label and annotation keys). Prefix and name errors accumulate, as
    upstream's do."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + e for e in is_dns1123_subdomain(prefix))
    else:
        return ["a qualified name " + _QUALIFIED_MSG + ", with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX:
        errs.append(f"name part must be no more than {QUALIFIED_NAME_MAX} characters")
    if name and not QUALIFIED_NAME_RE.fullmatch(name):
        errs.append("name part " + _QUALIFIED_MSG)
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue``: empty, or a qualified name part of at most 63 characters."""
    out = []
    if len(value) > LABEL_VALUE_MAX:
        out.append(f"must be no more than {LABEL_VALUE_MAX} characters")
    if not LABEL_VALUE_RE.fullmatch(value):
        out.append("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character")
    return out
