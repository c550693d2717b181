#!/usr/bin/env bash
# The soak run: mr-replay against the local collector with faults on, stopped and resumed every
# minute, for a bounded time. At the end Scripts/soak/check.py checks that every event arrived
# exactly once by messageId, that memory and file descriptors did not grow, and that the
# reports add up. Not a unit test: it takes --minutes of wall time (default 10).
#
# Usage: Scripts/soak/soak.sh [--minutes 10] [--rate 1000] [--signal TERM|KILL]
#                             [--out DIR] [--bin-dir DIR]
#   --rate     events per second (mr-replay's rate_limit), sized so the run lasts the soak
#   --signal   how each minute's run is stopped: TERM (a clean stop, as cron and Kubernetes
#              do; exactly-once is checked) or KILL (kill -9; at-least-once is checked and the
#              duplicates are counted)
#   --bin-dir  where mr-replay and mr-collector are (default: a release build in .build-release)
# Faults: 2% 503, 1% 429 with Retry-After: 1, 1% connection resets, and every request answered
# 503 for 30 s from 40% of the soak (minute 4 of 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

minutes=10 rate=1000 signal=TERM out="" bin_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --signal) signal=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ "$signal" == TERM || "$signal" == KILL ]] || { echo "soak.sh: --signal must be TERM or KILL" >&2; exit 2; }
out=${out:-$(mktemp -d /tmp/mr-soak.XXXXXX)}
mkdir -p "$out"
if [[ -z "$bin_dir" ]]; then
  swift build -c release --scratch-path .build-release --product mr-replay >/dev/null
  swift build -c release --scratch-path .build-release --product mr-collector >/dev/null
  bin_dir=.build-release/release
fi
replay="$root/$bin_dir/mr-replay"; collector="$root/$bin_dir/mr-collector"
[[ "$bin_dir" = /* ]] && { replay="$bin_dir/mr-replay"; collector="$bin_dir/mr-collector"; }

# Enough events to keep the run busy for the whole soak, less the down window and restarts.
events=$(( rate * (minutes * 60 - 60) ))
echo "soak: $minutes min, $events events at $rate/s, stop signal SIG$signal, out $out"
python3 Scripts/bench/gen_events.py "$events" "$out/events.ndjson" --seed 11

"$collector" --port 0 --write-key soak-key --store "$out/store.ndjson" \
  --fail-rate 0.02 --fail-status 503 --throttle-rate 0.01 --retry-after 1 --reset-rate 0.01 \
  --down-after-ms $(( minutes * 60000 * 4 / 10 )) --down-for-ms 30000 --seed 7 >"$out/collector.out" 2>"$out/collector.err" &
collector_pid=$!
trap 'kill "$collector_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$out/collector.out" 2>/dev/null && break; sleep 0.1; done
port=$(head -1 "$out/collector.out" | sed 's/.*://')

cat >"$out/soak.yaml" <<EOF
ingestion:
  host: http://127.0.0.1:$port
  write_key: soak-key
  timeout_seconds: 5
rate_limit:
  events_per_second: $rate
retry:
  max_attempts: 30
state_dir: $out/state
EOF

# Samples: "who segment elapsed_s rss_kb fds", every 2 s, for mr-replay and the collector.
sample() { # pid who segment start
  local rss fds
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 0
  fds=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
  [[ -n "$rss" ]] && echo "$2 $3 $(( $(date +%s) - $4 )) $rss $fds" >>"$out/samples.txt"
}

: >"$out/samples.txt"; : >"$out/segments.txt"
soak_start=$(date +%s)
deadline=$(( soak_start + minutes * 60 ))
segment=0
while :; do
  segment=$((segment + 1))
  now=$(date +%s)
  last=0; (( now + 60 >= deadline )) && last=1
  "$replay" run --config "$out/soak.yaml" "$out/events.ndjson" >"$out/run-$segment.out" 2>"$out/run-$segment.err" &
  pid=$!
  started=$(date +%s)
  # The last segment runs to the end (at most 10 more minutes); the others are stopped at 60 s.
  limit=$(( last == 1 ? 600 : 60 ))
  while kill -0 "$pid" 2>/dev/null && (( $(date +%s) - started < limit )); do
    sample "$pid" replay "$segment" "$soak_start"; sample "$collector_pid" collector "$segment" "$soak_start"
    sleep 2
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -s "$signal" "$pid"
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { echo "soak: run $segment did not stop within 60 s of SIG$signal" >&2; kill -9 "$pid"; }
  fi
  set +e; wait "$pid"; code=$?; set -e
  cp "$out/state/report.json" "$out/report-$segment.json" 2>/dev/null || true
  echo "$segment $code $(( $(date +%s) - started ))" >>"$out/segments.txt"
  echo "soak: run $segment exited $code after $(( $(date +%s) - started )) s"
  [[ $code == 0 ]] && break
  (( last == 1 )) && { echo "soak: the last run did not finish" >&2; break; }
done

curl -s "http://127.0.0.1:$port/stats" >"$out/collector-stats.json" || true
kill -TERM "$collector_pid"; wait "$collector_pid" || true
trap - EXIT
python3 Scripts/soak/check.py "$out" --signal "$signal"
