#!/usr/bin/env python3
"""Checks a PNG screenshot of report.html: not blank, and every chart colour drawn.

Usage: png_check.py SCREENSHOT.png COLOUR:MIN [COLOUR:MIN ...]   (colours as #rrggbb)
Exit 0 when the image is not blank (more than a handful of distinct colours) and at least MIN
pixels are within a small distance of each COLOUR. A legend swatch is 144 pixels, so a MIN above
that means a line of the colour is drawn, not only its legend.
Pure Python (zlib): decodes 8-bit RGB and RGBA PNGs, the kinds Chromium writes.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, width = 8, b'', 0
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and colour in (2, 6), f'unsupported PNG (depth {depth}, colour type {colour})'
            channels = 3 if colour == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    path = sys.argv[1]
    wanted = {}
    for arg in sys.argv[2:]:
        colour, minimum = arg.rsplit(':', 1)
        c = colour.lstrip('#').lower()
        wanted[(int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))] = int(minimum)
    width, height, channels, rows = decode(path)
    counts, seen = {w: 0 for w in wanted}, set()
    for row in rows:
        for x in range(0, width * channels, channels):
            rgb = (row[x], row[x + 1], row[x + 2])
            seen.add(rgb)
            for w in wanted:
                if max(abs(rgb[0] - w[0]), abs(rgb[1] - w[1]), abs(rgb[2] - w[2])) <= 24:
                    counts[w] += 1
    shown = {'#%02x%02x%02x' % w: n for w, n in counts.items()}
    print(f'{path}: {width}x{height}, {len(seen)} distinct colours; pixels near each colour: {shown}')
    if len(seen) < 10:
        print('FAIL: the screenshot is blank')
        return 1
    missing = ['#%02x%02x%02x (%d < %d)' % (*w, counts[w], m) for w, m in wanted.items() if counts[w] < m]
    if missing:
        print('FAIL: not drawn: ' + ', '.join(missing))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
