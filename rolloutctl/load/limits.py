"""The loader's limits (README "Limits"; flags ``--max-input-bytes``, ``--max-alias-nodes``,
``--max-pods``) and their defaults."""

from __future__ import annotations

from ..core.goyaml import DEFAULT_MAX_ALIAS_NODES
from ..core.records import record

#: Defaults of the input limits (README "Limits"; flags --max-input-bytes, --max-alias-nodes).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: Default of ``--max-pods`` (README "Limits"): the most pods a plan may model.
DEFAULT_MAX_PODS = 100_000


@record(frozen=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES
    #: not a loader limit: the planner's (``app.check_scale``), carried with the others
    max_pods: int = DEFAULT_MAX_PODS
