#!/usr/bin/env python3
"""Runs moto's S3-compatible server (`python3 -m moto.server` with the same arguments) for the
ObjectStorage tests, and exits when the process that started it goes away, so a test run that
crashes leaves no server behind.

Usage: moto_server.py -H 127.0.0.1 -p PORT
"""
import os
import sys
import threading
import time

from moto.server import main


def exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


if __name__ == '__main__':
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    main(sys.argv[1:])
