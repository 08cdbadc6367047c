#!/usr/bin/env python3
"""Runs druba on SV-COMP tasks the SV-COMP way and prints the table and the score.

Each task is a `.yml` (docs: ../shared/benchmarks/sv-comp/README.md): its `unreach-call`
property's `expected_verdict`, and the program, the `.c` the README's tables name for the task
(the `.yml` names a preprocessed `.i` that is not there), else the `.c` of the `.yml`'s stem.
`druba verify` runs on it with a time and memory limit per task. Score by SV-COMP's rules: +2 a
correct true, +1 a correct false, -32 a wrong true, -16 a wrong false, 0 unknown or refused.
Every refusal (a program outside the C druba reads) is listed with its reason. A violation
whose failing step is not the error function's (an index out of range: undefined behaviour in C)
is not a `false` of unreach-call and scores 0.

With --check, each safe verdict's certificate goes to `druba check` (same limits) and the table
says whether it is valid and how long the check took; a safe verdict whose certificate is not
valid counts as a failure of the table (not of the score, which is SV-COMP's).

Usage: perf/svcomp_table.py [--druba build/druba] [--time-limit 60] [--memory-limit 4000]
                            [--only TASK,...] [--fail-on-wrong] [--check] [FOLDER ...]
(default: every folder of the benchmarks). CTest runs a quick share (svcomp.quick) and, under the
long label, every task (long.svcomp.all), failing on a wrong verdict or a certificate not valid."""

import argparse
import glob
import os
import re
import subprocess
import tempfile
import time


def program_files(readme):
    """The task's program file, by the README's tables."""
    out = {}
    for line in open(readme, encoding="utf-8"):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 5:
            found = re.search(r"`([^`]+\.c)`", line)
            if found:
                out.setdefault(cells[1], found.group(1))
    return out


def expected(yml):
    text = open(yml, encoding="utf-8").read()
    found = re.search(r"unreach-call\.prp\s*\n\s*expected_verdict:\s*(true|false)", text)
    return found.group(1) if found else None


def limits(args):
    return ["--time-limit", str(args.time_limit), "--memory-limit", str(args.memory_limit)]


def run(druba, program, args, cert):
    """The verdict, its reason or detail, the seconds, and the proof the report names."""
    start = time.time()
    try:
        done = subprocess.run(
            [druba, "verify", program, *limits(args)] + (["--certificate", cert] if cert else []),
            capture_output=True, text=True, timeout=args.time_limit + 60, check=False)
    except subprocess.TimeoutExpired:
        # druba ends every run at its limit: a run that does not is a defect, named as such
        return "overran its time limit", "killed", time.time() - start, ""
    seconds = time.time() - start
    verdict = re.search(r"^verdict: ([a-z]+)", done.stdout, re.M)
    # "druba verify: FILE, threads N.., invariants from finite instances"
    header = re.search(r"^druba verify: .*?, threads ([^,]+), (.*)$", done.stdout, re.M)
    proof = f"{header.group(2)} ({header.group(1)} threads)" if header else ""
    if done.returncode == 2:
        reason = (done.stderr.strip().splitlines() or ["?"])[-1]
        return "refused", reason, seconds, ""
    failure = re.search(r"FAILS: (.*?)  ->", done.stdout)
    if verdict and verdict.group(1) == "violation" and failure and \
            failure.group(1) != "the assertion fails":
        # undefined behaviour (an index out of range), not a call of the error function
        return "violation, not of unreach-call", failure.group(1), seconds, proof
    return (verdict.group(1) if verdict else f"exit {done.returncode}"), "", seconds, proof


def check(druba, program, cert, args):
    """`druba check`'s answer on a safe verdict's certificate ("valid" or why not), and seconds."""
    start = time.time()
    try:
        done = subprocess.run([druba, "check", program, "--certificate", cert, *limits(args)],
                              capture_output=True, text=True, timeout=args.time_limit + 60,
                              check=False)
    except subprocess.TimeoutExpired:
        return "overran its time limit", time.time() - start
    seconds = time.time() - start
    first = (done.stdout.strip().splitlines() or [f"exit {done.returncode}"])[0]
    return ("valid" if done.returncode == 0 and first.startswith("certificate valid")
            else first), seconds


def score(want, got):
    if got == "safe":
        return 2 if want == "true" else -32
    if got == "violation":
        return 1 if want == "false" else -16
    return 0


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bench = os.path.join(root, "..", "shared", "benchmarks", "sv-comp")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--druba", default=os.path.join(root, "build", "druba"))
    parser.add_argument("--time-limit", type=int, default=60)
    parser.add_argument("--memory-limit", type=int, default=4000)
    parser.add_argument("--only", default="", help="comma-separated task names: these only")
    parser.add_argument("--fail-on-wrong", action="store_true",
                        help="exit 1 when a verdict is wrong, or a task chosen by --only is not answered")
    parser.add_argument("--check", action="store_true",
                        help="check each safe verdict's certificate with `druba check`")
    parser.add_argument("folders", nargs="*")
    args = parser.parse_args()
    folders = args.folders or [os.path.join(bench, f)
                               for f in ("pthread-atomic", "pthread-ext", "pthread")]
    names = program_files(os.path.join(bench, "README.md"))
    total = 0
    failed = False
    refusals = []
    checked = "| certificate | check (s) " if args.check else ""
    print(f"| task | expected | druba | score | time (s) | proof {checked}|")
    print("|---|---|---|---|---|---|" + ("---|---|" if args.check else ""))
    with tempfile.TemporaryDirectory(prefix="druba-svcomp-") as scratch:
        for folder in folders:
            for yml in sorted(glob.glob(os.path.join(folder, "*.yml"))):
                task = os.path.basename(yml)[:-4]
                want = expected(yml)
                if want is None or (args.only and task not in args.only.split(",")):
                    continue
                program = os.path.join(folder, names.get(task, task + ".c"))
                if not os.path.exists(program):
                    print(f"| {task} | {want} | no program file | 0 | | |" +
                          (" | |" if args.check else ""))
                    continue
                cert = os.path.join(scratch, task + ".cert.json") if args.check else ""
                got, reason, seconds, proof = run(args.druba, program, args, cert)
                points = score(want, got)
                total += points
                failed = failed or points < 0 or (bool(args.only) and points == 0) or \
                    got == "overran its time limit"
                if got == "refused":
                    refusals.append((task, reason))
                row = f"| {task} | {want} | {got} | {points} | {seconds:.2f} | " + \
                    (proof if got == "safe" else "") + " |"
                if args.check and got == "safe":
                    answer, check_seconds = check(args.druba, program, cert, args)
                    failed = failed or answer != "valid"
                    row += f" {answer} | {check_seconds:.2f} |"
                elif args.check:
                    row += " | |"
                print(row, flush=True)
    print(f"\nscore: {total}")
    print(f"refused: {len(refusals)}")
    for task, reason in refusals:
        print(f"- {task}: {reason}")
    return 1 if failed and args.fail_on_wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
