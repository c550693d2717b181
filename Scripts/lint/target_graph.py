#!/usr/bin/env python3
"""Prints the diagram of the package's targets and their edges, from `swift package dump-package`.

Usage: Scripts/lint/target_graph.py [--check docs/ARCHITECTURE.md]
With --check, exits 1 when the diagram in that file (the block after 'Targets and their edges')
differs from Package.swift.
"""
import json
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
                'SystemIO', 'JSONCore', 'Digests', 'EventLoopExecution', 'SegmentAPI']),
    ('C shims', ['CPrefetch', 'CSHA1']),
    ('system libraries', ['CYAML', 'CSQLite', 'CDeflate', 'CZstd', 'CJQ', 'CZlib', 'CLibCrypto']),
    ('build plugins', ['BuildInfoPlugin']),
]


def diagram() -> str:
    package = json.loads(subprocess.run(['swift', 'package', 'dump-package'], capture_output=True, check=True,
                                        text=True).stdout)
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
    text = diagram()
    if sys.argv[1:2] == ['--check']:
        doc = open(sys.argv[2], encoding='utf-8').read()
        if text not in doc:
            print(f'{sys.argv[2]}: the target diagram differs from Package.swift; it should read:\n{text}')
            return 1
        return 0
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
