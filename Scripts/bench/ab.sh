#!/usr/bin/env bash
# Alternating A/B of two mr-replay binaries on one NDJSON file, both measured in the same run:
#
#   Scripts/bench/ab.sh OLD_MR_REPLAY NEW_MR_REPLAY FILE [ROUNDS] [MR_COLLECTOR]
#
# Each round runs, for OLD then NEW: a dry run (`run --dry-run --output /dev/null`, fresh state)
# and an end-to-end run (`run --fresh --quiet`) into one `mr-collector --count-only` on loopback.
# Prints, per binary and step, the median and minimum wall time, CPU time (user + sys) and the
# median peak RSS, from /usr/bin/time. Alternating keeps the two sides under the same machine
# conditions, which separate bench runs on a shared VM do not (see docs/benchmark.md).
set -euo pipefail
OLD="$1"; NEW="$2"; FILE="$3"; ROUNDS="${4:-5}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COLLECTOR="${5:-$ROOT/.build/release/mr-collector}"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 2; }
WORK="$(mktemp -d)"
"$COLLECTOR" --port 0 --write-key K --count-only > "$WORK/collector.out" 2> "$WORK/collector.err" &
CPID=$!
trap 'kill $CPID 2>/dev/null; rm -rf "$WORK"' EXIT
URL=""
for _ in $(seq 1 100); do
  URL="$(head -n1 "$WORK/collector.out" 2>/dev/null | sed -n 's#^mr-collector listening on \(http://.*\)$#\1#p')"
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "$URL" ] || { echo "the collector did not start" >&2; exit 1; }
for step in dry e2e; do
  printf 'ingestion:\n  host: %s\n  write_key: K\nbatching:\n  max_events: 100\n  concurrency: 4\nstate_dir: %s\n' \
    "$URL" "$WORK/state-$step" > "$WORK/$step.yaml"
done
for _ in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    bin="$OLD"; [ "$side" = new ] && bin="$NEW"
    rm -rf "$WORK/state-dry"
    /usr/bin/time -f "$side dry %e %U %S %M" -a -o "$WORK/times" \
      "$bin" run --dry-run --output /dev/null --config "$WORK/dry.yaml" "$FILE" > /dev/null 2>&1
    /usr/bin/time -f "$side e2e %e %U %S %M" -a -o "$WORK/times" \
      "$bin" run --config "$WORK/e2e.yaml" --fresh --quiet "$FILE" > /dev/null 2>&1
  done
done
python3 - "$WORK/times" <<'PY'
import statistics as st, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 6:
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
