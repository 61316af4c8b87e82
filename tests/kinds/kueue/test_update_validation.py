"""Kueue's RayService validating webhook on update (``rayservice_webhook.go`` ValidateUpdate
-> ``jobframework/validation.go`` ValidateJobOnUpdate): a change the webhook refuses is not
planned; ``plan`` stops with one ``PATH:LINE: KQ00N: ...`` line and exit code 2."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import write
from .helpers import SAMPLES, edit, rs, rs_new_image

QUEUES = str(SAMPLES / "kueue-queues.yaml")


def _plan(cli, tmp_path, desired: dict, observed: dict, mode: str = "nested"):
    d = write(tmp_path, "desired.yaml", yaml.safe_dump(desired, sort_keys=False))
    o = write(tmp_path, "observed.yaml", yaml.safe_dump(observed, sort_keys=False))
    return cli("plan", "--kueue", mode, d, "--observed", o, "--observed", QUEUES)


@pytest.mark.parametrize("mode", ["top-level", "nested"])
def test_dropping_the_elastic_annotation_is_rejected(cli, tmp_path, mode):
    r = _plan(cli, tmp_path, edit(rs_new_image(), lambda d: d["metadata"].pop("annotations")), rs(), mode)
    assert r.exit_code == 2
    (line,) = [ln for ln in r.stderr.splitlines() if "KQ004" in ln]
    assert line.startswith(str(tmp_path / "desired.yaml") + ":")
    assert "kueue.x-k8s.io/elastic-job" in line and "immutable" in line


def test_legacy_model_has_no_rayservice_webhook(cli, tmp_path):
    r = _plan(cli, tmp_path, edit(rs_new_image(), lambda d: d["metadata"].pop("annotations")), rs(), "legacy")
    assert r.exit_code != 2 and "KQ004" not in r.stderr


def test_queue_of_a_running_rayservice_cannot_change(cli, tmp_path):
    moved = edit(rs_new_image(), lambda d: d["metadata"]["labels"].__setitem__("kueue.x-k8s.io/queue-name", "other"))
    r = _plan(cli, tmp_path, moved, rs())
    assert r.exit_code == 2 and "KQ005" in r.stderr and "user-queue -> other" in r.stderr


def test_queue_may_change_while_kueue_holds_it_suspended(cli, tmp_path):
    """Observed as stored by Kueue while its Workload waits: rayClusterConfig.suspend true."""
    held = edit(rs(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("suspend", True))
    moved = edit(rs_new_image(), lambda d: d["metadata"]["labels"].__setitem__("kueue.x-k8s.io/queue-name", "other"))
    r = _plan(cli, tmp_path, moved, held)
    assert "KQ005" not in r.stderr


def test_priority_class_label_cannot_be_removed(cli, tmp_path):
    prio = edit(rs(), lambda d: d["metadata"]["labels"].__setitem__("kueue.x-k8s.io/priority-class", "high"))
    r = _plan(cli, tmp_path, rs_new_image(), prio)
    assert r.exit_code == 2 and "KQ006" in r.stderr and "cannot be removed" in r.stderr


def test_queue_label_may_not_be_dropped_where_the_namespace_has_a_default_queue(cli, tmp_path):
    """validateUpdateForQueueName (jobframework/validation.go): suspended or not, an empty
    queue-name is refused when the old one was set and the namespace has a LocalQueue named
    default (DefaultLocalQueueExist); without such a queue, dropping it while suspended is
    allowed."""
    held = edit(rs(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("suspend", True))
    dropped = edit(rs_new_image(), lambda d: d["metadata"]["labels"].pop("kueue.x-k8s.io/queue-name"))
    assert "KQ005" not in _plan(cli, tmp_path, dropped, held).stderr
    default_lq = write(tmp_path, "default-lq.yaml", yaml.safe_dump(
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
         "metadata": {"name": "default", "namespace": "default"}, "spec": {"clusterQueue": "cluster-queue"}}))
    d = write(tmp_path, "desired.yaml", yaml.safe_dump(dropped, sort_keys=False))
    o = write(tmp_path, "observed.yaml", yaml.safe_dump(held, sort_keys=False))
    r = cli("plan", "--kueue", "nested", d, "--observed", o, "--observed", QUEUES, "--observed", default_lq)
    assert r.exit_code == 2 and "queue-name must not be empty in namespace with default queue" in r.stderr
