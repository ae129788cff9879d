"""The artifacts storage on an S3-compatible store (§18, docs/deploy.md): a real S3 API on loopback,
moto's server, started here as a process of its own. Skipped when it cannot start; the default and CI runs
store artifacts on the file system."""
import hashlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.evidence.conftest import TEXT, artifact_id, upload

BUCKET = "parley-artifacts"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint():
    server = Path(sys.executable).with_name("moto_server")
    if not server.exists():
        pytest.skip("moto_server is not installed")
    port = free_port()
    process = subprocess.Popen([str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1)
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.skip("moto_server did not start")
            time.sleep(0.2)
    yield endpoint
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def s3(s3_endpoint, settings, monkeypatch):
    """The artifacts storage pointed at the S3 server, as PARLEY_ARTIFACTS_S3_BUCKET would point it; the
    bucket, and a client that looks into it."""
    import boto3
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    settings.STORAGES = {**settings.STORAGES, "artifacts": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
        "bucket_name": BUCKET, "endpoint_url": s3_endpoint, "region_name": "us-east-1", "file_overwrite": True,
        "default_acl": None, "querystring_auth": False}}}
    yield client
    for listed in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=listed["Key"])
    client.delete_bucket(Bucket=BUCKET)


def keys(client):
    return [listed["Key"] for listed in client.list_objects_v2(Bucket=BUCKET).get("Contents", [])]


def test_an_upload_is_stored_once_in_the_bucket_and_read_back_from_it(s3, as_alice, as_bob):
    created = upload(as_alice, TEXT)
    again = upload(as_bob, TEXT)
    assert (created.status_code, again.status_code) == (201, 200)
    digest = hashlib.sha256(TEXT).hexdigest()
    assert keys(s3) == [f"sha256/{digest[:2]}/{digest}"]
    response = as_bob.get(f"/api/v1/artifacts/{artifact_id(TEXT)}")
    assert b"".join(response.streaming_content) == TEXT


def test_a_large_upload_round_trips_through_the_bucket(s3, as_alice):
    data = os.urandom(3 * 1024 * 1024)
    assert upload(as_alice, data, "application/octet-stream").status_code == 201
    response = as_alice.get(f"/api/v1/artifacts/{artifact_id(data)}")
    assert hashlib.sha256(b"".join(response.streaming_content)).digest() == hashlib.sha256(data).digest()


def test_redaction_erases_the_bytes_from_the_bucket(s3, as_alice, as_mod):
    upload(as_alice, TEXT)
    assert as_mod.post(f"/api/v1/artifacts/{artifact_id(TEXT)}/redact").status_code == 200
    assert keys(s3) == []
    assert upload(as_alice, TEXT).status_code == 404
    assert keys(s3) == []
