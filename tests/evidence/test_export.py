"""Export (§18): a claim's attestation is a DSSE envelope of an in-toto Statement v1, signed over DSSE's PAE
with this realm's current key, checkable with the JWKS and `cryptography` alone."""
import base64
import hashlib

import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.management import call_command

from evidence.keys import key_create, listed_keys
from tests.conftest import Agent
from tests.dialectic.conftest import assert_claim
from tests.evidence.conftest import envelope_json, statement_of
from tests.forum.expect import refused
from tests.mcp_bridge.conftest import McpAgent


def attestation(agent, claim):
    return agent.get(f"/api/v1/claims/{claim}/attestation")


def pae(payload_type, payload):
    """DSSE's pre-authentication encoding, written out here from the DSSE spec, not taken from the code."""
    kind = payload_type.encode()
    return b"DSSEv1 " + str(len(kind)).encode() + b" " + kind + b" " + str(len(payload)).encode() + b" " + payload


def check_with_jwks(envelope, jwks):
    """An offline check as another organisation would do it: the JWKS and `cryptography`, nothing of ours."""
    [signature] = envelope["signatures"]
    [key] = [key for key in jwks["keys"] if key["kid"] == signature["keyid"]]
    x = base64.urlsafe_b64decode(key["x"] + "=" * (-len(key["x"]) % 4))
    payload = base64.standard_b64decode(envelope["payload"])
    Ed25519PublicKey.from_public_bytes(x).verify(base64.standard_b64decode(signature["sig"]),
                                                 pae(envelope["payloadType"], payload))
    return key


def test_export_answers_a_dsse_envelope_of_an_in_toto_statement_of_the_claim(as_bob, verified_claim, realm_key,
                                                                             settings):
    envelope = envelope_json(attestation(as_bob, verified_claim))
    assert set(envelope) == {"payloadType", "payload", "signatures"}
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    assert [set(signature) for signature in envelope["signatures"]] == [{"keyid", "sig"}]
    assert envelope["signatures"][0]["keyid"] == realm_key.kid
    statement = statement_of(envelope)
    claim = as_bob.get(f"/api/v1/claims/{verified_claim}").json()["claim"]
    assert statement == {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": f"parley:{settings.PARLEY_REALM}/{verified_claim}",
                     "digest": {"sha256": hashlib.sha256("The sky is blue.".encode()).hexdigest()}}],
        "predicateType": "urn:parley:claim:v1",
        "predicate": {"realm": settings.PARLEY_REALM, "claim": claim,
                      "signed_at": statement["predicate"]["signed_at"]},
    }
    assert claim["state"] == "verified" and statement["predicate"]["signed_at"].endswith("Z")


def test_an_exported_envelope_verifies_with_the_jwks_and_cryptography_alone(as_bob, verified_claim, realm_key):
    envelope = envelope_json(attestation(as_bob, verified_claim))
    jwks = Agent(None).get("/.well-known/parley-keys.json").json()
    assert check_with_jwks(envelope, jwks)["kid"] == realm_key.kid


def test_after_a_rotation_the_new_key_signs(as_bob, verified_claim, realm_key):
    call_command("parley_keys", "rotate")
    envelope = envelope_json(attestation(as_bob, verified_claim))
    assert envelope["signatures"][0]["keyid"] == listed_keys().first().kid != realm_key.kid


def test_the_statement_digest_is_of_the_claims_statement_in_utf8(as_alice, as_bob, realm_key):
    statement = "Der Himmel ist blau, sagt Jürgen: ✓."
    claim = assert_claim(as_alice, as_alice.ask("Which colour?"), statement)
    digest = statement_of(envelope_json(attestation(as_bob, claim)))["subject"][0]["digest"]["sha256"]
    assert digest == hashlib.sha256(statement.encode("utf-8")).hexdigest()


def test_without_a_key_export_is_unavailable_naming_the_command_that_creates_one(as_bob, verified_claim):
    refused(attestation(as_bob, verified_claim), 503, "unavailable", fix="manage.py parley_keys create")


def test_without_a_listed_key_export_is_unavailable(as_bob, verified_claim, realm_key):
    call_command("parley_keys", "retire", realm_key.kid)
    refused(attestation(as_bob, verified_claim), 503, "unavailable", fix="manage.py parley_keys create")


def test_a_key_sealed_under_a_dropped_sealing_key_is_unavailable_naming_rotation(as_bob, verified_claim,
                                                                                 realm_key, settings):
    settings.PARLEY_SEALING_KEYS = [Fernet.generate_key().decode()]
    refused(attestation(as_bob, verified_claim), 503, "unavailable", fix="manage.py parley_keys rotate")
    call_command("parley_keys", "rotate")
    assert envelope_json(attestation(as_bob, verified_claim))["signatures"][0]["keyid"] != realm_key.kid


def test_export_needs_the_read_right(make_token, verified_claim, realm_key):
    refused(attestation(Agent(make_token("writer", ("write",))), verified_claim), 403, "token_right_missing",
            right="read")


def test_export_needs_a_token(verified_claim, realm_key):
    refused(attestation(Agent(None), verified_claim), 401, "token_invalid")


@pytest.mark.parametrize("ref", ["cl_999", "999", "th_1", "cl_x"])
def test_export_of_an_unknown_or_malformed_claim_is_not_found(as_bob, realm_key, ref):
    refused(attestation(as_bob, ref), 404, "not_found", object="claim")


def test_a_claim_whose_assert_was_redacted_is_not_exported(as_bob, as_mod, verified_claim, realm_key):
    asserted = as_bob.get(f"/api/v1/claims/{verified_claim}").json()["claim"]["message"]
    assert as_mod.post(f"/api/v1/messages/{asserted}/redact", {}).status_code == 200
    refused(attestation(as_bob, verified_claim), 404, "not_found", object="claim")


def test_export_over_mcp_answers_the_same_envelope(bob, verified_claim, realm_key, as_bob):
    result = McpAgent(bob).call("export_attestation", {"claim": verified_claim})
    assert result["isError"] is False, result
    envelope = result["structuredContent"]
    assert envelope["signatures"][0]["keyid"] == realm_key.kid
    rest = statement_of(envelope_json(attestation(as_bob, verified_claim)))
    mcp = statement_of(envelope)
    assert {**mcp, "predicate": {**mcp["predicate"], "signed_at": None}} == \
        {**rest, "predicate": {**rest["predicate"], "signed_at": None}}
    check_with_jwks(envelope, Agent(None).get("/.well-known/parley-keys.json").json())


@pytest.mark.parametrize("case, status, reason", [("no key", 503, "unavailable"),
                                                  ("unknown claim", 404, "not_found"),
                                                  ("no read right", 403, "token_right_missing")])
def test_an_export_refused_over_rest_is_the_same_refusal_over_mcp(case, status, reason, make_token,
                                                                  verified_claim):
    if case != "no key":
        key_create()
    token = make_token("writer", ("write",)) if case == "no read right" else make_token("reader", ("read",))
    claim = "cl_999" if case == "unknown claim" else verified_claim
    rest = refused(attestation(Agent(token), claim), status, reason)
    result = McpAgent(token).call("export_attestation", {"claim": claim})
    assert result["isError"] is True
    assert result["structuredContent"]["error"] == {**rest, "status": status}
