"""The use cases, one module per command or family of commands, as plain functions
returning core data: ``plan`` (``plan``, ``next``), ``compare`` (``plan --compare``),
``diff``, ``lint`` and ``advise``. What they share, from reading the input to the
model of each target, is ``rolloutctl.app``. No printing and no exit codes: problems
are raised as ``app.InputProblem`` (exit 2) or ``app.ToolFailure`` (exit 3).
"""
