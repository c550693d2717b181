#!/usr/bin/env python3
"""Fills a fresh moto server for the ObjectStorage tests.

Usage: moto_setup.py http://127.0.0.1:PORT open|iam

open: the buckets and objects the reading tests use (moto checks no signatures). Prints JSON with
      the size and SHA-256 of each object the tests compare byte for byte, and the listed keys.
iam:  a bucket the tests may read, `forbidden-bucket`, and an IAM user whose policy allows S3
      except on `forbidden-bucket`; then POSTs /moto-api/reset-auth with 0, so from then on moto
      checks every request's signature and the caller's policy, as AWS does. Prints JSON with the
      user's keys.

Two servers because moto's IAM mode recomputes signatures from the decoded URL (a request with
a %-escape, such as a prefix ending in '/', fails even from boto3) and cannot answer an unsigned
AssumeRoleWithWebIdentity (HTTP 500).
"""
import gzip
import hashlib
import json
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import boto3

LISTING_KEYS = 1105
SPECIAL_KEYS = [
    'special/with space.ndjson',
    'special/ünïcødé-ключ-✓.ndjson',
    'special/plus+equals=amp&.ndjson',
    'special/percent%20literal.ndjson',
    'special/tilde~star*(paren)!.ndjson',
]


def ndjson(min_bytes: int, seed: str) -> bytes:
    lines, total, i = [], 0, 0
    while total < min_bytes:
        line = f'{{"type":"track","event":"{seed}","messageId":"{seed}-{i:08d}","properties":{{"n":{i}}}}}\n'.encode()
        lines.append(line)
        total += len(line)
        i += 1
    return b''.join(lines)


def client(endpoint: str, service: str, key: str = 'setup', secret: str = 'setup'):
    session = boto3.session.Session(aws_access_key_id=key, aws_secret_access_key=secret, region_name='us-east-1')
    return session.client(service, endpoint_url=endpoint)


def fill_open(endpoint: str) -> dict:
    s3 = client(endpoint, 's3')
    objects = {
        'gz/events.ndjson.gz': gzip.compress(ndjson(3 << 20, 'gz'), compresslevel=6),
        'big/20mib.ndjson': ndjson(20 << 20, 'big'),
        'small/hello.ndjson': ndjson(1000, 'hello'),
        'special/ key with spaces+and=signs ✓.ndjson': ndjson(70_000, 'special'),
        'zero.ndjson': b'',
    }
    for bucket in ['replay-listing', 'replay-objects']:
        s3.create_bucket(Bucket=bucket)
    keys = [f'events/2024/01/01/part-{i:05d}.ndjson' for i in range(LISTING_KEYS)] + SPECIAL_KEYS
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda key: s3.put_object(Bucket='replay-listing', Key=key, Body=key.encode()), keys))
    for key, body in objects.items():
        s3.put_object(Bucket='replay-objects', Key=key, Body=body)
    return {
        'listing_keys': sorted(keys),
        'objects': {k: {'size': len(v), 'sha256': hashlib.sha256(v).hexdigest()} for k, v in objects.items()},
    }


def fill_iam(endpoint: str) -> dict:
    s3, iam = client(endpoint, 's3'), client(endpoint, 'iam')
    for bucket in ['replay-iam', 'forbidden-bucket']:
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key='events/one.ndjson', Body=b'{"type":"track","event":"one"}\n')
    policy = json.dumps({'Version': '2012-10-17', 'Statement': [
        {'Effect': 'Allow', 'Action': 's3:*', 'Resource': '*'},
        {'Effect': 'Deny', 'Action': 's3:*',
         'Resource': ['arn:aws:s3:::forbidden-bucket', 'arn:aws:s3:::forbidden-bucket/*']},
    ]})
    policy_arn = iam.create_policy(PolicyName='replay-read', PolicyDocument=policy)['Policy']['Arn']
    iam.create_user(UserName='replay')
    iam.attach_user_policy(UserName='replay', PolicyArn=policy_arn)
    key = iam.create_access_key(UserName='replay')['AccessKey']
    request = urllib.request.Request(f'{endpoint}/moto-api/reset-auth', data=b'0', method='POST',
                                     headers={'Content-Type': 'text/plain'})
    urllib.request.urlopen(request).read()
    return {'access_key_id': key['AccessKeyId'], 'secret_access_key': key['SecretAccessKey']}


if __name__ == '__main__':
    print(json.dumps(fill_open(sys.argv[1]) if sys.argv[2] == 'open' else fill_iam(sys.argv[1])))
