#!/usr/bin/env bash
# The scale-out benchmark: what N shards cost together against one run, on one machine.
#
#   Scripts/bench/scale.sh [--events N] [--files F] [--shards S] [--repeat R] [--mix uniform|realistic] [--no-build] [--out DIR]
#
# Writes N events (default 1,000,000, Scripts/bench/gen_events.py, about 250 bytes each, with its
# --mix of event types: uniform by default, 37.5% of them identify, group or alias) over F files
# (default 16), starts `mr-collector --count-only` on loopback, and runs mr-replay on all
# the files: once unsharded, then as S identity shards (`--shard K/S`, the default mode), then as
# S file shards (`--shard K/S --shard-by file`), one process after another. Every process starts
# from a fresh state directory and is timed with /usr/bin/time; its CPU is user + sys. Each
# configuration runs R times (default 3) and the median total CPU is kept. Prints one table:
# the CPU of each shard, the shards' total, and that total against the unsharded run, and writes
# it to DIR/scale-<time>.txt (DIR defaults to bench-results/). MR_REPLAY and MR_COLLECTOR pick
# other binaries (default: .build/release).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
. "$ROOT/Scripts/bench/common.sh"
EVENTS=1000000; FILES=16; SHARDS=4; REPEAT=3; BUILD=1; MIX=uniform; OUT="$ROOT/bench-results"; SEED=20261122
while [ $# -gt 0 ]; do
  case "$1" in
    --events) EVENTS="$2"; shift ;;
    --files) FILES="$2"; shift ;;
    --shards) SHARDS="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --mix) MIX="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --out) OUT="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done
release_binaries

# Data: F files of N/F events each, cached by count, file count and seed.
DATA="$OUT/data/scale-$EVENTS-$FILES-seed$SEED"
[ "$MIX" = uniform ] || DATA="$DATA-$MIX"
if [ ! -f "$DATA/.done" ]; then
  mkdir -p "$DATA"
  per=$(( EVENTS / FILES ))
  for f in $(seq 0 $(( FILES - 1 ))); do
    python3 "$ROOT/Scripts/bench/gen_events.py" "$per" "$DATA/part-$(printf %02d "$f").ndjson" --seed $(( SEED + f )) --mix "$MIX"
  done
  touch "$DATA/.done"
fi

WORK="$(mktemp -d)"
start_count_sink "$MR_COLLECTOR" "$WORK"
CPID=$SINK_PID
trap 'kill $CPID 2>/dev/null; rm -rf "$WORK"' EXIT
URL="$SINK_URL"
printf 'ingestion:\n  host: %s\n  write_key: K\nbatching:\n  max_events: 100\n  concurrency: 4\nstate_dir: %s\n' \
  "$URL" "$WORK/state" > "$WORK/replay.yaml"

# cpu NAME ARGS...: runs mr-replay on every file with a fresh state directory; prints its CPU seconds.
cpu() {
  local name="$1"; shift
  rm -rf "$WORK/state"
  /usr/bin/time -f "%U %S %e %M" -o "$WORK/time-$name" \
    "$MR_REPLAY" run --config "$WORK/replay.yaml" --quiet "$@" "$DATA" > "$WORK/$name.log" 2>&1 || {
      echo "mr-replay failed ($name); its output:" >&2; cat "$WORK/$name.log" >&2; exit 1; }
  awk '{ printf "%.2f", $1 + $2 }' "$WORK/time-$name"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

MODES="identity file"
if ! "$MR_REPLAY" run --help 2>&1 | grep -q -- "--shard-by"; then
  MODES="identity"
  echo "note: $MR_REPLAY has no --shard-by: identity shards only" >&2
fi
for r in $(seq 1 "$REPEAT"); do
  one=$(cpu one)
  echo "round $r: one run ${one} s" >&2
  echo "$one" >> "$WORK/one.cpu"
  for mode in $MODES; do
    total=0; parts=""
    for k in $(seq 0 $(( SHARDS - 1 ))); do
      by=(); [ "$mode" = file ] && by=(--shard-by file)
      c=$(cpu "$mode-$k" --shard "$k/$SHARDS" "${by[@]}")
      parts="$parts $c"
      total=$(awk -v a="$total" -v b="$c" 'BEGIN { printf "%.2f", a + b }')
    done
    echo "round $r: $SHARDS $mode shards ${total} s (${parts# })" >&2
    echo "$total$parts" >> "$WORK/$mode.cpu"
  done
done

one=$(median < "$WORK/one.cpu")
report="$OUT/scale-$(date -u +%Y%m%d-%H%M%S).txt"
mkdir -p "$OUT"
{
  echo "mr-replay scale-out: $EVENTS events ($MIX mix) in $FILES files, $SHARDS shards, median of $REPEAT rounds (CPU = user + sys)"
  echo
  echo "| run | CPU of each process (s) | total CPU (s) | against one run |"
  echo "|---|---|---|---|"
  echo "| one run | $one | $one | 1.00 |"
  for mode in $MODES; do
    line=$(sort -n "$WORK/$mode.cpu" | awk -v n="$REPEAT" '{ a[NR] = $0 } END { print a[int((n + 1) / 2)] }')
    total=${line%% *}; parts=${line#* }
    ratio=$(awk -v t="$total" -v o="$one" 'BEGIN { printf "%.2f", t / o }')
    echo "| $SHARDS shards by $mode | ${parts// / + } | $total | $ratio |"
  done
} | tee "$report"
