#!/usr/bin/env python3
"""How the proof grows with the thread count: Stefan-n and Bluetooth3 2+k built with `druba compose`
(into a temporary directory) from the PLDI'18 files in ../shared/benchmarks/cuba, verified at
K = 1 and K = 2 with the sandwich proof's lower bound from the search over canonical
representatives (the default) and from the Round-Robin search alone (--symmetric-search off);
and symmetric .drb models (families `drb:NAME`, models/NAME.drb at 2..--max-drb threads, K
shown as 0), proved by exhaustion over one state per orbit (the default) or by the Round-Robin
search alone. Prints a markdown table (time, peak memory, states stored, the proof and which
search answered) and writes a log-scale plot of time and memory against the thread count (SVG).

  perf/run_growth.py [--druba build/druba] [--max-n 12] [--time-limit 300] [--svg docs/growth.svg]
                     [--families stefan bluetooth3 drb:test-and-test-and-set ...] [--round-robin]

A family stops growing at its first run that does not answer `safe` within the limits (the
Round-Robin lower bound stops early: Stefan-9 took it 508 s and 13 GB).
"""
import argparse, json, math, pathlib, subprocess, sys, tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "benchmarks" / "cuba"


def compose(druba, out_dir, family, n):
    """Writes the instance with n threads of `family`; returns its .pds path."""
    if family == "stefan":
        source = BENCH / "08_Stefan-1" / "stefan-4.pds"
        blocks = ",".join(["0"] * n)
        init = "0|" + blocks
    else:  # bluetooth3 2+k: two adders... the driver and the stopper, k users (block 2)
        source = BENCH / "03_Bluetooth-3" / "Bluetooth3-21.pds"
        k = n - 3
        blocks = ",".join(["0", "1"] + ["2"] * k + ["3"])
        init = "0|" + ",".join(["1", "1"] + ["9"] * k + ["1"])
    out = out_dir / f"{family}-{n}.pds"
    subprocess.run([druba, "compose", str(source), "--blocks", blocks, "--init", init, "-o",
                    str(out)], check=True, capture_output=True)
    return out


def verify(druba, pds, k, symmetric, time_limit, memory_limit):
    spec = pds.with_suffix(".spec")
    args = [druba, "verify", str(pds), "--top", str(k), "--jobs", "1", "--json",
            "--time-limit", str(time_limit), "--memory-limit", str(memory_limit),
            "--symmetric-search", "on" if symmetric else "off"]
    if spec.exists():
        args += ["--spec", str(spec)]
    run = subprocess.run(args, capture_output=True, text=True)
    try:
        j = json.loads(run.stdout)
    except json.JSONDecodeError:
        return None
    stored = j.get("symmetric_search_states", 0) if j.get("lower_bound_search") == \
        "symmetric free search" else j.get("concrete_states", 0)
    return {"verdict": j["verdict"], "time": j.get("time_s", 0), "mb": j.get("peak_rss_mb", 0),
            "stored": stored, "abstract": j.get("abstract_states", 0), "proof": j.get("proof", ""),
            "lower": j.get("lower_bound_search", ""), "reason": j.get("reason", "")}


def verify_drb(druba, name, n, symmetric, time_limit, memory_limit):
    args = [druba, "verify", str(ROOT / "models" / f"{name}.drb"), "--threads", str(n), "--jobs",
            "1", "--json", "--time-limit", str(time_limit), "--memory-limit", str(memory_limit),
            "--symmetric-search", "on" if symmetric else "off"]
    run = subprocess.run(args, capture_output=True, text=True)
    try:
        j = json.loads(run.stdout)
    except json.JSONDecodeError:
        return None
    orbits = j.get("symmetric_exhaustion", False)
    stored = j.get("symmetric_search_states", 0) if orbits else j.get("concrete_states", 0)
    return {"verdict": j["verdict"], "time": j.get("time_s", 0), "mb": j.get("peak_rss_mb", 0),
            "stored": stored, "abstract": j.get("abstract_states", 0), "proof": j.get("proof", ""),
            "lower": "one state per orbit" if orbits else "round-robin",
            "reason": j.get("reason", "")}


