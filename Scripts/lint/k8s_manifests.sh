#!/usr/bin/env bash
# Validates the deployment files in deploy/ offline, without a cluster or a container engine:
#   1. every Kubernetes manifest under deploy/kubernetes/ (recursively) against the Kubernetes
#      JSON schemas bundled in kubernetes-validate (PyPI), strict (unknown fields are errors),
#      for the oldest Kubernetes the manifests support and the newest the pinned release bundles.
#      A resource whose kind has no schema (a typo in kind or apiVersion) is an error too;
#   2. what the schemas cannot see: an Indexed Job's completions, parallelism, `--shards N` and
#      metrics file name agree (for `partition`, completions, parallelism and `--workers M`); CronJobs use concurrencyPolicy Forbid; the ConfigMaps and Secrets
#      the pods reference are defined; the mr-replay configurations (in ConfigMaps, and
#      deploy/systemd/*.yaml) use only keys documented in docs/config.md;
#   3. with an mr-replay binary (MR_REPLAY_BIN, else .build/debug or .build/release, which
#      Scripts/test.sh builds): every option the manifests and units pass to mr-replay is one
#      that `mr-replay <command> --help` lists, and every configuration loads
#      (`mr-replay validate --config`); skipped with a note without a binary;
#   4. the systemd units with `systemd-analyze verify` (any message is an error); skipped with a
#      note where systemd-analyze is missing.
# kubernetes-validate is installed into a venv under ${XDG_CACHE_HOME:-~/.cache}/mr-replay-ci
# unless python3 already imports the pinned version.
#
# Usage: Scripts/lint/k8s_manifests.sh [DEPLOY_DIR]   (default: deploy)
# Prints "deploy manifests: N files valid" and exits 0, or names each problem and exits 1.
set -uo pipefail
cd "$(dirname "$0")/../.."

deploy_dir=${1:-deploy}
kv_version=1.37.0
# 1.29: backoffLimitPerIndex (and FailIndex) are on by default from 1.29.
k8s_versions=(1.29 1.37)

fail() { echo "deploy manifests: FAILED: $*"; exit 1; }

