"""The model options of the RayService model, checked before anything is loaded:
``kuberay_version`` (``--kuberay-version``) is a version the tool knows
(``versions.KNOWN_VERSIONS``); ``feature_gates`` and ``kuberay_env``
(``--feature-gate``, ``--kuberay-env``) name gates and settings the modelled operator
has (``operator.OperatorConfig.from_options``: ``features.go`` ``defaultFeatureGates``,
``main.go`` ``--feature-gates``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.kind import OptionError
from .operator import ConfigError, OperatorConfig
from .versions import KNOWN_VERSIONS


def check_options(options: Mapping[str, Any]) -> None:
    """Raise ``OptionError`` for an unknown version, gate or setting, or a bad value."""
    version = options.get("kuberay_version")
    if version is not None and version not in KNOWN_VERSIONS:
        hint = f" (did you mean v{version}?)" if f"v{version}" in KNOWN_VERSIONS else ""
        raise OptionError(f"--kuberay-version {version!r} is not a KubeRay version rolloutctl knows{hint}; "
                          f"known: {', '.join(KNOWN_VERSIONS)}")
    try:
        OperatorConfig.from_options(version, options.get("feature_gates", ()), options.get("kuberay_env", ()))
    except ConfigError as exc:
        raise OptionError(str(exc)) from None
