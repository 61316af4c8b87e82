"""Benchmarks: CLI start-up and planning large PodCliqueSets.

Run from the repository root with the package installed:

    python bench/bench_plan.py            # prints a Markdown table
    python bench/bench_plan.py --pods 500 1500 3000 5000

No timing assertions anywhere: this prints numbers for bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _time_cmd(cmd: list[str], runs: int) -> float:
    best = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        best.append(time.perf_counter() - t)
    return statistics.median(best)


def startup(runs: int) -> list[tuple[str, float]]:
    rows = [("rolloutctl --help", _time_cmd([sys.executable, "-m", "rolloutctl", "--help"], runs))]
    cj = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if Path(cj).exists():
        rows.append(("check-jsonschema --version", _time_cmd([cj, "--version"], runs)))
    return rows


def plan_in_subprocess(pods: int, update: bool) -> tuple[float, int, str, int]:
    """Time one `rolloutctl plan` (new PodCliqueSet, or an image change with --observed),
    in a fresh process, and read its peak RSS."""
    with tempfile.TemporaryDirectory() as d:
        old = large_pcs(pods)
        new = with_image(old, "engine:2") if update else old
        Path(d, "new.json").write_text(json.dumps(new))
        Path(d, "old.json").write_text(json.dumps(old))
        cmd = [sys.executable, "-m", "rolloutctl", "plan", str(Path(d, "new.json")), "-o", "json", "--max-steps", "100000"]
        if update:
            cmd += ["--observed", str(Path(d, "old.json"))]
        code = (
            "import resource,subprocess,sys,time;t=time.perf_counter();"
            f"p=subprocess.run({cmd!r},capture_output=True);"
            "e=time.perf_counter()-t;"
            "print(e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, len(p.stdout))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout.split()
        secs, rss_kb, rc, size = float(out[0]), int(out[1]), int(out[2]), int(out[3])
        return secs, rss_kb // 1024, "ok" if rc in (0, 1) else f"exit {rc}", size


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, nargs="*", default=[500, 1500, 3000])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print("## Start-up (median of %d runs)\n" % args.runs)
    print("| command | seconds |\n| --- | ---: |")
    for name, secs in startup(args.runs):
        print(f"| `{name}` | {secs:.3f} |")
    print("\n## Planning a PodCliqueSet (one process each, wall time incl. start-up)\n")
    print("| pods | plan | seconds | peak RSS MiB | JSON bytes |\n| ---: | --- | ---: | ---: | ---: |")
    for pods in args.pods:
        for update in (False, True):
            secs, rss, status, size = plan_in_subprocess(pods, update)
            what = "image change (--observed)" if update else "create"
            print(f"| {pods} | {what} | {secs:.2f} | {rss} | {size} |")


if __name__ == "__main__":
    main()