[[ -d $deploy_dir/kubernetes ]] || fail "no $deploy_dir/kubernetes directory"
mapfile -t manifests < <(find "$deploy_dir/kubernetes" -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)
[[ ${#manifests[@]} -gt 0 ]] || fail "no manifests under $deploy_dir/kubernetes"
mapfile -t units < <(find "$deploy_dir/systemd" -maxdepth 1 -type f \( -name '*.service' -o -name '*.timer' \) 2>/dev/null | sort)
mapfile -t configs < <(find "$deploy_dir/systemd" -maxdepth 1 -type f -name '*.yaml' 2>/dev/null | sort)

# --- kubernetes-validate ---------------------------------------------------------------------
python=python3
if ! python3 -c "import kubernetes_validate, sys; sys.exit(kubernetes_validate.__version__ != '$kv_version')" 2>/dev/null; then
  venv=${XDG_CACHE_HOME:-$HOME/.cache}/mr-replay-ci/venv
  python=$venv/bin/python
  if ! "$python" -c "import kubernetes_validate, sys; sys.exit(kubernetes_validate.__version__ != '$kv_version')" 2>/dev/null; then
    { [[ -x $python ]] || python3 -m venv "$venv"; } >/dev/null 2>&1 || fail "cannot create a venv in $venv"
    if ! pip_out=$("$python" -m pip install -q --disable-pip-version-check "kubernetes-validate==$kv_version" 2>&1); then
      tail -5 <<<"$pip_out"
      fail "cannot install kubernetes-validate==$kv_version from PyPI into $venv"
    fi
  fi
fi

version_flags=()
for v in "${k8s_versions[@]}"; do version_flags+=(-k "$v"); done
out=$("$python" -m kubernetes_validate --strict "${version_flags[@]}" "${manifests[@]}" 2>&1)
status=$?
# INFO lines are resources that passed; anything else (ERROR, WARN for a kind without a schema,
# FATAL, a YAML error) fails.
problems=$(grep -v '^INFO ' <<<"$out" | grep -v '^$')
if [[ $status -ne 0 || -n $problems ]]; then
  echo "$problems"
  fail "Kubernetes schema validation (kubernetes-validate $kv_version --strict, Kubernetes ${k8s_versions[*]})"
fi

# --- what the schemas cannot see, and the mr-replay binary -----------------------------------
binary=${MR_REPLAY_BIN:-}
if [[ -z $binary ]]; then
  for candidate in .build/debug/mr-replay .build/release/mr-replay; do
    if [[ -x $candidate ]]; then binary=$candidate; break; fi
  done
fi
checked_binary=""
"$python" - "$binary" "${manifests[@]}" -- "${units[@]}" -- "${configs[@]}" <<'PY' || fail "consistency checks (see above)"
import os, re, shlex, subprocess, sys, tempfile
import yaml

args = sys.argv[1:]
binary = args.pop(0)
sep = args.index('--'); manifests = args[:sep]; rest = args[sep + 1:]
sep = rest.index('--'); units = rest[:sep]; vm_configs = rest[sep + 1:]
problems = []

# docs/config.md's key table: "| `ingestion.host` | ..." and "| `enrichment.context.app` / `.device` / `.os` |".
documented = set()
for line in open('docs/config.md', encoding='utf-8'):
    if not line.startswith('| `'):
        continue
    names = re.findall(r'`([a-z0-9_.]+)`', line.split('|')[1])
    first = names[0]
    documented.add(first)
    for extra in names[1:]:
        if extra.startswith('.'):
            documented.add(first.rsplit('.', 1)[0] + extra)


def check_config(node, where, path=''):
    """Every key path of an mr-replay configuration is documented (or lies inside a documented
    free-form mapping such as enrichment.context.app)."""
    if isinstance(node, dict):
        for key, value in node.items():
            child = f'{path}.{key}' if path else str(key)
            if any(d.startswith(child + '.') for d in documented):
                check_config(value, where, child)
            elif child not in documented:
                problems.append(f'{where}: key {child!r} is not in docs/config.md')


configs = []  # (where, text)
for where in vm_configs:
    text = open(where, encoding='utf-8').read()
    check_config(yaml.safe_load(text), where)
    configs.append((where, text))

docs = []
for path in manifests:
    for doc in yaml.safe_load_all(open(path, encoding='utf-8')):
        if doc:
            docs.append((path, doc))

defined = {(d.get('kind'), d.get('metadata', {}).get('name')) for _, d in docs}
invocations = []  # (where, argv after the binary)

for path, doc in docs:
    kind = doc.get('kind')
    where = f"{path} ({kind} {doc.get('metadata', {}).get('name')})"
    if kind == 'ConfigMap':
        for key, text in (doc.get('data') or {}).items():
            if key.endswith(('.yaml', '.yml')):
                parsed = yaml.safe_load(text)
                if isinstance(parsed, dict) and 'ingestion' in parsed:
                    check_config(parsed, f'{where} {key}')
                    configs.append((f'{where} {key}', text))
    job = None
    if kind == 'CronJob':
        if doc['spec'].get('concurrencyPolicy') != 'Forbid':
            problems.append(f'{where}: concurrencyPolicy must be Forbid (two runs on one state directory must never overlap)')
        job = doc['spec']['jobTemplate']['spec']
    elif kind == 'Job':
        job = doc['spec']
    pod = job['template']['spec'] if job else (doc['spec']['template']['spec'] if kind == 'Deployment' else None)
    if pod is None:
        continue
    for volume in pod.get('volumes', []):
        if 'configMap' in volume and ('ConfigMap', volume['configMap']['name']) not in defined:
            problems.append(f"{where}: ConfigMap {volume['configMap']['name']} is not defined under deploy/kubernetes")
    for container in pod.get('initContainers', []) + pod.get('containers', []):
        for env in container.get('env', []):
            ref = env.get('valueFrom', {}).get('secretKeyRef')
            if ref and ('Secret', ref['name']) not in defined:
                problems.append(f"{where}: Secret {ref['name']} is not defined under deploy/kubernetes")
        if 'mr-replay' not in container.get('image', '').rsplit('/', 1)[-1]:
            continue
        argv = [str(a) for a in container.get('command', [])[1:] + container.get('args', [])]
        invocations.append((where, argv))
        if job and job.get('completionMode') == 'Indexed' and argv[:1] == ['partition']:
            # The partition stage: its M workers are the Job's completions (N is the shard count).
            workers = int(argv[argv.index('--workers') + 1]) if '--workers' in argv else None
            if not (job.get('completions') == job.get('parallelism') == workers):
                problems.append(f"{where}: completions ({job.get('completions')}), parallelism ({job.get('parallelism')}) "
                                f'and --workers ({workers}) must be equal')
        elif job and job.get('completionMode') == 'Indexed' and '--shards' in argv:
            shards = int(argv[argv.index('--shards') + 1])
            if not (job.get('completions') == job.get('parallelism') == shards):
                problems.append(f"{where}: completions ({job.get('completions')}), parallelism ({job.get('parallelism')}) "
                                f'and --shards ({shards}) must be equal')
            if '--metrics-file' in argv and f'-of-{shards}' not in argv[argv.index('--metrics-file') + 1]:
                problems.append(f'{where}: the --metrics-file name should say -of-{shards} (one file per shard)')

for unit in units:
    for line in open(unit, encoding='utf-8'):
        if line.startswith('ExecStart='):
            argv = shlex.split(line.split('=', 1)[1])
            if argv and argv[0].endswith('/mr-replay'):
                invocations.append((unit, argv[1:]))

if binary:
    helps = {}
    for where, argv in invocations:
        words = []
        for a in argv:
            if a.startswith('-'):
                break
            words.append(a)
        command = tuple(words[:2] if words[:1] == ['dead-letter'] else words[:1])
        if command not in helps:
            result = subprocess.run([binary, *command, '--help'], capture_output=True, text=True)
            helps[command] = set(re.findall(r'--[a-z][a-z0-9-]*', result.stdout + result.stderr))
        for flag in (a.split('=', 1)[0] for a in argv if a.startswith('--')):
            if flag not in helps[command]:
                problems.append(f"{where}: `mr-replay {' '.join(command)}` has no option {flag} ({binary})")
    with tempfile.TemporaryDirectory() as tmp:
        sample = os.path.join(tmp, 'events.ndjson')
        with open(sample, 'w', encoding='utf-8') as f:
            f.write('{"type":"track","event":"Lint","anonymousId":"a-1","timestamp":"2024-05-01T10:00:00.000Z"}\n')
        env = dict(os.environ, MR_STATE_DIR=os.path.join(tmp, 'state'), STATE_DIRECTORY=os.path.join(tmp, 'state'))
        env.pop('MR_WRITE_KEY', None)
        for n, (where, text) in enumerate(configs):
            config = os.path.join(tmp, f'config-{n}.yaml')
            with open(config, 'w', encoding='utf-8') as f:
                f.write(text)
            result = subprocess.run([binary, 'validate', '--config', config, sample], capture_output=True, text=True, env=env)
            if result.returncode == 2:
                problems.append(f'{where}: mr-replay validate refuses the configuration: {(result.stderr or result.stdout).strip()}')

for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
PY
[[ -n $binary ]] && checked_binary="options and configurations checked with $binary"

# --- systemd units -----------------------------------------------------------------------------
units_note="systemd units not verified: systemd-analyze is not installed"
if [[ ${#units[@]} -gt 0 ]] && command -v systemd-analyze >/dev/null; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # The binary is not installed here: point ExecStart at a stub so that verify checks the rest.
  printf '#!/bin/sh\nexit 0\n' >"$tmp/mr-replay" && chmod +x "$tmp/mr-replay"
  copies=()
  for unit in "${units[@]}"; do
    sed "s#/usr/local/bin/mr-replay#$tmp/mr-replay#g" "$unit" >"$tmp/$(basename "$unit")"
    copies+=("$tmp/$(basename "$unit")")
  done
  # verify only warns (exit 0) about unknown keys: any message at all is an error.
  out=$(systemd-analyze verify --man=no --generators=no "${copies[@]}" 2>&1)
  status=$?
  if [[ $status -ne 0 || -n $out ]]; then
    echo "${out//$tmp\//$deploy_dir/systemd/}"
    fail "systemd-analyze verify"
  fi
  units_note="systemd-analyze verify"
elif [[ ${#units[@]} -eq 0 ]]; then
  units_note="no systemd units"
fi
[[ -n $checked_binary ]] || echo "deploy manifests: note: options and configurations not checked (no mr-replay binary; Scripts/test.sh builds .build/debug/mr-replay)"
[[ $units_note == "systemd units not verified"* ]] && echo "deploy manifests: note: $units_note"

count=$((${#manifests[@]} + ${#units[@]} + ${#configs[@]}))
details="Kubernetes ${k8s_versions[*]} schemas, strict; $units_note"
[[ -n $checked_binary ]] && details+="; $checked_binary"
echo "deploy manifests: $count files valid ($details)"
