#!/usr/bin/env python3
"""Times one benchmark step and prints the result as one JSON line.

Usage: measure.py [--stats URL --expect N] [--rss] [--repeat R] [--timeout S] [--log FILE] -- CMD...

The command runs --repeat times (default 1) and the run with the median time is reported (or the
fastest with --best), with every run's time in "runs" and the median peak RSS of the runs.
Without --stats the time is the command's wall time. With --stats the
clock runs from launching the command until the collector's GET /stats reports `events` grown
by N over its value before the launch (end-to-end delivery), polling every 20 ms; it gives up
at --timeout, or 5 s after the command exited without the count moving. --rss wraps the command
in /usr/bin/time -v and reports its peak resident set size in KiB.
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


def stats(url):
    """The collector's /stats, or None when it does not answer."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/stats", timeout=5) as r:
            return json.loads(r.read())
    except (OSError, ValueError):
        return None


def events(url):
    s = stats(url)
    return s.get("events") if isinstance(s, dict) else None


def run_once(args, cmd):
    log = open(args.log, "ab") if args.log else subprocess.DEVNULL
    timefile = None
    if args.rss:
        fd, timefile = tempfile.mkstemp(prefix="bench-time-")
        os.close(fd)
        cmd = ["/usr/bin/time", "-v", "-o", timefile] + cmd
    base = events(args.stats) if args.stats else 0
    if base is None:
        print(json.dumps({"exit": None, "complete": False, "seconds": None, "error": "collector /stats unreachable"}))
        sys.exit(1)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=log, stderr=log)
    result = {"exit": None, "complete": True, "events": None, "max_rss_kb": None}
    if args.stats:
        deadline = start + args.timeout
        last, last_change, exited_at = base, start, None
        while True:
            now = time.monotonic()
            count = events(args.stats)
            if count is not None and count != last:
                last, last_change = count, now
            if count is not None and count - base >= args.expect:
                end = now
                break
            if proc.poll() is not None and exited_at is None:
                exited_at = now
            if now > deadline or (exited_at is not None and now - max(exited_at, last_change) > 5):
                end, result["complete"] = now, False
                break
            time.sleep(0.02)
        result["events"] = last - base
        try:
            proc.wait(timeout=max(1, args.timeout - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    else:
        try:
            proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            result["complete"] = False
        end = time.monotonic()
    result["exit"] = proc.returncode
    result["seconds"] = round(end - start, 4)
    if timefile:
        with open(timefile) as f:
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
        os.unlink(timefile)
        result["max_rss_kb"] = int(m.group(1)) if m else None
    if args.log:
        log.close()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--stats")
    ap.add_argument("--expect", type=int, default=0)
    ap.add_argument("--rss", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--best", action="store_true", help="report the fastest run instead of the median one")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--log")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("no command")
    runs = [run_once(args, cmd) for _ in range(max(1, min(args.repeat, 10)))]
    ordered = sorted(runs, key=lambda r: r["seconds"])
    chosen = dict(ordered[0] if args.best else ordered[(len(ordered) - 1) // 2])
    chosen["runs"] = [r["seconds"] for r in runs]
    rss = sorted(r["max_rss_kb"] for r in runs if r.get("max_rss_kb"))
    if rss:
        chosen["max_rss_kb"] = rss[(len(rss) - 1) // 2]
        chosen["rss_runs_kb"] = [r.get("max_rss_kb") for r in runs]
    chosen["complete"] = all(r.get("complete", True) for r in runs)
    print(json.dumps(chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
