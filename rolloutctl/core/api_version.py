"""The ``apiVersion`` of every document rolloutctl writes (CONTRACT.md)."""

API_VERSION = "rolloutctl.dev/v1alpha1"
