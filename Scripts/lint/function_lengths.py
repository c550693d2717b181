#!/usr/bin/env python3
"""Lists Swift functions, initializers and closures-as-properties longer than a limit.

Usage: Scripts/lint/function_lengths.py [--max 80] [PATH ...]   (default: Sources)
Counts the lines from the declaration to its closing brace. Exit 1 when any is over the limit.
"""
import re
import sys
from pathlib import Path

DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|static|class|final|override|mutating|nonisolated|convenience|required|@inlinable|@usableFromInline)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|(?:var|let)\s+\w+[^=]*\{\s*$)')


def strip(line: str) -> str:
    """The line without string literals and // comments (good enough for brace counting)."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split('//', 1)[0]


def lengths(path: Path):
    lines = path.read_text(encoding='utf-8').splitlines()
    i = 0
    while i < len(lines):
        m = DECL.match(lines[i])
        if not m or '{' not in strip(lines[i]) and not any('{' in strip(l) for l in lines[i + 1:i + 6]):
            i += 1
            continue
        depth, started, j = 0, False, i
        in_multiline = False
        while j < len(lines):
            text = lines[j]
            if text.count('"""') % 2 == 1:
                in_multiline = not in_multiline
                j += 1
                continue
            if in_multiline:
                j += 1
                continue
            s = strip(text)
            depth += s.count('{') - s.count('}')
            if s.count('{'):
                started = True
            if started and depth <= 0:
                break
            j += 1
        yield m.group(1).strip(), i + 1, j - i + 1
        i += 1


def main() -> int:
    args = sys.argv[1:]
    limit = 80
    if args[:1] == ['--max']:
        limit = int(args[1])
        args = args[2:]
    roots = [Path(a) for a in (args or ['Sources'])]
    over = []
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob('*.swift'))
        for f in files:
            for name, line, count in lengths(f):
                if count > limit:
                    over.append((count, f'{f}:{line}', name))
    for count, where, name in sorted(over, reverse=True):
        print(f'{count:4d}  {where}  {name}')
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
