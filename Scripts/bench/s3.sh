#!/usr/bin/env bash
# The S3 input benchmark: the same gzip files replayed from a loopback S3 server and from local
# disk, end to end into `mr-collector --count-only`, in one sitting.
#
#   Scripts/bench/s3.sh [--events N] [--files F] [--repeat R] [--no-build] [--out DIR]
#
# Writes N events (default 1,000,000, Scripts/bench/gen_events.py, about 250 bytes each) over F
# gzip files (default 16), starts moto's S3 server on a free loopback port (Scripts/s3/python.sh
# finds or makes its Python) and uploads them as s3://bench-events/segment-logs/src/<file>.gz,
# starts `mr-collector --count-only`, then runs, R times each (default 3), alternating:
#   local:  mr-replay run <dir of the .gz files>
#   s3:     mr-replay run s3://bench-events/segment-logs/
# each from a fresh state directory, timed with /usr/bin/time (wall, and mr-replay's user + sys
# CPU), with the S3 server's CPU over the same run (from /proc). Also times moto alone serving
# every object once (boto3, one after another), the ceiling of what it can feed a reader. Prints
# one table of medians and writes it to DIR/s3-<time>.txt (DIR defaults to bench-results/).
# MR_REPLAY and MR_COLLECTOR pick other binaries (default: .build/release).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
. "$ROOT/Scripts/bench/common.sh"
EVENTS=1000000; FILES=16; REPEAT=3; BUILD=1; OUT="$ROOT/bench-results"; SEED=20261122
while [ $# -gt 0 ]; do
  case "$1" in
    --events) EVENTS="$2"; shift ;;
    --files) FILES="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --out) OUT="$2"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done
release_binaries
PYTHON="$(bash "$ROOT/Scripts/s3/python.sh")"

# Data: F gzip files of N/F events each, cached by count, file count and seed.
DATA="$OUT/data/s3-$EVENTS-$FILES-seed$SEED"
if [ ! -f "$DATA/.done" ]; then
  mkdir -p "$DATA"
  per=$(( EVENTS / FILES ))
  for f in $(seq 0 $(( FILES - 1 ))); do
    python3 "$ROOT/Scripts/bench/gen_events.py" "$per" "$DATA/part-$(printf %02d "$f").ndjson" --seed $(( SEED + f ))
    gzip -6 -f "$DATA/part-$(printf %02d "$f").ndjson"
  done
  touch "$DATA/.done"
fi

WORK="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

# The S3 server, filled.
PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
S3="http://127.0.0.1:$PORT"
"$PYTHON" "$ROOT/Scripts/s3/moto_server.py" -H 127.0.0.1 -p "$PORT" > "$WORK/moto.log" 2>&1 &
MOTO=$!
PIDS+=("$MOTO")
"$PYTHON" "$ROOT/Scripts/s3/moto_objects.py" "$S3" wait
"$PYTHON" - "$DATA" > "$WORK/spec.json" <<'PY'
import json, os, sys
d = sys.argv[1]
print(json.dumps({"bucket": "bench-events", "objects": {
    f"segment-logs/src/{n}": os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith(".gz")}}))
PY
"$PYTHON" "$ROOT/Scripts/s3/moto_objects.py" "$S3" put < "$WORK/spec.json" > /dev/null
BYTES=$(cat "$DATA"/*.gz | wc -c)

# The sink.
start_count_sink "$MR_COLLECTOR" "$WORK"
PIDS+=("$SINK_PID")
URL="$SINK_URL"
printf 'ingestion:\n  host: %s\n  write_key: K\nbatching:\n  max_events: 100\n  concurrency: 4\ninputs:\n  s3:\n    endpoint: %s\n    region: us-east-1\nstate_dir: %s\n' \
  "$URL" "$S3" "$WORK/state" > "$WORK/replay.yaml"
export AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret

# CPU seconds (user + sys) a process has used, from /proc.
proc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# run NAME INPUT: one end-to-end run from a fresh state; prints "wall cpu moto_cpu".
run() {
  local name="$1" input="$2"
  rm -rf "$WORK/state"
  local before; before=$(proc_cpu "$MOTO")
  /usr/bin/time -f "%e %U %S" -o "$WORK/time-$name" \
    "$MR_REPLAY" run --config "$WORK/replay.yaml" --quiet "$input" > "$WORK/$name.log" 2>&1 || {
      echo "mr-replay failed ($name); its output:" >&2; cat "$WORK/$name.log" >&2; exit 1; }
  grep -q "$EVENTS delivered" "$WORK/$name.log" || { echo "$name: not every event was delivered:" >&2; cat "$WORK/$name.log" >&2; exit 1; }
  local after; after=$(proc_cpu "$MOTO")
  awk -v b="$before" -v a="$after" '{ printf "%.2f %.2f %.2f\n", $1, $2 + $3, a - b }' "$WORK/time-$name"
}

# moto alone: every object fetched once, one after another (boto3).
serve() { "$PYTHON" "$ROOT/Scripts/s3/moto_objects.py" "$S3" get bench-events segment-logs/; }

for r in $(seq 1 "$REPEAT"); do
  run local "$DATA" >> "$WORK/local.txt"
  run s3 "s3://bench-events/segment-logs/" >> "$WORK/s3.txt"
  serve >> "$WORK/serve.txt"
  echo "round $r: local $(tail -n1 "$WORK/local.txt"), s3 $(tail -n1 "$WORK/s3.txt") (wall, cpu, moto cpu)" >&2
done

median() { sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }
read -r lw lc _ <<<"$(median < "$WORK/local.txt")"
read -r sw sc sm <<<"$(median < "$WORK/s3.txt")"
serve_s=$(median < "$WORK/serve.txt")
report="$OUT/s3-$(date -u +%Y%m%d-%H%M%S).txt"
mkdir -p "$OUT"
{
  echo "mr-replay from S3 (moto on loopback) against local disk: $EVENTS events in $FILES gzip files ($BYTES bytes), median of $REPEAT rounds by wall time"
  echo
  echo "| input | wall (s) | events/s | mr-replay CPU (s) | S3 server CPU (s) | rate against local |"
  echo "|---|---|---|---|---|---|"
  awk -v w="$lw" -v c="$lc" -v n="$EVENTS" 'BEGIN { printf "| local disk | %.2f | %.0f | %.2f | - | 1.00 |\n", w, n / w, c }'
  awk -v w="$sw" -v c="$sc" -v m="$sm" -v n="$EVENTS" -v l="$lw" \
    'BEGIN { printf "| s3://bench-events/segment-logs/ | %.2f | %.0f | %.2f | %.2f | %.2f |\n", w, n / w, c, m, l / w }'
  awk -v s="$serve_s" -v b="$BYTES" 'BEGIN { printf "\nmoto alone, every object fetched once (boto3, one after another): %.2f s (%.1f MB/s)\n", s, b / s / 1e6 }'
} | tee "$report"
