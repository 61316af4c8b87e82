"""``queueingStrategy: StrictFIFO``: a ClusterQueue's head Workload that does not fit is
requeued at the head every cycle (``pkg/cache/queue/cluster_queue.go``
``RequeueIfNotPresent``: immediate unless the namespace does not match), so no Workload
behind it is tried; under BestEffortFIFO it steps aside and the RayService is admitted."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write

DATA = Path(__file__).parent / "data" / "strict_fifo"


def _plan(cli, tmp_path, queues: str):
    q = write(tmp_path, "queues.yaml", queues)
    return cli("plan", "--kueue", "nested", str(DATA / "rs.yaml"), "--observed", q,
               "--observed", str(DATA / "wl-a-admitted.yaml"), "-o", "json")


def test_an_older_workload_that_does_not_fit_holds_the_strict_fifo_queue(cli, tmp_path):
    r = _plan(cli, tmp_path, (DATA / "q-strict.yaml").read_text())
    assert r.exit_code == 1, r.stderr
    stuck = r.json()["stuck"]
    assert stuck["reason"] == "QueueBlocked"
    assert "queueingStrategy StrictFIFO" in stuck["message"] and "job-b-fghij" in stuck["message"]


def test_best_effort_fifo_lets_it_pass(cli, tmp_path):
    r = _plan(cli, tmp_path, (DATA / "q-strict.yaml").read_text().replace("  queueingStrategy: StrictFIFO\n", ""))
    assert r.exit_code == 0, r.stderr
    assert r.json()["outcome"] == "converged"


PODS = Path(__file__).parent / "data" / "pods_quota"


def test_a_quota_on_pods_counts_one_per_pod(cli, tmp_path):
    """A ClusterQueue that covers ``pods`` counts each pod of a pod set (flavorassigner.go:
    ``RGByResource(corev1.ResourcePods)``): a RayService of a head and a worker does not fit
    ``pods: 1``, whatever its CPU and memory."""
    r = cli("plan", "--kueue", "nested", str(PODS / "k-rs.yaml"), "--observed", str(PODS / "q-pods.yaml"), "-o", "json")
    assert r.exit_code == 1, r.stderr
    stuck = r.json()["stuck"]
    assert stuck["reason"] == "QuotaExceeded" and "pods in flavor default-flavor: nominalQuota 1" in stuck["message"]
    roomy = write(tmp_path, "q.yaml", (PODS / "q-pods.yaml").read_text().replace("{name: pods, nominalQuota: 1}",
                                                                                "{name: pods, nominalQuota: 2}"))
    r = cli("plan", "--kueue", "nested", str(PODS / "k-rs.yaml"), "--observed", roomy, "-o", "json")
    assert r.exit_code == 0 and r.json()["outcome"] == "converged", r.stderr


def test_a_resource_the_queue_does_not_cover_is_no_matching_flavor(cli, tmp_path):
    """``findFlavorForPodSets`` records no flavor attempt for a resource no group covers, so
    ``resolveNoFitReason`` gives NoMatchingFlavor (Kueue has no "Unavailable" reason)."""
    gpu = (DATA / "rs.yaml").read_text().replace('                  cpu: "2"\n',
                                                 '                  cpu: "2"\n                  nvidia.com/gpu: 1\n')
    assert gpu.count("nvidia.com/gpu") == 2  # requests and limits
    rs = write(tmp_path, "rs.yaml", gpu)
    q = write(tmp_path, "q.yaml", (DATA / "q-strict.yaml").read_text().replace("  queueingStrategy: StrictFIFO\n", ""))
    r = cli("plan", "--kueue", "nested", rs, "--observed", q, "-o", "json")
    assert r.exit_code == 1, r.stderr
    stuck = r.json()["stuck"]
    assert stuck["reason"] == "QuotaExceeded" and "QuotaReserved=False/NoMatchingFlavor" in stuck["message"]
