# SPDX-License-Identifier: AGPL-3.0-or-later
"""Prints the bench/knowledge table from the sides' raw figures.

    report.py --c LABEL=C_JSON [--c LABEL=C_JSON ...] FUSE_JSON PYTHON_JSON
              [--queries QUERIES_JSON] [--sounds-note TEXT] [--verbose] [--json FILE]

The first --c is the one the target and the ratios are judged on.  The
same percentile code serves every side: nearest rank over every timed
sample.  Python 3 standard library only.
"""

import argparse
import json
import math
import os
import platform
import statistics

TARGET_P99_US = 1000.0


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def summary(samples_ns):
    values = sorted(v / 1000.0 for v in samples_ns)
    return {
        "p50": percentile(values, 50),
        "p99": percentile(values, 99),
        "max": values[-1],
        "mean": statistics.fmean(values),
        "samples": len(values),
    }


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def fmt(value):
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", action="append", required=True, metavar="LABEL=FILE")
    parser.add_argument("fuse_json")
    parser.add_argument("python_json")
    parser.add_argument("--queries")
    parser.add_argument("--sounds-note", default="")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json", help="also write the summary here")
    args = parser.parse_args()

    cs = []
    for spec in args.c:
        label, _, path = spec.partition("=")
        cs.append((label, load(path)))
    fuse = load(args.fuse_json)
    py = load(args.python_json)
    main_label, c = cs[0]
    n = c["queries"]["n"]
    out = {"strudel_knowledge": {}, "search_knowledge": {}}

    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f};"
          f" Node {fuse['node']}, fuse.js {fuse['fuse']}, Python {py['python']}")

    # strudel_knowledge
    rows = []
    for label, data in cs:
        rows.append((label, summary(data["queries"]["samples_ns"]), data["queries"]["passes"]))
        rows.append((label + " + JSON text", summary(data["queries"]["with_text_ns"]), 1))
    for name, config in fuse["configs"].items():
        rows.append(("Fuse.js" if name == "defaults" else "Fuse.js " + name, summary(config["samples_ns"]), fuse["passes"]))

    print()
    print(f"strudel_knowledge ({n} queries, {c['reference_entries']} reference entries, {c['sounds']} sounds)")
    print(f"  sounds: {args.sounds_note or c['sounds_source']}")
    print(f"  Fuse.js: {fuse['reference_entries']} reference entries (no leading _, with a description; keys name ×3,"
          f" synonyms ×2, description ×1) + {fuse['sounds']} sound names, threshold 0.4, top 5 of each")
    width = max(len(r[0]) for r in rows) + 2
    print(f"  {'':{width}} {'p50 µs':>9} {'p99 µs':>9} {'max µs':>9} {'mean µs':>9}  samples")
    for label, s, passes in rows:
        print(f"  {label:{width}} {fmt(s['p50']):>9} {fmt(s['p99']):>9} {fmt(s['max']):>9} {fmt(s['mean']):>9}  {n} × {passes}")
        out["strudel_knowledge"][label] = s

    c_rows = [(label, s) for label, s, _ in rows if label in dict(cs)]
    for label, s, _ in rows:
        if not label.startswith("Fuse.js"):
            continue
        ratios = ", ".join(f"{s['p99'] / cs_['p99']:.0f}× vs {cl}" for cl, cs_ in c_rows)
        p50s = ", ".join(f"{s['p50'] / cs_['p50']:.0f}×" for _, cs_ in c_rows)
        print(f"  ratio p99 {label}/C: {ratios}  (p50: {p50s})")
    verdicts = []
    for label, s in c_rows:
        verdicts.append(f"{'MET' if s['p99'] < TARGET_P99_US else 'NOT MET'} by {label} (p99 {fmt(s['p99'])} µs)")
    print(f"  target p99 under 1 ms per strudel_knowledge query: {'; '.join(verdicts)}")
    out["strudel_knowledge"]["target_met"] = {label: s["p99"] < TARGET_P99_US for label, s in c_rows}
    for member, title in (("phrases", "phrase set (tests/data/knowledge-queries.tsv"),
                          ("held_out", "held-out phrases (bench/knowledge/held-out.tsv, never used to tune")):
        if member not in c:
            continue
        ph = c[member]
        s = summary(ph["samples_ns"])
        print(f"  {title}, {ph['n']} questions): right first"
              f" {ph['right']}/{ph['n']} ({100.0 * ph['right'] / ph['n']:.1f} %) C,"
              f" p50 {fmt(s['p50'])} µs, p99 {fmt(s['p99'])} µs")
        for name, config in fuse["configs"].items():
            if member in config:
                fp = config[member]
                print(f"    Fuse.js {name}: right first {fp['right']}/{fp['n']} ({100.0 * fp['right'] / fp['n']:.1f} %)")
        out["strudel_knowledge"][member] = {"n": ph["n"], "right": ph["right"], "p50": s["p50"], "p99": s["p99"],
                                            "fuse": {k: v.get(member) for k, v in fuse["configs"].items()}}
    print(f"  answered ok:true: {c['queries']['ok']}/{n} (C);"
          f" Fuse.js returned something for {fuse['configs']['defaults']['found']}/{n}")
    print(f"  set-up: C indexes {c['load_ns'] / 1e6:.1f} ms ({main_label});"
          f" Fuse.js index build {fuse['configs']['defaults']['build_ns'] / 1e6:.1f} ms")

    if args.verbose and args.queries:
        queries = load(args.queries)
        kinds = queries.get("kinds")
        if kinds and len(kinds) == n:
            print()
            print(f"  p99 µs by kind of query   " + " ".join(f"{label[:14]:>14}" for label, _, _ in rows if "JSON" not in label))
            series = [(label, data["queries"]["samples_ns"], data["queries"]["passes"]) for label, data in cs]
            series += [("Fuse.js " + name, config["samples_ns"], fuse["passes"]) for name, config in fuse["configs"].items()]
            for kind in sorted(set(kinds)):
                cells = []
                for _, samples, passes in series:
                    picked = [samples[p * n + i] for p in range(passes) for i in range(n) if kinds[i] == kind]
                    cells.append(f"{fmt(summary(picked)['p99']):>14}")
                print(f"  {kind:15} ({kinds.count(kind):4})   " + " ".join(cells))

    # search_knowledge
    pr = py["search"]
    regexes = [r["regex"] for r in pr["regexes"]]
    p_mean = statistics.fmean(r["total_ns"] / pr["repeat"] / 1000.0 for r in pr["regexes"])
    c_means = []
    for label, data in cs:
        by = {r["regex"]: r for r in data["search"]["regexes"]}
        c_means.append((label, statistics.fmean(by[r]["total_ns"] / data["search"]["repeat"] / 1000.0 for r in regexes), by))
    by = c_means[0][2]
    same = sum(1 for r in pr["regexes"] if by[r["regex"]]["matches"] == r["matches"])

    print()
    print(f"search_knowledge ({len(regexes)} regexes × {pr['repeat']} calls; all categories, context 3, max 10;"
          f" {c['knowledge_lines']} lines in the bundled notes; Python reads the same text, {len(py['files'])} files, {py['knowledge_lines']} lines)")
    width = max(len(l) for l, _, _ in c_means) + 12
    print(f"  {'':{width}} {'mean µs per call':>17}")
    for label, mean, _ in c_means:
        print(f"  {('C (GRegex), ' + label.removeprefix('C ')):{width}} {fmt(mean):>17}")
        out["search_knowledge"]["C " + label] = mean
    print(f"  {'Python (re)':{width}} {fmt(p_mean):>17}")
    out["search_knowledge"]["Python"] = p_mean
    print("  ratio Python/C: " + ", ".join(f"{p_mean / mean:.1f}× vs {label}" for label, mean, _ in c_means))
    print(f"  same (file, line) matches returned: {same}/{len(regexes)} regexes")
    if args.verbose:
        print()
        print(f"  {'regex':30} {'C µs':>8} {'Py µs':>8}  {'C ret':>5} {'Py ret':>6} {'total':>5}")
        for r in pr["regexes"]:
            cr = by[r["regex"]]
            print(f"  {r['regex'][:30]:30} {fmt(cr['total_ns'] / cs[0][1]['search']['repeat'] / 1000.0):>8}"
                  f" {fmt(r['total_ns'] / pr['repeat'] / 1000.0):>8}  {len(cr['matches']):>5} {len(r['matches']):>6}"
                  f" {cr['total_matches']:>5}")
    out["search_knowledge"]["same"] = same

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
