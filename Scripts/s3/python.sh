#!/usr/bin/env bash
# Prints the path of a Python interpreter that has moto's server (moto[server]: flask) and boto3,
# for the S3 tests (ObjectStorageTests, ReplayKitTests) and Scripts/bench/s3.sh: this machine's python3
# when it has them, else one in a virtual environment under the repository's .build/moto-venv (or
# $MR_REPLAY_MOTO_VENV), made (and `pip install 'moto[server]' boto3`) on first use. On Debian without
# the venv module, python3-venv is installed first when running as root.
set -euo pipefail
if python3 -c 'import moto.server, flask, boto3' 2>/dev/null; then
  command -v python3
  exit 0
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${MR_REPLAY_MOTO_VENV:-$root/.build/moto-venv}"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9  # two test suites may ask at once: one makes the environment, the other waits for it
if ! "$venv/bin/python" -c 'import moto.server, flask, boto3' 2>/dev/null; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    { apt-get update -qq && apt-get install -y -qq python3-venv; } >&2
  fi
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet 'moto[server]>=5,<6' boto3 >&2
fi
echo "$venv/bin/python"
