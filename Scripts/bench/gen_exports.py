#!/usr/bin/env python3
"""Writes COUNT records of a vendor's raw export, in the shape of the project's fixtures.

Usage: gen_exports.py VENDOR COUNT OUT

Each record is one of Tests/VendorExportsTests/Fixtures/VENDOR.ndjson (written from the vendor's
documentation), in turn, with its ids made distinct: event ids (insert ids, uuids, messageIds)
unique per record, user and device ids one of 5,000 per id field, so that identities repeat as
in a real export. Records keep the fixture's sizes and field sets.
"""
import json
import os
import sys

EVENT_ID_KEYS = ("insert_id", "uuid", "messageid", "message_id", "source_message_id")


def vary(value, key, n):
    """The value with its ids made distinct for record n."""
    if isinstance(value, dict):
        return {k: vary(v, k, n) for k, v in value.items()}
    if isinstance(value, list):
        return [vary(v, key, n) for v in value]
    if isinstance(value, str) and key:
        lowered = key.lower()
        if any(k in lowered for k in EVENT_ID_KEYS):
            return f"{value}-{n}" if value else value
        if "id" in lowered and not lowered.endswith(("_ids", "type", "valid")):
            return f"{value}-{n % 5000}" if value else value
    return value


def main():
    vendor, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "Tests", "VendorExportsTests", "Fixtures", f"{vendor}.ndjson")
    templates = [json.loads(line) for line in open(path) if line.strip()]
    with open(out, "w") as f:
        for n in range(count):
            record = vary(templates[n % len(templates)], "", n)
            f.write(json.dumps(record, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
