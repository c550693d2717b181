#!/usr/bin/env python3
"""A tiny count-only ingestion sink on loopback, the fallback when mr-collector is missing.

Usage: count_sink.py [--port 0] [--write-key K]

Prints `mr-collector listening on http://127.0.0.1:PORT` as its first line (the same line as
mr-collector, so the benchmark can use either). POST /v1/batch accepts a Segment batch (optionally
gzip-encoded), counts its events and answers 200; a wrong write key (HTTP basic user) gets 401.
GET /stats answers {"events": N, "requests": M}.
"""
import argparse
import base64
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATS = {"events": 0, "requests": 0, "rejected": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    write_key = None

    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.split("?")[0] == "/stats":
            with LOCK:
                self.reply(200, dict(STATS))
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.split("?")[0] != "/v1/batch":
            return self.reply(404, {"error": "not found"})
        if self.write_key is not None and not self.authorized():
            with LOCK:
                STATS["rejected"] += 1
            return self.reply(401, {"error": "bad write key"})
        try:
            if self.headers.get("Content-Encoding", "").lower() == "gzip":
                body = gzip.decompress(body)
            batch = json.loads(body)["batch"]
        except Exception as exc:  # a malformed batch is the client's fault
            return self.reply(400, {"error": str(exc)})
        with LOCK:
            STATS["events"] += len(batch)
            STATS["requests"] += 1
        self.reply(200, {"success": True})

    def authorized(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            return False
        try:
            user = base64.b64decode(auth[6:]).decode().split(":", 1)[0]
        except Exception:
            return False
        return user == self.write_key


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--write-key")
    args = ap.parse_args()
    Handler.write_key = args.write_key
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print("mr-collector listening on http://127.0.0.1:%d" % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
