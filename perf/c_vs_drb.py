#!/usr/bin/env python3
"""What a C program costs against its .drb translation run alone (issue 58: no more than that
run plus the parse). For each C model, the median wall time of `druba verify prog.c`, of `druba
translate prog.c` (clang's parse and the lowering) and of `druba verify` on the translation
saved as a .drb file, over --runs runs each, in one run of this script.

Usage: perf/c_vs_drb.py [--druba build/druba] [--runs 5] [MODEL.c ...]
(default: every C model in models/)"""

import argparse
import glob
import os
import statistics
import subprocess
import tempfile
import time


def seconds(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--druba", default=os.path.join(root, "build", "druba"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    models = args.models or sorted(glob.glob(os.path.join(root, "models", "*.c")))
    print("| model | verify .c (s) | translate (s) | verify .drb (s) | .c / (.drb + translate) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="druba-c-vs-drb-") as work:
        for model in models:
            name = os.path.basename(model)[:-2]
            drb = os.path.join(work, name + ".drb")
            with open(drb, "w", encoding="utf-8") as out:
                subprocess.run([args.druba, "translate", model], stdout=out, check=True)
            c_time = seconds([args.druba, "verify", model], args.runs)
            parse = seconds([args.druba, "translate", model], args.runs)
            drb_time = seconds([args.druba, "verify", drb], args.runs)
            print(f"| {name} | {c_time:.3f} | {parse:.3f} | {drb_time:.3f} | "
                  f"{c_time / (drb_time + parse):.2f} |")


if __name__ == "__main__":
    main()
