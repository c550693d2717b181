#!/usr/bin/env python3
"""Signs requests with botocore's own S3 signer (S3SigV4Auth) at a fixed time, so the
ObjectStorage tests can compare the Swift signer's Authorization header with botocore's byte for
byte.

Reads JSON from stdin: a list of cases, each
  {"name", "method", "url", "headers": [[name, value], ...] (without Authorization, X-Amz-Date,
   X-Amz-Content-SHA256 and X-Amz-Security-Token, which the signer adds),
   "access_key_id", "secret_access_key", "session_token" (or null), "region", "timestamp"
   ("yyyymmddThhmmssZ")}
and prints a JSON list: for each case its name, the Authorization header, the headers botocore
added, and its canonical request (to show where two signatures part).
"""
import datetime
import json
import sys
from unittest import mock

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def sign(case: dict) -> dict:
    request = AWSRequest(method=case['method'], url=case['url'], headers=dict(case['headers']))
    credentials = Credentials(case['access_key_id'], case['secret_access_key'], case['session_token'])
    signer = S3SigV4Auth(credentials, 's3', case['region'])
    moment = datetime.datetime.strptime(case['timestamp'], '%Y%m%dT%H%M%SZ')
    with mock.patch('botocore.auth.get_current_datetime', return_value=moment):
        signer.add_auth(request)
    return {
        'name': case['name'],
        'authorization': request.headers['Authorization'],
        'x-amz-date': request.headers['X-Amz-Date'],
        'x-amz-content-sha256': request.headers['X-Amz-Content-SHA256'],
        'x-amz-security-token': request.headers.get('X-Amz-Security-Token'),
        'canonical_request': signer.canonical_request(request),
    }


if __name__ == '__main__':
    print(json.dumps([sign(case) for case in json.load(sys.stdin)]))
