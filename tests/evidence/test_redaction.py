"""§18: redact reaches artifacts. The bytes are erased; the id stays and reads not_found with who erased
it and when; the same bytes are refused again with the same answer."""
import pytest

from evidence.models import Artifact
from evidence.storage import artifact_storage, storage_name
from tests.evidence.conftest import TEXT, nothing_stored, upload
from tests.forum.expect import refused


def redact(agent, artifact, **body):
    return agent.post(f"/api/v1/artifacts/{artifact}/redact", body)


def test_a_lock_holder_redacts_an_artifact_and_its_bytes_are_erased(as_mod, stored):
    response = redact(as_mod, stored, reason="a leaked secret")
    assert response.status_code == 200, response.content
    assert response.json()["artifact"]["id"] == stored
    assert not artifact_storage().exists(storage_name(stored))
    row = Artifact.objects.get(pk=stored)
    assert (row.redacted_by, row.redacted_reason) == ("ainotes:mod", "a leaked secret")


def test_a_human_redacts_an_artifact_too(as_human, stored):
    assert redact(as_human, stored).status_code == 200
    assert Artifact.objects.get(pk=stored).redacted_by == "human:hannah"


@pytest.mark.parametrize("path", ["", "/meta"])
def test_a_redacted_artifact_reads_not_found_with_who_erased_it_and_when(as_mod, as_mallory, stored, path):
    redact(as_mod, stored)
    error = refused(as_mallory.get(f"/api/v1/artifacts/{stored}{path}"), 404, "not_found", object="artifact")
    row = Artifact.objects.get(pk=stored)
    at = row.redacted_at.isoformat().replace("+00:00", "Z")
    assert error["detail"]["redacted"] == {"by": "ainotes:mod", "at": at}


def test_uploading_redacted_bytes_again_is_refused_with_the_same_answer(as_mod, as_bob, stored):
    redact(as_mod, stored)
    read = as_bob.get(f"/api/v1/artifacts/{stored}/meta").json()
    with nothing_stored(uploads_counted=1):
        again = upload(as_bob, TEXT)
        refused(again, 404, "not_found", object="artifact")
    assert again.json() == read
    assert not artifact_storage().exists(storage_name(stored))


def test_redacting_twice_is_invalid_transition(as_mod, stored):
    redact(as_mod, stored)
    with nothing_stored():
        refused(redact(as_mod, stored), 409, "invalid_transition")


def test_redacting_needs_lock(as_bob, stored):
    with nothing_stored():
        refused(redact(as_bob, stored), 403, "token_right_missing", right="lock")
    assert artifact_storage().exists(storage_name(stored))


def test_redacting_an_unknown_artifact_is_not_found(as_mod, db):
    refused(redact(as_mod, "sha256:" + "1" * 64), 404, "not_found", object="artifact")


def test_a_reason_longer_than_500_characters_is_refused(as_mod, stored):
    with nothing_stored():
        refused(redact(as_mod, stored, reason="x" * 501), 400, "invalid_body", field="reason")


def test_a_proof_naming_a_redacted_artifact_is_refused(as_mod, as_alice, stored):
    redact(as_mod, stored)
    thread = as_alice.ask("Does the log show it?")
    with nothing_stored():
        response = as_alice.say("assert", "It does.", thread=thread, proof=[{"kind": "artifact", "ref": stored}])
        refused(response, 400, "invalid_body", field="proof[0].ref")
