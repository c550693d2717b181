#!/usr/bin/env python3
"""The fast baseline a user would write instead: orjson, one keep-alive http.client connection,
batches of 100 POSTed to {host}/v1/batch with the write key as Basic auth.

Usage: orjson_peer.py FILE --host URL --write-key K [--batch 100]
Prints one JSON line: {"events": sent, "dropped": refused by the endpoint, "seconds": wall time}.
"""
import argparse, base64, http.client, sys, time, urllib.parse
from datetime import datetime, timezone

import orjson


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--host", required=True)
    ap.add_argument("--write-key", required=True)
    ap.add_argument("--batch", type=int, default=100)
    args = ap.parse_args()
    url = urllib.parse.urlsplit(args.host)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=30)
    headers = {"Content-Type": "application/json",
               "Authorization": "Basic " + base64.b64encode((args.write_key + ":").encode()).decode()}
    start, sent, dropped, batch = time.monotonic(), 0, 0, []

    def post(events):
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        conn.request("POST", url.path.rstrip("/") + "/v1/batch", orjson.dumps({"batch": events, "sentAt": now}), headers)
        r = conn.getresponse()
        r.read()
        return r.status // 100 == 2

    with open(args.file, "rb") as f:
        for line in f:
            if line.strip():
                batch.append(orjson.loads(line))
            if len(batch) == args.batch:
                ok = post(batch)
                sent, dropped, batch = sent + ok * len(batch), dropped + (not ok) * len(batch), []
    if batch:
        ok = post(batch)
        sent, dropped = sent + ok * len(batch), dropped + (not ok) * len(batch)
    print(orjson.dumps({"events": sent, "dropped": dropped, "seconds": round(time.monotonic() - start, 3)}).decode())
    sys.stdout.flush()


if __name__ == "__main__":
    main()
