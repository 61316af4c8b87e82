"""Benchmarks for the planning-speed targets: growth with pods, the floor ratio, a
100,000-pod creation.

Run from the repository root with the package installed:

    python bench/bench_speed.py growth --pods 1500 5000 15000          # every plan kind
    python bench/bench_speed.py growth --pods 1500 5000 --plans RollingUpdate --runs 3
    python bench/bench_speed.py growth --pods 1000 4000 --shape wide      # replicas of 2 pods
    python bench/bench_speed.py floor --pods 1500 --runs 5               # whole CLI against a floor process
    python bench/bench_speed.py large --pods 100000                      # creation: seconds and peak RSS

``growth`` plans ``bench/workloads.py``'s ``large_pcs(pods)`` (``--shape wide``:
``wide_pcs(pods)``, replicas of 2 pods) in a fresh process per
cell and reports the CPU seconds of ``observe`` + ``simulate`` (no start-up, no
rendering; minimum of ``--runs``) and the growth exponent
``log(t2 / t1) / log(n2 / n1)`` between consecutive sizes, and from the first size to
the last as the median of the runs (1.0 is linear); each run plans every size in
turn. ``create`` plans the PodCliqueSet as new; the strategies plan an image change of
every clique with ``--observed`` the old manifest (``workloads.with_strategy``:
RollingUpdate with ``maxSurge: 1, maxUnavailable: 0``). Each cell's process is set up
as ``rolloutctl``'s console entry point sets up its own (``rolloutctl.launch``: the
collector's thresholds, ``core.process.mark_command``), so the cell plans as a user's
``rolloutctl plan`` does;
``--library`` plans in a plain process that imports the package instead, whose collector
runs as Python's defaults have it (one young collection after each plan walks every
object the plan made).

``floor`` compares the whole ``rolloutctl plan NEW --observed OLD -o json`` (wall
seconds, start-up included) with a floor process: a Python process that parses the
same two input files with the same loader (``rolloutctl.load.files.load_paths``) and
writes the same JSON bytes (the plan's output, captured beforehand).

``large`` times ``rolloutctl plan NEW -o json`` of a new PodCliqueSet of ``--pods``
pods in a fresh process: wall seconds and the process's peak RSS.

No timing assertions anywhere: this prints numbers for bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workloads import large_pcs, with_image, with_strategy  # noqa: E402

PLANS = ("create", "RollingRecreate", "RollingUpdate", "ReplicaRecreate", "OnDelete")

_CELL = """
import sys, time
sys.path.append({root!r})  # for bench.workloads; rolloutctl is the installed package
if {command!r}:
    import gc
    from rolloutctl.core.process import mark_command
    from rolloutctl.launch import THRESHOLDS
    gc.set_threshold(*THRESHOLDS)
    mark_command()
from bench.workloads import SHAPES, with_image, with_strategy
from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove.model import GroveModel
pods, plan = {pods!r}, {plan!r}
old = SHAPES[{shape!r}](pods)
new = Obj(old if plan == "create" else with_strategy(with_image(old, "engine:2"), plan))
model, env = GroveModel(), Environment()
t = time.process_time()
world = model.observe(new, [] if plan == "create" else [Obj(old)], env)
result = simulate(model, new, world, env)
print(time.process_time() - t, len(result.steps), result.outcome)
"""


def _cell(pods: int, plan: str, command: bool = True, shape: str = "large") -> tuple[float, int, str]:
    code = _CELL.format(root=str(ROOT), pods=pods, plan=plan, command=command, shape=shape)
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    secs, steps, outcome = out.stdout.split()
    return float(secs), int(steps), outcome


def _exponent(n1: int, t1: float, n2: int, t2: float) -> float:
    return math.log(t2 / t1) / math.log(n2 / n1)


def growth(pods: list[int], plans: list[str], runs: int, command: bool = True, shape: str = "large") -> None:
    """Each run plans every size in turn (1,500 then 15,000, then again): a machine whose
    speed drifts moves both sizes of a run alike. The table shows each size's minimum;
    the summary exponent is the median of the runs' own exponents (first size to last)."""
    print(f"each cell plans in {'a console command' if command else 'a library'}'s process; shape {shape}\n")
    print("| plan | pods | CPU seconds | steps | outcome | exponent from the size before |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    summary = []
    for plan in plans:
        got = [[_cell(n, plan, command, shape) for n in pods] for _ in range(runs)]
        cells = []
        for i, n in enumerate(pods):
            secs = min(r[i][0] for r in got)
            exp = f"{_exponent(cells[-1][0], cells[-1][1], n, secs):.2f}" if cells else ""
            cells.append((n, secs))
            print(f"| {plan} | {n} | {secs:.2f} | {got[0][i][1]} | {got[0][i][2]} | {exp} |", flush=True)
        if len(cells) > 1:
            per_run = sorted(_exponent(pods[0], r[0][0], pods[-1], r[-1][0]) for r in got)
            summary.append((plan, statistics.median(per_run), per_run))
    if summary:
        print(f"\n| plan | exponent {pods[0]} -> {pods[-1]} pods (median of runs) | each run |\n| --- | ---: | --- |")
        for plan, e, per_run in summary:
            print(f"| {plan} | {e:.2f} | {', '.join(f'{x:.2f}' for x in per_run)} |")


def _wall(cmd: list[str], runs: int, stdout: "int | None" = subprocess.DEVNULL) -> float:
    best = math.inf
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=stdout, stderr=subprocess.DEVNULL, cwd=ROOT)
        best = min(best, time.perf_counter() - t)
    return best


