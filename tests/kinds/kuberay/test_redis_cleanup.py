"""The Redis cleanup finalizer is a property of the RayCluster being deleted, not of the
desired spec: ``rayClusterReconcile`` (raycluster_controller.go, ray-project/kuberay @
feeaf72f) runs its cleanup block for a deleted cluster when ``ENABLE_GCS_FT_REDIS_CLEANUP``
is not ``false`` and that cluster's own spec or annotations enable GCS fault tolerance
with Redis (``utils.IsGCSFaultToleranceEnabled``, not ``IsGCSFaultToleranceEmbedded``),
and keeps it (finalizer ``ray.io/gcs-ft-redis-cleanup-finalizer``) until the cleanup Job
has finished or the deletion timeout has passed. A plan that deletes such an observed
cluster warns ``NotModelledRedisCleanup`` even when the desired spec drops GCS fault
tolerance."""

from __future__ import annotations

import copy

import yaml

from tests.conftest import write

from .helpers import base, new_image

REDIS = {"redisAddress": "redis://redis:6379"}
FINALIZER = "ray.io/gcs-ft-redis-cleanup-finalizer"


def _with_ft(d: dict, ft: dict = REDIS) -> dict:
    d["spec"]["rayClusterConfig"]["gcsFaultToleranceOptions"] = copy.deepcopy(ft)
    return d


def _live(old: dict, finalizers: list[str]) -> list[dict]:
    """A settled live RayService at ``old`` (its RayCluster text-ml-aaaaa serving) with the
    desired change applied: new image, GCS fault tolerance dropped."""
    rs = new_image(base())
    rs["metadata"].update(generation=2, finalizers=["ray.io/rayservice-finalizer"])
    rs["status"] = {"observedGeneration": 1, "numServeEndpoints": 4, "serviceStatus": "Running",
                    "activeServiceStatus": {"rayClusterName": "text-ml-aaaaa",
                                            "applicationStatuses": {"text_ml_app": {"status": "RUNNING"}}},
                    "conditions": [{"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints",
                                    "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    md = {"name": "text-ml-aaaaa", "namespace": rs["metadata"]["namespace"],
          "labels": {"ray.io/originated-from-cr-name": "text-ml", "ray.io/originated-from-crd": "RayService"},
          "annotations": {"ray.io/kuberay-version": "nightly"}}
    if finalizers:
        md["finalizers"] = finalizers
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": md,
          "spec": copy.deepcopy(old["spec"]["rayClusterConfig"]),
          "status": {"conditions": [{"type": "HeadPodReady", "status": "True", "reason": "HeadPodRunningAndReady"}],
                     "readyWorkerReplicas": 3}}
    return [rs, rc]


def _redis_warnings(cli, tmp_path, desired: dict, observed: list[dict] | dict, *args: str) -> list[dict]:
    nf = write(tmp_path, "new.yaml", yaml.safe_dump(desired))
    doc = observed if isinstance(observed, dict) else {"apiVersion": "v1", "kind": "List", "items": observed}
    of = write(tmp_path, "live.yaml", yaml.safe_dump(doc))
    r = cli("plan", nf, "--observed", of, *args, "-o", "json")
    assert r.exit_code == 0, r.stderr
    return [w for w in r.json()["warnings"] if w["code"] == "NotModelledRedisCleanup"]


def test_deleting_a_live_cluster_that_carries_the_finalizer_warns_after_the_spec_drops_gcs_ft(cli, tmp_path):
    live = _live(_with_ft(base()), [FINALIZER])
    ws = _redis_warnings(cli, tmp_path, live[0], live)
    assert [w["path"] for w in ws] == ["RayCluster/text-ml-aaaaa.metadata.finalizers"]
    assert "the observed RayCluster text-ml-aaaaa carries the finalizer" in ws[0]["message"]
    # without the cleanup the finalizer stays, as the plan shows it (held to the end): nothing to warn
    assert _redis_warnings(cli, tmp_path, live[0], live, "--kuberay-env", "ENABLE_GCS_FT_REDIS_CLEANUP=false") == []


def test_deleting_a_live_cluster_whose_own_spec_enables_gcs_ft_warns(cli, tmp_path):
    """Without the finalizer in the snapshot: the RayCluster controller adds it before anything else."""
    live = _live(_with_ft(base()), [])
    ws = _redis_warnings(cli, tmp_path, live[0], live)
    assert [w["path"] for w in ws] == ["RayCluster/text-ml-aaaaa.spec"]
    assert "the plan removes the observed RayCluster text-ml-aaaaa" in ws[0]["message"]


def test_the_previous_manifest_with_gcs_ft_warns_when_the_desired_one_drops_it(cli, tmp_path):
    ws = _redis_warnings(cli, tmp_path, new_image(base()), _with_ft(base()))
    assert len(ws) == 1 and ws[0]["path"].startswith("RayCluster/text-ml-")


def test_no_warning_for_an_observed_cluster_without_redis(cli, tmp_path):
    embedded = {"backend": "rocksdb"}
    live = _live(_with_ft(base(), embedded), [])
    assert _redis_warnings(cli, tmp_path, live[0], live) == []
    live = _live(base(), [])
    assert _redis_warnings(cli, tmp_path, live[0], live) == []


GATE = ("--feature-gate", "GCSFaultToleranceEmbeddedStorage=true")


def _held(p: dict) -> list[str]:
    return [w for s in p["steps"] for w in s["waitFor"] if "held by finalizers" in w]


def test_a_deleted_embedded_backend_cluster_loses_its_stale_redis_finalizer_at_once(cli, tmp_path):
    """A cluster created on Redis and later switched to the embedded RocksDB backend still
    carries the Redis finalizer; ``rayClusterReconcile`` removes it when the cluster is
    deleted (there is no Redis to clean up), so the old cluster goes without staying
    Terminating. Any other finalizer still holds it. Without the
    GCSFaultToleranceEmbeddedStorage gate ``ValidateRayClusterSpec`` refuses the embedded
    backend and the reconcile returns before the removal: the finalizer stays."""
    live = _live(_with_ft(base(), {"backend": "rocksdb"}), [FINALIZER])
    nf = write(tmp_path, "new.yaml", yaml.safe_dump(live[0]))
    of = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    p = cli("plan", nf, "--observed", of, *GATE, "-o", "json").json()
    assert p["outcome"] == "converged" and not _held(p)
    held = _held(cli("plan", nf, "--observed", of, "-o", "json").json())
    assert held and all(FINALIZER in w for w in held)
    live = _live(_with_ft(base(), {"backend": "rocksdb"}), [FINALIZER, "example.com/keep"])
    of = write(tmp_path, "live2.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    held = _held(cli("plan", nf, "--observed", of, *GATE, "-o", "json").json())
    assert held and all("example.com/keep" in w and FINALIZER not in w for w in held)
