"""Helpers the PodCliqueSet admission rules share: tolerant readers of an object the
schema may not have checked, field paths and names in messages. Go durations are
``core.go_time`` (Go's ``time.ParseDuration``).

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/util.go`` holds the webhook's small
validators (``validateEnumType``, ``validateNonNilField``, ``validateNonEmptyStringField``,
``sliceMustHaveUniqueElements``). The rules built on them live with the functions that
call them; :func:`find_duplicates` is the ``lo.FindDuplicates`` that
``sliceMustHaveUniqueElements`` reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# Clique startup types (operator/api/core/v1alpha1/podcliqueset.go CliqueStartupType).
ANY_ORDER = "CliqueStartupTypeAnyOrder"
IN_ORDER = "CliqueStartupTypeInOrder"
EXPLICIT = "CliqueStartupTypeExplicit"

DEFAULT_SCHEDULER_NAME = "default-scheduler"
"""The scheduler an empty ``schedulerName`` resolves to: the default profile of the
operator configuration, ``default-scheduler`` unless ``defaultProfileName`` says
otherwise (upstream ``operator/api/config/v1alpha1/defaults.go``
``SetDefaults_SchedulerConfiguration``; the Helm chart leaves it unset)."""

#: the scheduler names Grove has a backend for (``operator/api/config/v1alpha1/types.go``
#: ``SupportedSchedulerNames``): the operator configuration's validation
#: (``operator/api/config/validation/validation.go``) refuses a profile of any other name,
#: so no operator can have another scheduler enabled
SCHEDULER_BACKENDS = (DEFAULT_SCHEDULER_NAME, "kai-scheduler", "volcano", "lpx-scheduler")

Path = tuple
Problem = tuple[Path, str]


def clique_scheduler_name(clique: Any) -> str:
    """The scheduler a clique's pods ask for: its ``podSpec.schedulerName``, an empty one
    meaning the default profile (``DEFAULT_SCHEDULER_NAME``; ``registry.GetOrDefault``)."""
    return as_str(as_map(as_map(as_map(clique).get("spec")).get("podSpec")).get("schedulerName")) or DEFAULT_SCHEDULER_NAME

#: the field path of the PodCliqueSet template
TEMPLATE = "spec", "template"

def clique_path(i: int, *rest: Any) -> Path:
    """The path of clique ``i`` of the template (and a field below it)."""
    return (*TEMPLATE, "cliques", i, *rest)


def group_path(i: int, *rest: Any) -> Path:
    """The path of scaling group ``i`` of the template (and a field below it)."""
    return (*TEMPLATE, "podCliqueScalingGroups", i, *rest)


def quote_name(name: str) -> str:
    """A user's name in a message; very long ones are cut (their length is in the message)."""
    return repr(name) if len(name) <= 80 else repr(name[:60]) + f"… ({len(name)} characters)"


def as_list(v: Any) -> list:
    """``v`` when it is a list, else an empty list."""
    return v if isinstance(v, list) else []


def as_map(v: Any) -> Mapping[str, Any]:
    """``v`` when it is a mapping, else an empty mapping."""
    return v if isinstance(v, Mapping) else {}


def as_int(v: Any) -> int | None:
    """``v`` when it is an integer (not a bool), else None."""
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def as_str(v: Any) -> str:
    """``v`` when it is a string, else the empty string."""
    return v if isinstance(v, str) else ""


def find_duplicates(values: Iterable[Any]) -> list[Any]:
    """``lo.FindDuplicates`` (used by util.go ``sliceMustHaveUniqueElements``): each value
    seen more than once, in first-seen order."""
    seen: set = set()
    dups: list = []
    for v in values:
        if v in seen and v not in dups:
            dups.append(v)
        seen.add(v)
    return dups
