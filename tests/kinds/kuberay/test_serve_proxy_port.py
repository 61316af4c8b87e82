"""The port Serve's proxies listen on against the Pods' serve ports (RS043 and the plan).

KubeRay gives a RayService's worker Pods a readiness probe that asks the Serve proxy on
the ray container's ``serve`` port (8000 when it names none), and labels the head
``ray.io/serve=true`` only while the proxy answers on the head's serve port
(``common/pod.go#initLivenessAndReadinessProbe``, ``rayservice_controller.go#
updateHeadPodServeLabel``). Serve listens on ``http_options.port`` (default 8000). The
upstream sample ``ray-service.different-port.yaml`` changes all three together."""

from __future__ import annotations

import json

import yaml

from rolloutctl.kinds.kuberay.operator import OperatorConfig
from rolloutctl.kinds.kuberay.pod import serve_proxy, worker_group_serves
from rolloutctl.kinds.kuberay.validation import validate

from tests.conftest import write
from .helpers import base, edit, new_image, obj, plan, settled

PORT_9000 = "http_options:\n  port: 9000\n"


def _serve_on(d: dict, port: int = 9000, location: str | None = None) -> None:
    head = "proxy_location: " + location + "\n" if location else ""
    d["spec"]["serveConfigV2"] = head + f"http_options:\n  port: {port}\n" + d["spec"]["serveConfigV2"]


def _head_port(d: dict, port: int) -> None:
    for p in d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]:
        if p["name"] == "serve":
            p["containerPort"] = port


def _worker_port(d: dict, port: int) -> None:
    d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["ports"] = [
        {"containerPort": port, "name": "serve"}]


def _all_on_9000(d: dict) -> None:
    _serve_on(d)
    _head_port(d, 9000)
    _worker_port(d, 9000)


def _rs043(raw: dict, cfg: OperatorConfig | None = None) -> list:
    return [f for f in validate(obj(raw), cfg=cfg or OperatorConfig()) if f.rule == "RS043"]


def test_serve_proxy_reads_http_options_port_and_location():
    assert serve_proxy(None) == ("EveryNode", 8000)
    assert serve_proxy(yaml.safe_load(PORT_9000)) == ("EveryNode", 9000)
    assert serve_proxy({"http_options": {"port": "9100"}, "proxy_location": "HeadOnly"}) == ("HeadOnly", 9100)


def test_matching_ports_raise_nothing():
    assert _rs043(base()) == []
    assert _rs043(edit(base(), _all_on_9000)) == []


def test_worker_without_serve_port_probes_8000_while_serve_listens_on_9000():
    d = edit(base(), lambda d: (_serve_on(d), _head_port(d, 9000)))
    found = _rs043(d)
    assert len(found) == 1 and found[0].severity == "warning"
    f = found[0]
    assert "workerGroupSpecs[groupName=cpu]" in f.path
    assert "port 8000 (the ray container names no serve port)" in f.message
    assert "listen on port 9000" in f.message and "never become Ready" in f.message


def test_head_serve_port_other_than_serves_is_kept_out_unless_excluded():
    d = edit(base(), lambda d: (_serve_on(d), _worker_port(d, 9000)))
    (f,) = _rs043(d)
    assert "head's serve port is 8000" in f.message and "ray.io/serve=false" in f.message
    excluded = edit(d, lambda d: d["spec"].__setitem__("excludeHeadPodFromServeSvc", True))
    assert _rs043(excluded) == []


def test_head_only_proxies_leave_workers_unready():
    d = edit(base(), lambda d: _serve_on(d, 8000, "HeadOnly"))
    (f,) = _rs043(d)
    assert "proxy_location HeadOnly runs no proxy on worker nodes" in f.message


def test_no_injected_probe_no_warning():
    d = edit(base(), lambda d: (_serve_on(d), _head_port(d, 9000)))

    def own_probe(d: dict) -> None:
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0][
            "readinessProbe"] = {"exec": {"command": ["true"]}}
    assert _rs043(edit(d, own_probe)) == []
    assert _rs043(d, OperatorConfig(env={"ENABLE_PROBES_INJECTION": "false"})) == []
    group = d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    assert not worker_group_serves(group, ("EveryNode", 9000), OperatorConfig())
    assert worker_group_serves(group, ("EveryNode", 9000), OperatorConfig(env={"ENABLE_PROBES_INJECTION": "FALSE"}))


def test_a_new_service_with_no_serving_pod_is_stuck_never_ready():
    d = edit(base(), lambda d: _serve_on(d))  # head and workers on 8000, Serve on 9000
    run = plan(d)
    assert run.plan.outcome == "stuck"
    assert run.plan.stuck is not None and run.plan.stuck.reason == "NeverReady"
    assert "Serve's proxies listen on port 9000" in run.plan.stuck.message
    assert "head's serve port is 8000" in run.plan.stuck.message
    rc = [o for o in run.world.of_kind("RayCluster") if not o.terminating][0]
    assert rc.status.get("readyWorkerReplicas") == 0 and rc.status.get("state") != "ready"


def test_head_on_the_right_port_serves_alone():
    d = edit(base(), lambda d: (_serve_on(d), _head_port(d, 9000)))
    run = plan(d)
    assert run.plan.outcome == "converged"
    last = run.plan.steps[-1].after
    assert last["numServeEndpoints"] == 1 and last["ready"] is True
    rc = [o for o in run.world.of_kind("RayCluster") if not o.terminating][0]
    assert rc.status.get("readyWorkerReplicas") == 0  # the three workers never pass the probe


def test_upgrade_to_a_cluster_that_does_not_serve_drops_ready():
    """The switch to the new cluster happens (its Serve applications are RUNNING) and then
    the serve Service has no endpoint: Ready=False/ZeroServeEndpoints."""
    old = edit(base(), _all_on_9000)
    new = edit(new_image(old), lambda d: (_head_port(d, 8000), _worker_port(d, 8000)))
    run = plan(new, settled(old))
    titles = [s.title for s in run.plan.steps]
    assert any("Ready=False/ZeroServeEndpoints" in t for t in titles), titles
    assert run.plan.stuck is not None and run.plan.stuck.reason == "NeverReady"
    assert run.plan.steps[0].after["ready"] is True  # serving on the old cluster until the switch


def test_lint_and_plan_from_the_command_line(cli, tmp_path):
    bad = edit(base(), lambda d: _serve_on(d))
    path = write(tmp_path, "rs.yaml", yaml.safe_dump(bad, sort_keys=False))
    r = cli("lint", path, "-o", "json")
    assert r.exit_code == 0  # warnings only
    assert sorted(f["rule"] for f in r.json()["findings"]) == ["RS043", "RS043"]
    r = cli("plan", path, "-o", "json")
    assert r.exit_code == 1
    assert json.loads(r.stdout)["stuck"]["reason"] == "NeverReady"
