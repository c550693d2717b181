#!/usr/bin/env python3
"""The kill -9 test: a run killed at random moments, then run to the end, against one
uninterrupted run of the same inputs. Not timed; it counts.

Usage:
  kill9.py [--events N] [--kills K] [--rate R] [--inputs plain,gzip,s3] [--delay MIN MAX]
           [--fail-rate F] [--throttle-rate T] [--retry-after S] [--concurrency C]
           [--max-events B] [--seed N] [--replay BIN] [--collector BIN] [--out DIR]

The N events (Scripts/bench/gen_events.py) are split evenly over the inputs: a plain NDJSON file,
a gzip file, and an object in a loopback S3 server (moto, started here; Scripts/s3/python.sh
finds or makes its Python). Two collectors (`mr-collector --store`) take them: the reference
one, without faults, gets one uninterrupted run; the crash one answers with the faults
(--fail-rate of 503s, --throttle-rate of 429s with Retry-After: --retry-after) and gets runs that
are killed with SIGKILL after a random delay in [MIN, MAX] seconds (seeded), K times, then a run
that is left to end. The runs send at --rate events/s (rate_limit.events_per_second).

Prints, and writes to DIR/kill9.json:
- kills that landed (a run that ended before its kill is not counted);
- events lost (in the reference store, not in the crash store);
- events that differ from the reference (any field but sentAt);
- events sent twice or more (copies beyond the first), against the bound kills x C x B;
- the acknowledgment log's bytes per event, when the state directory has one.
Exit status 1 when an event was lost or differs, or the duplicates pass the bound; else 0.
"""
import argparse
import collections
import gzip
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_collector(binary, out, name, faults):
    store = os.path.join(out, f"{name}.ndjson")
    log = open(os.path.join(out, f"{name}.out"), "w")
    args = [binary, "--port", "0", "--write-key", "crash-key", "--store", store] + faults
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(os.path.join(out, f"{name}.out")) as f:
            m = re.search(r"listening on (http://\S+)", f.read())
        if m:
            return p, m.group(1), store
        time.sleep(0.05)
    p.kill()
    sys.exit(f"kill9.py: the {name} collector did not start")


def start_s3(out):
    python = subprocess.check_output(["bash", os.path.join(ROOT, "Scripts/s3/python.sh")], text=True).strip()
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = open(os.path.join(out, "moto.log"), "w")
    p = subprocess.Popen([python, os.path.join(ROOT, "Scripts/s3/moto_server.py"), "-H", "127.0.0.1", "-p", str(port)],
                         stdout=log, stderr=subprocess.STDOUT)
    subprocess.check_call([python, os.path.join(ROOT, "Scripts/s3/moto_objects.py"), endpoint, "wait"])
    return p, python, endpoint


def write_inputs(args, out):
    """Writes the events and returns (run arguments, paths of the local files, s3 spec)."""
    kinds = args.inputs.split(",")
    events = os.path.join(out, "events.ndjson")
    subprocess.check_call([sys.executable, os.path.join(ROOT, "Scripts/bench/gen_events.py"), str(args.events), events,
                           "--seed", str(args.seed)])
    with open(events, "rb") as f:
        lines = f.readlines()
    per = (len(lines) + len(kinds) - 1) // len(kinds)
    inputs, s3_objects = [], {}
    for i, kind in enumerate(kinds):
        part = b"".join(lines[i * per:(i + 1) * per])
        if kind == "plain":
            path = os.path.join(out, "in", "plain.ndjson")
        else:
            path = os.path.join(out, "in", f"{kind}.ndjson.gz")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind == "plain":
            open(path, "wb").write(part)
            inputs.append(path)
        else:
            with gzip.open(path, "wb", compresslevel=6) as g:
                g.write(part)
            if kind == "gzip":
                inputs.append(path)
            else:
                s3_objects["crash/part.ndjson.gz"] = path
                inputs.append("s3://crash-events/crash/")
    return inputs, s3_objects


def config(path, url, state, args, s3_endpoint):
    s3 = ""
    if s3_endpoint:
        s3 = f"""inputs:
  s3:
    endpoint: {s3_endpoint}
    region: us-east-1
    addressing_style: path
"""
    open(path, "w").write(f"""ingestion:
  host: {url}
  write_key: crash-key
  timeout_seconds: 5
batching:
  max_events: {args.max_events}
  concurrency: {args.concurrency}
rate_limit:
  events_per_second: {args.rate}
retry:
  max_attempts: 50
  min_wait_ms: 100
state_dir: {state}
{s3}""")


def load_store(path):
    """messageId -> (copies, the first copy without sentAt)."""
    copies = collections.Counter()
    first = {}
    with open(path, "rb") as f:
        for line in f:
            event = json.loads(line)
            mid = event.get("messageId")
            copies[mid] += 1
            if mid not in first:
                event.pop("sentAt", None)
                first[mid] = event
    return copies, first


