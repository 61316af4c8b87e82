"""Benchmark: peak memory (RSS) and wall time of rolloutctl on large inputs.

Two inputs from issue 8, each run in a fresh process so that the peak RSS is the
command's own:

* ``lint`` over a directory of 10,000 objects (PodCliqueSets, RayServices and
  ConfigMaps in 2,500 files of four documents each);
* ``plan`` of a new PodCliqueSet with 5,000 pods, and of an image change of a
  smaller one with ``--observed`` (``--update-pods``; a RollingRecreate update of
  5,000 pods takes the model far longer than creating them, see bench/README.md).

Run from the repository root with the package installed:

    python bench/bench_memory.py                      # both, prints a Markdown table
    python bench/bench_memory.py --objects 10000 --pods 5000
    python bench/bench_memory.py --keep /tmp/large    # keep the generated inputs

No timing or memory assertions anywhere: this prints numbers for bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workloads import large_pcs, with_image  # noqa: E402

PCS_DOC = """apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata:
  name: pcs-{i}
  namespace: team-{ns}
spec:
  replicas: 2
  template:
    cliqueStartupType: CliqueStartupTypeExplicit
    cliques:
      - name: leader
        spec:
          roleName: leader
          replicas: 1
          podSpec:
            containers:
              - name: main
                image: registry.example.com/engine:{i}
                resources:
                  requests: {{cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}
      - name: worker
        spec:
          roleName: worker
          replicas: 3
          startsAfter: [leader]
          podSpec:
            containers:
              - name: main
                image: registry.example.com/engine:{i}
                resources:
                  requests: {{cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}
    podCliqueScalingGroups:
      - name: group
        cliqueNames: [leader, worker]
        replicas: 2
        minAvailable: 1
"""

CM_DOC = """apiVersion: v1
kind: ConfigMap
metadata:
  name: config-{i}
  namespace: team-{ns}
data:
  settings.yaml: |
    replicas: {i}
    mode: serve
"""


def rayservice_doc(i: int, ns: int) -> str:
    text = (ROOT / "samples" / "rayservice-text-ml.yaml").read_text()
    return text.replace("name: text-ml", f"name: svc-{i}", 1).replace("namespace: ml-serving", f"namespace: team-{ns}")


def make_lint_tree(root: Path, objects: int) -> int:
    """``objects`` objects in files of four documents, in 50 directories."""
    per_file = 4
    written = 0
    i = 0
    while written < objects:
        d = root / f"dir-{i % 50:02d}"
        d.mkdir(parents=True, exist_ok=True)
        docs = []
        for k in range(min(per_file, objects - written)):
            n = written + k
            kind = n % 4
            docs.append(PCS_DOC.format(i=n, ns=n % 20) if kind in (0, 1) else
                        rayservice_doc(n, n % 20) if kind == 2 else CM_DOC.format(i=n, ns=n % 20))
        (d / f"app-{i:05d}.yaml").write_text("---\n".join(docs))
        written += len(docs)
        i += 1
    return i


def measure(cmd: list[str]) -> tuple[float, int, int, int]:
    """(seconds, peak RSS MiB, exit code, stdout bytes) of ``cmd`` in a fresh process."""
    code = (
        "import resource,subprocess,sys,time;t=time.perf_counter();"
        f"p=subprocess.run({cmd!r},capture_output=True);"
        "e=time.perf_counter()-t;"
        "print(e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, len(p.stdout));"
        "sys.stderr.write(p.stderr.decode()[-2000:])"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0 or not p.stdout.strip():
        raise SystemExit(f"benchmark harness failed: {p.stderr}")
    secs, rss_kb, rc, size = p.stdout.split()
    return float(secs), int(rss_kb) // 1024, int(rc), int(size)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=10_000)
    ap.add_argument("--pods", type=int, default=5_000)
    ap.add_argument("--update-pods", type=int, default=500, help="pods of the image-change plan (0: skip)")
    ap.add_argument("--keep", type=Path, default=None, help="write the inputs here and keep them")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="rolloutctl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rctl = [sys.executable, "-P", "-m", "rolloutctl"]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    print("| input | seconds | peak RSS MiB | exit | stdout bytes |\n| --- | ---: | ---: | ---: | ---: |", flush=True)

    def row(name: str, cmd: list[str]) -> None:
        secs, rss, rc, out = measure(cmd)
        print(f"| {name} | {secs:.1f} | {rss} | {rc} | {out:,} |", flush=True)

    try:
        row("`rolloutctl --help` (baseline)", rctl + ["--help"])
        tree = work / "lint-tree"
        if tree.exists():
            shutil.rmtree(tree)
        files = make_lint_tree(tree, args.objects)
        size = sum(f.stat().st_size for f in tree.rglob("*.yaml"))
        for fmt in ("json", "text"):
            row(f"`lint` {args.objects:,} objects in {files:,} files ({size / 2**20:.1f} MiB), -o {fmt}",
                rctl + ["lint", str(tree), "-o", fmt])
        base = rctl + ["plan", "-o", "json", "--max-steps", "100000"]
        pcs = large_pcs(args.pods)
        (work / "pcs.json").write_text(json.dumps(pcs))
        row(f"`plan` new PodCliqueSet, {args.pods:,} pods", base + [str(work / "pcs.json")])
        if args.update_pods:
            old = large_pcs(args.update_pods)
            (work / "old.json").write_text(json.dumps(old))
            (work / "new.json").write_text(json.dumps(with_image(old, "engine:2")))
            row(f"`plan` image change of {args.update_pods:,} pods (RollingRecreate, --observed)",
                base + [str(work / "new.json"), "--observed", str(work / "old.json")])
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
