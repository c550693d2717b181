#!/usr/bin/env bash
# Installs the system libraries the package links against, then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! pkg-config --exists yaml-0.1 sqlite3 zlib 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq libyaml-dev libsqlite3-dev zlib1g-dev pkg-config
fi
swift build --build-tests
swift test --skip-build --parallel --num-workers 2
