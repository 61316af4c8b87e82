"""What a change to a live object causes (``diff``'s ``effect``), from the least to the most disruptive;
the one list the diff model, ``--fail-on`` and the repository configuration share. A module of its own
so that ``rolloutctl --help`` (which names them) imports nothing else."""

EFFECTS = ("none", "in-place", "scale", "rollout", "recreate", "teardown", "ignored", "rejected")
