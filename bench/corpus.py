"""Reference plans: write the output of a fixed set of commands to a directory, one file each.

Speed and layout changes must not change plans. Run this before and after a change and compare:

    python bench/corpus.py /tmp/before          # on the old commit
    python bench/corpus.py /tmp/after           # on the new one
    diff -r /tmp/before /tmp/after              # nothing, or only what the change meant to change

The commands cover every bundled sample and, when ``../shared/upstream`` is beside the checkout,
every upstream sample, each planned as new and against itself (``--observed``); the bundled
updates with ``--compare``, ``--capacity``, ``--never-ready``, ``--steps`` and the Kueue models;
``next`` and ``diff`` of the updates; and generated 100- and 500-pod PodCliqueSets as creations
and as an image change under every update strategy. Each file holds the exit code and the
output (``-o json`` unless the command is about a table). ``--jobs`` runs commands in parallel.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workloads import large_pcs, with_image, with_strategy  # noqa: E402

SAMPLES = ROOT / "samples"
UPSTREAM = ROOT.parent / "shared" / "upstream"
STRATEGIES = ("RollingRecreate", "RollingUpdate", "ReplicaRecreate", "OnDelete")


def _commands(gen: Path) -> dict[str, list[str]]:
    s = {p.stem: str(p) for p in sorted(SAMPLES.glob("*.yaml"))}
    cmds: dict[str, list[str]] = {}
    files = [Path(p) for n, p in s.items() if not n.startswith("kueue-queues")]  # queues alone plan nothing
    if UPSTREAM.is_dir():
        files += sorted(UPSTREAM.glob("*/samples/*.yaml"))
    for f in files:
        name = f"bundled-{f.stem}" if f.parent == SAMPLES else f"{f.parent.parent.name}-{f.stem}"
        cmds[f"plan-new-{name}"] = ["plan", str(f), "-o", "json"]
        cmds[f"plan-self-{name}"] = ["plan", str(f), "--observed", str(f), "-o", "json"]
    pcs_new, pcs_old = s["disaggregated-inference-v2"], s["disaggregated-inference"]
    rs_new, rs_old = s["rayservice-text-ml-new-image"], s["rayservice-text-ml"]
    kq_new, kq_old, queues = s["kueue-rayservice-new-image"], s["kueue-rayservice"], s["kueue-queues"]
    upd = ["plan", pcs_new, "--observed", pcs_old]
    cmds.update({
        "pcs-update": upd + ["-o", "json"],
        "pcs-update-table": upd + ["--no-color"],
        "pcs-update-steps-table": upd + ["--steps", "--no-color"],
        "pcs-update-markdown": upd + ["-o", "markdown"],
        "pcs-update-compare": upd + ["--compare", "-o", "json"],
        "pcs-update-capacity": upd + ["--capacity", "nvidia.com/gpu=16", "-o", "json"],
        "pcs-update-capacity-compare": upd + ["--capacity", "nvidia.com/gpu=16", "--compare", "-o", "json"],
        "pcs-update-never-ready": upd + ["--never-ready", "*decode*", "-o", "json"],
        "pcs-next": ["next", pcs_new, "--observed", pcs_old, "-o", "json"],
        "pcs-diff": ["diff", pcs_new, "--live", pcs_old, "-o", "json"],
        "rs-update": ["plan", rs_new, "--observed", rs_old, "-o", "json"],
        "rs-update-table": ["plan", rs_new, "--observed", rs_old, "--no-color"],
        "rs-update-no-incremental": ["plan", rs_new, "--observed", rs_old, "--feature-gate",
                                     "RayServiceIncrementalUpgrade=false", "-o", "json"],
        "rs-update-no-zero-downtime": ["plan", rs_new, "--observed", rs_old, "--kuberay-env",
                                       "ENABLE_ZERO_DOWNTIME=false", "-o", "json"],
        "rs-next": ["next", rs_new, "--observed", rs_old, "-o", "json"],
        "rs-diff": ["diff", rs_new, "--live", rs_old, "-o", "json"],
    })
    for model in ("top-level", "nested", "legacy"):
        cmds[f"kueue-{model}-new"] = ["plan", kq_old, queues, "--kueue", model, "-o", "json"]
        cmds[f"kueue-{model}-update"] = ["plan", kq_new, queues, "--observed", kq_old, "--observed", queues,
                                         "--kueue", model, "-o", "json"]
    cmds["kueue-compare"] = ["plan", kq_new, queues, "--observed", kq_old, "--observed", queues,
                             "--kueue", "nested", "--compare", "-o", "json"]
    for pods in (100, 500):
        old = large_pcs(pods)
        old_path = gen / f"pcs-{pods}.json"
        old_path.write_text(json.dumps(old))
        cmds[f"gen-{pods}-create"] = ["plan", str(old_path), "-o", "json"]
        for strategy in STRATEGIES:
            new_path = gen / f"pcs-{pods}-{strategy}.json"
            new_path.write_text(json.dumps(with_strategy(with_image(old, "engine:2"), strategy)))
            cmds[f"gen-{pods}-{strategy}"] = ["plan", str(new_path), "--observed", str(old_path), "-o", "json"]
    return cmds


def _run(args: list[str], gen: Path) -> str:
    proc = subprocess.run([sys.executable, "-P", "-m", "rolloutctl", *args], capture_output=True, text=True,
                          cwd=ROOT, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "COLUMNS": "160"})
    # paths in the output are the generated files' and the checkout's: make them independent of both
    out = (proc.stdout + proc.stderr).replace(str(gen), "GEN").replace(str(UPSTREAM), "UPSTREAM")
    out = out.replace(str(ROOT), "ROOT")
    return f"exit {proc.returncode}\n{out}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write (created; existing files overwritten)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        gen = Path(tmp)
        cmds = _commands(gen)
        with ThreadPoolExecutor(args.jobs) as pool:
            outputs = dict(zip(cmds, pool.map(lambda a: _run(a, gen), cmds.values())))
    for name, text in outputs.items():
        (args.out / f"{name}.txt").write_text(text)
    bad = sorted(n for n, t in outputs.items() if not t.startswith(("exit 0", "exit 1")))
    print(f"{len(outputs)} outputs in {args.out}" + (f"; exit 2 or more: {', '.join(bad)}" if bad else ""))


if __name__ == "__main__":
    main()
