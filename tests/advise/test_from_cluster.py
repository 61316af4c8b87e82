"""``advise --from-cluster``: the live state read with a (fake) kubectl gives exactly the
advice the same objects give with ``--observed``."""

from __future__ import annotations

import json

from tests.load.test_from_cluster import RS, RS_V2, Cluster, settled_world


def test_advise_from_cluster_is_advise_with_the_recorded_objects(tmp_path):
    cluster = Cluster(tmp_path, settled_world(RS))
    observed = cluster.cli("advise", RS_V2, "--observed", str(cluster.recorded), "-o", "json")
    live = cluster.cli("advise", RS_V2, "--from-cluster", "-o", "json")
    assert observed.exit_code == 0, observed.output
    assert live.exit_code == 0, live.output
    assert live.stdout == observed.stdout
    doc = json.loads(live.stdout)
    assert doc["recommendation"]["strategy"] == "NewCluster"
    assert all(c[0] == "get" for c in cluster.calls())


def test_advise_needs_observed_or_from_cluster(tmp_path):
    cluster = Cluster(tmp_path, [])
    r = cluster.cli("advise", RS_V2)
    assert r.exit_code == 2 and "--from-cluster" in r.output
