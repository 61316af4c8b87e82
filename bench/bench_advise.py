"""Benchmark: ``rolloutctl advise`` against one ``rolloutctl plan`` of the same change
(the issue's budget: the default search within about 20 times one plan's time).

Run from the repository root with the package installed:

    python bench/bench_advise.py            # prints a Markdown table
    python bench/bench_advise.py --runs 3

Each row: the median wall time of ``plan`` and of ``advise`` (default budget), their
ratio, the candidates planned and whether the search was exact. No timing assertions
anywhere: this prints numbers for bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workloads import large_pcs, with_image  # noqa: E402

S = ROOT / "samples"


def _exe() -> str:
    return shutil.which("rolloutctl") or str(Path(sys.executable).parent / "rolloutctl")


def _time(cmd: list[str], runs: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        out = p.stdout
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    exe = _exe()
    tmp = Path(tempfile.mkdtemp())
    import yaml

    big_old = large_pcs(100)
    (tmp / "old.yaml").write_text(yaml.safe_dump(big_old))
    (tmp / "new.yaml").write_text(yaml.safe_dump(with_image(big_old, "engine:2")))
    # the shape of Grove's e2e scale-up test (operator/e2e/yaml/scale-up.yaml): 250 replicas of one
    # 2-pod clique, minAvailable 2; a RollingRecreate plan of 1,501 steps as is
    scale = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "scale"},
             "spec": {"replicas": 250, "template": {"cliques": [{"name": "expert", "spec": {
                 "roleName": "expert", "replicas": 2, "minAvailable": 2, "podSpec": {"containers": [
                     {"name": "c", "image": "nginx:1", "resources": {"requests": {"memory": "1Mi"}}}]}}}]}}}
    (tmp / "scale-old.yaml").write_text(yaml.safe_dump(scale))
    scale["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "nginx:2"
    (tmp / "scale-new.yaml").write_text(yaml.safe_dump(scale))
    cases = [
        ("Grove sample, unlimited", [str(S / "disaggregated-inference-v2.yaml"), "--observed", str(S / "disaggregated-inference.yaml")]),
        ("Grove sample, 48 GPUs", [str(S / "disaggregated-inference-v2.yaml"), "--observed", str(S / "disaggregated-inference.yaml"),
                                    "--capacity", "nvidia.com/gpu=48"]),
        ("RayService sample", [str(S / "rayservice-text-ml-new-image.yaml"), "--observed", str(S / "rayservice-text-ml.yaml")]),
        ("large_pcs(100): 100 pods", [str(tmp / "new.yaml"), "--observed", str(tmp / "old.yaml")]),
        ("250 replicas x 2 pods (e2e scale-up shape)", [str(tmp / "scale-new.yaml"), "--observed",
                                                       str(tmp / "scale-old.yaml")]),
    ]
    print("| change | plan (s) | advise (s) | ratio | candidates planned | exact |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name, argv in cases:
        tp, _ = _time([exe, "plan", *argv, "-o", "json"], args.runs)
        ta, out = _time([exe, "advise", *argv, "-o", "json"], args.runs)
        doc = json.loads(out)
        print(f"| {name} | {tp:.2f} | {ta:.2f} | {ta / tp:.1f}x | {doc['searched']} | {doc['optimal']} |")


if __name__ == "__main__":
    main()
