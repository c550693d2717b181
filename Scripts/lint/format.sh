#!/usr/bin/env bash
# The formatter check CI runs: `swift format lint` (it ships with the toolchain) with the
# project's .swift-format, over every Swift file. To fix what it reports:
#   swift format format -i -r Package.swift Sources Tests Fuzz Plugins
set -euo pipefail
cd "$(dirname "$0")/../.."
swift format lint --strict --configuration .swift-format -r Package.swift Sources Tests Fuzz Plugins
