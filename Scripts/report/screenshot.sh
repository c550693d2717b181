#!/usr/bin/env bash
# Smoke test of report.html in a real browser: runs mr-replay against the local collector with
# faults on (5 % 503s, 429s with Retry-After: 2, and one event the collector rejects), renders
# the run's report.html in headless Chromium, and checks the screenshot: not blank, and the
# delivered, progress and retry lines drawn. Also checks that the page parses as HTML with one
# chart per series.
#
#   Scripts/report/screenshot.sh [--save PATH.png]     (e.g. --save docs/report.png)
#
# Installs Debian's chromium when it is missing and the script runs as root.
set -euo pipefail
cd "$(dirname "$0")/../.."
SAVE=""
if [ "${1:-}" = "--save" ]; then SAVE="$2"; fi

if ! command -v chromium >/dev/null; then
    if [ "$(id -u)" = 0 ]; then apt-get install -y chromium >/dev/null; else echo "chromium is not installed" >&2; exit 2; fi
fi
swift build --product mr-replay >/dev/null
swift build --product mr-collector >/dev/null
BIN="$(swift build --show-bin-path)"
WORK="$(mktemp -d)"
COLLECTOR_PID=""
cleanup() { [ -n "$COLLECTOR_PID" ] && kill "$COLLECTOR_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

python3 Scripts/bench/gen_events.py 30000 "$WORK/events.ndjson" --seed 7 >/dev/null
# One event over the collector's 32 KiB limit: the collector answers 400, the engine bisects
# down to it and gives it up (rejected_400).
python3 -c 'import json; print(json.dumps({"type":"track","event":"Big","anonymousId":"big-1","timestamp":"2026-11-20T10:00:00Z","properties":{"blob":"x"*40000}}))' >> "$WORK/events.ndjson"

"$BIN/mr-collector" --write-key k --fail-rate 0.05 --fail-status 503 --throttle-rate 0.01 --retry-after 2 --seed 3 \
    > "$WORK/collector.out" 2>"$WORK/collector.err" &
COLLECTOR_PID=$!
for _ in $(seq 100); do grep -q listening "$WORK/collector.out" 2>/dev/null && break; sleep 0.1; done
URL="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$WORK/collector.out" | head -1)"
[ -n "$URL" ] || { echo "the collector did not start" >&2; exit 1; }

cat > "$WORK/replay.yaml" <<YAML
ingestion: { host: $URL, write_key: k }
batching: { max_events: 100, max_event_bytes: 100000, max_bytes: 2000000, concurrency: 4 }
rate_limit: { events_per_second: 4000 }
retry: { min_wait_ms: 50, circuit_breaker: { failure_threshold: 20, cooldown_ms: 200, max_cooldown_ms: 1000, jitter: 0 } }
state_dir: $WORK/state
YAML
set +e
"$BIN/mr-replay" run --config "$WORK/replay.yaml" --quiet "$WORK/events.ndjson"
CODE=$?
set -e
echo "mr-replay exited $CODE (1: completed with the rejected event dead-lettered)"
PAGE="$WORK/state/report.html"
[ -s "$PAGE" ] || { echo "no report.html" >&2; exit 1; }

python3 - "$PAGE" <<'PY'
import sys
from html.parser import HTMLParser
class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.series, self.polylines, self.rows = [], 0, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'figure' and 'data-series' in a: self.series.append(a['data-series'])
        if tag == 'polyline': self.polylines += 1
        if tag == 'tr': self.rows += 1
p = Page()
p.feed(open(sys.argv[1], encoding='utf-8').read())
print(f'report.html: charts {p.series}, {p.polylines} lines, {max(p.rows - 1, 0)} problem batches')
assert p.series == ['delivered', 'responses', 'retries', 'progress'], p.series
assert p.polylines >= 6 and p.rows > 1
PY

chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1450 \
    --screenshot="$WORK/report.png" "file://$PAGE" 2>/dev/null
# Blue: delivered (and the 200 line); green: input progress; orange: retries.
python3 Scripts/report/png_check.py "$WORK/report.png" '#1f77b4:400' '#2ca02c:400' '#ff7f0e:40'
if [ -n "$SAVE" ]; then cp "$WORK/report.png" "$SAVE"; echo "saved $SAVE"; fi
