"""Benchmark: ``rolloutctl lint`` against check-jsonschema on the same RayService files.

Both tools run as one process over the same N files (default 1,000) and the same
schema (``schemas/rayservice.schema.json``); rolloutctl additionally runs the KubeRay
admission rules, defaulting and suppressions, and reports lines. Also times one
file and ``--help``. Prints a Markdown table for bench/README.md ("lint").

    python bench/bench_lint.py                 # 1,000 files, 3 runs each
    python bench/bench_lint.py --files 200 --runs 5
    python bench/bench_lint.py --check-jsonschema /path/to/check-jsonschema

No timing assertions anywhere.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TEMPLATE = """apiVersion: ray.io/v1
kind: RayService
metadata:
  name: svc-{i}
  namespace: team-{ns}
  labels: {{app: svc-{i}}}
spec:
  serveConfigV2: |
    applications:
      - name: app{i}
        import_path: fruit.deployment_graph
        route_prefix: /fruit
        deployments:
          - name: MangoStand
            num_replicas: {rep}
  rayClusterConfig:
    rayVersion: '2.46.0'
    enableInTreeAutoscaling: {auto}
    headGroupSpec:
      rayStartParams:
        num-cpus: '0'
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources:
              limits: {{cpu: 2, memory: 4Gi}}
              requests: {{cpu: 2, memory: 4Gi}}
            ports:
            - {{containerPort: 6379, name: gcs-server}}
            - {{containerPort: 8265, name: dashboard}}
            - {{containerPort: 10001, name: client}}
            - {{containerPort: 8000, name: serve}}
    workerGroupSpecs:
    - groupName: small-group
      replicas: {rep}
      minReplicas: 1
      maxReplicas: 5
      rayStartParams: {{}}
      template:
        spec:
          containers:
          - name: ray-worker
            image: rayproject/ray:2.46.0
            env:
            - {{name: RAY_GRAFANA_HOST, value: 'http://grafana:3000'}}
            resources:
              limits: {{cpu: 1, memory: 2Gi}}
              requests: {{cpu: 500m, memory: 2Gi}}
"""


def generate(d: Path, n: int) -> list[str]:
    files = []
    for i in range(n):
        p = d / f"svc-{i:04d}.yaml"
        p.write_text(TEMPLATE.format(i=i, ns=i % 7, rep=1 + i % 3, auto="true" if i % 2 else "false"))
        files.append(str(p))
    return files


def timed(cmd: list[str], runs: int) -> tuple[float, int]:
    samples, rc = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT).returncode
        samples.append(time.perf_counter() - t)
    return statistics.median(samples), rc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--check-jsonschema", default=shutil.which("check-jsonschema")
                    or str(Path(sys.executable).with_name("check-jsonschema")))
    args = ap.parse_args()
    schema = str(ROOT / "schemas" / "rayservice.schema.json")
    ours = [sys.executable, "-P", "-m", "rolloutctl"]
    cj = [args.check_jsonschema, "--schemafile", schema]
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(Path(tmp), args.files)
        rows = [
            ("`--help`", timed(ours + ["--help"], args.runs), timed(cj[:1] + ["--help"], args.runs)),
            ("1 file", timed(ours + ["lint", files[0]], args.runs), timed(cj + [files[0]], args.runs)),
            (f"{args.files:,} files", timed(ours + ["lint", *files], args.runs), timed(cj + files, args.runs)),
        ]
    print("| case | rolloutctl lint | check-jsonschema | speed-up |\n| --- | --- | --- | --- |")
    for name, (a, arc), (b, brc) in rows:
        print(f"| {name} | {a:.2f} s (exit {arc}) | {b:.2f} s (exit {brc}) | {b / a:.1f}x |")


if __name__ == "__main__":
    main()
