#!/usr/bin/env python3
"""Runs moto's S3-compatible server for the tests that read S3, and exits when the process that
started it goes away, so a test run that crashes leaves no server behind.

Usage: moto_server.py -H 127.0.0.1 -p PORT

With `-p 0` the server takes a free port itself. Either way it prints the port it listens on as
the first line of its standard output once it listens, so the caller never races another process
for a port it chose beforehand.
"""
import argparse
import os
import threading
import time

from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server


def exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


if __name__ == '__main__':
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    parser = argparse.ArgumentParser()
    parser.add_argument('-H', '--host', default='127.0.0.1')
    parser.add_argument('-p', '--port', type=int, default=0)
    args = parser.parse_args()
    server = make_server(args.host, args.port, DomainDispatcherApplication(create_backend_app), threaded=True)
    # moto builds some URLs from MOTO_PORT, as `python -m moto.server` sets it.
    os.environ['MOTO_PORT'] = str(server.server_port)
    print(server.server_port, flush=True)
    server.serve_forever()
