#!/usr/bin/env bash
# The scale-out benchmark: what N shards cost together against one run, on one machine.
#
#   Scripts/bench/scale.sh [--events N] [--files F] [--shards S] [--repeat R] [--mix uniform|realistic]
#                          [--modes identity,file,partition] [--no-build] [--out DIR]
#
# Writes N events (default 1,000,000, Scripts/bench/gen_events.py, about 250 bytes each, with its
# --mix of event types: uniform by default, 37.5% of them identify, group or alias) over F files
# (default 16), starts `mr-collector --count-only` on loopback, and runs mr-replay on all the
# files: once unsharded, then for each mode (default: all three) as S shards:
#   identity   `run --shard K/S` (every shard reads every file);
#   file       `run --shard K/S --shard-by file`;
#   partition  `partition --worker K/S --shards S` with S workers at once (the partition stage,
#              its wall time measured), then `run --partitions DIR --shard K/S` one after another.
# Every process starts from a fresh state directory and is timed with /usr/bin/time; its CPU is
# user + sys. Each configuration runs R times (default 3) in one sitting (the modes alternate
# within a round) and the round with the median total CPU is kept. Prints one table: the CPU of
# each process, the total against the unsharded run, the busiest shard against it, and for the
# partition stage its wall time against the unsharded run's; the peak RSS of every process. It is
# written to DIR/scale-<time>.txt (DIR defaults to bench-results/). MR_REPLAY and MR_COLLECTOR
# pick other binaries (default: .build/release).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
. "$ROOT/Scripts/bench/common.sh"
EVENTS=1000000; FILES=16; SHARDS=4; REPEAT=3; BUILD=1; MIX=uniform; OUT="$ROOT/bench-results"; SEED=20261122
MODES="identity file partition"
while [ $# -gt 0 ]; do
  case "$1" in
    --events) EVENTS="$2"; shift ;;
    --files) FILES="$2"; shift ;;
    --shards) SHARDS="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --mix) MIX="$2"; shift ;;
    --modes) MODES="${2//,/ }"; shift ;;
    --no-build) BUILD=0 ;;
    --out) OUT="$2"; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
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

# timed NAME ARGS...: runs mr-replay ARGS under /usr/bin/time into $WORK/time-NAME ("user sys wall rss_kb").
timed() {
  local name="$1"; shift
  /usr/bin/time -f "%U %S %e %M" -o "$WORK/time-$name" "$MR_REPLAY" "$@" > "$WORK/$name.log" 2>&1 || {
    echo "mr-replay failed ($name); its output:" >&2; cat "$WORK/$name.log" >&2; exit 1; }
}
# cpu NAME: the CPU seconds of a timed process; wall NAME, rss NAME: its wall time and peak RSS (MB).
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$WORK/time-$1"; }
wall() { awk '{ printf "%.2f", $3 }' "$WORK/time-$1"; }
rss() { awk '{ printf "%.0f", $4 / 1024 }' "$WORK/time-$1"; }
# run NAME ARGS...: a run of every file from a fresh state directory.
run() {
  local name="$1"; shift
  rm -rf "$WORK/state"
  timed "$name" run --config "$WORK/replay.yaml" --quiet "$@" "$DATA"
}
# partitioned ROUND: the partition stage (S workers at once; prints its wall time), then each shard.
partitioned() {
  rm -rf "$WORK/parts" "$WORK/state"
  local start end pids=()
  start=$(date +%s.%N)
  for k in $(seq 0 $(( SHARDS - 1 ))); do
    timed "partition-w$k" partition --config "$WORK/replay.yaml" --shards "$SHARDS" --worker "$k/$SHARDS" --output "$WORK/parts" "$DATA" &
    pids+=($!)
  done
  wait "${pids[@]}"  # not the count-only sink, which runs in the background too
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }' > "$WORK/partition-wall"
  for k in $(seq 0 $(( SHARDS - 1 ))); do
    timed "partition-s$k" run --config "$WORK/replay.yaml" --quiet --partitions "$WORK/parts" --shard "$k/$SHARDS"
  done
}

median_line() { sort -n "$1" | awk -v n="$REPEAT" '{ a[NR] = $0 } END { print a[int((n + 1) / 2)] }'; }
maximum() { tr ' ' '\n' | sort -n | tail -1; }

for r in $(seq 1 "$REPEAT"); do
  run one
  echo "$(cpu one) $(wall one) $(rss one)" >> "$WORK/one.cpu"
  echo "round $r: one run $(cpu one) s CPU, $(wall one) s wall" >&2
  for mode in $MODES; do
    total=0; parts=""; peak=0; extra=""
    if [ "$mode" = partition ]; then
      partitioned
      stage=0
      for k in $(seq 0 $(( SHARDS - 1 ))); do
        stage=$(awk -v a="$stage" -v b="$(cpu "partition-w$k")" 'BEGIN { printf "%.2f", a + b }')
        peak=$(printf '%s\n%s\n' "$peak" "$(rss "partition-w$k")" | sort -n | tail -1)
      done
      names=$(for k in $(seq 0 $(( SHARDS - 1 ))); do echo "partition-s$k"; done)
      total=$stage; extra="$stage $(cat "$WORK/partition-wall")"
    else
      names=$(for k in $(seq 0 $(( SHARDS - 1 ))); do echo "$mode-$k"; done)
      for k in $(seq 0 $(( SHARDS - 1 ))); do
        by=(); [ "$mode" = file ] && by=(--shard-by file)
        run "$mode-$k" --shard "$k/$SHARDS" "${by[@]}"
      done
    fi
    for name in $names; do
      c=$(cpu "$name"); parts="$parts $c"
      total=$(awk -v a="$total" -v b="$c" 'BEGIN { printf "%.2f", a + b }')
      peak=$(printf '%s\n%s\n' "$peak" "$(rss "$name")" | sort -n | tail -1)
    done
    echo "round $r: $SHARDS $mode shards ${total} s (${parts# }${extra:+; partition stage $extra})" >&2
    echo "$total $peak ${extra:-- -}$parts" >> "$WORK/$mode.cpu"
  done
done

one_line=$(median_line "$WORK/one.cpu")
read -r one one_wall one_rss <<< "$one_line"
report="$OUT/scale-$(date -u +%Y%m%d-%H%M%S).txt"
mkdir -p "$OUT"
{
  echo "mr-replay scale-out: $EVENTS events ($MIX mix) in $FILES files, $SHARDS shards, median of $REPEAT rounds (CPU = user + sys)"
  echo
  echo "| run | CPU of each process (s) | total CPU (s) | against one run | busiest shard / one run | partition stage: CPU (s), wall / one run's | peak RSS (MB) |"
  echo "|---|---|---|---|---|---|---|"
  echo "| one run | $one | $one | 1.00 | 1.00 | - | $one_rss |"
  for mode in $MODES; do
    read -r total peak stage stage_wall shard_cpus <<< "$(median_line "$WORK/$mode.cpu")"
    ratio=$(awk -v t="$total" -v o="$one" 'BEGIN { printf "%.2f", t / o }')
    busiest=$(awk -v t="$(echo "$shard_cpus" | maximum)" -v o="$one" 'BEGIN { printf "%.2f", t / o }')
    staged="-"
    if [ "$stage" != "-" ]; then
      staged="$stage s, $(awk -v w="$stage_wall" -v o="$one_wall" 'BEGIN { printf "%.2f", w / o }')"
    fi
    echo "| $SHARDS shards by $mode | ${shard_cpus// / + } | $total | $ratio | $busiest | $staged | $peak |"
  done
} | tee "$report"
