#!/usr/bin/python3
"""bench_dopri5_cvode.py: the collision model's two integrators on random general-exponent
points (issue 30): DOPRI5 in lanes against CVODE, output by output.

Draws N points deterministically from a seed (laws bwshc and bwm, n and p uniform in
[1, 4], pi1, pi2 and A log-uniform over [1e-2, 10] and [0.1, 10], pi3 uniform in
(-pi2, pi2), alpha uniform in (0.02, 0.98)), evaluates each with integrator = dopri5 and
integrator = cvode (`impactsweep eval collision -`, one process each) at the asked rtol,
and reports how many both finish (status DONE), and per output how many of those differ
beyond the tolerance: |a - b| > tol max(|a|, |b|, FLOOR) (FLOOR = 1e-3: the outputs are
O(1) in the nondimensional units, and x_sep may be a permanent indentation near 0, where
only an absolute difference means anything), and the worst points, each as a line that
`impactsweep eval collision` takes. A point whose outcome or check differs counts as a
disagreement of `outcome`.

usage: bench_dopri5_cvode.py IMPACTSWEEP [--points N] [--seed S] [--rtol R] [--tol T]
       [--min-finished M] [--worst K] [--pi1-decade D] [--a-decades D]
       [--integrator-a dopri5] [--integrator-b cvode]
exit status: 0 no disagreement (and at least M points finished by both), 1 otherwise,
2 bad usage or a run that failed.
"""
import argparse
import json
import math
import random
import subprocess
import sys

OUTPUTS = ["cor", "t_sep", "x_max", "x_sep", "f_max"]
FLOOR = 1e-3


def draw(rng, pi1_decade, a_decades):
    """One random general-exponent point (its NAME=VALUE words, repr: exact doubles)."""
    law = rng.choice(["bwshc", "bwm"])
    pi2 = 10.0 ** rng.uniform(-2.0, 1.0)
    point = {
        "law": law,
        "pi1": 10.0 ** rng.uniform(-2.0, pi1_decade),
        "pi2": pi2,
        "pi3": pi2 * rng.uniform(-0.99, 0.99),
        "n": rng.uniform(1.0, 4.0),
        "p": rng.uniform(1.0, 4.0),
        "alpha": rng.uniform(0.02, 0.98),
        "A": 10.0 ** rng.uniform(-a_decades, a_decades),
    }
    return " ".join("%s=%r" % (k, v) if isinstance(v, float) else "%s=%s" % (k, v)
                    for k, v in point.items())


def evaluate(impactsweep, lines, extra):
    """The JSON answers of `eval collision -` to the lines, each with the words extra."""
    text = "".join("%s %s\n" % (line, extra) for line in lines)
    run = subprocess.run([impactsweep, "eval", "collision", "-"], input=text,
                         capture_output=True, text=True)
    # 2: a line refused (bwm with 1 < p < 2 under dopri5): its answer says so
    if run.returncode not in (0, 1, 2):
        sys.exit("bench_dopri5_cvode: eval exited %d: %s" % (run.returncode, run.stderr[-2000:]))
    answers = [json.loads(s) for s in run.stdout.splitlines() if s.strip()]
    if run.returncode == 2 and not any("error" in p for p in answers):
        sys.exit("bench_dopri5_cvode: eval exited 2: %s" % run.stderr[-2000:])
    if len(answers) != len(lines):
        sys.exit("bench_dopri5_cvode: %d answers to %d points" % (len(answers), len(lines)))
    return answers


def difference(a, b):
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    if math.isnan(a) and math.isnan(b):
        return 0.0
    return abs(a - b) / max(abs(a), abs(b), FLOOR)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("impactsweep")
    ap.add_argument("--points", type=int, default=301)
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--rtol", default="1e-10")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--min-finished", type=int, default=0)
    ap.add_argument("--worst", type=int, default=8)
    ap.add_argument("--pi1-decade", type=float, default=1.0,
                    help="pi1 up to 10^this (default 1; heavier damping makes t_sep and "
                    "x_sep ill-conditioned, see docs/models.md)")
    ap.add_argument("--a-decades", type=float, default=1.0,
                    help="A within 10^-this .. 10^this (default 1)")
    ap.add_argument("--integrator-a", default="dopri5")
    ap.add_argument("--integrator-b", default="cvode")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lines = [draw(rng, args.pi1_decade, args.a_decades) for _ in range(args.points)]
    a_name, b_name = args.integrator_a, args.integrator_b
    a = evaluate(args.impactsweep, lines, "integrator=%s rtol=%s" % (a_name, args.rtol))
    b = evaluate(args.impactsweep, lines, "integrator=%s rtol=%s" % (b_name, args.rtol))
    finished, bad, rows = 0, {o: 0 for o in OUTPUTS + ["outcome"]}, []
    for line, pa, pb in zip(lines, a, b):
        if pa.get("status") != "DONE" or pb.get("status") != "DONE":
            continue
        finished += 1
        oa, ob = pa["outputs"], pb["outputs"]
        worst, which = 0.0, None
        if oa["outcome"] != ob["outcome"] or oa["check"] != ob["check"]:
            bad["outcome"] += 1
            worst, which = math.inf, "outcome"
        for o in OUTPUTS:
            d = difference(oa[o], ob[o])
            if d > args.tol:
                bad[o] += 1
            if d > worst:
                worst, which = d, o
        rows.append((worst, which, line, oa, ob))
    statuses = {}
    for name, answers in ((a_name, a), (b_name, b)):
        for p in answers:
            key = (name, p.get("status", "REFUSED"))
            statuses[key] = statuses.get(key, 0) + 1
    print("%d points (seed %d, rtol %s): finished by both %d; statuses %s" % (
        args.points, args.seed, args.rtol, finished,
        ", ".join("%s %s %d" % (k[0], k[1], v) for k, v in sorted(statuses.items()))))
    print("beyond %g relative (floor %g): %s" % (
        args.tol, FLOOR, ", ".join("%s %d" % (o, n) for o, n in bad.items())))
    disagree = sum(1 for r in rows if r[0] > args.tol)
    print("points that disagree: %d" % disagree)
    rows.sort(key=lambda r: -r[0])
    for worst, which, line, oa, ob in rows[:args.worst]:
        print("  %.3g in %s: %s | %s %s | %s %s" % (
            worst, which, line,
            a_name, " ".join("%s=%.10g" % (o, oa[o] if oa[o] is not None else math.nan)
                             for o in OUTPUTS),
            b_name, " ".join("%s=%.10g" % (o, ob[o] if ob[o] is not None else math.nan)
                             for o in OUTPUTS)))
    ok = disagree == 0 and finished >= args.min_finished
    if finished < args.min_finished:
        print("only %d points finished by both (at least %d asked)" % (finished,
                                                                       args.min_finished))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
