#!/usr/bin/env bash
# The README's test command: installs the system libraries the package links against, builds
# everything (including mr-replay and mr-collector, which the end-to-end tests run), then runs
# every test and prints a one-line total.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! pkg-config --exists yaml-0.1 sqlite3 zlib libdeflate 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq libyaml-dev libsqlite3-dev zlib1g-dev libdeflate-dev pkg-config
fi
swift build --build-tests
log=$(mktemp)
set +e
swift test --skip-build --disable-swift-testing 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
summary=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?" "$log" | tail -1)
rm -f "$log"
if [[ -n "$summary" ]]; then
  total=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
  failed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")
  skipped=0
  if grep -qE "[0-9]+ tests? skipped" <<<"$summary"; then
    skipped=$(sed -E 's/.* ([0-9]+) tests? skipped.*/\1/' <<<"$summary")
  fi
  echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
fi
exit "$status"
