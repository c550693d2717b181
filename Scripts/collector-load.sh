#!/usr/bin/env bash
# Measures how many requests/s and events/s mr-collector sustains on loopback.
#
# usage: Scripts/collector-load.sh [BINARY] [SECONDS] [CONNECTIONS] [BATCH_EVENTS] [extra collector flags...]
#   BINARY        path to mr-collector (default .build/release/mr-collector, else .build/debug/mr-collector)
#   SECONDS       how long to send (default 5)
#   CONNECTIONS   keep-alive connections, spread over worker processes (default 8)
#   BATCH_EVENTS  events per batch (default 100)
# The collector runs with --count-only unless extra flags are given. The load generator is a
# small Python client over raw keep-alive sockets (one process per connection), so on a small
# machine it shares the CPU with the collector: treat the result as a lower bound.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-}
if [[ -z "$BIN" ]]; then
  if [[ -x .build/release/mr-collector ]]; then BIN=.build/release/mr-collector; else BIN=.build/debug/mr-collector; fi
fi
SECONDS_TO_RUN=${2:-5}
CONNECTIONS=${3:-8}
BATCH=${4:-100}
shift $(( $# < 4 ? $# : 4 ))
EXTRA=("$@")
if [[ ${#EXTRA[@]} -eq 0 ]]; then EXTRA=(--count-only); fi

OUT=$(mktemp)
ERR=$(mktemp)
"$BIN" --port 0 --write-key load-key "${EXTRA[@]}" >"$OUT" 2>"$ERR" &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -f "$OUT" "$ERR"' EXIT
for _ in $(seq 100); do
  if grep -q "listening on" "$OUT"; then break; fi
  sleep 0.1
done
URL=$(head -1 "$OUT" | sed 's/^mr-collector listening on //')
PORT=${URL##*:}
echo "collector: $BIN ${EXTRA[*]} on port $PORT"

python3 - "$PORT" "$SECONDS_TO_RUN" "$CONNECTIONS" "$BATCH" <<'PY'
import base64, json, multiprocessing as mp, socket, sys, time, uuid

port, seconds, conns, batch = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def body(n):
    events = [{"type": "track", "event": "Order Completed", "userId": "user-%d" % i,
               "messageId": str(uuid.uuid4()), "timestamp": "2026-11-22T06:00:00.000Z",
               "properties": {"revenue": 39.95, "currency": "USD", "sku": "SKU-%d" % i},
               "context": {"library": {"name": "analytics-python", "version": "2.3.3"}},
               "integrations": {}} for i in range(n)]
    return json.dumps({"batch": events, "sentAt": "2026-11-22T06:00:01.000Z"}, separators=(",", ":")).encode()

def worker(q):
    data = body(batch)
    auth = base64.b64encode(b"load-key:").decode()
    req = ("POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic %s\r\n"
           "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (auth, len(data))).encode() + data
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    done = ok = 0
    end = time.monotonic() + seconds
    buf = b""
    while time.monotonic() < end:
        s.sendall(req)
        while True:
            head_end = buf.find(b"\r\n\r\n")
            if head_end >= 0:
                head = buf[:head_end].decode("latin-1")
                length = 0
                for line in head.split("\r\n")[1:]:
                    k, _, v = line.partition(":")
                    if k.strip().lower() == "content-length":
                        length = int(v)
                if len(buf) >= head_end + 4 + length:
                    if head.startswith("HTTP/1.1 200"):
                        ok += 1
                    buf = buf[head_end + 4 + length:]
                    break
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("connection closed")
            buf += chunk
        done += 1
    q.put((done, ok))

q = mp.Queue()
start = time.monotonic()
procs = [mp.Process(target=worker, args=(q,)) for _ in range(conns)]
for p in procs: p.start()
results = [q.get() for _ in procs]
for p in procs: p.join()
elapsed = time.monotonic() - start
done = sum(r[0] for r in results)
ok = sum(r[1] for r in results)
print("connections=%d batch=%d seconds=%.1f requests=%d ok=%d" % (conns, batch, elapsed, done, ok))
print("requests/s=%.0f events/s=%.0f" % (done / elapsed, done * batch / elapsed))
PY

kill -INT $PID
wait $PID || true
echo "final stats (stderr of the collector):"
cat "$ERR"
