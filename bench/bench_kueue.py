"""Benchmark: a RayService planned under Kueue next to N observed RayServices of its
ClusterQueue (the neighbours, whose Workloads the input lacks, are each settled first:
``KueueRayServiceModel._neighbour_workloads``).

Run from the repository root with the package installed:

    python bench/bench_kueue.py --n 50 500                          # nested, every scenario
    python bench/bench_kueue.py --n 50 150 500 --models top-level nested legacy --runs 3
    python bench/bench_kueue.py --n 50 500 --digest                 # and the JSON plan's digest

Each cell writes ``bench/workloads.py``'s ``kueue_neighbours(n, ...)`` to files and plans
the target in a fresh process set up as ``rolloutctl``'s console entry point sets up its
own (``rolloutctl.launch``), reporting the CPU seconds of ``commands.plan.plan`` (reading
and admitting the input, the neighbours' settling, the plan; no start-up, no rendering;
minimum of ``--runs``) and the growth exponent ``log(t2 / t1) / log(n2 / n1)`` between
consecutive sizes and from the first to the last (1.0 is linear). Scenarios:

- ``fits``: every neighbour and the target fit the ClusterQueue's nominal quota;
- ``half``: the quota fits half of the neighbours and the target: the later neighbours
  stay pending and hold nothing, and the target waits (InsufficientQuota);
- ``mixed``: neighbours in another namespace, under another ClusterQueue, suspended, with
  their Workload in the input, or of a higher WorkloadPriorityClass, and half the quota;
- ``preempting``: ``mixed`` under a ClusterQueue that preempts within itself
  (``LowerPriority``): a settling is given every Workload of lower priority than the
  WorkloadPriorityClass (each is a preemption candidate), so this one is not linear.

``--digest`` also runs ``rolloutctl plan ... -o json`` on each cell and prints the first
12 hex digits of the output's SHA-256: equal digests on two commits mean byte-identical
plans.

No timing assertions anywhere: this prints numbers for bench/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workloads import kueue_neighbours  # noqa: E402

SCENARIOS = ("fits", "half", "mixed", "preempting")
MODELS = ("top-level", "nested", "legacy")

_CELL = """
import sys, time
sys.path.insert(0, {root!r})
import gc
from rolloutctl.core.process import mark_command
from rolloutctl.launch import THRESHOLDS
gc.set_threshold(*THRESHOLDS)
mark_command()
from rolloutctl.app import PlanOptions
from rolloutctl.commands.plan import plan
opts = PlanOptions(observed=({queues!r}, {neighbours!r}), model_options={{"kueue": {model!r}}})
t = time.process_time()
p = plan([{target!r}], opts)[0]
print(time.process_time() - t, len(p.steps), p.outcome)
"""


def write_cell(d: Path, n: int, scenario: str) -> tuple[str, str, str]:
    """The scenario's target, queues and neighbours as files in ``d``."""
    fit = n if scenario == "fits" else n // 2
    target, queues, neighbours = kueue_neighbours(n, fit, mixed=scenario in ("mixed", "preempting"),
                                                  preemption="LowerPriority" if scenario == "preempting" else None)
    paths = (d / "target.yaml", d / "queues.yaml", d / "neighbours.yaml")
    paths[0].write_text(yaml.safe_dump(target))
    paths[1].write_text(yaml.safe_dump_all(queues))
    paths[2].write_text(yaml.safe_dump_all(neighbours) if neighbours else "")
    return str(paths[0]), str(paths[1]), str(paths[2])


def _cell(files: tuple[str, str, str], model: str) -> tuple[float, int, str]:
    code = _CELL.format(root=str(ROOT), target=files[0], queues=files[1], neighbours=files[2], model=model)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    secs, steps, outcome = out.stdout.split()
    return float(secs), int(steps), outcome


def _digest(files: tuple[str, str, str], model: str) -> str:
    cmd = [sys.executable, "-P", "-m", "rolloutctl", "plan", "--kueue", model, files[0], "--observed", files[1],
           "--observed", files[2], "-o", "json"]
    return hashlib.sha256(subprocess.run(cmd, capture_output=True, cwd=ROOT).stdout).hexdigest()[:12]


def _exponent(n1: int, t1: float, n2: int, t2: float) -> float:
    return math.log(t2 / t1) / math.log(n2 / n1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[50, 500], help="neighbours per cell")
    ap.add_argument("--models", nargs="+", choices=MODELS, default=["nested"])
    ap.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    ap.add_argument("--runs", type=int, default=1, help="runs per cell (minimum)")
    ap.add_argument("--digest", action="store_true", help="also the SHA-256 of each cell's JSON plan")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| model | scenario | neighbours | CPU seconds | steps | outcome |"
          + (" JSON sha256 |" if args.digest else "") + " exponent from the size before |")
    print("| --- | --- | ---: | ---: | ---: | --- |" + (" --- |" if args.digest else "") + " ---: |")
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            for scenario in args.scenarios:
                cells: list[tuple[int, float]] = []
                for n in args.n:
                    d = Path(tmp, f"{scenario}-{n}")
                    d.mkdir(exist_ok=True)
                    files = write_cell(d, n, scenario)
                    got = [_cell(files, model) for _ in range(args.runs)]
                    secs = min(g[0] for g in got)
                    exp = f"{_exponent(cells[-1][0], cells[-1][1], n, secs):.2f}" if cells else ""
                    cells.append((n, secs))
                    digest = f" {_digest(files, model)} |" if args.digest else ""
                    print(f"| {model} | {scenario} | {n} | {secs:.2f} | {got[0][1]} | {got[0][2]} |{digest} {exp} |",
                          flush=True)
                if len(cells) > 1:
                    summary.append((model, scenario, _exponent(cells[0][0], cells[0][1], cells[-1][0], cells[-1][1])))
    if summary:
        print(f"\n| model | scenario | exponent {args.n[0]} -> {args.n[-1]} neighbours |\n| --- | --- | ---: |")
        for model, scenario, e in summary:
            print(f"| {model} | {scenario} | {e:.2f} |")


if __name__ == "__main__":
    main()
