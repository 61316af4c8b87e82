"""The Grove operator configuration the model follows, from ``--grove-config KEY=VALUE``
(model option ``grove_config``), checked before anything is loaded.

Upstream: ``operator/api/config/v1alpha1/types.go`` (``OperatorConfiguration``;
``NetworkAcceleration.AutoMNNVLEnabled``, ``json:"autoMNNVLEnabled"``), rendered by the
Helm chart from ``config.network.autoMNNVLEnabled`` (``operator/charts/values.yaml``:
``false``; ``templates/_helpers.tpl``). Only the settings that change what the model
does are accepted; the default of each is the chart's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ...core.kind import OptionError
from ...core.records import record

#: the settings the model follows, with the chart's default
SETTINGS: Mapping[str, bool] = MappingProxyType({"autoMNNVLEnabled": False})
_TRUE, _FALSE = ("true",), ("false",)


@record(frozen=True)
class GroveConfig:
    """What the modelled operator's configuration says (``OperatorConfiguration``)."""

    #: ``network.autoMNNVLEnabled``: the webhook accepts ``grove.io/mnnvl-group`` values
    #: other than ``none`` and the PodCliqueSet controller registers its ComputeDomain
    #: component (``components/registry.go`` ``CreateOperatorRegistry``)
    auto_mnnvl_enabled: bool = False

    @classmethod
    def from_items(cls, items: Iterable[str]) -> "GroveConfig":
        """From ``--grove-config KEY=VALUE`` items; raises ``OptionError``."""
        values = dict(SETTINGS)
        for item in items:
            key, sep, value = str(item).partition("=")
            key = key.strip()
            if not sep:
                raise OptionError(f"--grove-config {item}: expected KEY=VALUE (e.g. autoMNNVLEnabled=true)")
            if key not in SETTINGS:
                raise OptionError(f"--grove-config {key}: not a Grove operator setting the model follows "
                                  f"(known: {', '.join(sorted(SETTINGS))})")
            v = value.strip().lower()
            if v not in _TRUE + _FALSE:
                raise OptionError(f"--grove-config {key}={value}: expected true or false")
            values[key] = v in _TRUE
        return cls(auto_mnnvl_enabled=values["autoMNNVLEnabled"])

    def changed(self) -> dict[str, bool]:
        """The settings that differ from the chart's defaults, by their upstream names."""
        values = {"autoMNNVLEnabled": self.auto_mnnvl_enabled}
        return {k: v for k, v in values.items() if v != SETTINGS[k]}

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "GroveConfig":
        return cls.from_items(options.get("grove_config", ()))


DEFAULT_CONFIG = GroveConfig()


def check_options(options: Mapping[str, Any]) -> None:
    """Raise ``OptionError`` for an unknown setting or a bad value."""
    GroveConfig.from_options(options)
