#!/usr/bin/env python3
"""Run quoct_bench and print one Markdown table per workload, plus the targets check.

    run_bench.py --binary build/bench/quoct_bench --json out.json [--markdown out.md]
                 [--filter REGEX] [--min-time SECONDS] [--smoke] [-- more benchmark args]
    run_bench.py --from-json out.json          # render an earlier run, run nothing

Per operation the tables give each peer's items/s (queries/s; points/s for build), quoct's
speed-up over each peer (peer time / quoct time, so > 1 means quoct is faster), and
results/query, which must agree between peers since they all answer the same queries.
Python 3 standard library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

PEERS = ["quoct", "nanoflann", "rtree", "brute"]
RIVALS = ["nanoflann", "rtree"]  # "the faster peer" is the faster of these
OPERATIONS = ["build", "radius32", "radius256", "radius32_inorder", "radius256_inorder",
              "count256", "box256", "knn1", "knn5", "knn10"]
WORKLOADS = ["uniform3d", "clustered3d", "bunny3d", "cities2d", "uniform2d"]
WORKLOADS_3D = ["uniform3d", "clustered3d", "bunny3d"]
INCREMENTAL = ("incremental", "bunny3d")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", help="the quoct_bench executable")
    p.add_argument("--json", help="write the raw Google Benchmark JSON here")
    p.add_argument("--markdown", help="also write the tables here")
    p.add_argument("--filter", help="--benchmark_filter regex (default: everything)")
    p.add_argument("--min-time", help="--benchmark_min_time in seconds")
    p.add_argument("--smoke", action="store_true", help="tiny data sets, a few seconds in all")
    p.add_argument("--from-json", help="render this earlier JSON output instead of running")
    p.add_argument("extra", nargs="*", help="more arguments for the binary (after --)")
    return p.parse_args()


def run(args):
    if not args.binary or not os.path.exists(args.binary):
        sys.exit("run_bench.py: --binary must name the built quoct_bench executable")
    out = args.json or "quoct_bench.json"
    cmd = [args.binary, "--benchmark_out=" + out, "--benchmark_out_format=json"]
    if args.smoke:
        cmd.append("--smoke")
    if args.filter:
        cmd.append("--benchmark_filter=" + args.filter)
    if args.min_time:
        cmd.append("--benchmark_min_time=" + args.min_time)
    cmd += args.extra
    print("running:", " ".join(cmd), file=sys.stderr, flush=True)
    # The binary's console table goes to stderr, keeping stdout for the Markdown.
    status = subprocess.call(cmd, stdout=sys.stderr)
    if status != 0:
        sys.exit("run_bench.py: quoct_bench failed with status %d" % status)
    return out


def load(path):
    """{(op, workload, peer): entry} with items/s, counters, or an error message."""
    with open(path) as f:
        data = json.load(f)
    groups = {}
    for b in data.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        parts = name.split("/")
        if len(parts) < 3:
            continue
        key = tuple(parts[:3])
        groups.setdefault(key, []).append(b)
    results = {}
    for key, runs in groups.items():
        medians = [r for r in runs if r.get("run_type") == "aggregate" and r.get("aggregate_name") == "median"]
        plain = [r for r in runs if r.get("run_type", "iteration") == "iteration"]
        errors = [r for r in runs if r.get("error_occurred")]
        if errors:
            results[key] = {"error": errors[0].get("error_message", "error")}
            continue
        chosen = medians or plain
        if not chosen:
            continue

        def median(field):
            values = [r[field] for r in chosen if field in r]
            return statistics.median(values) if values else None

        results[key] = {field: median(field) for field in
                        ("items_per_second", "results_per_query", "bytes_per_point", "radius", "half_width",
                         "knn5_per_s", "insert_per_s", "move_per_s", "checksum")}
    return data.get("context", {}), results


def si(x):
    if x is None:
        return "—"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return "%.3g%s" % (x / scale, unit)
    return "%.3g" % x


def ratio(results, key_quoct, key_peer):
    q, p = results.get(key_quoct), results.get(key_peer)
    if not q or not p or not q.get("items_per_second") or not p.get("items_per_second"):
        return None
    return q["items_per_second"] / p["items_per_second"]


def fmt_ratio(r):
    return "—" if r is None else "%.2fx" % r


def workload_table(w, results, lines):
    present = [op for op in OPERATIONS if any((op, w, p) in results for p in PEERS)]
    if not present:
        return
    peers = [p for p in PEERS if any((op, w, p) in results for op in present)]
    lines.append("### %s" % w)
    lines.append("")
    header = ["operation"] + ["%s items/s" % p for p in peers] + ["quoct vs %s" % p for p in RIVALS if p in peers]
    header.append("results/query")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for op in present:
        row = [op]
        for p in peers:
            e = results.get((op, w, p))
            row.append("—" if e is None else ("error: " + e["error"]) if "error" in e else si(e["items_per_second"]))
        for p in RIVALS:
            if p in peers:
                row.append(fmt_ratio(ratio(results, (op, w, "quoct"), (op, w, p))))
        counts = {p: results[(op, w, p)].get("results_per_query") for p in peers
                  if (op, w, p) in results and "error" not in results[(op, w, p)]}
        counts = {p: c for p, c in counts.items() if c is not None}
        if op == "build" or not counts:
            row.append("")
        else:
            values = sorted(set(round(c, 6) for c in counts.values()))
            row.append("%g" % values[0] if len(values) == 1 else
                       "DIFFER: " + ", ".join("%s %g" % (p, c) for p, c in counts.items()))
        lines.append("| " + " | ".join(row) + " |")
    mem = ["memory bytes/point"]
    for p in peers:
        e = results.get(("build", w, p))
        mem.append("%.1f" % e["bytes_per_point"] if e and e.get("bytes_per_point") is not None else "—")
    mem += [""] * (len(header) - len(mem))
    lines.append("| " + " | ".join(mem) + " |")
    sizes = []
    for op, field, label in (("radius32", "radius", "r32"), ("radius256", "radius", "r256"),
                             ("box256", "half_width", "box256 half-width")):
        e = results.get((op, w, "quoct"))
        if e and e.get(field) is not None:
            sizes.append("%s = %.6g" % (label, e[field]))
    lines.append("")
    if sizes:
        lines.append("Query sizes (calibrated on this set): " + ", ".join(sizes) + ".")
        lines.append("")


def incremental_table(results, lines):
    """The incremental workload: one row per peer, its phases timed apart."""
    rows = [(p, results.get(INCREMENTAL + (p,))) for p in ("quoct", "nanoflann")]
    rows = [(p, e) for p, e in rows if e]
    if not rows:
        return
    lines.append("### incremental (bunny points in float, inserted in batches of 1%, knn5 after each, "
                 "then 1% moves per step)")
    lines.append("")
    lines.append("| peer | insert points/s | knn5 queries/s | move points/s | bytes/point | checksum |")
    lines.append("|---|---|---|---|---|---|")
    for p, e in rows:
        if "error" in e:
            lines.append("| %s | error: %s |  |  |  |  |" % (p, e["error"]))
            continue
        lines.append("| %s | %s | %s | %s | %.1f | %.9g |" % (p, si(e["insert_per_s"]), si(e["knn5_per_s"]),
                                                            si(e["move_per_s"]), e["bytes_per_point"], e["checksum"]))
    if len(rows) == 2 and all("error" not in e for _, e in rows):
        q, n = rows[0][1], rows[1][1]
        lines.append("| quoct vs nanoflann | %.2fx | %.2fx | %.2fx |  | %s |" % (
            q["insert_per_s"] / n["insert_per_s"], q["knn5_per_s"] / n["knn5_per_s"],
            q["move_per_s"] / n["move_per_s"], "agree" if abs(q["checksum"] - n["checksum"]) <= 1e-9 * abs(n["checksum"]) else "DIFFER"))
    lines.append("")


def targets(results, lines):
    """The bars of issues 3 and 14: quoct against the faster of nanoflann and rtree, and nanoflann."""
    checks = []

    def versus_faster(op, w, bar, label):
        rs = [ratio(results, (op, w, "quoct"), (op, w, p)) for p in RIVALS]
        rs = [r for r in rs if r is not None]
        if rs:
            checks.append((label % w, min(rs), bar))

    for w in WORKLOADS_3D:
        for op in ("radius32", "radius256", "radius32_inorder", "radius256_inorder"):
            versus_faster(op, w, 2.0, op + " on %s vs faster peer")
    for w in WORKLOADS:
        versus_faster("count256", w, 5.0, "count256 on %s vs faster peer")
    for w in WORKLOADS:
        for op in ("knn1", "knn10"):
            r = ratio(results, (op, w, "quoct"), (op, w, "nanoflann"))
            if r is not None:
                checks.append(("%s on %s vs nanoflann" % (op, w), r, 1.3))
    q, n = results.get(INCREMENTAL + ("quoct",)), results.get(INCREMENTAL + ("nanoflann",))
    if q and n and "error" not in q and "error" not in n:
        checks.append(("incremental knn5 vs nanoflann's dynamic adaptor", q["knn5_per_s"] / n["knn5_per_s"], 2.0))
        checks.append(("incremental insert vs nanoflann's dynamic adaptor", q["insert_per_s"] / n["insert_per_s"], 1.0))
    for w in WORKLOADS:
        for peer, bar in (("rtree", 2.0), ("nanoflann", 3.0)):
            r = ratio(results, ("build", w, "quoct"), ("build", w, peer))
            if r is not None:
                checks.append(("build on %s vs %s" % (w, peer), r, bar))
    if not checks and not any(k[0] == "build" for k in results):
        return
    lines.append("### Targets (quoct speed-up; memory in bytes/point)")
    lines.append("")
    lines.append("| target | measured | bar | met |")
    lines.append("|---|---|---|---|")
    for label, value, bar in checks:
        lines.append("| %s | %.2fx | >= %.1fx | %s |" % (label, value, bar, "yes" if value >= bar else "**no**"))
    for w in WORKLOADS_3D:
        e = results.get(("build", w, "quoct"))
        if e and e.get("bytes_per_point") is not None:
            v = e["bytes_per_point"]
            lines.append("| memory on %s | %.1f B/pt | <= 32 B/pt | %s |" % (w, v, "yes" if v <= 32 else "**no**"))
    if q and q.get("bytes_per_point") is not None:
        v = q["bytes_per_point"]
        lines.append("| memory, incremental | %.1f B/pt | <= 40 B/pt | %s |" % (v, "yes" if v <= 40 else "**no**"))
    lines.append("")


def render(context, results):
    lines = ["## quoct benchmarks", ""]
    info = [("date", context.get("date")), ("host", context.get("host_name")),
            ("cpus", context.get("num_cpus")), ("MHz", context.get("mhz_per_cpu")),
            ("benchmark library build", context.get("library_build_type"))]
    info += sorted((k, v) for k, v in context.items() if k.startswith("quoct_"))
    caches = context.get("caches") or []
    if caches:
        info.append(("caches", ", ".join("L%s %s %dK" % (c.get("level"), c.get("type", "")[:1], c.get("size", 0) // 1024)
                                          for c in caches)))
    for k, v in info:
        if v is not None:
            lines.append("- %s: %s" % (k, v))
    lines.append("")
    lines.append("Items/s are queries per second (points per second for build), single thread. "
                 "\"quoct vs X\" is X's time over quoct's: above 1 quoct is faster.")
    lines.append("")
    for w in WORKLOADS:
        workload_table(w, results, lines)
    incremental_table(results, lines)
    targets(results, lines)
    return "\n".join(lines) + "\n"


def main():
    args = parse_args()
    path = args.from_json or run(args)
    context, results = load(path)
    text = render(context, results)
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    errors = [k for k, e in results.items() if "error" in e]
    if errors:
        sys.exit("run_bench.py: %d benchmarks reported errors (see the tables)" % len(errors))


if __name__ == "__main__":
    main()
