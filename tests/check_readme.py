#!/usr/bin/env python3
"""Runs every command the README shows and holds its output to what the README prints.

  check_readme.py README BUILD_DIR SOURCE_DIR

Each example is an indented block whose line starts with `$ `: the command runs (through the
shell) in a temporary directory where `build` is BUILD_DIR and `models` the bundled models, and
every line the README prints after it must be a line of its output, but `...` (lines left out)
and lines with a time or a memory figure, which change from run to run. The first of the two
commands (`scripts/setup && build/druba verify models/ex8.pds`) runs its druba part; `.ci/run`
must run both. A README with no example fails: this test must be able to fail.
"""
import os
import re
import subprocess
import sys
import tempfile

readme, build, source = sys.argv[1:4]
lines = open(readme).read().splitlines()
examples = []  # (command, expected lines)
for i, line in enumerate(lines):
    if not line.startswith("    $ "):
        continue
    expected = []
    for later in lines[i + 1:]:
        if not later.startswith("    ") or later.startswith("    $ "):
            break
        expected.append(later[4:])
    examples.append((line[6:], expected))
varying = re.compile(r"\d\.\d+ s\b|\bMB\b")
failures = []
if len(examples) < 3:
    failures.append(f"{readme}: {len(examples)} examples, the README shows at least 3")
ci = open(os.path.join(source, ".ci", "run")).read()
for step in ("scripts/setup", "scripts/test"):
    if step not in ci:
        failures.append(f".ci/run does not run {step}, which the README's two commands give")
if "    scripts/setup && build/druba verify models/ex8.pds" not in lines:
    failures.append("the README's first command is not `scripts/setup && build/druba verify "
                    "models/ex8.pds`")
# The first command's druba part must prove Ex. 8 (its output is not shown).
examples.append(("build/druba verify models/ex8.pds", ["verdict: safe*"]))
with tempfile.TemporaryDirectory() as work:
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    os.symlink(os.path.join(os.path.abspath(source), "models"), os.path.join(work, "models"))
    for command, expected in examples:
        done = subprocess.run(command, shell=True, cwd=work, capture_output=True, text=True,
                              timeout=300)
        got = done.stdout.splitlines()
        if done.returncode not in (0, 10):
            failures.append(f"$ {command}: exit {done.returncode}: {done.stderr.strip()}")
            continue
        for want in expected:
            if want == "..." or varying.search(want):
                continue
            if want.endswith("*"):  # a line that starts so
                if not any(g.startswith(want[:-1]) for g in got):
                    failures.append(f"$ {command}: no line starts with '{want[:-1]}'")
                continue
            if want not in got:
                failures.append(f"$ {command}: the README prints\n  {want}\nwhich the output "
                                f"does not have:\n  " + "\n  ".join(got[:20]))
for failure in failures:
    print("FAIL:", failure)
print(f"{len(examples)} commands run, {len(failures)} failures")
sys.exit(1 if failures else 0)
