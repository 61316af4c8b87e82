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
