#!/usr/bin/env bash
# The delivery floor against mr-replay's own delivery cost, in one sitting:
#
#   Scripts/bench/floor.sh [--no-build] [--events N] [--rounds R] [--batch B] [FILE]
#
# FILE (default: the bench's 1,000,000-event file, made if missing) is cut to its first N events
# (default 1,000,000). mr-replay prepares them in a dry run; the first B (default 100) of its
# events, in one body as the engine writes it (`sentAt` and `writeKey` spliced into each), are what
# Scripts/bench/raw_post.c sends N/B times into `mr-collector --count-only`, over 4 connections
# as mr-replay does. Each round then runs, alternating: raw_post, mr-replay's dry run on the N
# events, and mr-replay end to end (`batching.max_events: B`, `concurrency: 4`, gzip off) into
# the same collector. Prints each step's median CPU (user + sys, /usr/bin/time) per event, and
# "delivery" = end to end minus the dry run, against raw_post's floor: what mr-replay's delivery
# costs above the kernel's loopback TCP and one writev and read per request. (End to end minus
# the dry run also holds what the run's reading thread pays beyond a dry run: checkpoints, and
# the other core's work slowing it; see docs/benchmark.md.) The end-to-end run's report also
# gives its two threads' CPU (`resources`), printed under it: the delivery thread against the floor.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
. "$ROOT/Scripts/bench/common.sh"
EVENTS=1000000; ROUNDS=5; BATCH=100; FILE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0 ;;
    --events) EVENTS="$2"; shift ;;
    --rounds) ROUNDS="$2"; shift ;;
    --batch) BATCH="$2"; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) FILE="$1" ;;
  esac
  shift
done
[[ "$BATCH" =~ ^[1-9][0-9]*$ ]] || { echo "floor.sh: --batch needs a positive whole number, not '$BATCH'" >&2; exit 2; }
release_binaries
command -v cc > /dev/null || { echo "needs a C compiler (apt-get install -y gcc)" >&2; exit 2; }
if [ -z "$FILE" ]; then
  FILE="$ROOT/bench-results/data/events-1000000-seed20261122.ndjson"
  [ -f "$FILE" ] || python3 "$ROOT/Scripts/bench/gen_events.py" 1000000 "$FILE" --seed 20261122
fi
WORK="$(mktemp -d)"
trap 'kill ${SINK_PID:-} 2>/dev/null || true; rm -rf "$WORK"' EXIT
cc -O2 -o "$WORK/raw_post" "$ROOT/Scripts/bench/raw_post.c"
head -n "$EVENTS" "$FILE" > "$WORK/events.ndjson"
start_count_sink "$MR_COLLECTOR" "$WORK"
printf 'ingestion:\n  host: %s\n  write_key: K\n  gzip: false\nbatching:\n  max_events: %s\n  concurrency: 4\nstate_dir: %s\n' \
  "$SINK_URL" "$BATCH" "$WORK/state" > "$WORK/run.yaml"
"$MR_REPLAY" run --dry-run --output "$WORK/prepared.ndjson" --config "$WORK/run.yaml" "$WORK/events.ndjson" > /dev/null 2>&1
python3 - "$WORK/prepared.ndjson" "$WORK/body.json" "$BATCH" <<'PY'
import sys
# The body as the engine writes it: each event with "sentAt" and "writeKey" spliced before its
# closing brace, and the batch's own "sentAt".
sent_at = b'"2026-01-01T00:00:00.000Z"'
with open(sys.argv[1], 'rb') as f:
    events = [line.rstrip(b'\n') for _, line in zip(range(int(sys.argv[3])), f)]
if not events:
    sys.exit("floor.sh: the dry run prepared no events")
spliced = [e[:-1] + b',"sentAt":' + sent_at + b',"writeKey":"K"}' for e in events]
body = b'{"batch":[' + b','.join(spliced) + b'],"sentAt":' + sent_at + b'}'
open(sys.argv[2], 'wb').write(body)
PY
EVENTS=$(wc -l < "$WORK/events.ndjson")
REQUESTS=$(( (EVENTS + BATCH - 1) / BATCH ))
PORT="${SINK_URL##*:}"
for _ in $(seq 1 "$ROUNDS"); do
  time_run "$WORK/times" floor "%U %S" "$WORK/raw_post" "$PORT" "$WORK/body.json" "$REQUESTS" 4
  time_dry_and_e2e "$WORK/times" "" "%U %S" "$MR_REPLAY" "$WORK/run.yaml" "$WORK/state" "$WORK/run.yaml" "$WORK/events.ndjson"
  # The end-to-end run's two threads, from its report (absent from reports of older builds).
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])).get("resources") or {}; print("threads", r.get("reading_thread_cpu_seconds", -1), r.get("delivery_thread_cpu_seconds", -1))' \
    "$WORK/state/report.json" >> "$WORK/times"
done
python3 - "$WORK/times" "$EVENTS" "$REQUESTS" "$(wc -c < "$WORK/body.json")" <<'PY'
import sys, statistics as st, collections
events, requests, size = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cpu = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 3 and p[0] in ("floor", "dry", "e2e"):  # not /usr/bin/time's "Command exited ..." lines
        cpu[p[0]].append(float(p[1]) + float(p[2]))
    elif len(p) == 3 and p[0] == "threads" and float(p[1]) >= 0 and float(p[2]) >= 0:
        cpu["reading thread"].append(float(p[1]))
        cpu["delivery thread"].append(float(p[2]))
med = {k: st.median(v) for k, v in cpu.items()}
us = lambda s: s / events * 1e6
print("%d events, %d requests of %d bytes, %d rounds (CPU medians)" % (events, requests, size, len(cpu["e2e"])))
print("raw_post (floor)           %.3f s  %.3f us/event  %.1f us/request" % (med["floor"], us(med["floor"]), med["floor"] / requests * 1e6))
print("mr-replay dry run          %.3f s  %.3f us/event" % (med["dry"], us(med["dry"])))
print("mr-replay end to end       %.3f s  %.3f us/event" % (med["e2e"], us(med["e2e"])))
delivery = med["e2e"] - med["dry"]
times_floor = "%.1fx the floor" % (delivery / med["floor"]) if med["floor"] > 0 else "floor below the clock's 10 ms"
print("delivery (e2e - dry)       %.3f s  %.3f us/event  %.1f us/request  %s" % (
    delivery, us(delivery), delivery / requests * 1e6, times_floor))
if "delivery thread" in med:
    # The end-to-end run's threads (its report's resources): the reading thread does what a dry
    # run does plus recording and checkpoints; the delivery thread is the engine and the socket.
    print("  e2e reading thread       %.3f s  %.3f us/event" % (med["reading thread"], us(med["reading thread"])))
    print("  e2e delivery thread      %.3f s  %.3f us/event  %.1fx the floor" % (
        med["delivery thread"], us(med["delivery thread"]),
        med["delivery thread"] / med["floor"] if med["floor"] > 0 else float("nan")))
PY
