#!/usr/bin/env python3
"""How the distributed search scales with the process count (docs/distributed.md): one run of
single-process druba and of druba-mpi under `mpirun --oversubscribe -np P` for each P, on the same
command, and a markdown table of wall time, peak memory per process and summed, states, and what
crossed the wire (states and bytes sent, bytes per state, messages, exchanges). Fails when a run's
verdict, states, keys, Pareto pairs or abstract states differ from druba's, or when the memory of
P processes summed exceeds 1.5 times that of one.

  perf/run_distributed.py [--druba build/druba] [--druba-mpi build/druba-mpi] [--processes 1 2 4]
                          [--stefan N] [-- COMMAND MODEL OPTIONS...]

The default command: test Stefan-8 (../shared/benchmarks/cuba) at 26 rounds and 1 delay.
`--stefan N`: verify Stefan-N at K = 1 (composed with `druba compose` into a temporary
directory), the sandwich proof: O, then the search over orbits.
"""
import argparse, json, os, pathlib, subprocess, sys, tempfile, time

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "benchmarks" / "cuba"
DEFAULT = ["test", str(BENCH / "08_Stefan-1" / "stefan-8.pds"), "--rounds", "26", "--delays", "1"]


def timed(command, env=None):
    begin = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    return time.monotonic() - begin, done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--druba", default=str(ROOT / "build" / "druba"))
    parser.add_argument("--druba-mpi", default=str(ROOT / "build" / "druba-mpi"))
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--stefan", type=int, help="verify Stefan-N at K = 1")
    parser.add_argument("run", nargs="*", default=DEFAULT)
    args = parser.parse_args()
    run = args.run or DEFAULT
    work = tempfile.TemporaryDirectory()
    if args.stefan:
        blocks = ",".join(["0"] * args.stefan)
        model = pathlib.Path(work.name) / f"stefan-{args.stefan}.pds"
        subprocess.run([args.druba, "compose", str(BENCH / "08_Stefan-1" / "stefan-4.pds"),
                        "--blocks", blocks, "--init", "0|" + blocks, "-o", str(model)],
                       check=True, capture_output=True)
        run = ["verify", str(model)]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    wall, done = timed(["/usr/bin/time", "-f", "%M", args.druba, *run, "--json",
                        "--jobs", "1"])
    single = json.loads(done.stdout)
    peak = int(done.stderr.strip().splitlines()[-1]) / 1024
    print(f"`{' '.join(run)}`\n")
    print("| | wall | peak memory per process (MB) | summed | states | keys | pairs | abstract | "
          "states sent | bytes sent | bytes per state | messages | exchanges |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| druba | {wall:.1f} s | {peak:.0f} | {peak:.0f} | {single['concrete_states']:,} | "
          f"{single['keys']:,} | {single['pareto_pairs']:,} | "
          f"{single.get('abstract_states') or 0:,} | | | | | |")
    status = 0
    one_process = None  # summed peak memory of the run with one process
    for p in args.processes:
        wall, done = timed(["mpirun", "--oversubscribe", "-np", str(p), args.druba_mpi, *run,
                            "--json"], env)
        r = json.loads(done.stdout.splitlines()[0])
        for key in ("verdict", "concrete_states", "keys", "pareto_pairs", "abstract_states"):
            if r.get(key) != single.get(key):
                print(f"differs from druba: {key} {r[key]} against {single[key]}", file=sys.stderr)
                status = 1
        spread = r["distributed"]  # druba's report, with the distributed run's figures
        mb = spread["peak_rss_mb_by_process"]
        if p == 1:
            one_process = sum(mb)
        elif one_process and sum(mb) > 1.5 * one_process:  # the bound
            print(f"{p} processes sum {sum(mb):.0f} MB, over 1.5 times one process's "
                  f"{one_process:.0f} MB", file=sys.stderr)
            status = 1
        per_state = spread["bytes_sent"] / spread["states_sent"] if spread["states_sent"] else 0
        print(f"| {p} process{'es' if p > 1 else ''} | {wall:.1f} s | "
              f"{' / '.join(f'{m:.0f}' for m in mb)} | {sum(mb):.0f} | "
              f"{r['concrete_states']:,} | {r['keys']:,} | {r['pareto_pairs']:,} | "
              f"{r.get('abstract_states') or 0:,} | {spread['states_sent']:,} | {spread['bytes_sent']:,} | "
              f"{per_state:.1f} | {spread['messages']:,} | {spread['exchanges']:,} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
