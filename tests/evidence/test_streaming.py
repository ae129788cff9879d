"""§14.1 "Sizes are enforced while reading", for uploads (§18): the ASGI application hands an upload on as
it arrives, counted against artifact_max_bytes (not request_max_bytes), and the upload is hashed into
storage a chunk at a time, so a 10 MiB upload is never held whole in memory, let alone twice."""
import asyncio
import json
import time
import tracemalloc

import pytest
from asgiref.sync import async_to_sync

from evidence.models import Artifact
from evidence.uploads import stage
from parley_site.asgi import application
from parley_site.errors import RequestTooLarge
from tests.evidence.conftest import artifact_id

MiB = 1024 * 1024
CHUNK = 64 * 1024


def upload_over_asgi(token, data, declare_length=True, chunk=CHUNK, stall_after=None):
    """POST /api/v1/artifacts to the whole ASGI application, the body in `chunk`-sized messages (after
    `stall_after` of them, no more: the client stalls). `token`: a token, a secret, or None for no
    Authorization header. Returns (status, body, bytes the application read)."""
    headers = [(b"host", b"testserver"), (b"content-type", b"text/plain")]
    if token is not None:
        headers.append((b"authorization", f"Bearer {getattr(token, 'secret', token)}".encode()))
    if declare_length:
        headers.append((b"content-length", str(len(data)).encode()))
    view = memoryview(data)
    pending = [view[start:start + chunk] for start in range(0, len(data), chunk)] or [view]
    sent, read = [], 0

    async def receive():
        nonlocal read
        if not pending or (stall_after is not None and read >= stall_after * chunk):
            await asyncio.Event().wait()  # the client stays until the response is complete
        part = pending.pop(0)
        read += len(part)
        return {"type": "http.request", "body": bytes(part), "more_body": bool(pending)}

    async def send(message):
        sent.append(message)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/api/v1/artifacts", "raw_path": b"/api/v1/artifacts", "query_string": b"", "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 1), "server": ("testserver", 80)}
    async_to_sync(application)(scope, receive, send)
    status = next(message["status"] for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return status, body, read


@pytest.fixture
def writer(transactional_db, make_token):
    """The ASGI application serves on threads of its own, with connections of their own: what they read
    must be committed."""
    return make_token("uploader")


def test_a_10_mib_upload_over_asgi_is_never_held_whole_in_memory(writer):
    data = bytes(range(256)) * (10 * MiB // 256)
    tracemalloc.start()
    try:
        status, body, _ = upload_over_asgi(writer, data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 201, body
    assert Artifact.objects.get().id == artifact_id(data)
    # Holding the body once would take 10 MiB; Django's spooled file keeps at most 2.5 MiB in memory.
    assert peak < len(data) // 2, f"peak {peak / MiB:.1f} MiB for a {len(data) / MiB:.0f} MiB upload"


def test_request_max_bytes_does_not_bound_an_upload_over_asgi(writer, settings):
    data = b"y" * (settings.PARLEY_LIMITS["request_max_bytes"] * 3)
    status, body, _ = upload_over_asgi(writer, data, declare_length=False)
    assert status == 201, body


def test_an_undeclared_upload_is_refused_413_once_it_passes_artifact_max_bytes_and_not_read_further(writer, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_max_bytes": 3 * CHUNK}
    status, body, read = upload_over_asgi(writer, b"z" * (10 * CHUNK), declare_length=False)
    assert status == 413
    assert json.loads(body) == RequestTooLarge("artifact_max_bytes", 3 * CHUNK).as_body()
    assert read == 4 * CHUNK
    assert not Artifact.objects.exists()


def test_a_declared_upload_over_artifact_max_bytes_is_refused_413_unread(writer, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_max_bytes": CHUNK}
    status, body, read = upload_over_asgi(writer, b"z" * (2 * CHUNK))
    assert (status, read) == (413, 0)
    assert json.loads(body) == RequestTooLarge("artifact_max_bytes", CHUNK).as_body()


def test_staging_stops_reading_once_the_bytes_pass_the_limit():
    """Under WSGI the door stages the body while reading it from the client: past the limit it reads no
    further."""
    consumed = []

    def chunks():
        for number in range(10):
            consumed.append(number)
            yield b"a" * 100
    with pytest.raises(RequestTooLarge) as refusal:
        stage(chunks(), 250)
    assert refusal.value.detail == {"limit": "artifact_max_bytes", "value": 250}
    assert consumed == [0, 1, 2]


@pytest.mark.parametrize("secret", [None, "pt_not-a-real-token"], ids=["no header", "unknown token"])
def test_an_upload_without_a_valid_token_is_refused_401_before_a_byte_of_its_body_is_read(transactional_db, secret):
    status, body, read = upload_over_asgi(secret, b"z" * (4 * CHUNK), declare_length=False)
    assert (status, json.loads(body)["error"]["reason"], read) == (401, "token_invalid", 0)
    assert not Artifact.objects.exists()


def test_an_invalid_token_is_refused_before_a_declared_length_over_artifact_max_bytes(transactional_db, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_max_bytes": CHUNK}
    status, body, read = upload_over_asgi("pt_not-a-real-token", b"z" * (2 * CHUNK))
    assert (status, json.loads(body)["error"]["reason"], read) == (401, "token_invalid", 0)


def test_an_upload_whose_body_stalls_is_refused_once_its_seconds_pass(writer, settings):
    settings.PARLEY_UPLOAD_BODY_SECONDS = 1
    started = time.monotonic()
    status, body, read = upload_over_asgi(writer, b"z" * (4 * CHUNK), stall_after=2)
    error = json.loads(body)["error"]
    assert (status, error["reason"], error["detail"], read) == (400, "invalid_body", {"field": "body"}, 2 * CHUNK)
    assert 1 <= time.monotonic() - started < 5
    assert not Artifact.objects.exists()
