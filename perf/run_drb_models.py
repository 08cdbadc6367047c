#!/usr/bin/env python3
"""Runs every `.drb` model in models/ as its header says (`# druba-expect:` lines run
`druba verify`, `# druba-expect-hunt:` lines run `druba test` with iterative deepening) and prints
one markdown table: verdict, abstract states, the bounds reached for each thread count, solver
queries and wall time. Usage: perf/run_drb_models.py [--druba build/druba]

With --proofs, one row per `verify` line with a fixed thread count instead: |O| (the sandwich
proof's upper bound, computed first), whether it is exact, the proof that answered and where, and
the wall time by default (the paper's proof alone) and with --upper-bound joint (fastest of 3).

With --reuse, one row per `verify` line whose run refines: the later rounds' successor calls and
the states they took on from the round before, with --reuse-search on (the default) and off, and
the wall times (fastest of --repeat, default 3, each a whole process).

With --certificates, one row per `safe` line of every model (.drb and .pds): `verify
--certificate` with the line's options, then `druba check`, each a whole process (fastest of 3):
the certificate's kind and size, both wall times and the checker's verdict."""

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
    parser.add_argument("--proofs", action="store_true")
    parser.add_argument("--certificates", action="store_true")
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.reuse:
        return reuse(args, root)
    if args.proofs:
        return proofs(args, root)
    if args.certificates:
        return certificates(args, root)
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


def proofs(args, root):
    print("| model | threads | verdict | abstract | O | O exact | proof | at r,d | before s "
          "(default) | --upper-bound joint s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for path, fields in header_lines(root):
        if fields.get("threads", "").endswith(".."):
            continue
        cmd = [args.druba, "verify", path, "--json"]
        if "threads" in fields:
            cmd += ["--threads", fields["threads"]]
        if "abstraction" in fields:
            cmd += ["--abstraction", fields["abstraction"]]

        def last(extra):
            out = subprocess.run(cmd + extra, capture_output=True, text=True).stdout
            return json.loads(out)["runs"][-1]

        def fastest(extra):
            return min((last(extra) for _ in range(3)), key=lambda r: r["time_s"])

        before = fastest([])  # the default: the paper's proof alone for .drb
        after = fastest(["--upper-bound", "joint"])
        upper = after["upper_bound"]
        exact = after["verdict"] == "safe" and after["abstract_states"] == upper
        ratio = after["time_s"] / before["time_s"] if before["time_s"] > 0 else 0
        print(f"| {os.path.basename(path)} | {after['threads']} | {after['verdict']} | "
              f"{after['abstract_states']} | {upper} | {'yes' if exact else 'no'} | "
              f"{after['proof']} | {after['rounds']},{after['delays']} | "
              f"{before['time_s']:.3f} | {after['time_s']:.3f} | {ratio:.2f} |")


# The options a header line's fields stand for (tests/check_model.cmake reads them the same way).
OPTIONS = {"threads": "--threads", "abstraction": "--abstraction", "exhaust": "--exhaust-share",
           "mode": "--mode", "refine": "--refine", "top": "--top"}


def header_lines(root, extensions=("drb",), keep=lambda line: True):
    """Yields (path, fields) for every `# druba-expect:` line that `keep` accepts, of the models
    with these extensions, in file order."""
    paths = sorted(p for e in extensions for p in glob.glob(os.path.join(root, "models", "*." + e)))
    for path in paths:
        with open(path) as f:
            lines = [l for l in f if re.match(r"# druba-expect:", l) and keep(l)]
        for line in lines:
            yield path, dict(re.findall(r"(\w[\w-]*)=([^ \n]+)", line))


def options_of(fields):
    """The command-line options a header line's fields stand for."""
    return [o for key, flag in OPTIONS.items() if key in fields for o in (flag, fields[key])]


def reuse(args, root):
    print("| model | options | verdict | rounds | calls (on) | taken on (on) | calls (off) | "
          "time on s | time off s | on/off |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path, fields in header_lines(root):
        if fields.get("refine") == "off":
            continue
        options = options_of(fields)

        def run(flag):
            best = None
            for _ in range(args.repeat):
                start = time.monotonic()
                out = subprocess.run([args.druba, "verify", path, "--json", "--reuse-search",
                                      flag] + options, capture_output=True, text=True).stdout
                seconds = time.monotonic() - start
                report = json.loads(out)
                if best is None or seconds < best[1]:
                    best = (report, seconds)
            return best

        on, on_s = run("on")
        refinement = on.get("refinement")
        if not refinement or refinement.get("rounds", 1) < 2:
            continue
        off, off_s = run("off")
        print(f"| {os.path.basename(path)} | {' '.join(options)} | {on['verdict']} | "
              f"{refinement['rounds']} | {refinement['search_calls']} | "
              f"{refinement['replayed_states']} | {off['refinement']['search_calls']} | "
              f"{on_s:.2f} | {off_s:.2f} | {on_s / off_s:.2f} |")


def certificates(args, root):
    import tempfile
    print("| model | options | proof | kind | certificate bytes | verify s | check s | "
          "check/verify | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        cert = os.path.join(scratch, "certificate.json")
        for path, fields in header_lines(root, ("drb", "pds"), lambda l: "verdict=safe" in l):
            options = options_of(fields)
            if fields.get("deadlock") == "1":
                options.append("--deadlock")

            def timed(cmd):
                best = None
                for _ in range(3):
                    start = time.time()
                    out = subprocess.run(cmd, capture_output=True, text=True)
                    wall = time.time() - start
                    best = (wall, out) if best is None or wall < best[0] else best
                return best

            verify_s, out = timed([args.druba, "verify", path, "--json", "--certificate", cert]
                                  + options)
            report = json.loads(out.stdout)
            proof = report.get("proof") or report["runs"][-1].get("proof", "-")
            if not os.path.exists(cert):
                print(f"| {os.path.basename(path)} | {' '.join(options)} | {proof} | - | - | "
                      f"{verify_s:.3f} | - | - | no certificate |")
                continue
            with open(cert) as f:
                kind = json.load(f)["kind"] + (" (every count)" if ".." in
                                               fields.get("threads", "") else "")
            check_s, checked = timed([args.druba, "check", path, "--certificate", cert])
            print(f"| {os.path.basename(path)} | {' '.join(options)} | {proof} | {kind} | "
                  f"{os.path.getsize(cert)} | {verify_s:.3f} | {check_s:.3f} | "
                  f"{check_s / verify_s:.2f} | {checked.stdout.split(':')[0]} |")
            os.remove(cert)


if __name__ == "__main__":
    main()
