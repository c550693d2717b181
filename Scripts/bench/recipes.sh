#!/usr/bin/env bash
# CPU per event of reading other tools' exports and shapes, against the NDJSON path for the same
# events, in one sitting (release build, dry run to /dev/null: no network).
#
# Usage: Scripts/bench/recipes.sh [--records N] [--repeat R] [--vendors a,b,...]
#
# For each vendor: N records of its export (gen_exports.py, from the fixtures), dry-run with
# --from VENDOR; then the Segment events that run wrote, dry-run as NDJSON. The ratio is the
# recipe run's CPU per event over the NDJSON run's. Then the shapes (the same NDJSON events as a
# JSON array, zstd, zip of gzip members) and transforms (declarative steps; a jq step) over the
# NDJSON events. Each row's two runs alternate R times and each figure is the median of its R
# (`measure.py`, user + system CPU): the ratio is measured at one moment of a shared machine.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
. "$ROOT/Scripts/bench/common.sh"
RECORDS=200000
REPEAT=3
VENDORS=amplitude,mixpanel,ga4,mparticle,posthog,rudderstack
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --vendors) VENDORS="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
release_binaries
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Runs a dry run once; prints its CPU seconds (user + system).
cpu_once() {
  python3 "$ROOT/Scripts/bench/measure.py" -- "$@" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["cpu_seconds"])'
}
# Prints the number of events in an NDJSON file.
events() { wc -l < "$1" | tr -d ' '; }
# One table row: NAME, EVENTS, then the two dry runs' arguments separated by `--vs--`. The two
# alternate R times (A, B, A, B, ...), so both see the machine as it is at that moment; prints
# each one's median CPU per event in µs and their ratio.
row() {
  local name=$1 n=$2; shift 2
  local a=() b=() seen=0 arg
  for arg in "$@"; do
    if [ "$arg" = "--vs--" ]; then seen=1; elif [ $seen = 0 ]; then a+=("$arg"); else b+=("$arg"); fi
  done
  local ta=() tb=()
  for _ in $(seq 1 "$REPEAT"); do
    ta+=("$(cpu_once "${a[@]}")")
    tb+=("$(cpu_once "${b[@]}")")
  done
  python3 -c 'import statistics,sys; n=int(sys.argv[2]); r=int(sys.argv[3]); v=[float(x) for x in sys.argv[4:]]; a=statistics.median(v[:r])/n*1e6; b=statistics.median(v[r:])/n*1e6; print(f"| {sys.argv[1]} | {n:,} | {a:.2f} | {b:.2f} | {a/b:.2f}x |")' \
    "$name" "$n" "$REPEAT" "${ta[@]}" "${tb[@]}"
}

printf 'state_dir: %s/state\n' "$WORK" > "$WORK/plain.yaml"
echo "| input | events | µs of CPU per event | NDJSON path, same events | ratio |"
echo "|---|---|---|---|---|"
IFS=, read -ra LIST <<< "$VENDORS"
for vendor in "${LIST[@]}"; do
  python3 "$ROOT/Scripts/bench/gen_exports.py" "$vendor" "$RECORDS" "$WORK/$vendor.export"
  "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --from "$vendor" --output "$WORK/$vendor.ndjson" "$WORK/$vendor.export" 2>/dev/null || true
  row "$vendor export (\`--from $vendor\`)" "$(events "$WORK/$vendor.ndjson")" \
    "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --from "$vendor" --output /dev/null "$WORK/$vendor.export" --vs-- \
    "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --output /dev/null "$WORK/$vendor.ndjson"
done

# Shapes and transforms over one set of Segment events (the first vendor's, as sent).
base="$WORK/${LIST[0]}.ndjson"
n="$(events "$base")"
PLAIN=("$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --output /dev/null "$base")
python3 - "$base" "$WORK/events.json" <<'PY'
import sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    out.write("[\n" + ",\n".join(line.rstrip("\n") for line in f if line.strip()) + "\n]\n")
PY
zstd -q -3 -f -o "$WORK/events.ndjson.zst" "$base" 2>/dev/null || python3 -c 'import sys; sys.exit(0)'
python3 - "$base" "$WORK/events.zip" <<'PY'
import gzip, sys, zipfile
lines = open(sys.argv[1], "rb").read().splitlines(keepends=True)
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as z:
    for k in range(4):
        z.writestr(f"hour-{k}.json.gz", gzip.compress(b"".join(lines[k::4]), 6))
PY
gzip -6 -c "$base" > "$WORK/events.ndjson.gz"
row "NDJSON, gzip" "$n" "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --output /dev/null "$WORK/events.ndjson.gz" --vs-- "${PLAIN[@]}"
if [ -f "$WORK/events.ndjson.zst" ]; then
  row "NDJSON, zstd" "$n" "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --output /dev/null "$WORK/events.ndjson.zst" --vs-- "${PLAIN[@]}"
fi
row "zip of 4 gzip members" "$n" "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --output /dev/null "$WORK/events.zip" --vs-- "${PLAIN[@]}"
row "JSON array" "$n" "$MR_REPLAY" run --dry-run --config "$WORK/plain.yaml" --output /dev/null "$WORK/events.json" --vs-- "${PLAIN[@]}"
cat > "$WORK/declarative.yaml" <<YAML
state_dir: $WORK/state
transform:
  - rename: {from: properties.total, to: properties.revenue}
  - set: {path: context.library.name, value: migration}
  - drop: {event: Test Event}
YAML
cat > "$WORK/jq.yaml" <<YAML
state_dir: $WORK/state
transform:
  - jq: '.properties.plan = "pro"'
YAML
row "NDJSON + 3 declarative steps" "$n" "$MR_REPLAY" run --dry-run --config "$WORK/declarative.yaml" --output /dev/null "$base" --vs-- "${PLAIN[@]}"
row "NDJSON + one jq step" "$n" "$MR_REPLAY" run --dry-run --config "$WORK/jq.yaml" --output /dev/null "$base" --vs-- "${PLAIN[@]}"
