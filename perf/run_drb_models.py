#!/usr/bin/env python3
"""Runs every `.drb` model in models/ as its header says (`# druba-expect:` lines run
`druba verify`, `# druba-expect-hunt:` lines run `druba test` with iterative deepening) and prints
one markdown table: verdict, abstract states, the bounds reached for each thread count, solver
queries and wall time. Usage: perf/run_drb_models.py [--druba build/druba]"""

import argparse
import glob
import json
import os
import re
import subprocess
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--druba", default=os.path.join(root, "build", "druba"))
    args = parser.parse_args()
    print("| model | command | verdict | abstract states | per thread count: verdict, abstract, "
          "(r,d), concrete states | solver queries (s) | time s |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(root, "models", "*.drb"))):
        with open(path) as f:
            lines = [l for l in f if re.match(r"# druba-expect(-hunt)?:", l)]
        for line in lines:
            fields = dict(re.findall(r"(\w[\w-]*)=([^ \n]+)", line))
            hunt = "-hunt:" in line
            cmd = [args.druba, "test" if hunt else "verify", path, "--json"]
            if "threads" in fields:
                cmd += ["--threads", fields["threads"]]
            if "abstraction" in fields:
                cmd += ["--abstraction", fields["abstraction"]]
            start = time.time()
            out = subprocess.run(cmd, capture_output=True, text=True).stdout
            wall = time.time() - start
            result = json.loads(out)
            runs = "; ".join(
                f"{r['threads']}: {r['verdict']}, {r['abstract_states']}, "
                f"({r['rounds']},{r['delays']}), {r['concrete_states']}" for r in result["runs"])
            queries = sum(r["solver_queries"] for r in result["runs"])
            solver_s = sum(r["solver_time_s"] for r in result["runs"])
            if "all_thread_counts" in result:
                queries += result["all_thread_counts"]["solver_queries"]
                solver_s += result["all_thread_counts"]["solver_time_s"]
            what = ("test" if hunt else "verify") + " --threads " + result["threads"]
            if "abstraction" in fields:
                what += " --abstraction " + fields["abstraction"]
            if hunt:
                what += f" (smallest delay budget {result['delays']})"
            print(f"| {os.path.basename(path)} | {what} | {result['verdict']} | "
                  f"{result['abstract_states']} | {runs} | {queries} ({solver_s:.2f}) | "
                  f"{wall:.2f} |")


if __name__ == "__main__":
    main()
