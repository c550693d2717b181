#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer, and runs them.
#
#   Fuzz/fuzz.sh [--seconds N] [--parallel] [--build-only | --coverage] [TARGET...]
#
#   --seconds N    fuzz each target for N seconds (default 30)
#   --parallel     run the targets at the same time, one process each (for long runs)
#   --build-only   build, do not run
#   --coverage     do not fuzz: run each target's corpus once and print the line coverage of the
#                  project sources it compiles (llvm-cov; a separate, uninstrumented-by-ASan build)
#   TARGET         one or more of the targets below (default: all)
#
# Environment: FUZZ_OPT (default "-O -g"; "-Onone -gline-tables-only" for fuller stack traces:
# with "-Onone -g" the Swift 6.3 driver crashes on a single-object module build),
# FUZZ_MAX_LEN (default 4096), FUZZ_ARGS (extra libFuzzer flags), FUZZ_BUILD (default Fuzz/.build).
#
# Each target is a harness, Fuzz/<target>/*.swift plus Fuzz/Common/*.swift (and the tests'
# Tests/TestSupport/SeededRandom.swift), whose
# `LLVMFuzzerTestOneInput` libFuzzer calls with every input. The script compiles it, and the
# project modules it tests, with `swiftc -sanitize=fuzzer,address` straight over the module sources
# (no SwiftPM: NIO, BoringSSL and the other dependencies are neither needed nor rebuilt). Modules
# are cached under $FUZZ_BUILD by a hash of their sources and flags.
#
# A run reads the committed seeds (Fuzz/corpus/<target>) and past failures (Fuzz/regressions/
# <target>), grows a working corpus in $FUZZ_BUILD/corpus/<target> (kept between runs, never
# committed) and stops at the first crash, over-read or mismatch, saving the input under
# $FUZZ_BUILD/artifacts/<target>/. Exit status: 0 when every target ran clean. See docs/fuzzing.md.
set -euo pipefail
shopt -s nullglob

cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ=$ROOT/Fuzz
BUILD=${FUZZ_BUILD:-$FUZZ/.build}
read -r -a OPT <<<"${FUZZ_OPT:--O -g}"
INCLUDES=(-I "$ROOT/Sources/CSQLite" -I "$ROOT/Sources/CPrefetch/include" -I "$ROOT/Sources/CSHA1/include" -I "$FUZZ/Support/CCompressZlib"
  -I "$ROOT/Sources/CZstd" -I "$ROOT/Sources/CJQ" -I "$ROOT/Sources/CZlib" -I "$ROOT/Sources/CLibCrypto")
SWIFTFLAGS=(-swift-version 6 -package-name mr_replay -sanitize=fuzzer,address "${OPT[@]}" -use-ld=lld "${INCLUDES[@]}")
# The suffix of the binaries ("-coverage" for --coverage builds).
VARIANT=""

# ---------------------------------------------------------------------------------------------
# The targets. Adding one: a function `target_<name>` that builds the modules it needs with
# `module` (in dependency order) and then its harness with `harness`, and <name> in TARGETS;
# plus Fuzz/<name>/main.swift, a few seeds in Fuzz/corpus/<name>/ and optionally
# Fuzz/dict/<name>.dict.
TARGETS=(jsoncore linepreparer snapshot exports httpanswers)

# JSONCore on its own: validate, parse and layout against each other, scanNested, the editor
# against a model, and Foundation's JSONSerialization (with the tests' documented allowances).
target_jsoncore() {
  module JSONCore Sources/JSONCore
  harness jsoncore Fuzz/jsoncore Tests/JSONCoreTests/FoundationComparison.swift
}

