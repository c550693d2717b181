#!/usr/bin/env python3
"""Replays an NDJSON file through Segment's official Python library (segment-analytics-python).

Usage: segment_peer.py FILE --host URL --write-key K [--upload-size 100]

Each line becomes one call of track / identify / group / page / screen / alias with the line's
fields, so the library builds, batches (upload_size events per POST {host}/v1/batch) and sends
them exactly as it would in production. Ends with flush() and shutdown(). Prints one JSON line:
{"events": enqueued, "dropped": refused by the library, "seconds": wall time}.
"""
import argparse
import json
import sys
import time
from datetime import datetime

from segment.analytics.client import Client


def parse_time(text):
    if text is None:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def send(client, e):
    kind = e.get("type")
    common = dict(context=e.get("context"), timestamp=parse_time(e.get("timestamp")), message_id=e.get("messageId"))
    user, anon = e.get("userId"), e.get("anonymousId")
    if kind == "track":
        return client.track(user_id=user, anonymous_id=anon, event=e.get("event"), properties=e.get("properties"), **common)
    if kind == "identify":
        return client.identify(user_id=user, anonymous_id=anon, traits=e.get("traits"), **common)
    if kind == "group":
        return client.group(user_id=user, anonymous_id=anon, group_id=e.get("groupId"), traits=e.get("traits"), **common)
    if kind == "page":
        return client.page(user_id=user, anonymous_id=anon, category=e.get("category"), name=e.get("name"),
                           properties=e.get("properties"), **common)
    if kind == "screen":
        return client.screen(user_id=user, anonymous_id=anon, category=e.get("category"), name=e.get("name"),
                             properties=e.get("properties"), **common)
    if kind == "alias":
        return client.alias(previous_id=e.get("previousId"), user_id=user, **common)
    raise ValueError("unknown event type %r" % kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--host", required=True)
    ap.add_argument("--write-key", required=True)
    ap.add_argument("--upload-size", type=int, default=100)
    args = ap.parse_args()

    with open(args.file, encoding="utf-8") as f:
        lines = f.readlines()
    start = time.monotonic()
    # The queue holds every event, so nothing is dropped for being produced faster than sent.
    client = Client(args.write_key, host=args.host, upload_size=args.upload_size,
                    max_queue_size=len(lines) + 1000, max_retries=3, timeout=30)
    sent = dropped = 0
    for line in lines:
        if not line.strip():
            continue
        ok, _ = send(client, json.loads(line))
        if ok:
            sent += 1
        else:
            dropped += 1
    client.flush()
    client.shutdown()
    print(json.dumps({"events": sent, "dropped": dropped, "seconds": round(time.monotonic() - start, 3)}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
