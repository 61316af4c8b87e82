"""``plan``/``next --from-cluster``: the live world read with the user's kubectl.

A fake ``kubectl`` on PATH serves recorded objects (a world the models themselves
settled), answers label selectors, names, namespaces, RBAC refusals and missing CRDs
as kubectl does, and logs its argv. Planning against it must be exactly planning
against the same objects given with ``--observed``."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rolloutctl.cli import app
from rolloutctl.core.environment import Environment
from rolloutctl.core.simulate import run as simulate_run
from rolloutctl.kinds import live_reads, model_class
from rolloutctl.load.files import load_paths
from tests.conftest import SAMPLES, rolloutctl_env

runner = CliRunner()
PCS = str(SAMPLES / "disaggregated-inference.yaml")
PCS_V2 = str(SAMPLES / "disaggregated-inference-v2.yaml")
RS = str(SAMPLES / "rayservice-text-ml.yaml")
RS_V2 = str(SAMPLES / "rayservice-text-ml-new-image.yaml")

FAKE_KUBECTL = r'''
import json, os, re, sys
argv = sys.argv[1:]
open(os.environ["FAKE_LOG"], "a").write(json.dumps(argv) + "\n")
if argv[:1] == ["rolloutctl"]:  # what kubectl does with a plugin
    os.execvp("kubectl-rolloutctl", ["kubectl-rolloutctl", *argv[1:]])
if argv[:1] != ["get"]:
    sys.exit("fake kubectl: only get")
resource, rest = argv[1], argv[2:]
names, ns, sel = [], None, ""
i = 0
while i < len(rest):
    a = rest[i]
    if a in ("-n", "-l", "-o", "--context"):
        if a == "-n": ns = rest[i + 1]
        if a == "-l": sel = rest[i + 1]
        i += 2
        continue
    if not a.startswith("-"):
        names.append(a)
    i += 1
if resource in os.environ.get("FAKE_MISSING", "").split(","):
    sys.stderr.write(f'error: the server doesn\'t have a resource type "{resource.split(".")[0]}"\n'); sys.exit(1)
if resource in os.environ.get("FAKE_FORBIDDEN", "").split(","):
    sys.stderr.write(f'Error from server (Forbidden): {resource} is forbidden: User "dev" cannot list resource\n')
    sys.exit(1)
big = os.environ.get("FAKE_HUGE")
if big:
    line = b"# " + b"x" * (1 << 20) + b"\n"
    for _ in range(int(big)):
        sys.stdout.buffer.write(line)
    sys.exit(0)
kinds = json.loads(os.environ["FAKE_KINDS"])
items = json.load(open(os.environ["FAKE_WORLD"]))
def matches(o):
    md = o.get("metadata") or {}
    if o.get("kind") != kinds.get(resource): return False
    if ns is not None and md.get("namespace", "default") != ns: return False
    if names and md.get("name") not in names: return False
    labels = md.get("labels") or {}
    for term in filter(None, re.split(r",(?![^()]*\))", sel)):
        m = re.match(r"^(\S+) in \((.*)\)$", term)
        if m:
            if labels.get(m.group(1)) not in [v.strip() for v in m.group(2).split(",")]: return False
        else:
            k, _, v = term.partition("=")
            if labels.get(k) != v: return False
    return True
found = [o for o in items if matches(o)]
if names and len(names) == 1 and found and "-l" not in rest:
    json.dump(found[0], sys.stdout)
else:
    json.dump({"apiVersion": "v1", "kind": "List", "items": found}, sys.stdout)
'''

#: resource -> kind, as the cluster serves them
KINDS = {
    "podcliquesets.grove.io": "PodCliqueSet", "podcliques.grove.io": "PodClique",
    "podcliquescalinggroups.grove.io": "PodCliqueScalingGroup", "podgangs.scheduler.grove.io": "PodGang",
    "pods": "Pod", "services": "Service", "horizontalpodautoscalers.autoscaling": "HorizontalPodAutoscaler",
    "serviceaccounts": "ServiceAccount", "roles.rbac.authorization.k8s.io": "Role",
    "rolebindings.rbac.authorization.k8s.io": "RoleBinding", "secrets": "Secret",
    "rayservices.ray.io": "RayService", "rayclusters.ray.io": "RayCluster",
    "gateways.gateway.networking.k8s.io": "Gateway", "httproutes.gateway.networking.k8s.io": "HTTPRoute",
    "nodes": "Node", "resourcequotas": "ResourceQuota",
}


def settled_world(path: str) -> list[dict]:
    """The objects of a cluster where ``path`` was applied and the operator settled."""
    obj = load_paths([path]).objects[0]
    model = model_class(obj)()
    env = Environment()
    _, world = simulate_run(model, obj, model.observe(obj, [], env), env)
    text = json.dumps([dict(world.get(*k).raw) for k in sorted(world.keys())], default=str)
    return json.loads(text.replace("-<random>", "-x7k2p"))  # the name KubeRay's random suffix gave it


class Cluster:
    """A fake cluster behind a fake kubectl on PATH."""

    def __init__(self, tmp_path: Path, objects: list[dict]) -> None:
        self.tmp = tmp_path
        self.bindir = tmp_path / "bin"
        self.bindir.mkdir()
        script = self.bindir / "kubectl"
        script.write_text(f"#!{sys.executable}\n{FAKE_KUBECTL}")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        self.world = tmp_path / "world.json"
        self.world.write_text(json.dumps(objects))
        self.log = tmp_path / "calls.log"
        self.recorded = tmp_path / "recorded.yaml"
        self.recorded.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
        self.env = {"FAKE_LOG": str(self.log), "FAKE_WORLD": str(self.world), "FAKE_KINDS": json.dumps(KINDS),
                    "PATH": f"{self.bindir}{os.pathsep}{sysconfig.get_paths()['scripts']}", "NO_COLOR": "1"}

    def calls(self) -> list[list[str]]:
        return [json.loads(x) for x in self.log.read_text().splitlines()] if self.log.exists() else []

    def cli(self, *args: str, input: str | None = None, **env: str):
        return runner.invoke(app, list(args), env={**self.env, **env}, input=input)


@pytest.fixture
def pcs_cluster(tmp_path) -> Cluster:
    return Cluster(tmp_path, settled_world(PCS))


@pytest.fixture
def rs_cluster(tmp_path) -> Cluster:
    return Cluster(tmp_path, settled_world(RS))


@pytest.mark.parametrize("command", ["plan", "next"])
def test_from_cluster_plans_exactly_as_the_recorded_objects_given_with_observed(pcs_cluster, command):
    observed = pcs_cluster.cli(command, PCS_V2, "--observed", str(pcs_cluster.recorded), "-o", "json")
    live = pcs_cluster.cli(command, PCS_V2, "--from-cluster", "-o", "json")
    assert observed.exit_code == 0, observed.output
    assert live.exit_code == 0, live.output
    assert live.stdout == observed.stdout
    doc = json.loads(live.stdout)
    assert doc["outcome"] == "converged" and doc["summary"]["creates"] > 0  # a real rollout, not a new object


def test_rayservice_from_cluster_plans_as_observed(rs_cluster):
    observed = rs_cluster.cli("plan", RS_V2, "--observed", str(rs_cluster.recorded), "-o", "json")
    live = rs_cluster.cli("plan", RS_V2, "--from-cluster", "-o", "json")
    assert observed.exit_code == 0 and live.exit_code == 0, live.output
    assert live.stdout == observed.stdout
    kinds = [c[1] for c in rs_cluster.calls()]
    assert kinds == ["rayservices.ray.io", "rayclusters.ray.io", "services", "gateways.gateway.networking.k8s.io",
                     "httproutes.gateway.networking.k8s.io", "pods"]
    pods = rs_cluster.calls()[-1]
    assert pods[pods.index("-l") + 1].startswith("ray.io/cluster in (text-ml-")


def test_incremental_rayservice_reads_its_per_cluster_serve_services(tmp_path):
    """BuildServeService names and labels the incremental per-cluster serve Service after its
    RayCluster: --from-cluster reads it by cluster, so a settled service plans noop, exactly
    as the recorded objects given with --observed."""
    raw = yaml.safe_load(Path(RS).read_text())
    raw["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade", "clusterUpgradeOptions": {
        "gatewayClassName": "istio", "stepSizePercent": 25, "maxSurgePercent": 50, "intervalSeconds": 30}}
    raw["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True  # the upgrade type requires it
    manifest = tmp_path / "incremental.yaml"
    manifest.write_text(yaml.safe_dump(raw))
    cluster = Cluster(tmp_path, settled_world(str(manifest)))
    assert any(o["kind"] == "Service" and o["metadata"]["name"].endswith("-x7k2p-serve-svc") for o in
               json.loads(cluster.world.read_text()))
    live = cluster.cli("plan", str(manifest), "--from-cluster", "-o", "json")
    observed = cluster.cli("plan", str(manifest), "--observed", str(cluster.recorded), "-o", "json")
    assert live.exit_code == 0, live.output
    assert live.stdout == observed.stdout and json.loads(live.stdout)["outcome"] == "noop"
    per_cluster = [c for c in cluster.calls() if c[1] == "services" and "ray.io/originated-from-crd=RayService,"
                   "ray.io/originated-from-cr-name in (text-ml-x7k2p)" in c]
    assert len(per_cluster) == 1


def test_one_read_only_get_per_kind_selected_by_the_owner_labels(pcs_cluster):
    r = pcs_cluster.cli("plan", PCS_V2, "--from-cluster", "--context", "prod", "--kubeconfig", "/etc/kube/config",
                        "-o", "json")
    assert r.exit_code == 0, r.output
    obj = load_paths([PCS_V2]).objects[0]
    expected = [x.resource for x in live_reads(obj)]
    calls = pcs_cluster.calls()
    assert [c[1] for c in calls] == expected  # one get per kind the model reads, in the model's order
    assert len(set(expected)) == len(expected) and "secrets" in expected and "podgangs.scheduler.grove.io" in expected
    for c in calls:
        assert c[0] == "get" and c[c.index("-n") + 1] == "inference" and c[c.index("-o") + 1] == "yaml"
        assert c[c.index("--context") + 1] == "prod" and "--kubeconfig=/etc/kube/config" in c
        if c[1] == "podcliquesets.grove.io":
            assert c[2] == "llm" and "--ignore-not-found" in c
        else:
            assert c[c.index("-l") + 1] == "app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=llm"


def test_kubectl_plugin_plans_as_observed(pcs_cluster):
    """``kubectl rolloutctl plan pcs.yaml --from-cluster``: kubectl runs the kubectl-rolloutctl
    console script, which reads the cluster through the same (fake) kubectl."""
    plugin = Path(sysconfig.get_paths()["scripts"]) / "kubectl-rolloutctl"
    if not plugin.is_file():
        pytest.skip("the kubectl-rolloutctl console script is not installed (pip install .)")
    env = rolloutctl_env({**os.environ, **pcs_cluster.env})
    p = subprocess.run([str(pcs_cluster.bindir / "kubectl"), "rolloutctl", "plan", PCS_V2, "--from-cluster", "-o",
                        "json"], capture_output=True, text=True, env=env, timeout=300)
    observed = pcs_cluster.cli("plan", PCS_V2, "--observed", str(pcs_cluster.recorded), "-o", "json")
    assert p.returncode == 0, p.stderr
    assert p.stdout == observed.stdout


def test_a_kind_rbac_refuses_is_a_warning_and_assumed_settled(pcs_cluster):
    """Kubernetes' built-in view role cannot read Secrets, Roles or RoleBindings."""
    observed = json.loads(pcs_cluster.cli("plan", PCS_V2, "--observed", str(pcs_cluster.recorded), "-o", "json").stdout)
    r = pcs_cluster.cli("plan", PCS_V2, "--from-cluster", "-o", "json",
                        FAKE_FORBIDDEN="secrets,roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["steps"] == observed["steps"] and doc["summary"] == observed["summary"]
    forbidden = [w for w in doc["warnings"] if w["code"] == "LiveReadForbidden"]
    assert sorted(w["path"] for w in forbidden) == ["Role", "RoleBinding", "Secret"]
    assert all("RBAC" in w["message"] and "assumed" in w["message"] for w in forbidden)


def test_a_kind_the_plan_depends_on_cannot_be_refused(pcs_cluster):
    r = pcs_cluster.cli("plan", PCS_V2, "--from-cluster", "-o", "json", FAKE_FORBIDDEN="podcliques.grove.io")
    assert r.exit_code == 3 and r.stdout == ""
    [line] = r.stderr.splitlines()
    assert line.startswith("rolloutctl: ") and "RBAC" in line and "PodClique" in line


def test_a_kind_whose_crd_is_not_installed_reads_as_empty(rs_cluster):
    r = rs_cluster.cli("plan", RS_V2, "--from-cluster", "-o", "json",
                       FAKE_MISSING="gateways.gateway.networking.k8s.io,httproutes.gateway.networking.k8s.io")
    observed = rs_cluster.cli("plan", RS_V2, "--observed", str(rs_cluster.recorded), "-o", "json")
    assert r.exit_code == 0, r.output
    assert r.stdout == observed.stdout


def test_nothing_in_the_cluster_is_a_new_object(tmp_path):
    c = Cluster(tmp_path, [])
    live = c.cli("plan", PCS, "--from-cluster", "-o", "json")
    new = c.cli("plan", PCS, "-o", "json")
    assert live.exit_code == 0 and live.stdout == new.stdout
    assert [x[1] for x in c.calls()][0] == "podcliquesets.grove.io"


def test_capacity_from_cluster_reads_nodes_and_the_namespace_quota(tmp_path):
    def node(name: str, gpus: int, **extra) -> dict:
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                "status": {"allocatable": {"cpu": "96", "memory": "1024Gi", "nvidia.com/gpu": str(gpus)},
                           "conditions": [{"type": "Ready", "status": "True"}]}, **extra}

    nodes = [node("a", 8), node("b", 8), node("cordoned", 8, spec={"unschedulable": True})]
    c = Cluster(tmp_path, nodes)
    r = c.cli("plan", PCS, "--capacity", "from-cluster", "-o", "json")
    explicit = c.cli("plan", PCS, "--capacity", "nvidia.com/gpu=16", "--capacity", "cpu=192",
                     "--capacity", "memory=2048Gi", "-o", "json")
    assert r.exit_code == 1 and r.stdout == explicit.stdout  # the base gang needs 20 GPUs
    assert [x[1] for x in c.calls()] == ["nodes", "resourcequotas"]
    assert "-n" not in c.calls()[0] and c.calls()[1][c.calls()[1].index("-n") + 1] == "inference"

    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "inference"},
             "spec": {"hard": {"requests.nvidia.com/gpu": "24"}},
             "status": {"hard": {"requests.nvidia.com/gpu": "24"}, "used": {"requests.nvidia.com/gpu": "8"}}}
    (tmp_path / "2").mkdir()
    c2 = Cluster(tmp_path / "2", [node("a", 40), quota])
    r = c2.cli("plan", PCS, "--capacity", "from-cluster", "-o", "json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and "nvidia.com/gpu=16" in doc["stuck"]["message"], doc["stuck"]  # 24 - 8 used


def test_kubectl_output_is_refused_while_streaming(tmp_path):
    """600 MB of kubectl output is refused at --max-input-bytes (64 MiB) without the
    process ever holding it: it runs under a 1 GiB address-space limit."""
    import resource

    c = Cluster(tmp_path, [])
    env = rolloutctl_env({**os.environ, **c.env}, FAKE_HUGE="600")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    argv = [sys.executable, *(["-P"] if "PYTHONPATH" not in env else []), "-m", "rolloutctl"]
    p = subprocess.run([*argv, "plan", PCS, "--from-cluster", "-o", "json"], capture_output=True, text=True,
                       env=env, preexec_fn=limit, timeout=300)
    assert p.returncode == 3 and p.stdout == "", p.stderr
    assert "larger than 67108864 bytes" in p.stderr and "--max-input-bytes" in p.stderr


# ----------------------------------------------------------------------------- a failed pipe is not an empty cluster

@pytest.mark.parametrize("args", [["plan", PCS, "--observed", "-"], ["next", PCS, "--observed", "-"],
                                  ["diff", PCS, "--live", "-"]])
def test_empty_standard_input_as_live_state_is_an_error_unless_allowed(cli, args):
    for empty in ("", "\n", "# kubectl failed\n"):
        r = cli(*args, "-o", "json", input=empty)
        assert r.exit_code == 2 and r.stdout == "", (empty, r.stdout, r.stderr)
        [line] = r.stderr.splitlines()
        assert line.startswith("<stdin>:0: ") and "standard input is empty" in line and "--allow-empty" in line
    r = cli(*args, "-o", "json", "--allow-empty", input="")
    assert r.exit_code in (0, 1) and json.loads(r.stdout)
    # an empty list is kubectl's answer for "none": not a failed pipe
    r = cli(*args, "-o", "json", input="apiVersion: v1\nkind: List\nitems: []\n")
    assert r.exit_code in (0, 1), r.stderr


@pytest.mark.parametrize("flag", ["--observed", "--live"])
def test_an_observed_file_or_directory_with_no_document_is_an_error_unless_allowed(cli, tmp_path, flag):
    """``kubectl get … > live.yaml`` that failed leaves an empty file: planned as it was, it
    would look like an empty cluster (a creation, exit 0)."""
    command = "diff" if flag == "--live" else "plan"
    empty = tmp_path / "live.yaml"
    empty.write_text("# kubectl get failed\n")
    (tmp_path / "none").mkdir()
    for given in (str(empty), str(tmp_path / "none")):
        r = cli(command, PCS, flag, given, "-o", "json")
        assert r.exit_code == 2 and r.stdout == "", r.stdout
        [line] = r.stderr.splitlines()
        assert line.startswith(f"{given}:0: {flag} {given}: no object in it") and "--allow-empty" in line, line
        r = cli(command, PCS, flag, given, "--allow-empty", "-o", "json")
        assert r.exit_code in (0, 1) and json.loads(r.stdout), r.stderr
    listed = tmp_path / "list.yaml"
    listed.write_text("apiVersion: v1\nkind: List\nitems: []\n")  # kubectl's "none"
    assert cli(command, PCS, flag, str(listed), "-o", "json").exit_code in (0, 1)


def test_plan_on_a_terminal_without_a_file_says_it_reads_standard_input():
    """No path on a terminal: plan reads standard input, and says so instead of a spinner."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: rolloutctl plan on the terminal
        os.execv(sys.executable, [sys.executable, "-P", "-m", "rolloutctl", "plan"])
    import select
    import signal

    def read_until(done) -> bytes:
        got = b""
        while not done(got) and select.select([fd], [], [], 60)[0]:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
        return got

    out = read_until(lambda got: b"Ctrl-D" in got)
    os.write(fd, b"\x04")  # end of input: nothing was given
    out += read_until(lambda got: False)  # until the child closes the terminal (it exits), or a minute
    done, status = os.waitpid(pid, os.WNOHANG)
    if not done:
        import time

        time.sleep(1)
        done, status = os.waitpid(pid, os.WNOHANG)
    if not done:
        os.kill(pid, signal.SIGKILL)
        _pid, status = os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    assert "rolloutctl plan: reading manifests from standard input (end with Ctrl-D" in text, text
    assert "planning" not in text.split("Ctrl-D")[0]
    assert os.WEXITSTATUS(status) == 2  # empty input: nothing to plan


@pytest.mark.parametrize("args", [["plan", "-", "--observed", "-"], ["diff", "-", "--live", "-"],
                                  ["lint", "-", "-"], ["lint", "-", "--live", "-"], ["plan", PCS, "--observed", "-",
                                                                                    "--observed", "-"]])
def test_standard_input_can_be_named_once(cli, args):
    r = cli(*args, input=Path(PCS).read_text())
    assert r.exit_code == 2 and r.stdout == ""
    assert "standard input (-) can be read only once" in r.stderr


KUEUE_KINDS = {"workloads.kueue.x-k8s.io": "Workload", "localqueues.kueue.x-k8s.io": "LocalQueue",
               "clusterqueues.kueue.x-k8s.io": "ClusterQueue", "resourceflavors.kueue.x-k8s.io": "ResourceFlavor",
               "workloadpriorityclasses.kueue.x-k8s.io": "WorkloadPriorityClass"}


def test_kueue_from_cluster_reads_the_queues_too(tmp_path):
    """``--kueue MODEL --from-cluster``: the RayService, and the Kueue objects the model
    reads (namespaced Workloads and LocalQueues, cluster-wide ClusterQueues and flavors)."""
    objects = [o for f in ("kueue-rayservice.yaml", "kueue-queues.yaml")
               for o in yaml.safe_load_all((SAMPLES / f).read_text()) if o]
    c = Cluster(tmp_path, json.loads(json.dumps(objects, default=str)))
    c.env["FAKE_KINDS"] = json.dumps({**KINDS, **KUEUE_KINDS})
    new = str(SAMPLES / "kueue-rayservice-new-image.yaml")
    observed = c.cli("plan", "--kueue", "top-level", new, "--observed", str(SAMPLES / "kueue-rayservice.yaml"),
                     "--observed", str(SAMPLES / "kueue-queues.yaml"), "-o", "json")
    live = c.cli("plan", "--kueue", "top-level", new, "--from-cluster", "-o", "json")
    assert observed.exit_code == live.exit_code and live.exit_code in (0, 1), live.output
    assert live.stdout == observed.stdout
    calls = {x[1]: x for x in c.calls()}
    assert "-n" not in calls["clusterqueues.kueue.x-k8s.io"] and "-n" in calls["localqueues.kueue.x-k8s.io"]
    # a namespaced role cannot read cluster-wide queues: a warning, and --observed can supply them
    cluster_wide = tmp_path / "cluster-wide.yaml"
    cluster_wide.write_text(yaml.safe_dump_all([o for o in objects if o["kind"] in ("ClusterQueue", "ResourceFlavor")]))
    r = c.cli("plan", "--kueue", "top-level", new, "--from-cluster", "--observed", str(cluster_wide),
              "-o", "json", FAKE_FORBIDDEN="clusterqueues.kueue.x-k8s.io,resourceflavors.kueue.x-k8s.io")
    assert r.exit_code == live.exit_code, r.output
    doc = json.loads(r.stdout)
    assert doc["steps"] == json.loads(live.stdout)["steps"]
    assert {w["path"] for w in doc["warnings"] if w["code"] == "LiveReadForbidden"} >= {"ClusterQueue", "ResourceFlavor"}
