#!/usr/bin/env python3
"""Prints the diagram of the package's targets and their edges, from `swift package dump-package`.

Usage: Scripts/lint/target_graph.py [--check docs/ARCHITECTURE.md]
With --check, exits 1 when the diagram in that file (the block after 'Targets and their edges')
differs from Package.swift, or when a target's Swift files import a package module that is not
among the target's dependencies, direct or indirect. An incremental build finds such a module
already built; a clean one may build it later and fail.
"""
import glob
import json
import os
import re
import subprocess
import sys

LAYERS = [
    ('executables', ['mr-replay', 'mr-collector']),
    ('command line', ['CommandLineSupport']),
    ('run pipeline', ['ReplayKit']),
    ('configuration and report', ['ReplayConfiguration', 'RunReporting']),
    ('input conversion', ['VendorExports', 'EventTransforms', 'InputShapes']),
    ('test doubles', ['ServerTesting', 'MetaRouterTesting', 'TestSupport', 'ServerTestHarness']),
    ('servers', ['Collector', 'CountOnlySink']),
    ('SDK client', ['MetaRouter']),
    ('delivery engine', ['MetaRouterDelivery']),
    ('object storage', ['ObjectStorage']),
    ('shared', ['IngestionChecks', 'SimpleAnalytics', 'ServerLifecycle', 'SQLiteSupport', 'GzipCodec', 'ZstdCodec', 'Timestamps',
                'SystemIO', 'JSONCore', 'Digests', 'EventLoopExecution', 'SegmentAPI', 'SystemTLS']),
    ('C shims', ['CPrefetch', 'CSHA1']),
    ('system libraries', ['CYAML', 'CSQLite', 'CDeflate', 'CZstd', 'CJQ', 'CZlib', 'CLibCrypto', 'CLibSSL']),
    ('build plugins', ['BuildInfoPlugin']),
]


def dump_package() -> dict:
    return json.loads(subprocess.run(['swift', 'package', 'dump-package'], capture_output=True, check=True,
                                     text=True).stdout)


def dependency_names(target: dict) -> list:
    names = []
    for d in target.get('dependencies', []):
        for kind in ('byName', 'target', 'product'):
            if kind in d:
                names.append(d[kind][0])
    return names


def undeclared_imports(package: dict) -> list:
    """(target, module, file) for each import of one of the package's own targets that is not
    among the importing target's dependencies, direct or indirect."""
    targets = {t['name']: t for t in package['targets']}
    root = os.path.dirname(os.path.abspath(__file__)) + '/../..'

    def closure(name: str, seen: set) -> set:
        for dep in dependency_names(targets.get(name, {})):
            if dep not in seen:
                seen.add(dep)
                closure(dep, seen)
        return seen

    found = []
    importing = re.compile(r'^(?:@[\w()]+ )*import (?:struct |class |enum |func |protocol )?(\w+)', re.M)
    for name, target in targets.items():
        if target['type'] in ('system-target', 'plugin'):
            continue
        folder = target.get('path') or ('Tests/' if target['type'] == 'test' else 'Sources/') + name
        reachable = closure(name, set())
        for path in sorted(glob.glob(f'{root}/{folder}/**/*.swift', recursive=True)):
            for module in sorted(set(importing.findall(open(path, encoding='utf-8').read()))):
                if module in targets and module != name and module not in reachable:
                    found.append((name, module, os.path.relpath(path, root)))
    return found


def diagram(package: dict) -> str:
    targets = {t['name']: t for t in package['targets'] if t['type'] != 'test'}
    products = {p['name'] for p in package['products'] if 'library' in p['type'] or 'executable' in p['type']}
    lines = []
    width = max(len(n) for n in targets) + 2
    for layer, names in LAYERS:
        lines.append(f'{layer}:')
        for name in names:
            t = targets.pop(name)
            local, external = [], []
            for d in t.get('dependencies', []):
                if 'byName' in d:
                    local.append(d['byName'][0])
                elif 'target' in d:
                    local.append(d['target'][0])
                elif 'product' in d:
                    external.append(d['product'][0])
            label = name + (' *' if name in products else '')
            arrow = ' ──> ' + ', '.join(local) if local else ''
            ext = f'   [{", ".join(external)}]' if external else ''
            lines.append(f'  {label:<{width}}{arrow}{ext}'.rstrip())
    assert not targets, f'targets missing from the layers: {sorted(targets)}'
    return '\n'.join(lines)


def main() -> int:
    package = dump_package()
    text = diagram(package)
    if sys.argv[1:2] == ['--check']:
        status = 0
        doc = open(sys.argv[2], encoding='utf-8').read()
        if text not in doc:
            print(f'{sys.argv[2]}: the target diagram differs from Package.swift; it should read:\n{text}')
            status = 1
        for target, module, path in undeclared_imports(package):
            print(f'{path}: imports {module}, which is not among the dependencies of {target} in Package.swift')
            status = 1
        return status
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
