#!/usr/bin/env python3
"""Times one benchmark step and prints the result as one JSON line.

Usage: measure.py [--stats URL --expect N] [--rss] [--repeat R] [--best] [--timeout S] [--clean DIR]
                  [--log FILE] -- CMD...

The command runs --repeat times (default 1) and the run with the median time is reported (or the
fastest with --best), with every run's time in "runs" and the median peak RSS of the runs.
Without --stats the time is the command's wall time (launch to exit). With --stats the
clock runs from launching the command until the collector's GET /stats reports `events` grown
by N over its value before the launch (end-to-end delivery), polling every 20 ms; it gives up
at --timeout, or 5 s after the command exited without the count moving. --rss wraps the command
in /usr/bin/time -v and reports its peak resident set size in KiB. --clean DIR removes DIR
before each run (outside the measurement).

CPU: every run also reports the command's own CPU time, user + system, in "cpu_seconds" (the
reported run's; every run's in "cpu_runs"). It is the resource usage that wait4() returns for
the child when it is reaped: the process and all its threads, plus any descendants it waited
for, and nothing else (not the collector, not this script). With --rss the child is
/usr/bin/time, whose usage includes the command it waited for plus its own ~2 ms; its own
report of the command's user and system time (each truncated to 10 ms) is kept in "cpu_seconds_time_v"
as a cross-check.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
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


class Child:
    """A launched command, reaped with wait4() so that its resource usage is kept."""

    def __init__(self, cmd, out):
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=out)
        self.status = None  # exit code (negative: killed by that signal) once reaped
        self.rusage = None
        self.killed = False

    def _reaped(self, status, rusage):
        self.status = os.waitstatus_to_exitcode(status)
        self.rusage = rusage
        self.proc.returncode = self.status  # so that Popen never waits for it again

    def poll(self):
        """True once the child has exited (reaping it), without blocking."""
        if self.status is None:
            pid, status, rusage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid == self.proc.pid:
                self._reaped(status, rusage)
        return self.status is not None

    def wait(self, timeout):
        """Blocks until the child exits (reaping it at once: the wall time is exact); kills it after
        `timeout` seconds. Returns False when it had to be killed."""
        if self.status is None:
            timer = threading.Timer(max(0.0, timeout), self._kill)
            timer.start()
            try:
                while True:
                    try:
                        pid, status, rusage = os.wait4(self.proc.pid, 0)
                        break
                    except InterruptedError:
                        continue
            finally:
                timer.cancel()
            self._reaped(status, rusage)
        return not self.killed

    def _kill(self):
        self.killed = True
        try:
            os.kill(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def cpu_seconds(self):
        return None if self.rusage is None else round(self.rusage.ru_utime + self.rusage.ru_stime, 6)


def time_v(path):
    """Peak RSS (KiB) and user + system seconds from a /usr/bin/time -v output file."""
    with open(path) as f:
        text = f.read()
    def field(name):
        m = re.search(re.escape(name) + r": ([\d.]+)", text)
        return float(m.group(1)) if m else None
    rss, user, system = field("Maximum resident set size (kbytes)"), field("User time (seconds)"), field("System time (seconds)")
    cpu = round(user + system, 2) if user is not None and system is not None else None
    return (int(rss) if rss is not None else None), cpu


def run_once(args, cmd):
    if args.clean:
        shutil.rmtree(args.clean, ignore_errors=True)
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
    child = Child(cmd, log)
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
            if exited_at is None and child.poll():
                exited_at = now
            if now > deadline or (exited_at is not None and now - max(exited_at, last_change) > 5):
                end, result["complete"] = now, False
                break
            time.sleep(0.02)
        result["events"] = last - base
        child.wait(max(1, args.timeout - (time.monotonic() - start)))
    else:
        if not child.wait(args.timeout):
            result["complete"] = False
        end = time.monotonic()
    result["exit"] = child.status
    result["seconds"] = round(end - start, 4)
    result["cpu_seconds"] = child.cpu_seconds()
    if child.rusage is not None:
        result["cpu_user_seconds"] = round(child.rusage.ru_utime, 6)
        result["cpu_sys_seconds"] = round(child.rusage.ru_stime, 6)
    if timefile:
        result["max_rss_kb"], result["cpu_seconds_time_v"] = time_v(timefile)
        os.unlink(timefile)
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
    ap.add_argument("--clean", help="a directory removed before each run (not measured)")
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
    chosen["cpu_runs"] = [r.get("cpu_seconds") for r in runs]
    rss = sorted(r["max_rss_kb"] for r in runs if r.get("max_rss_kb"))
    if rss:
        chosen["max_rss_kb"] = rss[(len(rss) - 1) // 2]
        chosen["rss_runs_kb"] = [r.get("max_rss_kb") for r in runs]
    chosen["complete"] = all(r.get("complete", True) for r in runs)
    print(json.dumps(chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
