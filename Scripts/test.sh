#!/usr/bin/env bash
# The README's test command: installs the system libraries the package links against, builds
# everything (including mr-replay and mr-collector, which the end-to-end tests run), then runs
# every test, XCTest and Swift Testing, and prints a one-line total.
set -euo pipefail
cd "$(dirname "$0")/.."
# libjq-dev has no pkg-config file: its header says whether it is there.
if ! pkg-config --exists yaml-0.1 sqlite3 zlib libdeflate libzstd libcrypto 2>/dev/null || [ ! -f /usr/include/jq.h ]; then
  apt-get update -qq && apt-get install -y -qq libyaml-dev libsqlite3-dev zlib1g-dev libdeflate-dev libzstd-dev libjq-dev libssl-dev pkg-config
fi
swift build --build-tests
log=$(mktemp)
set +e
swift test --skip-build 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=0; failed=0; skipped=0
# XCTest: "Executed N tests, with F failures (U unexpected) ..." (and "S tests skipped").
summary=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?" "$log" | tail -1 || true)
if [[ -n "$summary" ]]; then
  total=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
  xfailed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")
  xskipped=0
  if grep -qE "[0-9]+ tests? skipped" <<<"$summary"; then
    xskipped=$(sed -E 's/.* ([0-9]+) tests? skipped.*/\1/' <<<"$summary")
  fi
  passed=$((total - xfailed - xskipped)); failed=$xfailed; skipped=$xskipped
fi
# Swift Testing: one "✔ Test name() passed after …" / "✘ Test name() failed after …" / "➜ Test
# name() skipped" line per test function (colour codes removed first).
plain=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log")
tests=$(grep -E "^. Test " <<<"$plain" | grep -vE "^. Test run " || true)
st_passed=$(grep -cE " passed after " <<<"$tests" || true)
st_failed=$(grep -cE " failed after " <<<"$tests" || true)
st_skipped=$(grep -cE " skipped" <<<"$tests" || true)
# Tests run in parallel and their lines can run into each other, so per-test lines may be lost;
# the run's own last line ("Test run with N tests in M suites passed/failed ...") has the total.
run_line=$(grep -E "^. Test run with [0-9]+ tests?" <<<"$plain" | tail -1 || true)
if [[ -n "$run_line" ]]; then
  st_total=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$run_line")
  if grep -q " failed after" <<<"$run_line" && [[ $st_failed -eq 0 ]]; then st_failed=1; fi
  st_passed=$((st_total - st_failed - st_skipped))
fi
passed=$((passed + st_passed)); failed=$((failed + st_failed)); skipped=$((skipped + st_skipped))
rm -f "$log"
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
