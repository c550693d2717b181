#!/usr/bin/env bash
# Alternating A/B of two mr-replay binaries on one NDJSON file, both measured in the same run:
#
#   Scripts/bench/ab.sh OLD_MR_REPLAY NEW_MR_REPLAY FILE [ROUNDS] [MR_COLLECTOR]
#
# `many.sh --rounds ROUNDS FILE OLD NEW` (ROUNDS default 5): each round a dry run and an
# end-to-end run of each binary, in alternating order, into one `mr-collector --count-only`; per
# binary and step the median and minimum CPU, NEW's median over OLD's, the median wall time and
# peak RSS. Alternating keeps the two sides under the same machine conditions, which separate
# bench runs on a shared VM do not (see docs/benchmark.md).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: ab.sh OLD_MR_REPLAY NEW_MR_REPLAY FILE [ROUNDS] [MR_COLLECTOR]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
exec bash "$ROOT/Scripts/bench/many.sh" --rounds "${4:-5}" --collector "${5:-$ROOT/.build/release/mr-collector}" "$3" "$1" "$2"
