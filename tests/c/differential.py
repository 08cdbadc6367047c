#!/usr/bin/env python3
"""Random .drb programs printed as C, both verified by druba: the same verdict, or the test fails.

Each program has two shared integers and two threads of straight-line code with forward jumps
(so every run ends), each statement touching at most one shared variable, as C's translation
cuts them (docs/c.md): reads into a local, writes from locals, local arithmetic, a jump on a
local, assertions. The .drb text is druba's own language; the C text goes through clang and the
C kind's lowering. A verdict that differs is a bug of the lowering (or of this printer), shown
with both programs.

With --roles, main starts A and then creates B's without bound (`while (1) pthread_create(...)`),
which the C kind translates as one template whose threads take roles (docs/c.md); the .drb text
is the plain program of A and k B's, verified for k = 1 to 3: when C is proved safe for every
count every k must be safe, and when C fails at N threads some k up to N must fail (main, which
only starts threads, takes no role; A's role, when taken, is one of the N).

Usage: differential.py DRUBA [--programs 40] [--seed 1] [--mutate] [--roles]
(the programs are written to a temporary directory of its own, removed after)
(--mutate prints `<` in C where the .drb has `!=` in assertions, and with --roles C's main does not
start A: the test must then fail, which shows that it can.)"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

SHARED = ["x", "y"]
LOCALS = ["l", "m"]


def statement(rng, thread, i, n):
    """One statement as (.drb text, C text) without its label."""
    kinds = ["read", "write", "local", "assert"] + (["branch"] if i < n - 2 else [])
    kind = rng.choice(kinds)
    v = rng.choice(SHARED)
    a = rng.choice(LOCALS)
    b = rng.choice(LOCALS)
    c = rng.randint(0, 3)
    if kind == "read":
        return f"{a} := {v}", f"{a} = {v};"
    if kind == "write":
        op = rng.choice(["+", "-"])
        return f"{v} := {a} {op} {c}", f"{v} = {a} {op} {c};"
    if kind == "local":
        op = rng.choice(["+", "-", "*"])
        return f"{a} := {b} {op} {c}", f"{a} = {b} {op} {c};"
    if kind == "branch":
        target = f"{thread}{rng.randint(i + 2, n)}"
        return (f"if {a} == {c} then goto {target}", f"if ({a} == {c}) goto {target};")
    what = rng.choice([v, a, f"{a} + {b}"])
    return f"assert {what} != {c}", f"if (!({what} != {c})) reach_error();"


def program(rng, mutate, roles=False):
    drb = ["shared int x = 0;", "shared int y = 0;", "local int l = 0;", "local int m = 0;"]
    c = ["#include <pthread.h>", "void reach_error(void);", "int x = 0, y = 0;"]
    for thread in ("A", "B"):
        n = rng.randint(3, 6)
        drb.append(f"thread {thread} * {'@K' if roles and thread == 'B' else 1} {{")
        c.append(f"void *{thread}(void *arg) {{\n  int l = 0, m = 0;")
        for i in range(1, n + 1):
            d, s = statement(rng, thread, i, n)
            if mutate and not roles and d.startswith("assert"):
                s = s.replace("!=", "<")
            drb.append(f"  {thread}{i}: {d};")
            c.append(f"{thread}{i}:\n  {s}")
        drb.append("}")
        c.append("  return 0;\n}")
    if roles:  # --mutate: C's main never starts A
        start = "" if mutate else "  pthread_create(&a, 0, A, 0);\n"
        c.append(f"int main(void) {{\n  pthread_t a, b;\n{start}"
                 "  while (1) pthread_create(&b, 0, B, 0);\n}")
    else:
        c.append("int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, A, 0);\n"
                 "  pthread_create(&b, 0, B, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n"
                 "  return 0;\n}")
    return "\n".join(drb) + "\n", "\n".join(c) + "\n"


def verdict(druba, path, seconds=60):
    done = subprocess.run([druba, "verify", path, "--time-limit", str(seconds)],
                          capture_output=True, text=True, timeout=seconds + 60, check=False)
    found = re.search(r"^verdict: ([a-z]+)", done.stdout, re.M)
    if not found:
        return f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    at = re.search(r"^verdict: violation .*at (\d+) threads", done.stdout, re.M)
    return found.group(1) + (f" {at.group(1)}" if at else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("druba")
    parser.add_argument("--programs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mutate", action="store_true")
    parser.add_argument("--roles", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="druba-c-differential-") as workdir:
        return run(args, workdir)


def run_roles(args, workdir):
    rng = random.Random(args.seed)
    counts = {}
    for k in range(args.programs):
        drb, c = program(rng, args.mutate, roles=True)
        c_path = os.path.join(workdir, f"p{k}.c")
        with open(c_path, "w", encoding="utf-8") as f:
            f.write(c)
        got = verdict(args.druba, c_path, 3)
        per_k = []
        for family in (1, 2, 3):
            drb_path = os.path.join(workdir, f"p{k}-{family}.drb")
            with open(drb_path, "w", encoding="utf-8") as f:
                f.write(drb.replace("@K", str(family)))
            per_k.append(verdict(args.druba, drb_path).split()[0])
        fails = [family for family, v in zip((1, 2, 3), per_k) if v == "violation"]
        ok = all(v in ("safe", "violation") for v in per_k)
        if got == "safe":
            ok = ok and not fails
        elif got.startswith("violation"):
            n = int(got.split()[1]) if len(got.split()) > 1 else 1
            ok = ok and (n > 3 or any(family <= n for family in fails))
        elif got == "unknown":
            ok = ok and True  # C undecided at 3 s: nothing to compare
        else:
            ok = False
        if not ok:
            print(f"program {k}: C {got}, .drb with 1 to 3 B's {per_k}\n--- .drb\n{drb}--- C\n{c}")
            return 1
        counts[got.split()[0]] = counts.get(got.split()[0], 0) + 1
    print(f"{args.programs} programs, C's roles agreeing with .drb at 1 to 3 B's: {counts}")
    return 0


def run(args, workdir):
    if args.roles:
        return run_roles(args, workdir)
    rng = random.Random(args.seed)
    counts = {}
    for k in range(args.programs):
        drb, c = program(rng, args.mutate)
        drb_path = os.path.join(workdir, f"p{k}.drb")
        c_path = os.path.join(workdir, f"p{k}.c")
        with open(drb_path, "w", encoding="utf-8") as f:
            f.write(drb)
        with open(c_path, "w", encoding="utf-8") as f:
            f.write(c)
        want = verdict(args.druba, drb_path)
        got = verdict(args.druba, c_path)
        if want != got or want not in ("safe", "violation"):
            print(f"program {k}: .drb {want}, C {got}\n--- .drb\n{drb}--- C\n{c}")
            return 1
        counts[want] = counts.get(want, 0) + 1
    print(f"{args.programs} programs, the same verdict as C and as .drb: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
