#!/usr/bin/env python3
"""Checks a soak run's output folder (written by Scripts/soak/soak.sh) and prints its figures.

Usage: check.py OUT_DIR [--signal TERM|KILL]

Checks, each printed as PASS or FAIL (exit 1 if any fails):
- the last run finished (exit 0);
- exactly once: every event the input holds is in the collector's store, and with --signal TERM
  no messageId is there twice (with KILL, duplicates are counted, not failed: kill -9 may lose
  the answer to a request in flight, and the re-run sends it again with the same messageId);
- every report adds up (read = delivered + dead_lettered + filtered + expired + consent_dropped +
  already_delivered + pending), and the delivered counts of the runs add up to the store;
- no growth between minute 2 and the end: mr-replay's peak RSS (per run) and its open file
  descriptors, and the collector's file descriptors.
"""
import argparse
import collections
import json
import os
import statistics
import sys

RSS_SLACK_KB = 4096
RSS_SLACK_RATIO = 1.10
FD_SLACK = 2


def load_samples(out):
    samples = collections.defaultdict(list)  # (who, segment) -> [(elapsed, rss_kb, fds)]
    with open(os.path.join(out, "samples.txt")) as f:
        for line in f:
            who, segment, elapsed, rss, fds = line.split()
            samples[(who, int(segment))].append((int(elapsed), int(rss), int(fds)))
    return samples


def load_segments(out):
    with open(os.path.join(out, "segments.txt")) as f:
        return [tuple(int(x) for x in line.split()) for line in f if line.strip()]


def store_counts(out):
    counts = collections.Counter()
    with open(os.path.join(out, "store.ndjson"), "rb") as f:
        for line in f:
            counts[json.loads(line)["messageId"]] += 1
    return counts


def input_facts(out):
    lines, ids = 0, set()
    with open(os.path.join(out, "events.ndjson"), "rb") as f:
        for line in f:
            if line.strip():
                lines += 1
                mid = json.loads(line).get("messageId")
                if mid:
                    ids.add(mid)
    return lines, ids


def dead_letters(out):
    state = os.path.join(out, "state")
    total = 0
    for name in os.listdir(state) if os.path.isdir(state) else []:
        if name.startswith("dead-letter") and name.endswith(".ndjson") and not name.startswith("dry-run"):
            with open(os.path.join(state, name), "rb") as f:
                total += sum(1 for line in f if line.strip())
    return total


def report_adds_up(report):
    e = report["events"]
    settled = (e["delivered"] + e["dead_lettered"] + e["filtered"] + e["expired"] + e["consent_dropped"]
               + e["already_delivered"] + e["pending"])
    return e["read"] == settled, e


def minute_window(values_by_segment, first_segment):
    """Median of the first three and of the last three per-segment values from first_segment on."""
    keys = sorted(k for k in values_by_segment if k >= first_segment)
    if len(keys) < 2:
        return None
    head = [values_by_segment[k] for k in keys[:3]]
    tail = [values_by_segment[k] for k in keys[-3:]]
    return statistics.median(head), statistics.median(tail)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--signal", default="TERM", choices=["TERM", "KILL"])
    args = parser.parse_args()
    out = args.out
    results = []

    def check(name, ok, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")

    segments = load_segments(out)
    samples = load_samples(out)
    counts = store_counts(out)
    lines, input_ids = input_facts(out)
    dead = dead_letters(out)
    unique = len(counts)
    duplicates = sum(c - 1 for c in counts.values())
    exits = collections.Counter(code for _, code, _ in segments)

    check("last run finished", bool(segments) and segments[-1][1] == 0,
          f"{len(segments)} runs, exit codes {dict(exits)}")
    missing = len(input_ids - counts.keys())
    check("every event arrived", missing == 0 and unique + dead == lines,
          f"{lines} input events, {unique} distinct messageIds stored, {dead} dead-lettered, "
          f"{missing} input messageIds missing")
    if args.signal == "TERM":
        check("no event arrived twice", duplicates == 0, f"{duplicates} duplicate deliveries")
    else:
        print(f"INFO  duplicates after kill -9: {duplicates} ({duplicates / max(unique, 1):.4%} of events)")

    delivered_sum, reports, wrong = 0, 0, []
    for segment, code, _ in segments:
        path = os.path.join(out, f"report-{segment}.json")
        if code in (0, 75) and os.path.exists(path):
            with open(path) as f:
                ok, e = report_adds_up(json.load(f))
            reports += 1
            delivered_sum += e["delivered"]
            if not ok:
                wrong.append(f"run {segment}: {json.dumps(e)}")
    check("every report adds up", reports > 0 and not wrong,
          f"{reports} reports, read = delivered + dead_lettered + filtered + expired + consent_dropped"
          f" + already_delivered + pending" + ("; " + "; ".join(wrong) if wrong else ""))
    if args.signal == "TERM":
        check("delivered counts match the store", delivered_sum == unique + duplicates,
              f"{delivered_sum} delivered by the reports, {unique + duplicates} events stored")

    peak_rss = {s: max(r for _, r, _ in v) for (who, s), v in samples.items() if who == "replay"}
    max_fds = {s: max(n for _, _, n in v) for (who, s), v in samples.items() if who == "replay"}
    coll_fds = {s: max(n for _, _, n in v) for (who, s), v in samples.items() if who == "collector"}
    coll_rss = {s: max(r for _, r, _ in v) for (who, s), v in samples.items() if who == "collector"}
    rss = minute_window(peak_rss, 2)
    if rss:
        head, tail = rss
        check("mr-replay memory did not grow", tail <= head * RSS_SLACK_RATIO + RSS_SLACK_KB,
              f"peak RSS {head / 1024:.1f} MB (runs 2-4) -> {tail / 1024:.1f} MB (last 3 runs)")
    fds = minute_window(max_fds, 2)
    if fds:
        check("mr-replay file descriptors did not grow", fds[1] <= fds[0] + FD_SLACK,
              f"{fds[0]:.0f} -> {fds[1]:.0f} open")
    cfds = minute_window(coll_fds, 2)
    if cfds:
        check("collector file descriptors did not grow", cfds[1] <= cfds[0] + FD_SLACK,
              f"{cfds[0]:.0f} -> {cfds[1]:.0f} open")
    crss = minute_window(coll_rss, 2)
    if crss:
        print(f"INFO  collector RSS {crss[0] / 1024:.1f} -> {crss[1] / 1024:.1f} MB "
              "(it keeps every messageId it has seen, for its duplicate count)")
    stats_path = os.path.join(out, "collector-stats.json")
    if os.path.exists(stats_path) and os.path.getsize(stats_path) > 0:
        with open(stats_path) as f:
            stats = json.load(f)
        print(f"INFO  collector: {stats.get('requests')} requests, responses {stats.get('responses')}, "
              f"{stats.get('resets', 0)} resets")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