def plot(rows, path):
    """A log-scale SVG of time (left) and peak memory (right) against the thread count."""
    series = {}
    for r in rows:
        if r["result"] is None or r["result"]["verdict"] != "safe":
            continue
        key = (r["family"], r["k"], r["symmetric"])
        series.setdefault(key, []).append((r["n"], r["result"]["time"], r["result"]["mb"]))
    width, height, pad = 420, 300, 50
    ns = [n for s in series.values() for n, _, _ in s] or [2, 12]
    n_lo, n_hi = min(ns), max(ns)
    fixed = {("stefan", 1): "#1f77b4", ("stefan", 2): "#ff7f0e", ("bluetooth3", 1): "#2ca02c",
             ("bluetooth3", 2): "#d62728"}
    others = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
    colors = {}
    for family, k, _ in sorted(series):  # only the families measured, each its own colour
        if (family, k) not in colors:
            colors[(family, k)] = fixed.get((family, k),
                                            others[len(colors) % len(others)])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width}" height="{height + 80}" '
           'font-family="sans-serif" font-size="11">']
    for panel, (label, index, lo, hi) in enumerate(
            [("time (s)", 1, 1e-3, 1e3), ("peak memory (MB)", 2, 1, 1e5)]):
        x0 = panel * width

        def px(n):
            return x0 + pad + (n - n_lo) / max(1, n_hi - n_lo) * (width - 2 * pad)

        def py(v):
            v = min(max(v, lo), hi)
            return height - pad + 10 - (math.log10(v) - math.log10(lo)) / \
                (math.log10(hi) - math.log10(lo)) * (height - 2 * pad)

        out.append(f'<text x="{x0 + width / 2}" y="15" text-anchor="middle">{label}, log scale, '
                   'against threads</text>')
        out.append(f'<line x1="{px(n_lo)}" y1="{py(lo)}" x2="{px(n_hi)}" y2="{py(lo)}" '
                   'stroke="black"/>')
        out.append(f'<line x1="{px(n_lo)}" y1="{py(lo)}" x2="{px(n_lo)}" y2="{py(hi)}" '
                   'stroke="black"/>')
        decade = lo
        while decade <= hi:
            out.append(f'<text x="{px(n_lo) - 4}" y="{py(decade) + 4}" text-anchor="end">'
                       f'{decade:g}</text>')
            decade *= 10
        for n in range(n_lo, n_hi + 1):
            out.append(f'<text x="{px(n)}" y="{py(lo) + 14}" text-anchor="middle">{n}</text>')
        for (family, k, symmetric), points in sorted(series.items()):
            color = colors.get((family, k), "gray")
            dash = "" if symmetric else ' stroke-dasharray="4,3"'
            path_d = " ".join(f"{'M' if i == 0 else 'L'}{px(n):.1f},{py(p[index - 1]):.1f}"
                              for i, (n, *p) in enumerate(points))
            out.append(f'<path d="{path_d}" fill="none" stroke="{color}"{dash}/>')
    legend_y = height + 5
    for i, ((family, k), color) in enumerate(colors.items()):
        name = family[4:] if family.startswith("drb:") else f"{family} K={k}"
        out.append(f'<text x="{10 + i % 4 * 200}" y="{legend_y + 20 + i // 4 * 14}" '
                   f'fill="{color}">{name}</text>')
    out.append(f'<text x="10" y="{legend_y + 20 + (len(colors) + 3) // 4 * 14}">solid: search '
               'over canonical representatives; dashed: Round-Robin alone</text>')
    out.append("</svg>")
    pathlib.Path(path).write_text("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--druba", default=str(ROOT / "build" / "druba"))
    ap.add_argument("--max-n", type=int, default=12)
    ap.add_argument("--time-limit", type=float, default=300)
    ap.add_argument("--memory-limit", type=float, default=8000)
    ap.add_argument("--svg", default="")
    ap.add_argument("--max-drb", type=int, default=8)
    ap.add_argument("--families", nargs="*", default=["stefan", "bluetooth3"])
    ap.add_argument("--round-robin", action="store_true",
                    help="also the Round-Robin lower bound alone (slow past a few threads)")
    args = ap.parse_args()
    rows = []
    print("| instance | threads | K | lower bound | verdict | proof | time (s) | peak MB | "
          "states stored | abstract states |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families:
            drb = family.startswith("drb:")
            first = 2 if family == "stefan" or drb else 4
            for k in ((0,) if drb else (1, 2)):
                for symmetric in ([True, False] if args.round_robin else [True]):
                    for n in range(first, (args.max_drb if drb else args.max_n) + 1):
                        if drb:
                            result = verify_drb(args.druba, family[4:], n, symmetric,
                                                args.time_limit, args.memory_limit)
                        else:
                            pds = compose(args.druba, pathlib.Path(tmp), family, n)
                            result = verify(args.druba, pds, k, symmetric, args.time_limit,
                                            args.memory_limit)
                        rows.append({"family": family, "n": n, "k": k, "symmetric": symmetric,
                                     "result": result})
                        if result is None:
                            print(f"| {family}-{n} | {n} | {k} | | no answer | | | | | |")
                            break
                        lower = result["lower"] or "-"
                        print(f"| {family}-{n} | {n} | {k} | "
                              f"{'canonical' if symmetric else 'round-robin'} ({lower}) | "
                              f"{result['verdict']} | {result['proof']} | {result['time']:.2f} | "
                              f"{result['mb']:.0f} | {result['stored']} | {result['abstract']} |",
                              flush=True)
                        if result["verdict"] != "safe":
                            break
    if args.svg:
        plot(rows, args.svg)
        print(f"\nwrote {args.svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
