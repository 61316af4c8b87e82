"""Benchmarks: CLI start-up and planning large PodCliqueSets.

Run from the repository root with the package installed:

    python bench/bench_plan.py            # prints Markdown tables
    python bench/bench_plan.py --pods 500 1500 3000 5000 --runs 3
    python bench/bench_plan.py --strategy RollingUpdate --in-process   # planning only, no start-up

``--strategy`` picks the update plans (RollingRecreate: the default strategy;
RollingUpdate: the proposed one with every clique ``maxSurge: 1, maxUnavailable: 0``);
``create`` plans the same PodCliqueSet as new.

No timing assertions anywhere: this prints numbers for bench/README.md.
"""

from __future__ import annotations

import argparse
import json
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

from bench.workloads import large_pcs, with_image, with_strategy  # noqa: E402

PLANS = ("create", "RollingRecreate", "RollingUpdate")


def _time_cmd(cmd: list[str], runs: int) -> float:
    best = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        best.append(time.perf_counter() - t)
    return statistics.median(best)


def startup(runs: int) -> list[tuple[str, float]]:
    rows = [("rolloutctl --help", _time_cmd([sys.executable, "-P", "-m", "rolloutctl", "--help"], runs))]
    cj = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if Path(cj).exists():
        rows.append(("check-jsonschema --version", _time_cmd([cj, "--version"], runs)))
    return rows


def _inputs(d: str, pods: int, plan: str) -> list[str]:
    old = large_pcs(pods)
    new = old if plan == "create" else with_strategy(with_image(old, "engine:2"), plan)
    Path(d, "new.json").write_text(json.dumps(new))
    Path(d, "old.json").write_text(json.dumps(old))
    args = [str(Path(d, "new.json")), "-o", "json", "--max-steps", "100000"]
    if plan != "create":
        args += ["--observed", str(Path(d, "old.json"))]
    return args


