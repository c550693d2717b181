#!/usr/bin/env bash
# Scripts/bench.sh for two mr-replay builds in one sitting, alternating, and one table of both:
#
#   Scripts/bench/compare.sh OLD_MR_REPLAY NEW_MR_REPLAY [SITTINGS] [MR_COLLECTOR]
#
# Runs `Scripts/bench.sh --no-build` SITTINGS times for each binary (default 2), in the order old,
# new, new, old, old, new, ... so that neither side always runs first or last, each into its own
# directory under bench-results/compare-<time>/. The data files, the Python peer and the orjson
# script are the same for both. Prints every figure of bench.sh's table for each run, the median
# per side, and new / old of the medians. CPU figures are the client's user + sys (see
# measure.py); on a shared VM only figures from one sitting compare (see docs/benchmark.md).
set -euo pipefail
OLD="$1"; NEW="$2"; SITTINGS="${3:-2}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COLLECTOR="${4:-$ROOT/.build/release/mr-collector}"
for bin in "$OLD" "$NEW" "$COLLECTOR"; do
  [ -x "$bin" ] || { echo "compare.sh: $bin is not an executable" >&2; exit 2; }
done
OUT="$ROOT/bench-results/compare-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
# bench.sh keeps its generated data under --out, and its Python virtualenv there unless
# BENCH_VENV says otherwise: every run shares the default ones (bench-results/data and
# bench-results/venv), so both sides read the same files and the peers are installed once.
mkdir -p "$ROOT/bench-results/data"
export BENCH_VENV="$ROOT/bench-results/venv"
order=()
for s in $(seq 1 "$SITTINGS"); do
  if [ $((s % 2)) -eq 1 ]; then order+=(old new); else order+=(new old); fi
done
k=0
for side in "${order[@]}"; do
  k=$((k + 1))
  bin="$OLD"; [ "$side" = new ] && bin="$NEW"
  dir="$OUT/$k-$side"
  mkdir -p "$dir"
  ln -s "$ROOT/bench-results/data" "$dir/data"
  echo "== run $k: $side ($bin)"
  if ! MR_REPLAY="$bin" MR_COLLECTOR="$COLLECTOR" bash "$ROOT/Scripts/bench.sh" --no-build --out "$dir" > "$dir/bench.log" 2>&1; then
    echo "compare.sh: bench.sh failed for $side; its output is $dir/bench.log" >&2
    exit 1
  fi
done
python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
runs = {"old": [], "new": []}
for d in sorted(glob.glob(os.path.join(out, "*-*")), key=lambda p: int(os.path.basename(p).split("-")[0])):
    side = os.path.basename(d).split("-")[1]
    with open(os.path.join(d, "latest.json")) as f:
        runs[side].append(json.load(f))
rows = [
    ("dry run, CPU per event (µs)", lambda r: r["cpu_us_per_event"].get("dry_run")),
    ("end to end 1M, CPU per event (µs)", lambda r: r["cpu_us_per_event"].get("e2e_big")),
    ("end to end 100k, CPU per event (µs)", lambda r: r["cpu_us_per_event"].get("e2e")),
    ("end to end 100k gzip, CPU per event (µs)", lambda r: r["cpu_us_per_event"].get("e2e_gzip")),
    ("Python library, CPU per event (µs)", lambda r: r["cpu_us_per_event"].get("python_peer")),
    ("orjson script, CPU per event (µs)", lambda r: r["cpu_us_per_event"].get("orjson_peer")),
    ("Python CPU / mr-replay CPU", lambda r: r["ratios"].get("python_cpu_over_mr_replay_cpu")),
    ("orjson CPU / mr-replay CPU", lambda r: r["ratios"].get("orjson_cpu_over_mr_replay_cpu")),
    ("mr-replay / Python, wall", lambda r: r["ratios"].get("e2e_vs_python")),
    ("gzip on / off, time", lambda r: r["ratios"].get("gzip_on_over_off_time")),
    ("peak RSS 1M (MB)", lambda r: (r["peak_rss_kb"].get("big") or 0) / 1024 or None),
]
def fmt(v):
    return "-" if v is None else ("%.2f" % v)
print("| figure | old runs | new runs | old median | new median | new / old |")
print("|---|---|---|---|---|---|")
for name, get in rows:
    vals = {s: [v for v in (get(r) for r in runs[s]) if v is not None] for s in runs}
    med = {s: statistics.median(vals[s]) if vals[s] else None for s in vals}
    ratio = med["new"] / med["old"] if med["old"] and med["new"] else None
    print("| %s | %s | %s | %s | %s | %s |" % (
        name, ", ".join(fmt(v) for v in vals["old"]), ", ".join(fmt(v) for v in vals["new"]),
        fmt(med["old"]), fmt(med["new"]), "-" if ratio is None else "%.2fx" % ratio))
print("\nruns and their bench.sh logs:", out)
PY