# A whole line through ReplayKit's enricher with an in-memory identity store. ReplayKit is
# compiled from the folders that hold the line's path and what they refer to (not Run, Validate,
# the dry runner, the config loader, the dead-letter retry or the s3:// inputs and the resolver that lists
# them, which need NIO, swift-log or ObjectStorage: Fuzz/Support/ReplayKitS3 stands in for the
# S3 input types the file inputs' code names), the configuration's model (ReplayConfiguration's
# ReplayConfig, InputShaping, S3Inputs and UsageError, not its YAML loader), the report's counts
# (RunReporting's RunReport and what it holds, not the page, history or metrics), MetaRouter from
# the folders that need no NIO (metarouter_core), SimpleAnalytics (the payload check),
# SQLiteSupport (the identity store's SQLite wrapper) and Digests (libcrypto) whole,
# and the package's `GzipCodec` (NIO and compress-nio) is replaced by a stand-in (Fuzz/Support).
target_linepreparer() {
  module JSONCore Sources/JSONCore
  metarouter_core
  module Digests Sources/Digests
  module GzipCodec Fuzz/Support/GzipCodec
  module SimpleAnalytics Sources/SimpleAnalytics
  module SQLiteSupport Sources/SQLiteSupport
  module ZstdCodec Sources/ZstdCodec
  module VendorExports Sources/VendorExports Sources/VendorExports/{Support,Recipes}
  module EventTransforms Sources/EventTransforms
  module InputShapes Sources/InputShapes/{Common,Zip,JSONArray,CSV,CSV/Mapping}
  module ReplayConfiguration Sources/ReplayConfiguration/{ReplayConfig,InputShaping,S3Inputs,UsageError}.swift
  module RunReporting Sources/RunReporting/{RunReport,RunReport+Acknowledgments,RunReport+Resources,ExitStatus,BatchProblem,CountText,ProblemTally}.swift
  module ReplayKit --testable Sources/ReplayKit/{Enrichment,State,Sharding} \
    Sources/ReplayKit/Input/{ByteStream,InputReader,InputReader+Lines,InputRules,InputSource}.swift \
    Sources/ReplayKit/Input/{InputReader+Shapes,InputReader+Formats,InputReader+Zip,RecordConverter}.swift \
    Sources/ReplayKit/Input/{InputError,InputFailure,SimpleAnalyticsInput,SimpleAnalyticsMapping,SnapshotInput}.swift \
    Fuzz/Support/ReplayKitS3 Sources/ReplayKit/DeadLetter/DeadLetter{Writer,Record,Files}.swift \
    Sources/ReplayKit/Run/{RunOptions,TimeWindow}.swift Sources/ReplayKit/Checkpoints/SettledLines.swift
  harness linepreparer Fuzz/linepreparer
}

# MetaRouter's streaming snapshot reader on arbitrary bytes, the same bytes wrapped as a snapshot in
# both key orders, and each cut anywhere: nothing lost (the elements and the tail are the file's
# bytes), and the same result whatever size the reads are.
target_exports() {
  module JSONCore Sources/JSONCore
  module Timestamps Sources/Timestamps
  module VendorExports Sources/VendorExports Sources/VendorExports/{Support,Recipes}
  module EventTransforms Sources/EventTransforms
  module InputShapes Sources/InputShapes/{Common,Zip,JSONArray,CSV,CSV/Mapping}
  harness exports Fuzz/exports
}

# The lean transport's HTTP/1.1 answer reader (MetaRouterDelivery's HTTPResponseParser and the head
# parser it uses, which need no NIO), fed each input whole and in pieces: the same answers, the same
# failure, however the bytes are cut; never a read past what it was given.
target_httpanswers() {
  module MetaRouterDelivery --testable Sources/MetaRouterDelivery/Transport/{HTTPResponseParser,HTTPAnswerHead}.swift
  harness httpanswers Fuzz/httpanswers
}

target_snapshot() {
  module JSONCore Sources/JSONCore
  metarouter_core
  harness snapshot Fuzz/snapshot
}

# The two MetaRouter modules without the folders that need NIO, AsyncHTTPClient or swift-log
# (the engine's Delivery and Transport, the client's Client): of MetaRouterDelivery, the
# identifiers (messageIds, FNV-1a) and the lane routing the reader shares with the engine
# (Delivery/LaneRouting.swift), with a stand-in for the transport security and engine settings
# that the config holds (Fuzz/Support/MetaRouterSettings); of MetaRouter, the event model,
# identity, storage (with SystemIO, its write loop) and the disk queue.
metarouter_core() {
  module Timestamps Sources/Timestamps
  module SystemIO Sources/SystemIO
  module MetaRouterDelivery Sources/MetaRouterDelivery/Identifiers \
    Sources/MetaRouterDelivery/Delivery/LaneRouting.swift Fuzz/Support/MetaRouterSettings
  module MetaRouter Sources/MetaRouter Sources/MetaRouter/{Model,Identity,Storage,DiskQueue}
}

