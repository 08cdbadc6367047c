#!/usr/bin/env python3
"""Random .drb programs printed as C, both verified by druba: the same verdict, or the test fails.

Each program has two shared integers and two threads of straight-line code with forward jumps
(so every run ends), each statement touching at most one shared variable, as C's translation
cuts them (docs/c.md): reads into a local, writes from locals, local arithmetic, a jump on a
local, assertions. The .drb text is druba's own language; the C text goes through clang and the
C kind's lowering. A verdict that differs is a bug of the lowering (or of this printer), shown
with both programs.

Usage: differential.py DRUBA [--programs 40] [--seed 1] [--mutate]
(the programs are written to a temporary directory of its own, removed after)
(--mutate prints `<` in C where the .drb has `!=` in assertions: the test must then fail, which
shows that it can.)"""

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


def program(rng, mutate):
    drb = ["shared int x = 0;", "shared int y = 0;", "local int l = 0;", "local int m = 0;"]
    c = ["#include <pthread.h>", "void reach_error(void);", "int x = 0, y = 0;"]
    for thread in ("A", "B"):
        n = rng.randint(3, 6)
        drb.append(f"thread {thread} * 1 {{")
        c.append(f"void *{thread}(void *arg) {{\n  int l = 0, m = 0;")
        for i in range(1, n + 1):
            d, s = statement(rng, thread, i, n)
            if mutate and d.startswith("assert"):
                s = s.replace("!=", "<")
            drb.append(f"  {thread}{i}: {d};")
            c.append(f"{thread}{i}:\n  {s}")
        drb.append("}")
        c.append("  return 0;\n}")
    c.append("int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, A, 0);\n"
             "  pthread_create(&b, 0, B, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n"
             "  return 0;\n}")
    return "\n".join(drb) + "\n", "\n".join(c) + "\n"


def verdict(druba, path):
    done = subprocess.run([druba, "verify", path, "--time-limit", "60"], capture_output=True,
                          text=True, timeout=120, check=False)
    found = re.search(r"^verdict: ([a-z]+)", done.stdout, re.M)
    return found.group(1) if found else f"exit {done.returncode}: {done.stderr.strip()[-300:]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("druba")
    parser.add_argument("--programs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mutate", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="druba-c-differential-") as workdir:
        return run(args, workdir)


def run(args, workdir):
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
