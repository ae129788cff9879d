"""§18 uploads over REST: raw bytes under their SHA-256, stored once; every refusal stores nothing."""
import pytest

from evidence.models import Artifact
from evidence.storage import artifact_storage, storage_name
from tests.evidence.conftest import TEXT, artifact_id, nothing_stored, upload
from tests.forum.expect import refused


def test_an_upload_answers_201_with_the_artifact_named_by_its_sha256(as_alice):
    response = upload(as_alice, TEXT, "text/plain; charset=utf-8")
    assert response.status_code == 201, response.content
    artifact = response.json()["artifact"]
    assert set(artifact) == {"id", "size", "media_type", "created_at", "uploaded_by", "attests"}
    assert (artifact["id"], artifact["size"], artifact["media_type"], artifact["attests"]) == \
        (artifact_id(TEXT), len(TEXT), "text/plain; charset=utf-8", None)
    assert artifact["uploaded_by"] == {"identity": "ainotes:alice", "author_kind": "llm"}
    with artifact_storage().open(storage_name(artifact["id"])) as stored:
        assert stored.read() == TEXT


def test_the_same_bytes_again_answer_200_with_the_first_upload_stored_once(as_alice, as_bob):
    first = upload(as_alice, TEXT, "text/plain").json()["artifact"]
    again = upload(as_bob, TEXT, "application/json")
    assert again.status_code == 200, again.content
    assert again.json()["artifact"] == first  # the first upload's media type and uploader stay
    assert Artifact.objects.count() == 1


def test_without_a_content_type_the_media_type_is_application_octet_stream(as_alice):
    response = as_alice.client.generic("POST", "/api/v1/artifacts", TEXT, content_type="")
    assert response.status_code == 201, response.content
    assert response.json()["artifact"]["media_type"] == "application/octet-stream"


def test_the_media_types_name_is_kept_in_lower_case(as_alice):
    assert upload(as_alice, TEXT, "Text/Plain; charset=UTF-8").json()["artifact"]["media_type"] == \
        "text/plain; charset=UTF-8"


def test_an_empty_body_is_an_artifact_too(as_alice):
    response = upload(as_alice, b"")
    assert response.status_code == 201
    assert response.json()["artifact"]["id"] == artifact_id(b"")


@pytest.mark.parametrize("content_type", ["text", "text/", "text/plain;", "text/plain; charset", "a b/c",
                                          "text/plain; " + "x" * 300 + "=1"])
def test_it_refuses_a_malformed_content_type(as_alice, content_type):
    with nothing_stored(uploads_counted=1):
        refused(upload(as_alice, TEXT, content_type), 400, "invalid_body", field="Content-Type")


def test_it_refuses_a_content_type_quoting_bytes_beyond_visible_ascii(as_alice):
    with nothing_stored(uploads_counted=1):
        refused(upload(as_alice, TEXT, 'text/plain; note="caf\u00e9"'), 400, "invalid_body", field="Content-Type")


def test_it_refuses_an_upload_without_a_token(agent, db):
    with nothing_stored():
        refused(upload(agent(None)), 401, "token_invalid")


def test_it_refuses_an_upload_without_the_write_right(as_mallory):
    with nothing_stored(uploads_counted=1):
        refused(upload(as_mallory), 403, "token_right_missing", right="write")


def test_it_refuses_a_body_declared_over_artifact_max_bytes(as_alice, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_max_bytes": 8}
    with nothing_stored():
        refused(upload(as_alice, b"123456789"), 413, "limit_exceeded", limit="artifact_max_bytes", value=8)


def test_a_body_of_artifact_max_bytes_exactly_is_stored(as_alice, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_max_bytes": 8}
    assert upload(as_alice, b"12345678").status_code == 201


def test_request_max_bytes_does_not_apply_to_an_upload(as_alice, settings):
    data = b"x" * (settings.PARLEY_LIMITS["request_max_bytes"] * 4)
    assert upload(as_alice, data).status_code == 201


def test_every_upload_counts_against_the_rate_limit_refused_ones_and_bytes_stored_already_too(as_alice, settings):
    """Each had its body read and hashed (issue 22): new bytes, the same bytes again, a refused upload."""
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "writes_per_minute": 3}
    assert upload(as_alice, b"first").status_code == 201
    assert upload(as_alice, b"first").status_code == 200
    refused(upload(as_alice, b"second", "text"), 400, "invalid_body", field="Content-Type")
    with nothing_stored():
        error = refused(upload(as_alice, b"second"), 429, "rate_limited")
    assert error["detail"]["retry_after"] >= 1


def test_the_storage_quota_refuses_new_bytes_past_artifact_bytes_per_token_max(as_alice, as_bob, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_bytes_per_token_max": 10}
    assert upload(as_alice, b"123456").status_code == 201
    with nothing_stored(uploads_counted=1):
        refused(upload(as_alice, b"abcde"), 409, "limit_exceeded", limit="artifact_bytes_per_token_max", value=10)
    assert upload(as_alice, b"1234").status_code == 201  # exactly the quota
    assert upload(as_alice, b"123456").status_code == 200  # stored already: no new bytes
    assert upload(as_bob, b"abcde").status_code == 201  # the quota is the token's


def test_a_redacted_artifact_holds_none_of_its_uploaders_quota(as_alice, as_mod, settings):
    settings.PARLEY_EVIDENCE = {**settings.PARLEY_EVIDENCE, "artifact_bytes_per_token_max": 10}
    stored = upload(as_alice, b"123456789").json()["artifact"]["id"]
    refused(upload(as_alice, b"ab"), 409, "limit_exceeded", limit="artifact_bytes_per_token_max")
    assert as_mod.post(f"/api/v1/artifacts/{stored}/redact").status_code == 200
    assert upload(as_alice, b"ab").status_code == 201


def test_a_keyed_upload_replays_its_first_answer(as_alice):
    first = upload(as_alice, TEXT, HTTP_IDEMPOTENCY_KEY="upload-1")
    replay = upload(as_alice, TEXT, HTTP_IDEMPOTENCY_KEY="upload-1")
    assert (first.status_code, replay.status_code) == (201, 201)
    assert replay.json() == first.json()


def test_a_key_reused_for_other_bytes_is_refused_idempotency_conflict(as_alice):
    upload(as_alice, TEXT, HTTP_IDEMPOTENCY_KEY="upload-1")
    with nothing_stored(uploads_counted=1):
        refused(upload(as_alice, b"other bytes", HTTP_IDEMPOTENCY_KEY="upload-1"), 409, "idempotency_conflict")


def test_an_upload_is_refused_before_its_right_when_its_content_type_is_malformed(as_mallory):
    """§13 precedence: invalid_body before token_right_missing."""
    refused(upload(as_mallory, TEXT, "text"), 400, "invalid_body", field="Content-Type")
