"""An upload is staged before it is stored (Parley v1 §18): its bytes stream into a temporary file while
they are hashed and counted, a chunk at a time, so that no upload is ever held whole in memory, and one
past `artifact_max_bytes` is refused as soon as its bytes pass the limit."""
import hashlib
import mmap
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, partial

from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.urls import reverse

from forum.bearer import refusal_on
from parley_site.bodylimit import Refusal, Streamed, carries_credential
from parley_site.errors import InvalidBody, RequestTooLarge, TokenInvalid

CHUNK_BYTES = 64 * 1024


@dataclass
class Staged:
    """Bytes received whole: where they wait, how many, and their id `sha256:<hex>`."""
    file: TemporaryUploadedFile
    size: int
    id: str

    def __str__(self):
        # What an idempotency fingerprint (forum.idempotency) records of an upload: its content.
        return self.id

    @contextmanager
    def contents(self):
        """The bytes as a read-only view of the staged file (for evidence.envelopes.inspect), which the
        operating system pages in as they are read: never a copy of the whole upload in memory."""
        if self.size == 0:
            yield b""  # an empty file cannot be mapped
            return
        self.file.flush()
        with mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ) as view:
            yield view

    def close(self):
        self.file.close()


def stage(chunks, max_bytes, limit_name="artifact_max_bytes"):
    """Stream `chunks` (an iterable of bytes) into a temporary file while hashing them. Refuses 413
    limit_exceeded naming `limit_name` once more than `max_bytes` have arrived."""
    digest, size = hashlib.sha256(), 0
    file = TemporaryUploadedFile("artifact", "application/octet-stream", None, None)
    try:
        for chunk in chunks:
            size += len(chunk)
            if size > max_bytes:
                raise RequestTooLarge(limit_name, max_bytes)
            digest.update(chunk)
            file.write(chunk)
        file.flush()
        file.seek(0)
    except BaseException:
        file.close()
        raise
    file.size = size
    return Staged(file, size, f"sha256:{digest.hexdigest()}")


def request_chunks(request):
    """A request's body a chunk at a time, as it is read from the client (WSGI) or from the file Django's
    ASGI handler spooled it to, never as `request.body`, which would read it whole into memory."""
    while chunk := request.read(CHUNK_BYTES):
        yield chunk


def text_chunks(data):
    for start in range(0, len(data), CHUNK_BYTES):
        yield data[start:start + CHUNK_BYTES]


@cache
def upload_path():
    return reverse("artifact-upload")


def streamed_upload(request_threads, scope):
    """For the ASGI assembly (parley_site.asgi), which bounds every other body by request_max_bytes: the
    parley_site.bodylimit.Streamed plan of an upload, else None. Its body passes through as it arrives,
    under artifact_max_bytes and within PARLEY_UPLOAD_BODY_SECONDS; its caller is authenticated first, on one
    of `request_threads`, so that no client without a valid token makes the server read a byte of it."""
    if scope["method"] != "POST" or scope["path"] != upload_path():
        return None
    maximum, seconds = settings.PARLEY_EVIDENCE["artifact_max_bytes"], settings.PARLEY_UPLOAD_BODY_SECONDS
    return Streamed(limit=maximum, too_large=Refusal.of(RequestTooLarge("artifact_max_bytes", maximum)),
                    checked=partial(caller_refusal, request_threads), body_seconds=seconds, stalled=Refusal.of(
                        InvalidBody(f"the body did not arrive within {seconds} seconds", field="body")))


async def caller_refusal(request_threads, scope):
    """token_invalid (§13's first refusal) for a caller with no credential or an invalid bearer token; a
    staff session is Django's to check."""
    if not carries_credential(scope):
        return Refusal.of(TokenInvalid())
    authorization = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
    if not authorization:
        return None
    found = await refusal_on(request_threads, authorization)
    return None if found is None else Refusal.of(found)