# ---------------------------------------------------------------------------------------------
# Building.

# The current target's modules: search paths, objects and project sources, filled by `module`.
MODULE_DIRS=()
MODULE_OBJECTS=()
MODULE_KEYS=""
MODULE_SOURCES=()
BUILD_FAILED=0

# The .swift files of the arguments: a directory stands for its own *.swift files (not those of
# its subdirectories).
swift_files() {
  local s
  for s in "$@"; do
    if [[ -d $s ]]; then printf '%s\n' "$s"/*.swift; else printf '%s\n' "$s"; fi
  done
}

# A short hash of the flags, the given keys and the named files' paths and contents.
content_key() {
  local keys=$1; shift
  { printf '%s\n' "${SWIFTFLAGS[*]}" "$keys" "$@"; cat "$@"; } | sha256sum | cut -c1-16
}

# module NAME [--testable] SOURCE...: compiles the Swift module NAME from SOURCE (directories or
# files) into one sanitized object, unless an identical build exists, and adds it to the target.
module() {
  [[ $BUILD_FAILED -eq 0 ]] || return 1  # a module it needs did not build
  local name=$1; shift
  local extra=()
  if [[ ${1:-} == --testable ]]; then extra=(-enable-testing); shift; fi
  local files
  mapfile -t files < <(swift_files "$@")
  local key dir
  key=$(content_key "$MODULE_KEYS ${extra[*]}" "${files[@]}")
  dir=$BUILD/modules/$name-$key
  if [[ ! -f $dir/$name.o ]]; then
    echo "fuzz: compiling module $name (${#files[@]} files)"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    # Warnings are shown only when the build fails (the modules are built, and warned about, by
    # SwiftPM anyway).
    if ! swiftc "${SWIFTFLAGS[@]}" "${extra[@]}" "${MODULE_DIRS[@]/#/-I}" -module-name "$name" \
      -parse-as-library -wmo -emit-module -emit-module-path "$dir.tmp/$name.swiftmodule" \
      -c -o "$dir.tmp/$name.o" "${files[@]}" 2>"$dir.tmp/errors"; then
      cat "$dir.tmp/errors" >&2
      explain_missing "$name" "$dir.tmp/errors"
      BUILD_FAILED=1
      return 1
    fi
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
    # Keep the six newest builds of each module (targets may build different variants of one).
    ls -dt "$BUILD/modules/$name"-* | tail -n +7 | xargs -r rm -rf
  fi
  MODULE_DIRS+=("$dir")
  MODULE_OBJECTS+=("$dir/$name.o")
  MODULE_KEYS+=" $key"
  local f
  for f in "${files[@]}"; do [[ $f == Sources/* ]] && MODULE_SOURCES+=("$ROOT/$f"); done
  return 0
}

# explain_missing NAME ERRORS: after a failed module build, says where the names the compiler
# could not find are declared, as a hint for the source lists above.
explain_missing() {
  echo "fuzz: module $1 does not compile from the sources listed in Fuzz/fuzz.sh." >&2
  local n where
  for n in $(grep -oE "cannot find (type )?'[A-Za-z_][A-Za-z0-9_]*' in scope" "$2" | cut -d"'" -f2 | sort -u); do
    where=$(grep -rlE "^ *(public |package |internal |fileprivate )?(final )?(struct|enum|class|protocol|actor|typealias|func) $n\b" \
      "$ROOT/Sources" --include='*.swift' | sed "s|^$ROOT/||" | head -3 | tr '\n' ' ')
    echo "fuzz:   '$n' is declared in: ${where:-(nowhere under Sources/)}" >&2
  done
  echo "fuzz: add the file or its folder to the target's list (or, if Sources/ is being edited, retry later)." >&2
}

# harness TARGET SOURCE...: links Fuzz/Common, the SOURCEs and the target's modules into
# $BUILD/bin/TARGET (plus $VARIANT), unless an identical build exists.
harness() {
  [[ $BUILD_FAILED -eq 0 ]] || return 1  # a module it needs did not build
  local name=$1 target=$1$VARIANT; shift
  local files
  mapfile -t files < <(swift_files "$FUZZ/Common" "$ROOT/Tests/TestSupport/SeededRandom.swift" "$@")
  local key
  key=$(content_key "$MODULE_KEYS" "${files[@]}")
  mkdir -p "$BUILD/bin"
  if [[ ! -x $BUILD/bin/$target || $(cat "$BUILD/bin/$target.key" 2>/dev/null) != "$key" ]]; then
    echo "fuzz: linking $target"
    rm -f "$BUILD/bin/$target.key"
    if ! swiftc "${SWIFTFLAGS[@]}" "${MODULE_DIRS[@]/#/-I}" -module-name "Fuzz_$name" -parse-as-library \
      "${files[@]}" "${MODULE_OBJECTS[@]}" -o "$BUILD/bin/$target"; then
      BUILD_FAILED=1
      return 1
    fi
    echo "$key" >"$BUILD/bin/$target.key"
  fi
}

# build_target TARGET: builds one target; fails if any of its modules or its harness did not build
# (checked through BUILD_FAILED, since `set -e` does not apply inside a function called with `||`).
build_target() {
  MODULE_DIRS=() MODULE_OBJECTS=() MODULE_KEYS="" MODULE_SOURCES=() BUILD_FAILED=0
  "target_$1" || true
  [[ $BUILD_FAILED -eq 0 ]] || { echo "fuzz: $1 did not build" >&2; return 1; }
}

# ---------------------------------------------------------------------------------------------
# Running.

# run_target TARGET SECONDS: fuzzes one target; prints one summary line; fails on any finding.
run_target() {
  local target=$1 seconds=$2
  local work=$BUILD/corpus/$target artifacts=$BUILD/artifacts/$target log=$BUILD/logs/$target.log
  mkdir -p "$work" "$artifacts" "$BUILD/logs"
  local dirs=("$work" "$FUZZ/corpus/$target")
  [[ -d $FUZZ/regressions/$target ]] && dirs+=("$FUZZ/regressions/$target")
  local dict=()
  [[ -f $FUZZ/dict/$target.dict ]] && dict=(-dict="$FUZZ/dict/$target.dict")
  local extra=()
  read -r -a extra <<<"${FUZZ_ARGS:-}"
  # SWIFT_BACKTRACE=enable=no: Swift's runtime backtracer (on by default on Linux) catches the
  # fatal signal of a failed check or an ASan abort first, and under ASan it can hang instead of
  # exiting, so the run would never end and never save the crashing input. Without it, libFuzzer's
  # own handler prints the report, saves the input and exits.
  # ASAN_OPTIONS: leaks are not failures (the harnesses keep scratch storage in globals on
  # purpose), and reports are symbolized with the toolchain's llvm-symbolizer.
  local status=0
  SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS=detect_leaks=0:symbolize=1:external_symbolizer_path="$SYMBOLIZER" \
    "$BUILD/bin/$target" -max_total_time="$seconds" -print_final_stats=1 -detect_leaks=0 \
    -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=30 -rss_limit_mb=3072 -artifact_prefix="$artifacts/" \
    "${dict[@]}" "${extra[@]}" "${dirs[@]}" >"$log" 2>&1 || status=$?
  summarize "$target" "$log" "$status"
}

# summarize TARGET LOG STATUS: one line with the run's figures, or the failure report.
summarize() {
  local target=$1 log=$2 status=$3
  local execs cov ft rate total
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  total=$(grep -oE 'Loaded 1 modules +\([0-9]+ inline 8-bit counters' "$log" | grep -oE '\([0-9]+' | tr -d '(' | head -1)
  if [[ $status -eq 0 ]]; then
    echo "fuzz $target: ok, ${execs:-?} executions, cov ${cov:-?} of ${total:-?} edges, ft ${ft:-?}, ${rate:-?} exec/s"
    return 0
  fi
  echo "fuzz $target: FAILED (exit $status); the end of $log:"
  grep -vE '^(#[0-9]+|INFO:|stat::|[[:space:]]*NEW_FUNC)' "$log" | tail -60 | sed 's/^/  | /'
  local crash
  for crash in $(sed -n 's/.*Test unit written to //p' "$log"); do
    echo "fuzz $target: input saved as $crash"
    echo "fuzz $target: reproduce with: SWIFT_BACKTRACE=enable=no $BUILD/bin/$target $crash"
  done
  return 1
}

# coverage_target TARGET: builds TARGET with source-based coverage (and libFuzzer, without ASan),
# runs every input of its corpora once, and prints llvm-cov's report for the project sources.
coverage_target() {
  local target=$1 dir=$BUILD/coverage/$1
  SWIFTFLAGS=(-swift-version 6 -package-name mr_replay -sanitize=fuzzer "${OPT[@]}" -use-ld=lld "${INCLUDES[@]}"
    -profile-generate -profile-coverage-mapping)
  VARIANT=-coverage
  build_target "$target" || return 1
  rm -rf "$dir" && mkdir -p "$dir"
  local dirs=("$BUILD/corpus/$target" "$FUZZ/corpus/$target")
  [[ -d $FUZZ/regressions/$target ]] && dirs+=("$FUZZ/regressions/$target")
  mkdir -p "$BUILD/corpus/$target"
  LLVM_PROFILE_FILE="$dir/%p.profraw" SWIFT_BACKTRACE=enable=no \
    "$BUILD/bin/$target-coverage" -runs=0 -max_len="${FUZZ_MAX_LEN:-4096}" "${dirs[@]}" >"$dir/run.log" 2>&1 || {
    echo "fuzz $target: the coverage run failed; see $dir/run.log"
    return 1
  }
  local tools
  tools=$(dirname "$(command -v swiftc)")
  "$tools/llvm-profdata" merge -sparse "$dir"/*.profraw -o "$dir/all.profdata"
  echo "fuzz $target: line coverage of the project sources by $(grep -oE 'INITED.*corp: [0-9]+' "$dir/run.log" | grep -oE '[0-9]+$' || echo '?') inputs"
  "$tools/llvm-cov" report "$BUILD/bin/$target-coverage" -instr-profile="$dir/all.profdata" "${MODULE_SOURCES[@]}" |
    sed "s|$ROOT/||"
}

# Debian packages the modules link against (SQLite; libcrypto for Digests; zlib for the GzipCodec
# stand-in's CCompressZlib), installed when missing, as Scripts/test.sh does.
ensure_system_libraries() {
  pkg-config --exists sqlite3 zlib libcrypto 2>/dev/null && return 0
  echo "fuzz: installing libsqlite3-dev zlib1g-dev libssl-dev"
  apt-get update -qq && apt-get install -y -qq libsqlite3-dev zlib1g-dev libssl-dev pkg-config
}

main() {
  local seconds=30 parallel=0 build_only=0 coverage=0 selected=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      --seconds) seconds=$2; shift 2 ;;
      --parallel) parallel=1; shift ;;
      --build-only) build_only=1; shift ;;
      --coverage) coverage=1; shift ;;
      -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; return 0 ;;
      -*) echo "fuzz: unknown option $1" >&2; return 2 ;;
      *) selected+=("$1"); shift ;;
    esac
  done
  [[ ${#selected[@]} -gt 0 ]] || selected=("${TARGETS[@]}")
  local t
  for t in "${selected[@]}"; do
    declare -F "target_$t" >/dev/null || { echo "fuzz: no target $t (targets: ${TARGETS[*]})" >&2; return 2; }
  done
  command -v swiftc >/dev/null || { echo "fuzz: swiftc not found" >&2; return 2; }
  SYMBOLIZER=$(dirname "$(command -v swiftc)")/llvm-symbolizer
  ensure_system_libraries
  if [[ $coverage -eq 1 ]]; then
    for t in "${selected[@]}"; do coverage_target "$t" || return 1; done
    return 0
  fi
  for t in "${selected[@]}"; do build_target "$t" || return 1; done
  [[ $build_only -eq 1 ]] && return 0

  local failed=0
  mkdir -p "$BUILD/logs"
  if [[ $parallel -eq 1 ]]; then
    local pids=()
    for t in "${selected[@]}"; do run_target "$t" "$seconds" >"$BUILD/logs/$t.summary" & pids+=($!); done
    local i
    for i in "${!pids[@]}"; do
      wait "${pids[$i]}" || failed=1
      cat "$BUILD/logs/${selected[$i]}.summary"
    done
  else
    for t in "${selected[@]}"; do run_target "$t" "$seconds" || failed=1; done
  fi
  return "$failed"
}

main "$@"
