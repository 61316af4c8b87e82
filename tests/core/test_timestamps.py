"""``core.timestamps``: RFC 3339 times as the API server writes them, and a snapshot's
newest write time (what the models take as "now")."""

from __future__ import annotations

from rolloutctl.core.model import Obj
from rolloutctl.core.timestamps import parse_time, snapshot_time


def test_parse_time_reads_metav1_time_and_offsets():
    assert parse_time("1970-01-01T00:00:00Z") == 0
    assert parse_time("1970-01-01T01:00:00+01:00") == 0
    assert parse_time("2026-09-01T10:05:00.5Z") == parse_time("2026-09-01T10:05:00Z") + 0.5
    assert parse_time("yesterday") is None and parse_time(5) is None


def test_snapshot_time_reads_write_times_only():
    """creationTimestamp, managedFields times and statuses count; labels, annotations and
    deletionTimestamp (now plus the grace period: in the future) do not."""
    pod = Obj({"kind": "Pod", "metadata": {
        "name": "p", "creationTimestamp": "2026-09-01T10:00:00Z",
        "deletionTimestamp": "2030-01-01T00:00:00Z",
        "annotations": {"example.com/expires-at": "2029-01-01T00:00:00Z"},
        "managedFields": [{"manager": "kubelet", "time": "2026-09-01T10:07:00Z"}]},
        "status": {"conditions": [{"type": "Ready", "lastTransitionTime": "2026-09-01T10:05:00Z"}]}})
    assert snapshot_time([pod]) == parse_time("2026-09-01T10:07:00Z")
    assert snapshot_time([Obj({"kind": "X", "metadata": {"name": "x"}})]) is None
