"""The update strategies proposed in the design discussion (ai-dynamo/grove PR #262):
``RollingUpdate`` with per-component maxSurge/maxUnavailable and ``ReplicaRecreate``
with PodCliqueSet-level budgets (listed in ``kinds/grove/strategies.py``); see
docs/grove-proposed.md."""