def ack_log_bytes(state):
    """Bytes the runs wrote to the acknowledgment log, from their reports (0 when none says)."""
    total = 0
    reports = os.path.join(state, "reports")
    if not os.path.isdir(reports):
        return 0
    for name in os.listdir(reports):
        try:
            report = json.load(open(os.path.join(reports, name)))
        except (OSError, ValueError):
            continue
        total += report.get("acknowledgments", {}).get("bytes_written", 0)
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=120_000)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--rate", type=int, default=40_000)
    ap.add_argument("--inputs", default="plain,gzip")
    ap.add_argument("--delay", type=float, nargs=2, default=(0.4, 2.2))
    ap.add_argument("--fail-rate", type=float, default=0.0)
    ap.add_argument("--throttle-rate", type=float, default=0.0)
    ap.add_argument("--retry-after", type=int, default=1)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--max-events", type=int, default=100)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--replay", default=os.path.join(ROOT, ".build/release/mr-replay"))
    ap.add_argument("--collector", default=os.path.join(ROOT, ".build/release/mr-collector"))
    ap.add_argument("--out")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="mr-kill9.")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(args.seed)
    procs = []
    try:
        inputs, s3_objects = write_inputs(args, out)
        s3_endpoint = None
        if s3_objects:
            moto, python, s3_endpoint = start_s3(out)
            procs.append(moto)
            spec = json.dumps({"bucket": "crash-events", "objects": s3_objects})
            subprocess.run([python, os.path.join(ROOT, "Scripts/s3/moto_objects.py"), s3_endpoint, "put"], input=spec,
                           text=True, check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, AWS_ACCESS_KEY_ID="crash", AWS_SECRET_ACCESS_KEY="crash")

        ref, ref_url, ref_store = start_collector(args.collector, out, "reference", [])
        procs.append(ref)
        config(os.path.join(out, "reference.yaml"), ref_url, os.path.join(out, "reference-state"), args, s3_endpoint)
        status = subprocess.call([args.replay, "run", "--config", os.path.join(out, "reference.yaml"), "--quiet"] + inputs,
                                 env=env)
        if status != 0:
            sys.exit(f"kill9.py: the uninterrupted run exited {status}")

        faults = ["--fail-rate", str(args.fail_rate), "--fail-status", "503", "--throttle-rate", str(args.throttle_rate),
                  "--retry-after", str(args.retry_after), "--seed", str(args.seed)]
        crash, crash_url, crash_store = start_collector(args.collector, out, "crash", faults)
        procs.append(crash)
        crash_yaml = os.path.join(out, "crash.yaml")
        config(crash_yaml, crash_url, os.path.join(out, "crash-state"), args, s3_endpoint)
        run = [args.replay, "run", "--config", crash_yaml, "--quiet"] + inputs
        kills, attempts, delays = 0, 0, []
        while kills < args.kills and attempts < args.kills * 3:
            attempts += 1
            delay = rng.uniform(*args.delay)
            p = subprocess.Popen(run, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                p.wait(timeout=delay)
                break  # it ended before the kill: the run is complete
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                kills += 1
                delays.append(round(delay, 2))
        final = subprocess.call(run, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        expected_copies, expected = load_store(ref_store)
        got_copies, got = load_store(crash_store)
        lost = [m for m in expected if m not in got]
        extra = [m for m in got if m not in expected]
        differ = [m for m in expected if m in got and got[m] != expected[m]]
        twice = sum(c - 1 for c in got_copies.values())
        bound = kills * args.concurrency * args.max_events
        ack_bytes = ack_log_bytes(os.path.join(out, "crash-state"))
        result = {
            "events": len(expected), "inputs": args.inputs, "rate": args.rate, "kills": kills, "kill_delays_s": delays,
            "final_exit": final, "lost": len(lost), "unexpected": len(extra), "differ": len(differ),
            "sent_twice": twice, "bound": bound, "ack_log_bytes": ack_bytes,
            "ack_log_bytes_per_event": round(ack_bytes / max(1, len(expected)), 2),
        }
        json.dump(result, open(os.path.join(out, "kill9.json"), "w"), indent=1)
        print(f"kill9: {len(expected):,} events ({args.inputs}) at {args.rate:,}/s; {kills} kills "
              f"after {delays} s; final run exit {final}")
        print(f"kill9: lost {len(lost)}, unexpected {len(extra)}, differing {len(differ)}; "
              f"sent twice {twice:,} (bound {kills} x {args.concurrency} x {args.max_events} = {bound:,})")
        if ack_bytes:
            print(f"kill9: acknowledgment log {ack_bytes:,} bytes written, {result['ack_log_bytes_per_event']} bytes per event")
        print(f"kill9: output in {out}")
        ok = not lost and not extra and not differ and final in (0, 1) and twice <= bound
        return 0 if ok else 1
    finally:
        for p in procs:
            p.kill()


if __name__ == "__main__":
    sys.exit(main())
