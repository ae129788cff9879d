"""An uploaded DSSE envelope is checked whatever its declared media type (§18): a valid attestation of a
trusted realm is stored with `attests` (its `trusted` decided at every read), and every failing check is
`400 invalid_body` naming `signatures` with nothing stored, over REST and over MCP alike."""
import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings

from evidence.envelopes import INSPECTED_MAX_BYTES
from evidence.trust import realm_distrust
from tests.conftest import Agent
from tests.dialectic.conftest import act, assert_claim
from tests.evidence.conftest import Realm, artifact_id, assert_nothing_stored_but_counts, stored_world, upload
from tests.forum.expect import refused
from tests.mcp_bridge.conftest import McpAgent


def tampered(realm):
    envelope = json.loads(realm.sign())
    statement = json.loads(base64.standard_b64decode(envelope["payload"]))
    statement["predicate"]["claim"]["state"] = "refuted"
    envelope["payload"] = base64.standard_b64encode(json.dumps(statement).encode()).decode()
    return json.dumps(envelope).encode()


def with_digest(realm, digest):
    statement = realm.statement()
    statement["subject"][0]["digest"] = {"sha256": digest}
    return realm.sign(statement)


def with_subject(realm, name):
    statement = realm.statement()
    statement["subject"][0]["name"] = name
    return realm.sign(statement)


def without(realm, field):
    """Validly signed by the realm, but its claim lacks `field`."""
    statement = realm.statement()
    del statement["predicate"]["claim"][field]
    return realm.sign(statement)


# Each refusal of §18's checks, as the bytes another realm's agent might upload.
FAILING = {
    "a tampered payload": tampered,
    "a key the realm does not list": lambda acme: Realm("acme", Ed25519PrivateKey.generate()).sign(),
    "another key under a listed kid": lambda acme: Realm("acme", Ed25519PrivateKey.generate()).sign(kid=acme.kid),
    "an untrusted realm": lambda acme: Realm("globex", Ed25519PrivateKey.generate()).sign(),
    "this realm's own": lambda acme: Realm(settings.PARLEY_REALM, Ed25519PrivateKey.generate()).sign(),
    "a subject of another realm": lambda acme: with_subject(acme, "parley:globex/cl_7"),
    "a digest not of the statement": lambda acme: with_digest(acme, "00" * 32),
    "a claim without a state": lambda acme: without(acme, "state"),
    "a claim without a certainty": lambda acme: without(acme, "certainty"),
}


def test_a_valid_attestation_is_stored_with_what_it_attests(as_alice, trusted_acme):
    artifact = upload(as_alice, trusted_acme.sign(), content_type="application/octet-stream").json()["artifact"]
    assert artifact["attests"] == {"realm": "acme", "claim": "cl_7", "state": "verified", "certainty": "verified",
                                   "signed_at": "2026-12-01T10:00:00Z", "kid": trusted_acme.kid, "trusted": True}


def test_trusted_reads_false_as_soon_as_the_realm_is_no_longer_trusted(as_alice, trusted_acme):
    stored = upload(as_alice, trusted_acme.sign(), content_type="application/json").json()["artifact"]["id"]
    realm_distrust("acme")
    assert as_alice.get(f"/api/v1/artifacts/{stored}/meta").json()["artifact"]["attests"]["trusted"] is False


def test_other_bytes_attest_nothing(as_alice, trusted_acme):
    assert upload(as_alice, b'{"payloadType": "just a JSON document"}').json()["artifact"]["attests"] is None


@pytest.mark.parametrize("content_type", ["application/json", "image/png", "text/plain"])
@pytest.mark.parametrize("case", sorted(FAILING))
def test_a_failing_envelope_is_refused_over_rest_whatever_its_media_type(as_alice, trusted_acme, case,
                                                                        content_type):
    data = FAILING[case](trusted_acme)
    before = stored_world()
    refused(upload(as_alice, data, content_type=content_type), 400, "invalid_body", field="signatures")
    assert_nothing_stored_but_counts(before, stored_world(), counted=1)
    refused(as_alice.get(f"/api/v1/artifacts/{artifact_id(data)}/meta"), 404, "not_found", object="artifact")


@pytest.mark.parametrize("case", sorted(FAILING))
def test_a_failing_envelope_is_the_same_refusal_over_mcp(alice, as_alice, trusted_acme, case):
    data = FAILING[case](trusted_acme)
    rest = upload(as_alice, data, content_type="application/json").json()["error"]
    before = stored_world()
    result = McpAgent(alice).call("put_artifact", {"text": data.decode(), "media_type": "application/json"})
    assert result["isError"] is True
    assert result["structuredContent"]["error"] == {**rest, "status": 400}
    assert_nothing_stored_but_counts(before, stored_world(), counted=1)


def test_a_valid_attestation_over_mcp_is_stored_as_over_rest(alice, as_alice, trusted_acme):
    data = trusted_acme.sign()
    result = McpAgent(alice).call("put_artifact", {"text": data.decode(), "media_type": "application/json"})
    assert result["isError"] is False
    assert result["structuredContent"] == upload(as_alice, data, content_type="application/json").json()


def test_a_local_verify_cites_another_realms_attestation(as_alice, make_token, as_bob, trusted_acme):
    attestation = upload(as_bob, trusted_acme.sign(), content_type="application/json").json()["artifact"]["id"]
    thread = as_alice.ask("Is the sky blue, as acme says?")
    claim = assert_claim(as_alice, thread)
    assert act(as_bob, "attest", claim, thread, proof=[{"kind": "artifact", "ref": attestation}]).status_code == 201
    vera = Agent(make_token("vera", ("read", "write", "verify")))
    response = act(vera, "verify", claim, thread, proof=[{"kind": "artifact", "ref": attestation}])
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["state"] == "verified"


def test_a_forged_envelope_padded_past_the_inspected_size_is_refused_and_not_stored(as_alice, trusted_acme):
    forged = Realm("acme", Ed25519PrivateKey.generate()).sign()
    data = forged[:1] + b" " * (INSPECTED_MAX_BYTES + 1) + forged[1:]
    before = stored_world()
    refused(upload(as_alice, data, content_type="application/json"), 400, "invalid_body", field="signatures")
    assert_nothing_stored_but_counts(before, stored_world(), counted=1)
