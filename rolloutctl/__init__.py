"""rolloutctl: predict what the KubeRay RayService and Grove PodCliqueSet operators will do."""

__version__ = "0.1.0"
