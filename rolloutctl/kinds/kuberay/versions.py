"""The KubeRay operator versions ``--kuberay-version`` accepts.

The operator stamps its own version, ``utils.KUBERAY_VERSION``
(ray-operator/controllers/ray/utils/constant.go), on every RayCluster it creates as the
``ray.io/kuberay-version`` annotation, and re-applies the active cluster in place when the
two differ (rayservice_controller.go ``shouldUpdateCluster``). ``nightly`` is the value at
the modelled commit; the releases are every tag since the constant exists (v1.1.0). The
model's logic is the modelled commit's for all of them: the version only decides which
live clusters count as made by another operator version.
"""

from __future__ import annotations

from .decisions import MODELLED_KUBERAY_VERSION

RELEASES = (
    "v1.1.0", "v1.1.1", "v1.2.0", "v1.2.1", "v1.2.2", "v1.3.0", "v1.3.1", "v1.3.2", "v1.4.0", "v1.4.1", "v1.4.2",
    "v1.5.0", "v1.5.1", "v1.5.2", "v1.6.0", "v1.6.1", "v1.6.2", "v1.7.0",
)
KNOWN_VERSIONS = (MODELLED_KUBERAY_VERSION, *RELEASES)
