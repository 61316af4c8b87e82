"""Workload names: ``GetWorkloadNameForOwnerWithGVK`` and how the model shows them.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobframework/workload_names.go``
(``GetWorkloadNameForOwnerWithGVK``, ``GetWorkloadNameForOwnerWithGVKAndGeneration``).

A Workload's name ends in the first five hex digits of a SHA-1 over the owner's UID
(and, for an elastic slice, its generation), which a manifest does not carry. The model
renders it as ``-<hash>``; inside the world a later slice of the same RayService is
``-<hash2>`` (``Action.uid``), shown as ``-<hash>`` with the slice number in
``Action.role``.
"""

from __future__ import annotations

import re

from ...core.world import World
from ..kuberay.api import display as kr_display
from .constants import WL

_HASH_RE = re.compile(r"-<hash\d*>")


def display(name: str | None) -> str:
    """A Workload name as shown: every slice's hash renders as ``-<hash>``; a cluster
    name inside it keeps KubeRay's ``-<random>``."""
    return kr_display(_HASH_RE.sub("-<hash>", name or "")) or ""


def slice_number(name: str) -> int:
    """Which slice of its job a Workload is, from its name (``-<hash>`` 1, ``-<hash2>`` 2, ...)."""
    m = re.search(r"-<hash(\d*)>\Z", name)
    return int(m.group(1) or 1) if m else 1


def workload_name(prefix_kind: str, owner: str, world: World, ns: str, fresh: bool) -> str:
    """``GetWorkloadNameForOwnerWithGVK`` (workload_names.go): ``<kind>-<owner>-<hash>``.
    ``fresh``: an elastic slice (the hash covers the generation too) gets a new name."""
    base = f"{prefix_kind}-{owner}-"
    if not fresh:
        return base + "<hash>"
    used = {w.name for w in world.of_kind(WL) if w.namespace == ns}
    i = 1
    while True:
        n = base + ("<hash>" if i == 1 else f"<hash{i}>")
        if n not in used:
            return n
        i += 1