def plan_in_subprocess(pods: int, plan: str) -> tuple[float, int, str, int]:
    """Time one ``rolloutctl plan`` (``plan``: create, or an image change of every clique
    planned with --observed under that strategy) in a fresh process; its peak RSS."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [sys.executable, "-P", "-m", "rolloutctl", "plan", *_inputs(d, pods, plan)]
        code = (
            "import resource,subprocess,sys,time;t=time.perf_counter();"
            f"p=subprocess.run({cmd!r},capture_output=True);"
            "e=time.perf_counter()-t;"
            "print(e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, len(p.stdout))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout.split()
        secs, rss_kb, rc, size = float(out[0]), int(out[1]), int(out[2]), int(out[3])
        return secs, rss_kb // 1024, "ok" if rc in (0, 1) else f"exit {rc}", size


def plan_in_process(pods: int, plan: str) -> tuple[float, int]:
    """CPU seconds of observe + simulate in this process (no start-up, no rendering),
    and the number of steps."""
    from rolloutctl.core.environment import Environment
    from rolloutctl.core.model import Obj
    from rolloutctl.core.simulate import simulate
    from rolloutctl.kinds.grove.model import GroveModel

    old = large_pcs(pods)
    new = Obj(old if plan == "create" else with_strategy(with_image(old, "engine:2"), plan))
    model, env = GroveModel(), Environment(max_steps=100000)
    t = time.process_time()
    world = model.observe(new, [] if plan == "create" else [Obj(old)], env)
    result = simulate(model, new, world, env)
    return time.process_time() - t, len(result.steps)


def _cpu_wall(cmd: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def rayservice_vs_help(runs: int) -> dict[str, float]:
    """The bundled RayService rollout (``plan NEW --observed OLD -o json``) against
    ``rolloutctl --help``, run in turn (A B A B ...) after one warm-up each: medians of
    both processes' CPU and wall times and of the pairwise ratios (a ratio per pair
    holds when the machine's speed drifts). ``-P``: the installed package, not the
    checkout (measure a wheel install, whose modules pip byte-compiled, as users run
    it; with PYTHONDONTWRITEBYTECODE unset)."""
    rctl = [sys.executable, "-P", "-m", "rolloutctl"]
    plan = rctl + ["plan", "samples/rayservice-text-ml-new-image.yaml", "--observed",
                   "samples/rayservice-text-ml.yaml", "-o", "json"]
    helpc = rctl + ["--help"]
    _cpu_wall(plan), _cpu_wall(helpc)
    pairs = [(_cpu_wall(plan), _cpu_wall(helpc)) for _ in range(runs)]
    med = statistics.median
    return {"plan_cpu": med(a[0] for a, _ in pairs), "help_cpu": med(b[0] for _, b in pairs),
            "plan_wall": med(a[1] for a, _ in pairs), "help_wall": med(b[1] for _, b in pairs),
            "cpu_ratio": med(a[0] / b[0] for a, b in pairs), "wall_ratio": med(a[1] / b[1] for a, b in pairs)}


def _instructions(cmd: list[str]) -> int:
    """Instructions one run of ``cmd`` executes, counted by valgrind's callgrind: the
    same for the same binary, inputs and environment whatever else the machine does."""
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/out", *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    found = [line for line in p.stderr.splitlines() if "Collected :" in line]
    if p.returncode != 0 or not found:
        raise SystemExit(f"valgrind failed: {p.stderr[-400:]}")
    return int(found[-1].split(":")[-1])


def rayservice_instructions() -> tuple[int, int]:
    """The bundled RayService rollout and ``--help``, in instructions (``_instructions``)."""
    rctl = [sys.executable, "-P", "-m", "rolloutctl"]
    plan = rctl + ["plan", "samples/rayservice-text-ml-new-image.yaml", "--observed",
                   "samples/rayservice-text-ml.yaml", "-o", "json"]
    return _instructions(plan), _instructions(rctl + ["--help"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rayservice", action="store_true",
                    help="only the RayService rollout plan against --help (wall and CPU, paired runs)")
    ap.add_argument("--instructions", action="store_true",
                    help="with --rayservice: count instructions with valgrind (repeatable) instead of timing")
    ap.add_argument("--pods", type=int, nargs="*", default=[500, 1500, 3000])
    ap.add_argument("--runs", type=int, default=3, help="runs per cell (median)")
    ap.add_argument("--strategy", nargs="*", choices=PLANS, default=list(PLANS), help="plans to time")
    ap.add_argument("--in-process", action="store_true", help="time planning only, in this process (CPU seconds)")
    ap.add_argument("--no-startup", action="store_true")
    args = ap.parse_args()
    if args.rayservice and args.instructions:
        plan, helped = rayservice_instructions()
        print("| command | instructions |\n| --- | ---: |")
        print(f"| `rolloutctl plan` RayService rollout | {plan:,} |\n| `rolloutctl --help` | {helped:,} |")
        print(f"\nratio {plan / helped:.2f}x (valgrind --tool=callgrind)")
        return
    if args.rayservice:
        r = rayservice_vs_help(args.runs)
        print("| command | wall seconds | CPU seconds |\n| --- | ---: | ---: |")
        print(f"| `rolloutctl plan` RayService rollout | {r['plan_wall']:.3f} | {r['plan_cpu']:.3f} |")
        print(f"| `rolloutctl --help` | {r['help_wall']:.3f} | {r['help_cpu']:.3f} |")
        print(f"\nmedians of {args.runs} pairs; ratio (median of the pairs' ratios): "
              f"wall {r['wall_ratio']:.2f}x, CPU {r['cpu_ratio']:.2f}x")
        return
    if args.in_process:
        print("| pods | plan | CPU seconds | steps | seconds per 1,000 pods |\n| ---: | --- | ---: | ---: | ---: |")
        for pods in args.pods:
            for plan in args.strategy:
                runs = [plan_in_process(pods, plan) for _ in range(args.runs)]
                secs = statistics.median(r[0] for r in runs)
                print(f"| {pods} | {plan} | {secs:.2f} | {runs[0][1]} | {secs / pods * 1000:.2f} |", flush=True)
        return
    if not args.no_startup:
        print("## Start-up (median of %d runs)\n" % args.runs)
        print("| command | seconds |\n| --- | ---: |")
        for name, secs in startup(args.runs):
            print(f"| `{name}` | {secs:.3f} |")
    print("\n## Planning a PodCliqueSet (one process each, wall time incl. start-up, median of %d)\n" % args.runs)
    print("| pods | plan | seconds | peak RSS MiB | JSON bytes |\n| ---: | --- | ---: | ---: | ---: |")
    for pods in args.pods:
        for plan in args.strategy:
            runs = [plan_in_subprocess(pods, plan) for _ in range(args.runs)]
            secs = statistics.median(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            what = "create" if plan == "create" else f"image change, {plan} (--observed)"
            print(f"| {pods} | {what} | {secs:.2f} | {rss} | {runs[0][3]} |", flush=True)


if __name__ == "__main__":
    main()
