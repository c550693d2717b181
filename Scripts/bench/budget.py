#!/usr/bin/env python3
"""One destination budget: N partitioned shards at once against a collector that allows R events/s.

Usage: budget.py [--events N] [--shards S] [--rate R] [--quota Q] [--mix uniform|realistic]
                 [--replay BIN] [--collector BIN] [--out DIR]

Partitions N events (Scripts/bench/gen_events.py, in 8 files) into S shards, starts `mr-collector
--max-events-per-second R` (a quota: 429 with Retry-After: 1 over it) and runs the S shards
(`run --partitions DIR --shard K/S`) at the same time, each with rate_limit.events_per_second: R,
the whole quota (each shard takes its share of it from the partition). With --quota Q below R
(a config that promises more than the destination allows), the collector allows only Q: the
shards then meet its 429s and Retry-After, and back off. Samples the collector's
accepted events every 0.25 s. Prints, and writes to DIR/budget.json:
- the collector's accepted rate: over the whole time every shard was sending, and the highest
  over any 1-second window, against R (the target: at most R + 5 %);
- the 429s the collector answered;
- each shard's events, seconds and rate against its share of R (no shard starves: each one's rate
  is at least half its share).
Exit status 1 when a target is missed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--rate", type=int, default=20_000)
    ap.add_argument("--quota", type=int)
    ap.add_argument("--mix", default="realistic")
    ap.add_argument("--replay", default=os.path.join(ROOT, ".build/release/mr-replay"))
    ap.add_argument("--collector", default=os.path.join(ROOT, ".build/release/mr-collector"))
    ap.add_argument("--out")
    args = ap.parse_args()
    args.quota = args.quota or args.rate
    out = args.out or tempfile.mkdtemp(prefix="mr-budget.")
    os.makedirs(os.path.join(out, "in"), exist_ok=True)
    for stale in ("state", "parts"):  # a fresh partition and fresh shards each time
        subprocess.call(["rm", "-rf", os.path.join(out, stale)])
    per = args.events // 8
    for f in range(8):
        path = os.path.join(out, "in", f"part-{f}.ndjson")
        if not os.path.exists(path):
            subprocess.check_call([sys.executable, os.path.join(ROOT, "Scripts/bench/gen_events.py"), str(per), path,
                                   "--seed", str(47 + f), "--mix", args.mix])
    log = open(os.path.join(out, "collector.out"), "w")
    collector = subprocess.Popen([args.collector, "--port", "0", "--write-key", "K", "--max-events-per-second", str(args.quota)],
                                 stdout=log, stderr=subprocess.STDOUT)
    try:
        url = None
        for _ in range(100):
            m = re.search(r"listening on (http://\S+)", open(os.path.join(out, "collector.out")).read())
            if m:
                url = m.group(1)
                break
            time.sleep(0.05)
        config = os.path.join(out, "budget.yaml")
        open(config, "w").write(f"ingestion:\n  host: {url}\n  write_key: K\nbatching:\n  max_events: 100\n  concurrency: 4\n"
                                f"rate_limit:\n  events_per_second: {args.rate}\nretry:\n  max_attempts: 100\n"
                                f"state_dir: {out}/state\n")
        parts = os.path.join(out, "parts")
        for w in range(2):
            subprocess.check_call([args.replay, "partition", "--config", config, "--shards", str(args.shards), "--worker",
                                   f"{w}/2", "--output", parts, os.path.join(out, "in")], stderr=subprocess.DEVNULL)
        samples = []
        started = time.time()
        shards = [subprocess.Popen([args.replay, "run", "--config", config, "--quiet", "--partitions", parts, "--shard",
                                    f"{k}/{args.shards}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                  for k in range(args.shards)]
        ended = {}
        while len(ended) < len(shards):
            stats = json.load(urllib.request.urlopen(f"{url}/stats"))
            samples.append((time.time() - started, stats["events"], stats["responses"].get("429", 0)))
            for k, p in enumerate(shards):
                if k not in ended and p.poll() is not None:
                    ended[k] = time.time() - started
            time.sleep(0.25)
        return report(args, out, samples, ended, json.load(urllib.request.urlopen(f"{url}/stats")))
    finally:
        collector.kill()


def report(args, out, samples, ended, stats):
    first_end = min(ended.values())
    # The accepted rate while every shard was sending (the first quarter second left out).
    window = [s for s in samples if 0.25 <= s[0] <= first_end]
    together = (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0]) if len(window) > 1 else 0
    # The highest rate over any second after the first (the collector's bucket starts full: a
    # second's worth at once, then its rate).
    peak = 0.0
    for i, (t, n, _) in enumerate(samples):
        if t < 1.0:
            continue
        later = [s for s in samples[i:] if s[0] >= t + 1.0]
        if later:
            peak = max(peak, (later[0][1] - n) / (later[0][0] - t))
    shard_reports = []
    for k in range(args.shards):
        r = json.load(open(os.path.join(out, "state", f"partition-shard-{k}-of-{args.shards}", "report.json")))
        share = args.quota * r["events"]["delivered"] / max(1, stats["events"])
        rate = r["events"]["delivered"] / max(0.001, r["duration_seconds"])
        shard_reports.append({"shard": k, "delivered": r["events"]["delivered"], "seconds": round(r["duration_seconds"], 2),
                              "rate": round(rate), "share": round(share), "status": r["status"]})
    result = {"rate": args.rate, "quota": args.quota, "shards": args.shards, "events": stats["events"], "rate_while_all_sent": round(together),
              "peak_one_second": round(peak), "responses_429": stats["responses"].get("429", 0), "shard_reports": shard_reports}
    json.dump(result, open(os.path.join(out, "budget.json"), "w"), indent=1)
    print(f"budget: {args.shards} shards configured for {args.rate:,} events/s against a collector allowing {args.quota:,}; "
          f"{stats['events']:,} events accepted")
    print(f"budget: accepted {together:,.0f}/s while every shard sent ({together / args.quota:.3f} of the quota), "
          f"highest 1-second window {peak:,.0f}/s ({peak / args.quota:.3f}); {result['responses_429']} answers 429")
    for s in shard_reports:
        print(f"budget: shard {s['shard']}: {s['delivered']:,} events in {s['seconds']} s = {s['rate']:,}/s "
              f"(its share {s['share']:,}/s), {s['status']}")
    starved = [s for s in shard_reports if s["rate"] < s["share"] / 2]
    ok = together <= args.quota * 1.05 and peak <= args.quota * 1.05 and not starved
    print(f"budget: {'met' if ok else 'MISSED'} (sum <= R + 5 %, every shard at least half its share); output in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
