#!/usr/bin/env python3
"""Builds the benchmark summary from the step results of one run.

Usage: summary.py RUN_DIR OUT_JSON

RUN_DIR holds `meta.json` and one `<step>.json` per measured step (as printed by measure.py);
a missing step file means the step was skipped (its reason is in meta.json "skipped").
Prints one table and writes every number, ratio and target verdict to OUT_JSON. Rates are events
per second of wall time; "CPU per event" is a step's `cpu_seconds` (user + sys of the client
process alone, see measure.py) divided by its events, in microseconds.
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


def valid(step):
    return bool(step) and step.get("complete") and step.get("exit") in (0, None) and bool(step.get("seconds"))


def rate(step, count):
    return count / step["seconds"] if valid(step) and count else None


def cpu_us(step, count):
    """The step's CPU time (user + sys of the client process, its median run) per event, in µs."""
    if not valid(step) or step.get("cpu_seconds") is None or not count:
        return None
    return step["cpu_seconds"] / count * 1e6


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
    dry_n = meta.get("dry_run_events", n)  # the dry run may use its own (bigger) file
    steps = {k: load(run, k) for k in ["raw_read", "dry_run", "python_peer", "orjson_peer", "e2e", "e2e_gzip", "e2e_big"]}
    raw = rate(steps["raw_read"], meta.get("raw_read_lines", n))
    dry = rate(steps["dry_run"], dry_n)
    peer = rate(steps["python_peer"], n)
    orjson_peer = rate(steps["orjson_peer"], n)
    e2e = rate(steps["e2e"], n)
    e2e_gz = rate(steps["e2e_gzip"], n)
    e2e_big = rate(steps["e2e_big"], big) if big else None
    rss = (steps["e2e"] or {}).get("max_rss_kb")
    rss_big = (steps["e2e_big"] or {}).get("max_rss_kb")
    cpu = {
        "dry_run": cpu_us(steps["dry_run"], dry_n),
        "python_peer": cpu_us(steps["python_peer"], n),
        "orjson_peer": cpu_us(steps["orjson_peer"], n),
        "e2e": cpu_us(steps["e2e"], n),
        "e2e_gzip": cpu_us(steps["e2e_gzip"], n),
        "e2e_big": cpu_us(steps["e2e_big"], big) if big else None,
    }
    # The CPU target compares the Python peer (N events) with mr-replay on the big file, or on the
    # N-event file when there is no big run (--skip-big).
    if big:
        mr_cpu, mr_cpu_events = cpu["e2e_big"], big
    else:
        mr_cpu, mr_cpu_events = cpu["e2e"], n

    def ratio(a, b):
        return a / b if a is not None and b else None

    vs_python = ratio(e2e, peer)
    vs_python_cpu = ratio(cpu["python_peer"], mr_cpu)
    vs_orjson_cpu = ratio(cpu["orjson_peer"], mr_cpu)
    gzip_cost = ratio(steps["e2e_gzip"]["seconds"], steps["e2e"]["seconds"]) if e2e and e2e_gz else None
    rss_ratio = ratio(rss_big, rss)
    checks = {
        "e2e_vs_python_at_least_30x": None if vs_python is None else vs_python >= 30,
        "python_cpu_over_mr_replay_cpu_at_least_60x": None if vs_python_cpu is None else vs_python_cpu >= 60,
        "orjson_cpu_over_mr_replay_cpu_at_least_5x": None if vs_orjson_cpu is None else vs_orjson_cpu >= 5,
        "dry_run_at_least_1M_per_s": None if dry is None else dry >= 1_000_000,
        "peak_rss_1M_at_most_80MB": None if rss_big is None else rss_big <= 80 * 1024,
        "peak_rss_1M_at_most_1.3x_100k": None if rss_ratio is None else rss_ratio <= 1.3,
        "gzip_on_at_most_1.5x_slower": None if gzip_cost is None else gzip_cost <= 1.5,
    }
    us = " µs"
    rows = [  # (metric, value, target, verdict)
        ("raw line read (wc -l)", fmt(raw, " lines/s"), "", None),
        ("mr-replay dry run, %s events" % fmt(dry_n), fmt(dry, " ev/s"), ">= 1,000,000 ev/s", checks["dry_run_at_least_1M_per_s"]),
        ("  dry run CPU per event", fmt(cpu["dry_run"], us), "", None),
        ("python library end-to-end", fmt(peer, " ev/s"), "", None),
        ("python library CPU per event", fmt(cpu["python_peer"], us), "", None),
        ("orjson script end-to-end", fmt(orjson_peer, " ev/s"), "", None),
        ("orjson script CPU per event", fmt(cpu["orjson_peer"], us), "", None),
        ("mr-replay end-to-end (gzip off)", fmt(e2e, " ev/s"), "", None),
        ("  mr-replay CPU per event, gzip off", fmt(cpu["e2e"], us), "", None),
        ("  ratio mr-replay / python", fmt(vs_python, "x"), ">= 30x", checks["e2e_vs_python_at_least_30x"]),
        ("mr-replay end-to-end (gzip on)", fmt(e2e_gz, " ev/s"), "", None),
        ("  mr-replay CPU per event, gzip on", fmt(cpu["e2e_gzip"], us), "", None),
        ("  time gzip on / gzip off", fmt(gzip_cost, "x"), "<= 1.5x", checks["gzip_on_at_most_1.5x_slower"]),
        ("mr-replay end-to-end, %s events" % fmt(big), fmt(e2e_big, " ev/s"), "", None),
        ("mr-replay CPU per event, end to end", fmt(mr_cpu, us), "", None),
        ("  ratio python CPU / mr-replay CPU", fmt(vs_python_cpu, "x"), ">= 60x",
         checks["python_cpu_over_mr_replay_cpu_at_least_60x"]),
        ("  ratio orjson CPU / mr-replay CPU", fmt(vs_orjson_cpu, "x"), ">= 5x",
         checks["orjson_cpu_over_mr_replay_cpu_at_least_5x"]),
        ("peak RSS, %s events" % fmt(n), fmt(rss / 1024 if rss else None, " MB"), "", None),
        ("peak RSS, %s events" % fmt(big), fmt(rss_big / 1024 if rss_big else None, " MB"), "<= 80 MB",
         checks["peak_rss_1M_at_most_80MB"]),
        ("  RSS ratio big / small", fmt(rss_ratio, "x"), "<= 1.3x", checks["peak_rss_1M_at_most_1.3x_100k"]),
    ]
    verdict = {True: "ok", False: "MISSED", None: "n/a"}
    line = "%-40s %22s  %-18s %s"
    print()
    print("mr-replay benchmark: %s events (collector: %s)" % (fmt(n), meta.get("collector", "?")))
    print("CPU = user + sys of the client process alone (median run), per event")
    print((line % ("metric", "value", "target", "")).rstrip())
    print("-" * 90)
    for name, value, target, mark in rows:
        print((line % (name, value, target, verdict[mark] if target else "")).rstrip())
    if not big:
        print("mr-replay CPU per event, end to end: the %s-event run (no big run)" % fmt(n))
    for reason in meta.get("skipped", []):
        print("skipped: " + reason)
    result = {
        "meta": meta, "steps": steps,
        "rates": {"raw_read_lines_per_s": raw, "dry_run_events_per_s": dry, "python_peer_events_per_s": peer,
                  "orjson_peer_events_per_s": orjson_peer,
                  "e2e_events_per_s": e2e, "e2e_gzip_events_per_s": e2e_gz, "e2e_big_events_per_s": e2e_big},
        "cpu_us_per_event": dict(cpu, mr_replay_end_to_end=mr_cpu, mr_replay_end_to_end_events=mr_cpu_events),
        "ratios": {"e2e_vs_python": vs_python, "python_cpu_over_mr_replay_cpu": vs_python_cpu,
                   "orjson_cpu_over_mr_replay_cpu": vs_orjson_cpu,
                   "gzip_on_over_off_time": gzip_cost, "rss_big_over_small": rss_ratio},
        "peak_rss_kb": {"small": rss, "big": rss_big},
        "targets": checks,
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print("\nwritten: " + out)


if __name__ == "__main__":
    main()
