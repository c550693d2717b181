#!/usr/bin/env bash
# Alternating runs of several mr-replay commands on one NDJSON file, all measured in one sitting:
#
#   Scripts/bench/many.sh [--rounds R] [--steps dry|e2e|both] [--collector MR_COLLECTOR] FILE CMD...
#
# Each CMD is an executable that takes mr-replay's arguments: a binary, or a wrapper script that
# sets something first (for example `LD_PRELOAD=... exec mr-replay "$@"`). Each round runs every
# CMD once per step, starting one further along the list each round, so that no command always
# runs first or last. The dry step is `run --dry-run --output /dev/null` with a fresh state
# directory; the e2e step is `run --fresh --quiet` into one `mr-collector --count-only` on
# loopback. Prints, per step and command, the median and minimum CPU (user + sys), the median wall
# time and peak RSS, and the median CPU over the first command's: on a shared VM one run of one
# binary moves by 8-15 %, so a difference of a few per cent needs 20 or more rounds to be seen.
set -euo pipefail
ROUNDS=10; STEPS=both
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COLLECTOR="$ROOT/.build/release/mr-collector"
usage() { echo "usage: many.sh [--rounds R] [--steps dry|e2e|both] [--collector BIN] FILE CMD..." >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="${2:-}"; shift 2 ;;
    --steps) STEPS="${2:-}"; shift 2 ;;
    --collector) COLLECTOR="${2:-}"; shift 2 ;;
    --*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "many.sh: --rounds needs a positive whole number, not '$ROUNDS'" >&2; exit 2 ;; esac
case "$STEPS" in dry) steps=(dry) ;; e2e) steps=(e2e) ;; both) steps=(dry e2e) ;; *) usage ;; esac
FILE="$1"; shift
CMDS=("$@")
[ -f "$FILE" ] || { echo "many.sh: no input file $FILE" >&2; exit 2; }
for c in "${CMDS[@]}"; do [ -x "$c" ] || { echo "many.sh: $c is not an executable" >&2; exit 2; }; done
. "$ROOT/Scripts/bench/common.sh"
need_time
WORK="$(mktemp -d)"
SINK_PID=""
trap '[ -n "$SINK_PID" ] && kill $SINK_PID 2>/dev/null; rm -rf "$WORK"' EXIT
URL="http://127.0.0.1:9"  # the dry run sends nothing
if [ "$STEPS" != dry ]; then
  [ -x "$COLLECTOR" ] || { echo "many.sh: $COLLECTOR is not an executable (--collector)" >&2; exit 2; }
  start_count_sink "$COLLECTOR" "$WORK"
  URL="$SINK_URL"
fi
for step in dry e2e; do
  printf 'ingestion:\n  host: %s\n  write_key: K\nbatching:\n  max_events: 100\n  concurrency: 4\nstate_dir: %s\n' \
    "$URL" "$WORK/state-$step" > "$WORK/$step.yaml"
done
n=${#CMDS[@]}
for round in $(seq 1 "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    j=$(((k + round) % n))
    for step in "${steps[@]}"; do
      if [ "$step" = dry ]; then
        rm -rf "$WORK/state-dry"
        time_run "$WORK/times" "$step $j" "%e %U %S %M" "${CMDS[$j]}" run --dry-run --output /dev/null --config "$WORK/dry.yaml" "$FILE"
      else
        time_run "$WORK/times" "$step $j" "%e %U %S %M" "${CMDS[$j]}" run --config "$WORK/e2e.yaml" --fresh --quiet "$FILE"
      fi
    done
  done
done
python3 - "$WORK/times" "${CMDS[@]}" <<'PY'
import collections, statistics as st, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    # /usr/bin/time adds a "Command exited with non-zero status 1" line after a run with dead letters.
    if len(p) == 6 and p[0] in ("dry", "e2e"):
        runs[(p[0], int(p[1]))].append((float(p[2]), float(p[3]) + float(p[4]), int(p[5]) / 1024))
cmds = sys.argv[2:]
for step in ("dry", "e2e"):
    if not runs[(step, 0)]:
        continue
    first = st.median(x[1] for x in runs[(step, 0)])
    for j, cmd in enumerate(cmds):
        r = runs[(step, j)]
        cpu = st.median(x[1] for x in r)
        print("%s %-40s n=%d  cpu median %.3f s (min %.3f)  ratio %.3f  wall median %.2f s  peak RSS %.1f MB" % (
            step, cmd[-40:], len(r), cpu, min(x[1] for x in r), cpu / first,
            st.median(x[0] for x in r), st.median(x[2] for x in r)))
PY
