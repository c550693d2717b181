#!/usr/bin/env bash
# Alternating A/B of two mr-replay binaries on one NDJSON file, both measured in the same run:
#
#   Scripts/bench/ab.sh OLD_MR_REPLAY NEW_MR_REPLAY FILE [ROUNDS] [MR_COLLECTOR]
#
# Each round runs, for OLD and NEW (in alternating order): a dry run (`run --dry-run --output /dev/null`, fresh state)
# and an end-to-end run (`run --fresh --quiet`) into one `mr-collector --count-only` on loopback.
# Prints, per binary and step, the median and minimum wall time, CPU time (user + sys) and the
# median peak RSS, from /usr/bin/time. Alternating keeps the two sides under the same machine
# conditions, which separate bench runs on a shared VM do not (see docs/benchmark.md).
set -euo pipefail
OLD="$1"; NEW="$2"; FILE="$3"; ROUNDS="${4:-5}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
. "$ROOT/Scripts/bench/common.sh"
COLLECTOR="${5:-$ROOT/.build/release/mr-collector}"
need_time
WORK="$(mktemp -d)"
start_count_sink "$COLLECTOR" "$WORK"
CPID=$SINK_PID
trap 'kill $CPID 2>/dev/null; rm -rf "$WORK"' EXIT
URL="$SINK_URL"
for step in dry e2e; do
  printf 'ingestion:\n  host: %s\n  write_key: K\nbatching:\n  max_events: 100\n  concurrency: 4\nstate_dir: %s\n' \
    "$URL" "$WORK/state-$step" > "$WORK/$step.yaml"
done
# The order alternates (old new, new old, ...): on this VM the second of two back-to-back runs
# of one binary measured 9-11 % slower, so a fixed order would favour the side that runs first.
for round in $(seq 1 "$ROUNDS"); do
  order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
  for side in $order; do
    bin="$OLD"; [ "$side" = new ] && bin="$NEW"
    time_dry_and_e2e "$WORK/times" "$side " "%e %U %S %M" "$bin" "$WORK/dry.yaml" "$WORK/state-dry" "$WORK/e2e.yaml" "$FILE"
  done
done
python3 - "$WORK/times" <<'PY'
import statistics as st, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    # /usr/bin/time adds a "Command exited with non-zero status 1" line after a run with dead letters.
    if len(p) == 6 and p[0] in ("old", "new"):
        runs[(p[1], p[0])].append((float(p[2]), float(p[3]) + float(p[4]), int(p[5]) / 1024))
for step in ("dry", "e2e"):
    for side in ("old", "new"):
        r = runs[(step, side)]
        if not r:
            continue
        print("%s %s n=%d  wall median %.2f s (min %.2f)  cpu median %.2f s (min %.2f)  peak RSS median %.1f MB" % (
            step, side, len(r), st.median(x[0] for x in r), min(x[0] for x in r),
            st.median(x[1] for x in r), min(x[1] for x in r), st.median(x[2] for x in r)))
PY
