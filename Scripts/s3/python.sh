#!/usr/bin/env bash
# Prints the path of a Python interpreter that has moto's server (moto[server]: flask) and boto3,
# for the ObjectStorage tests: this machine's python3 when it has them, else one in a virtual
# environment under ~/.cache/mr-replay/moto-venv, made (and `pip install 'moto[server]'`) on first use.
set -euo pipefail
if python3 -c 'import moto.server, flask, boto3' 2>/dev/null; then
  command -v python3
  exit 0
fi
venv="${XDG_CACHE_HOME:-$HOME/.cache}/mr-replay/moto-venv"
if ! "$venv/bin/python" -c 'import moto.server, flask, boto3' 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet 'moto[server]>=5,<6' boto3 >&2
fi
echo "$venv/bin/python"
