#!/usr/bin/env bash
# The replay benchmark: one run, with ratios against Segment's Python library measured in the same run.
#
#   Scripts/bench.sh [--no-build] [--events N] [--big-events N] [--repeat R] [--skip-big] [--skip-python] [--out DIR]
#
# Steps: generate deterministic NDJSON (N and big-N events) -> build mr-replay and mr-collector in
# release mode -> start `mr-collector --count-only` on loopback -> raw read rate (wc -l) ->
# mr-replay dry run (big file) -> Segment's Python library end to end -> the orjson script
# (Scripts/bench/orjson_peer.py: one keep-alive connection, batches of 100) -> mr-replay end to end
# (gzip off, with peak RSS; gzip on; big file with peak RSS) -> one summary table, also written
# as JSON to DIR/bench-<time>.json and DIR/latest.json. Every measured step reports its wall time
# and the CPU time (user + sys) of the client process alone. The dry run, the Python peer and
# every end-to-end step run R times (--repeat, default 3) and report their median run. Every step
# whose binary is missing is skipped with a message. Everything runs on 127.0.0.1. See docs/benchmark.md.
# The Python peers are installed into a virtualenv, DIR/venv unless BENCH_VENV names another.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/Scripts/bench"
OUT="$ROOT/bench-results"
EVENTS=100000
BIG_EVENTS=1000000
BUILD=1
SKIP_BIG=0
SKIP_PYTHON=0
SEED=20261122
REPEAT=3
WRITE_KEY=K

while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0 ;;
    --events) EVENTS="$2"; shift ;;
    --big-events) BIG_EVENTS="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --skip-big) SKIP_BIG=1 ;;
    --skip-python) SKIP_PYTHON=1 ;;
    --out) OUT="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done

mkdir -p "$OUT/data"
OUT="$(cd "$OUT" && pwd)"
RUN="$OUT/run-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$RUN"
SKIPPED=()
PEER_VERSION=""
say() { printf '\n== %s\n' "$*"; }
skip() { echo "SKIP: $*"; SKIPPED+=("$*"); }
MEASURE=(python3 "$HERE/measure.py")

# --- 1. data --------------------------------------------------------------------------------
gen() {  # gen COUNT -> path of a cached deterministic file
  local f="$OUT/data/events-$1-seed$SEED.ndjson"
  if [ ! -s "$f" ]; then
    python3 "$HERE/gen_events.py" "$1" "$f.tmp" --seed "$SEED" && mv "$f.tmp" "$f"
  fi
  echo "$f"
}
say "generating data ($EVENTS events$([ $SKIP_BIG = 0 ] && echo ", $BIG_EVENTS events"))"
SMALL="$(gen "$EVENTS")"
BIG=""
[ "$SKIP_BIG" = 0 ] && BIG="$(gen "$BIG_EVENTS")"
ls -l "$SMALL" ${BIG:+"$BIG"}

# --- 2. build ---------------------------------------------------------------------------------
cd "$ROOT"
if [ "$BUILD" = 1 ]; then
  say "building release binaries"
  swift build -c release --product mr-collector 2>&1 | tail -3 || true
  swift build -c release --product mr-replay 2>&1 | tail -3 || true
fi
BIN="$ROOT/.build/release"  # SwiftPM's link to the release products
MR_REPLAY="${MR_REPLAY:-$BIN/mr-replay}"
MR_COLLECTOR="${MR_COLLECTOR:-$BIN/mr-collector}"

HAVE_REPLAY=0
# grep reads the whole help (no -q): under pipefail, a grep that stopped at the first match could
# end the help with SIGPIPE and fail the test though the option is there.
if [ -x "$MR_REPLAY" ] && "$MR_REPLAY" run --help 2>&1 | grep -- "--dry-run" > /dev/null; then HAVE_REPLAY=1; fi
HAVE_COLLECTOR=0
if [ -x "$MR_COLLECTOR" ] && "$MR_COLLECTOR" --help 2>&1 | grep -- "--count-only" > /dev/null; then HAVE_COLLECTOR=1; fi
[ "$HAVE_REPLAY" = 1 ] || echo "NOTE: $MR_REPLAY is missing or has no 'run --dry-run' yet; mr-replay steps will be skipped."
[ "$HAVE_COLLECTOR" = 1 ] || echo "NOTE: $MR_COLLECTOR is missing or has no '--count-only' yet; using the Python sink Scripts/bench/count_sink.py."

