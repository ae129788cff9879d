"""§18: a proof {"kind": "artifact", "ref": "sha256:<hex>"} must name a stored artifact, else 400
invalid_body naming the proof's ref."""
import pytest

from tests.evidence.conftest import nothing_stored
from tests.forum.expect import refused

URL_PROOF = {"kind": "url", "ref": "https://example.org/evidence"}


@pytest.fixture
def thread(as_alice):
    return as_alice.ask("Does the log show it?")


def test_a_proof_naming_a_stored_artifact_is_accepted(as_alice, thread, stored):
    response = as_alice.say("assert", "It does.", thread=thread, proof=[{"kind": "artifact", "ref": stored}])
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["proofs"] == [{"kind": "artifact", "ref": stored}]


@pytest.mark.parametrize("ref", ["sha256:" + "0" * 64, "build #42, file report.txt", "sha256:abc",
                                 "sha512:" + "0" * 128])
def test_a_proof_naming_no_stored_artifact_is_refused(as_alice, thread, ref):
    with nothing_stored():
        response = as_alice.say("assert", "It does.", thread=thread,
                                proof=[URL_PROOF, {"kind": "artifact", "ref": ref}])
        refused(response, 400, "invalid_body", field="proof[1].ref")


def test_the_refusal_comes_before_the_right_check(as_mallory, thread):
    """§13 precedence: invalid_body before token_right_missing, as for every bad proof."""
    response = as_mallory.say("assert", "It does.", thread=thread,
                              proof=[{"kind": "artifact", "ref": "sha256:" + "0" * 64}])
    refused(response, 400, "invalid_body", field="proof[0].ref")
