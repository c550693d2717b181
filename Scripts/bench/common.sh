# Shared by the bench scripts (sourced, not run): the release binaries and the count-only sink.

# Exits 2 unless Debian's /usr/bin/time is there (the scripts time each process with it).
need_time() {
  [ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 2; }
}

# Builds mr-replay and mr-collector in release mode in $1 (the package root).
build_release() {
  (cd "$1" && swift build -c release --product mr-replay >/dev/null && swift build -c release --product mr-collector >/dev/null)
}

# Checks for /usr/bin/time, builds the release binaries in $ROOT unless BUILD=0, and sets
# MR_REPLAY and MR_COLLECTOR (the caller's environment wins, to bench other builds).
release_binaries() {
  need_time
  if [ "${BUILD:-1}" = 1 ]; then
    build_release "$ROOT"
  fi
  MR_REPLAY="${MR_REPLAY:-$ROOT/.build/release/mr-replay}"
  MR_COLLECTOR="${MR_COLLECTOR:-$ROOT/.build/release/mr-collector}"
}

# Starts `$1 --count-only` (an mr-collector binary) on a free loopback port, its output in
# directory $2; sets SINK_PID and SINK_URL once it listens, or exits 1. The caller stops it.
start_count_sink() {
  "$1" --port 0 --write-key K --count-only > "$2/collector.out" 2> "$2/collector.err" &
  SINK_PID=$!
  SINK_URL=""
  for _ in $(seq 1 100); do
    SINK_URL="$(head -n1 "$2/collector.out" 2>/dev/null | sed -n 's#^mr-collector listening on \(http://.*\)$#\1#p')"
    [ -n "$SINK_URL" ] && return 0
    sleep 0.1
  done
  echo "the collector did not start" >&2
  exit 1
}

# Runs a command under /usr/bin/time, appending "$2 FIELDS" (FIELDS in /usr/bin/time format $3)
# to file $1; the command is the rest of the arguments. An mr-replay run that completes, with or
# without dead letters (exit status 0 or 1), is measured; any other status is reported and fails.
time_run() {
  local times="$1" label="$2" format="$3" status=0
  shift 3
  /usr/bin/time -f "$label $format" -a -o "$times" "$@" > /dev/null 2>&1 || status=$?
  if [ "$status" -gt 1 ]; then
    echo "$label: $* exited with status $status" >&2
    return 1
  fi
}

# Times one dry run and one end-to-end run of an mr-replay binary (time_run): labels "$2dry" and
# "$2e2e", /usr/bin/time format $3, into file $1. $4 is the binary, $5 the dry run's config (its
# state directory $6 is emptied first), $7 the end-to-end config (run with --fresh), $8 the input.
time_dry_and_e2e() {
  rm -rf "$6"
  time_run "$1" "${2}dry" "$3" "$4" run --dry-run --output /dev/null --config "$5" "$8"
  time_run "$1" "${2}e2e" "$3" "$4" run --config "$7" --fresh --quiet "$8"
}
