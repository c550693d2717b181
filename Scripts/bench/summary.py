#!/usr/bin/env python3
"""Builds the benchmark summary from the step results of one run.

Usage: summary.py RUN_DIR OUT_JSON

RUN_DIR holds `meta.json` and one `<step>.json` per measured step (as printed by measure.py);
a missing step file means the step was skipped (its reason is in meta.json "skipped").
Prints one table and writes every number, ratio and target verdict to OUT_JSON.
"""
import json
import os
import sys


def load(run, name):
    path = os.path.join(run, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read().strip()
    return json.loads(text.splitlines()[-1]) if text else None


def rate(step, count):
    if not step or not step.get("complete") or step.get("exit") not in (0, None) or not step["seconds"]:
        return None
    return count / step["seconds"]


def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, float) and v < 100:
        return "%.2f%s" % (v, unit)
    return "{:,.0f}{}".format(v, unit)


def main():
    run, out = sys.argv[1], sys.argv[2]
    with open(os.path.join(run, "meta.json")) as f:
        meta = json.load(f)
    n, big = meta["events"], meta.get("big_events")
    steps = {k: load(run, k) for k in ["raw_read", "dry_run", "python_peer", "e2e", "e2e_gzip", "e2e_big"]}
    raw = rate(steps["raw_read"], meta.get("raw_read_lines", n))
    dry = rate(steps["dry_run"], n)
    peer = rate(steps["python_peer"], n)
    e2e = rate(steps["e2e"], n)
    e2e_gz = rate(steps["e2e_gzip"], n)
    e2e_big = rate(steps["e2e_big"], big) if big else None
    rss = (steps["e2e"] or {}).get("max_rss_kb")
    rss_big = (steps["e2e_big"] or {}).get("max_rss_kb")

    def ratio(a, b):
        return a / b if a is not None and b else None

    vs_python = ratio(e2e, peer)
    gzip_cost = ratio(steps["e2e_gzip"]["seconds"], steps["e2e"]["seconds"]) if e2e and e2e_gz else None
    rss_ratio = ratio(rss_big, rss)
    dry_target = None if dry is None else (dry >= 1_000_000 or (raw is not None and dry >= raw / 4))
    checks = {
        "e2e_vs_python_at_least_30x": None if vs_python is None else vs_python >= 30,
        "dry_run_1M_per_s_or_quarter_of_raw_read": dry_target,
        "peak_rss_1M_at_most_80MB": None if rss_big is None else rss_big <= 80 * 1024,
        "peak_rss_1M_at_most_1.3x_100k": None if rss_ratio is None else rss_ratio <= 1.3,
        "gzip_on_at_most_1.5x_slower": None if gzip_cost is None else gzip_cost <= 1.5,
    }
    rows = [
        ("raw line read (wc -l)", fmt(raw, " lines/s"), ""),
        ("mr-replay dry run", fmt(dry, " ev/s"), ">= 1,000,000 ev/s or >= raw/4"),
        ("python library end-to-end", fmt(peer, " ev/s"), ""),
        ("mr-replay end-to-end (gzip off)", fmt(e2e, " ev/s"), ""),
        ("  ratio mr-replay / python", fmt(vs_python, "x"), ">= 30x"),
        ("mr-replay end-to-end (gzip on)", fmt(e2e_gz, " ev/s"), ""),
        ("  time gzip on / gzip off", fmt(gzip_cost, "x"), "<= 1.5x"),
        ("mr-replay end-to-end, %s events" % fmt(big), fmt(e2e_big, " ev/s"), ""),
        ("peak RSS, %s events" % fmt(n), fmt(rss / 1024 if rss else None, " MB"), ""),
        ("peak RSS, %s events" % fmt(big), fmt(rss_big / 1024 if rss_big else None, " MB"), "<= 80 MB"),
        ("  RSS ratio big / small", fmt(rss_ratio, "x"), "<= 1.3x"),
    ]
    verdict = {True: "ok", False: "MISSED", None: "n/a"}
    marks = [None, dry_target, None, None, checks["e2e_vs_python_at_least_30x"], None,
             checks["gzip_on_at_most_1.5x_slower"], None, None, checks["peak_rss_1M_at_most_80MB"],
             checks["peak_rss_1M_at_most_1.3x_100k"]]
    print()
    print("mr-replay benchmark: %s events (collector: %s)" % (fmt(n), meta.get("collector", "?")))
    print("%-36s %22s  %-30s %s" % ("metric", "value", "target", ""))
    print("-" * 96)
    for (name, value, target), mark in zip(rows, marks):
        print("%-36s %22s  %-30s %s" % (name, value, target, verdict[mark] if target else ""))
    for reason in meta.get("skipped", []):
        print("skipped: " + reason)
    result = {
        "meta": meta, "steps": steps,
        "rates": {"raw_read_lines_per_s": raw, "dry_run_events_per_s": dry, "python_peer_events_per_s": peer,
                  "e2e_events_per_s": e2e, "e2e_gzip_events_per_s": e2e_gz, "e2e_big_events_per_s": e2e_big},
        "ratios": {"e2e_vs_python": vs_python, "gzip_on_over_off_time": gzip_cost, "rss_big_over_small": rss_ratio},
        "peak_rss_kb": {"small": rss, "big": rss_big},
        "targets": checks,
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print("\nwritten: " + out)


if __name__ == "__main__":
    main()
