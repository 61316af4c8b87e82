"""Kubernetes name and key syntax, one copy for admission, generated names and the
operators' webhook rules.

Models ``k8s.io/apimachinery/pkg/util/validation/validation.go``: ``IsDNS1123Label``,
``IsDNS1123Subdomain``, ``IsQualifiedName`` and ``IsValidLabelValue``. Each ``is_*``
function returns the API server's messages (without its regex hints); an empty list
means valid. The ``*_ok`` predicates say whether a string matches upstream's regular
expression (``dns1123LabelFmt``, ``dns1123SubdomainFmt``, ``qualifiedNameFmt``,
``labelValueFmt``; ``dns1035LabelFmt``), written as checks of character sets rather than
compiled patterns: compiling the five patterns was a measurable part of every command's
start (tests check each against its pattern).
"""

from __future__ import annotations

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63

#: upstream's regular expressions, which the predicates below match exactly (Go's regexp:
#: ``$`` is the end of the text, classes are ASCII)
DNS1123_LABEL_FMT = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS1123_SUBDOMAIN_FMT = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS1035_LABEL_FMT = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
QUALIFIED_NAME_FMT = r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
LABEL_VALUE_FMT = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_LOWER_ALNUM = _LOWER | frozenset("0123456789")
_LABEL_CHARS = _LOWER_ALNUM | {"-"}
_ALNUM = _LOWER_ALNUM | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_CHARS = _ALNUM | frozenset("-_.")


def dns1123_label_ok(value: str) -> bool:
    """``value`` matches ``dns1123LabelFmt`` (any length)."""
    return bool(value) and value[0] in _LOWER_ALNUM and value[-1] in _LOWER_ALNUM and _LABEL_CHARS.issuperset(value)


def dns1123_subdomain_ok(value: str) -> bool:
    """``value`` matches ``dns1123SubdomainFmt``: labels joined by dots (any length)."""
    return all(dns1123_label_ok(part) for part in value.split("."))


def dns1035_label_ok(value: str) -> bool:
    """``value`` matches ``dns1035LabelFmt``: a DNS-1123 label that starts with a letter."""
    return bool(value) and value[0] in _LOWER and dns1123_label_ok(value)


def qualified_name_part_ok(value: str) -> bool:
    """``value`` matches ``qualifiedNameFmt`` (any length)."""
    return bool(value) and value[0] in _ALNUM and value[-1] in _ALNUM and _NAME_CHARS.issuperset(value)


def label_value_ok(value: str) -> bool:
    """``value`` matches ``labelValueFmt``: empty, or a qualified name part (any length)."""
    return not value or qualified_name_part_ok(value)


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
    if not dns1123_subdomain_ok(value):
        out.append(_SUBDOMAIN_MSG)
    return out


def is_dns1123_label(value: str) -> list[str]:
    """``IsDNS1123Label``: lower-case RFC 1123 label of at most 63 characters."""
    out = []
    if len(value) > DNS1123_LABEL_MAX:
        out.append(f"must be no more than {DNS1123_LABEL_MAX} characters")
    if not dns1123_label_ok(value):
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
    if name and not qualified_name_part_ok(name):
        errs.append("name part " + _QUALIFIED_MSG)
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue``: empty, or a qualified name part of at most 63 characters."""
    out = []
    if len(value) > LABEL_VALUE_MAX:
        out.append(f"must be no more than {LABEL_VALUE_MAX} characters")
    if not label_value_ok(value):
        out.append("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character")
    return out
