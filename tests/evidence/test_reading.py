"""§18 reads: the bytes as a download no browser runs, the meta as JSON; unknown and malformed ids are
not_found."""
import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from tests.evidence.conftest import TEXT, artifact_id, upload
from tests.forum.expect import refused

UNKNOWN = "sha256:" + "0" * 64


def body(response):
    return b"".join(response.streaming_content)


def test_the_bytes_are_answered_as_a_sandboxed_attachment_never_sniffed(as_alice, as_mallory, stored):
    response = as_mallory.get(f"/api/v1/artifacts/{stored}")
    assert response.status_code == 200
    assert body(response) == TEXT
    assert response["Content-Disposition"].startswith("attachment")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"] == "sandbox"
    assert response["ETag"] == f'"{stored}"'
    assert response["Content-Type"] == "text/plain"
    assert response["Content-Length"] == str(len(TEXT))


@pytest.mark.parametrize("declared, served", [
    ("text/plain; charset=utf-8", "text/plain; charset=utf-8"),
    ("application/json", "application/json"),
    ("image/png", "image/png"),
    ("image/jpeg", "image/jpeg"),
    ("application/pdf", "application/pdf"),
    ("text/html", "application/octet-stream"),
    ("image/svg+xml", "application/octet-stream"),
    ("application/javascript", "application/octet-stream"),
    ("text/xml", "application/octet-stream"),
    ("application/octet-stream", "application/octet-stream"),
])
def test_only_a_passive_media_type_is_served_as_stored(as_alice, declared, served):
    data = f"<b>{declared}</b>".encode()
    stored = upload(as_alice, data, declared).json()["artifact"]
    assert stored["media_type"] == declared  # the meta says what was declared
    assert as_alice.get(f"/api/v1/artifacts/{stored['id']}")["Content-Type"] == served


def test_a_matching_if_none_match_answers_304_without_the_bytes(as_alice, stored):
    response = as_alice.client.get(f"/api/v1/artifacts/{stored}", HTTP_IF_NONE_MATCH=f'"{stored}"')
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == f'"{stored}"'


def test_the_meta_answers_the_artifact_as_the_upload_did(as_alice, as_mallory):
    uploaded = upload(as_alice).json()
    response = as_mallory.get(f"/api/v1/artifacts/{uploaded['artifact']['id']}/meta")
    assert response.status_code == 200
    assert response.json() == uploaded


def test_an_id_in_upper_case_hex_names_the_same_artifact(as_alice, stored):
    assert as_alice.get(f"/api/v1/artifacts/{stored.upper().replace('SHA256', 'sha256')}/meta").json()[
        "artifact"]["id"] == stored


@pytest.mark.parametrize("path", ["", "/meta"])
def test_an_unknown_artifact_is_not_found(as_mallory, path):
    refused(as_mallory.get(f"/api/v1/artifacts/{UNKNOWN}{path}"), 404, "not_found", object="artifact", id=UNKNOWN)


@pytest.mark.parametrize("ref", ["sha256:abc", "md5:" + "0" * 32, "sha256:" + "g" * 64, "1", "sha256-" + "0" * 64])
@pytest.mark.parametrize("path", ["", "/meta"])
def test_a_malformed_id_in_the_path_is_not_found(as_mallory, ref, path):
    refused(as_mallory.get(f"/api/v1/artifacts/{ref}{path}"), 404, "not_found", object="artifact")


@pytest.mark.parametrize("path", ["", "/meta"])
def test_a_read_without_a_token_is_refused(agent, stored, path):
    refused(agent(None).get(f"/api/v1/artifacts/{stored}{path}"), 401, "token_invalid")


@pytest.mark.parametrize("path", ["", "/meta"])
def test_a_read_needs_the_read_right(make_token, agent, stored, path):
    writer = agent(make_token("writer", ("write",)))
    refused(writer.get(f"/api/v1/artifacts/{stored}{path}"), 403, "token_right_missing", right="read")


def test_the_same_bytes_under_any_media_type_are_one_artifact(as_alice):
    ids = {upload(as_alice, TEXT, declared).json()["artifact"]["id"] for declared in ("text/plain", "image/png")}
    assert ids == {artifact_id(TEXT)}


def test_under_asgi_the_bytes_stream_a_block_at_a_time_with_the_same_headers(as_mallory, mallory, stored):
    """Django's ASGI handler reads a sync iterator whole before the first byte; an async one it streams
    (tests/evidence/test_download_memory.py measures it against a real server)."""
    wsgi = as_mallory.get(f"/api/v1/artifacts/{stored}")
    asgi = async_to_sync(AsyncClient().get)(f"/api/v1/artifacts/{stored}",
                                            headers={"Authorization": f"Bearer {mallory.secret}"})

    async def read(response):
        return b"".join([block async for block in response.streaming_content])
    assert (asgi.status_code, asgi.is_async, async_to_sync(read)(asgi)) == (200, True, TEXT)
    assert {**asgi.headers, "X-Request-ID": ""} == {**wsgi.headers, "X-Request-ID": ""}