if ! [ -x /usr/bin/time ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  say "installing /usr/bin/time (Debian package 'time')"
  apt-get install -y -qq time >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq time >/dev/null 2>&1) || true
fi
RSS=()
if [ -x /usr/bin/time ]; then RSS=(--rss); else skip "peak RSS: /usr/bin/time is not available"; fi

# --- 3. collector -------------------------------------------------------------------------------
COLLECTOR_PID=""
cleanup() { [ -n "$COLLECTOR_PID" ] && kill "$COLLECTOR_PID" 2>/dev/null; }
trap cleanup EXIT
if [ "$HAVE_COLLECTOR" = 1 ]; then
  COLLECTOR_NAME="mr-collector --count-only"
  "$MR_COLLECTOR" --port 0 --write-key "$WRITE_KEY" --count-only > "$RUN/collector.out" 2> "$RUN/collector.err" &
else
  COLLECTOR_NAME="python count sink (fallback)"
  python3 "$HERE/count_sink.py" --port 0 --write-key "$WRITE_KEY" > "$RUN/collector.out" 2> "$RUN/collector.err" &
fi
COLLECTOR_PID=$!
URL=""
for _ in $(seq 1 300); do  # up to 30 s
  URL="$(head -n1 "$RUN/collector.out" 2>/dev/null | sed -n 's#^mr-collector listening on \(http://\(127\.0\.0\.1\|localhost\|\[::1\]\):[0-9]*\)$#\1#p')"
  [ -n "$URL" ] && break
  kill -0 "$COLLECTOR_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "ERROR: the collector did not start; see $RUN/collector.err" >&2
  exit 1
fi
say "collector: $COLLECTOR_NAME at $URL"

config() {  # config FILE GZIP STATE_DIR
  # `run --dry-run` takes its state directory from the config (it ignores --state-dir), so every
  # config names its own fresh one; end-to-end runs also pass --state-dir with a fresh directory.
  cat > "$1" <<EOF
ingestion:
  host: $URL
  write_key: $WRITE_KEY
  gzip: $2
batching:
  max_events: 100
  concurrency: 4
state_dir: $3
EOF
}
config "$RUN/config-gzip-off.yaml" false "$RUN/state-config-off"
config "$RUN/config-gzip-on.yaml" true "$RUN/state-config-on"
config "$RUN/config-dry-run.yaml" false "$RUN/state-dry-run"

# --- 4. raw read rate -------------------------------------------------------------------------
RAW_FILE="${BIG:-$SMALL}"
RAW_LINES=$([ -n "$BIG" ] && echo "$BIG_EVENTS" || echo "$EVENTS")
say "raw line read: wc -l $(basename "$RAW_FILE") (best of 3)"
"${MEASURE[@]}" --repeat 3 --best --timeout 300 -- wc -l "$RAW_FILE" | tee "$RUN/raw_read.json"

# --- 5. dry run -------------------------------------------------------------------------------
if [ "$HAVE_REPLAY" = 1 ]; then
  DRY_FILE="${BIG:-$SMALL}"
  say "mr-replay dry run: $(basename "$DRY_FILE")"
  # Each repetition starts from an empty state directory (the dry run keeps identities there);
  # measure.py removes it before the run, so only mr-replay itself is timed.
  "${MEASURE[@]}" --repeat "$REPEAT" --timeout 600 --clean "$RUN/state-dry-run" --log "$RUN/dry_run.log" -- \
    "$MR_REPLAY" run --dry-run --output /dev/null --config "$RUN/config-dry-run.yaml" "$DRY_FILE" | tee "$RUN/dry_run.json"
else
  skip "mr-replay dry run: mr-replay is not built yet"
fi

