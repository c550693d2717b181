#!/usr/bin/env python3
"""Puts objects into a moto server for mr-replay's end-to-end S3 tests (ReplayKitTests) and the
S3 benchmark (Scripts/bench/s3.sh).

Usage:
  moto_objects.py ENDPOINT wait                  waits (up to 60 s) until the server answers
  moto_objects.py ENDPOINT put < SPEC.json       creates the bucket if needed and uploads
  moto_objects.py ENDPOINT get BUCKET PREFIX      reads every object under PREFIX once, one after
                                                 another; prints the seconds it took

SPEC: {"bucket": "b", "objects": {"key": "/local/file", ...}}. Prints {"etags": {"key": "\\"...\\""}}.
Uploads 8 at a time, each object in one PUT.
"""
import json
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config


def wait(endpoint: str) -> None:
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f'{endpoint}/moto-api/', timeout=2).read()
            return
        except Exception:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def client(endpoint: str):
    session = boto3.session.Session(aws_access_key_id='setup', aws_secret_access_key='setup', region_name='us-east-1')
    return session.client('s3', endpoint_url=endpoint, config=Config(s3={'addressing_style': 'path'}))


def get(endpoint: str, bucket: str, prefix: str) -> float:
    s3 = client(endpoint)
    keys = [o['Key'] for page in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket, Prefix=prefix)
            for o in page.get('Contents', [])]
    start = time.monotonic()
    for key in keys:
        body = s3.get_object(Bucket=bucket, Key=key)['Body']
        while body.read(1 << 20):
            pass
    return time.monotonic() - start


def put(endpoint: str, spec: dict) -> dict:
    s3 = client(endpoint)
    bucket = spec['bucket']
    try:
        s3.create_bucket(Bucket=bucket)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass

    def one(item):
        key, path = item
        with open(path, 'rb') as body:
            return key, s3.put_object(Bucket=bucket, Key=key, Body=body.read())['ETag']

    with ThreadPoolExecutor(8) as pool:
        return {'etags': dict(pool.map(one, spec.get('objects', {}).items()))}


if __name__ == '__main__':
    if sys.argv[2] == 'wait':
        wait(sys.argv[1])
    elif sys.argv[2] == 'get':
        print(f'{get(sys.argv[1], sys.argv[3], sys.argv[4]):.2f}')
    else:
        print(json.dumps(put(sys.argv[1], json.load(sys.stdin))))