def floor(pods: int, plan: str, runs: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        old = large_pcs(pods)
        new = with_strategy(with_image(old, "engine:2"), plan)
        pn, po, out = Path(d, "new.json"), Path(d, "old.json"), Path(d, "plan.json")
        pn.write_text(json.dumps(new))
        po.write_text(json.dumps(old))
        cli = [sys.executable, "-P", "-m", "rolloutctl", "plan", str(pn), "--observed", str(po), "-o", "json"]
        out.write_bytes(subprocess.run(cli, capture_output=True, cwd=ROOT).stdout)
        floor_code = ("import sys\nfrom rolloutctl.load.files import load_paths\n"
                      f"load_paths([{str(pn)!r}]); load_paths([{str(po)!r}])\n"
                      f"sys.stdout.buffer.write(open({str(out)!r}, 'rb').read())\n")
        fl = [sys.executable, "-c", floor_code]
        t_cli, t_floor = _wall(cli, runs), _wall(fl, runs)
        print("| plan | pods | JSON bytes | rolloutctl plan (s) | floor (s) | ratio |\n| --- | ---: | ---: | ---: | ---: | ---: |")
        print(f"| {plan} | {old['spec']['replicas'] * 50} "
              f"| {out.stat().st_size} | {t_cli:.2f} | {t_floor:.2f} | {t_cli / t_floor:.1f}x |")


def large(pods: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        pn = Path(d, "new.json")
        pn.write_text(json.dumps(large_pcs(pods)))
        cmd = [sys.executable, "-P", "-m", "rolloutctl", "plan", str(pn), "-o", "json"]
        code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
                f"p=subprocess.run({cmd!r},stdout=subprocess.PIPE,stderr=subprocess.PIPE);"
                "e=time.perf_counter()-t;"
                "print(e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, len(p.stdout))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout.split()
        print("| pods | seconds | peak RSS MiB | exit | JSON bytes |\n| ---: | ---: | ---: | ---: | ---: |")
        print(f"| {large_pcs(pods)['spec']['replicas'] * 50} | {float(out[0]):.2f} | {int(out[1]) // 1024} "
              f"| {out[2]} | {out[3]} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    g = sub.add_parser("growth")
    g.add_argument("--pods", type=int, nargs="+", default=[1500, 5000, 15000])
    g.add_argument("--plans", nargs="+", choices=PLANS, default=list(PLANS))
    g.add_argument("--runs", type=int, default=1, help="runs per cell (minimum)")
    g.add_argument("--shape", choices=("large", "wide"), default="large",
                   help="large: replicas of 50 pods (bench/workloads.py large_pcs); wide: replicas of 2 pods "
                        "(wide_pcs, the shape of Grove's 1,000-pod scale test)")
    g.add_argument("--library", action="store_true",
                   help="plan in a process that imports the package (its collector as it was), "
                        "not as a console command's process does")
    f = sub.add_parser("floor")
    f.add_argument("--pods", type=int, default=1500)
    f.add_argument("--plan", choices=PLANS[1:], default="RollingRecreate")
    f.add_argument("--runs", type=int, default=5, help="runs of each process (minimum)")
    lg = sub.add_parser("large")
    lg.add_argument("--pods", type=int, default=100000)
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    if args.what == "growth":
        growth(args.pods, args.plans, args.runs, command=not args.library, shape=args.shape)
    elif args.what == "floor":
        floor(args.pods, args.plan, args.runs)
    else:
        large(args.pods)


if __name__ == "__main__":
    main()