# --- 6. Segment's Python library ----------------------------------------------------------------
if [ "$SKIP_PYTHON" = 0 ]; then
  VENV="${BENCH_VENV:-$OUT/venv}"
  if ! "$VENV/bin/python" -c "import segment.analytics" 2>/dev/null; then
    say "installing segment-analytics-python into $VENV"
    python3 -m venv "$VENV" && "$VENV/bin/pip" install -q segment-analytics-python || true
  fi
  if "$VENV/bin/python" -c "import segment.analytics" 2>/dev/null; then
    PEER_VERSION="$("$VENV/bin/python" -c 'import sys; from segment.analytics.version import VERSION; print("segment-analytics-python %s, Python %s" % (VERSION, sys.version.split()[0]))')"
    say "$PEER_VERSION end to end (upload_size=100)"
    "${MEASURE[@]}" --repeat "$REPEAT" --stats "$URL" --expect "$EVENTS" --timeout 1800 --log "$RUN/python_peer.log" -- \
      "$VENV/bin/python" "$HERE/segment_peer.py" "$SMALL" --host "$URL" --write-key "$WRITE_KEY" --upload-size 100 \
      | tee "$RUN/python_peer.json"
  else
    skip "python peer: could not install segment-analytics-python"
  fi
else
  skip "python peer: --skip-python"
fi

# --- 6b. the orjson script ----------------------------------------------------------------------
if [ "$SKIP_PYTHON" = 0 ]; then
  VENV="${BENCH_VENV:-$OUT/venv}"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || true
  if ! "$VENV/bin/python" -c "import orjson" 2>/dev/null; then
    say "installing orjson into $VENV"
    "$VENV/bin/pip" install -q orjson || true
  fi
  if "$VENV/bin/python" -c "import orjson" 2>/dev/null; then
    say "orjson $("$VENV/bin/python" -c 'import orjson; print(orjson.__version__)') script end to end (one connection, batches of 100)"
    "${MEASURE[@]}" --repeat "$REPEAT" --stats "$URL" --expect "$EVENTS" --timeout 1800 --log "$RUN/orjson_peer.log" -- \
      "$VENV/bin/python" "$HERE/orjson_peer.py" "$SMALL" --host "$URL" --write-key "$WRITE_KEY" --batch 100 \
      | tee "$RUN/orjson_peer.json"
  else
    skip "orjson peer: could not install orjson"
  fi
else
  skip "orjson peer: --skip-python"
fi

# --- 7. mr-replay end to end ------------------------------------------------------------------
e2e() {  # e2e NAME CONFIG FILE COUNT [--rss]
  local name="$1" cfg="$2" file="$3" count="$4"; shift 4
  say "mr-replay end to end: $name ($count events)"
  rm -rf "$RUN/state-$name"
  "${MEASURE[@]}" --repeat "$REPEAT" --stats "$URL" --expect "$count" --timeout 1800 --log "$RUN/$name.log" "$@" -- \
    "$MR_REPLAY" run --config "$cfg" --state-dir "$RUN/state-$name" --fresh --quiet "$file" | tee "$RUN/$name.json"
}
if [ "$HAVE_REPLAY" = 1 ]; then
  e2e e2e "$RUN/config-gzip-off.yaml" "$SMALL" "$EVENTS" "${RSS[@]}"
  e2e e2e_gzip "$RUN/config-gzip-on.yaml" "$SMALL" "$EVENTS"
  if [ -n "$BIG" ]; then
    e2e e2e_big "$RUN/config-gzip-off.yaml" "$BIG" "$BIG_EVENTS" "${RSS[@]}"
  else
    skip "big-file run: --skip-big"
  fi
else
  skip "mr-replay end to end, gzip on/off, memory: mr-replay is not built yet"
fi

# --- 8. summary --------------------------------------------------------------------------------
{
  printf '{"events": %s, "big_events": %s, "raw_read_lines": %s, "dry_run_events": %s, "seed": %s, "collector": "%s", "url": "%s",' \
    "$EVENTS" "$([ -n "$BIG" ] && echo "$BIG_EVENTS" || echo null)" "$RAW_LINES" "$RAW_LINES" "$SEED" "$COLLECTOR_NAME" "$URL"
  printf ' "date": "%s", "host_cpus": %s, "load_average": "%s", "git": "%s", "peer": "%s", "skipped": [' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" "$PEER_VERSION"
  sep=""
  for s in "${SKIPPED[@]+"${SKIPPED[@]}"}"; do printf '%s%s' "$sep" "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$s")"; sep=", "; done
  printf ']}\n'
} > "$RUN/meta.json"
STAMP="$(basename "$RUN" | sed 's/^run-//')"
python3 "$HERE/summary.py" "$RUN" "$OUT/bench-$STAMP.json" && cp "$OUT/bench-$STAMP.json" "$OUT/latest.json"
