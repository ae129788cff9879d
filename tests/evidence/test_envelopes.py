"""Verification of uploaded envelopes (§18), each check on its own: bytes that parse as a DSSE envelope are
another realm's attestation, accepted only when its key's realm, its predicate's realm and its subject's
realm are one trusted realm (not this one), the subject digest is that of the claim's statement and the
signature verifies with a key that realm lists; else invalid_body naming `signatures`. The uploads over
REST and MCP run the same `inspect` (test_upload.py)."""
import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence.envelopes import INSPECTED_MAX_BYTES, attests_view, inspect
from evidence.trust import realm_distrust, realm_trust
from parley_site.errors import InvalidBody
from tests.evidence.conftest import OPERATOR, Realm


def refused_envelope(data, says):
    with pytest.raises(InvalidBody) as refusal:
        inspect(data)
    assert refusal.value.detail == {"field": "signatures"}
    assert says in refusal.value.message
    return refusal.value


def test_a_valid_attestation_of_a_trusted_realm_is_recorded_as_what_it_attests(trusted_acme):
    assert inspect(trusted_acme.sign()) == {"realm": "acme", "claim": "cl_7", "state": "verified",
                                            "certainty": "verified", "signed_at": "2026-12-01T10:00:00Z",
                                            "kid": trusted_acme.kid}


@pytest.mark.parametrize("data", [b"plain text", b"\x89PNG\r\n\x1a\n\x00", b"[1, 2]", b'{"payload": "x"}',
                                  b'{"payloadType": 1, "payload": 2}', "ä".encode("latin-1"), b"[" * 100000])
def test_bytes_that_are_no_dsse_envelope_attest_nothing(db, data):
    assert inspect(data) is None


def test_a_tampered_payload_is_refused(trusted_acme):
    envelope = json.loads(trusted_acme.sign())
    statement = json.loads(base64.standard_b64decode(envelope["payload"]))
    statement["predicate"]["claim"]["state"] = statement["predicate"]["claim"]["certainty"] = "refuted"
    envelope["payload"] = base64.standard_b64encode(json.dumps(statement).encode()).decode()
    refused_envelope(json.dumps(envelope).encode(), "the signature does not verify")


def test_a_signature_by_a_key_the_realm_does_not_list_is_refused(trusted_acme):
    stranger = Realm("acme", Ed25519PrivateKey.generate())
    refused_envelope(stranger.sign(), "signed by no key the realm 'acme' lists")


def test_a_signature_by_another_key_under_a_listed_keyid_is_refused(trusted_acme):
    stranger = Realm("acme", Ed25519PrivateKey.generate())
    refused_envelope(stranger.sign(kid=trusted_acme.kid), "the signature does not verify")


def test_an_attestation_of_an_untrusted_realm_is_refused(acme, db):
    refused_envelope(acme.sign(), "the realm 'acme' is not trusted here")


def test_an_attestation_of_this_realm_itself_is_refused(db, settings):
    own = Realm(settings.PARLEY_REALM, Ed25519PrivateKey.generate())
    refused_envelope(own.sign(), "this realm's own attestation")


def test_a_subject_naming_another_realm_than_the_predicate_is_refused(trusted_acme):
    statement = trusted_acme.statement()
    statement["subject"][0]["name"] = "parley:globex/cl_7"
    refused_envelope(trusted_acme.sign(statement), "the same realm and claim")


def test_a_subject_naming_another_claim_than_the_predicate_is_refused(trusted_acme):
    statement = trusted_acme.statement()
    statement["subject"][0]["name"] = "parley:acme/cl_8"
    refused_envelope(trusted_acme.sign(statement), "the same realm and claim")


def test_a_key_of_another_trusted_realm_is_refused(trusted_acme):
    """The signing key's realm must be the attesting realm: globex's key cannot sign for acme."""
    globex = Realm("globex", Ed25519PrivateKey.generate())
    realm_trust(OPERATOR, globex.name, globex.jwks)
    signed_by_globex = Realm("acme", globex.private_key)
    refused_envelope(signed_by_globex.sign(), "signed by no key the realm 'acme' lists")


def test_a_subject_digest_that_is_not_the_statements_is_refused(trusted_acme):
    statement = trusted_acme.statement()
    statement["subject"][0]["digest"] = {"sha256": "00" * 32}
    refused_envelope(trusted_acme.sign(statement), "digest is not that of the claim's statement")


@pytest.mark.parametrize("change, says", [
    (lambda s: s.update(_type="https://in-toto.io/Statement/v0.1"), "in-toto Statement"),
    (lambda s: s.update(predicateType="https://slsa.dev/provenance/v1"), "predicateType"),
    (lambda s: s.update(subject=[]), "exactly one subject"),
    (lambda s: s["predicate"].pop("signed_at"), "the predicate {realm, claim, signed_at}"),
    (lambda s: s["predicate"]["claim"].pop("statement"), "the predicate {realm, claim, signed_at}"),
    (lambda s: s["predicate"]["claim"].pop("state"), "its claim with statement, state, certainty"),
    (lambda s: s["predicate"]["claim"].pop("certainty"), "its claim with statement, state, certainty"),
    (lambda s: s["predicate"]["claim"].update(state=["verified"]), "its claim with statement, state, certainty"),
])
def test_a_payload_that_is_no_parley_claim_statement_is_refused(trusted_acme, change, says):
    statement = trusted_acme.statement()
    change(statement)
    refused_envelope(trusted_acme.sign(statement), says)


@pytest.mark.parametrize("change, says", [
    (lambda e: e.update(payloadType="application/json"), "payloadType"),
    (lambda e: e.update(signatures=[]), "non-empty list"),
    (lambda e: e.update(signatures=[{"keyid": 1, "sig": "x"}]), "non-empty list"),
    (lambda e: e.update(payload="not base64!"), "standard base64"),
    (lambda e: e["signatures"].append(dict(e["signatures"][0])), "one signature per keyid"),
])
def test_a_malformed_envelope_is_refused(trusted_acme, change, says):
    envelope = json.loads(trusted_acme.sign())
    change(envelope)
    refused_envelope(json.dumps(envelope).encode(), says)


def test_trusted_is_decided_when_read(trusted_acme):
    stored = inspect(trusted_acme.sign())
    assert attests_view(stored) == {**stored, "trusted": True}
    realm_distrust("acme")
    assert attests_view(stored)["trusted"] is False


def test_a_key_dropped_from_the_trusted_jwks_is_no_longer_trusted(trusted_acme):
    stored = inspect(trusted_acme.sign())
    successor = Realm("acme", Ed25519PrivateKey.generate())
    realm_trust(OPERATOR, "acme", successor.jwks)  # acme retired the old key; its refreshed JWKS arrives
    assert attests_view(stored)["trusted"] is False
    refused_envelope(trusted_acme.sign(), "signed by no key the realm 'acme' lists")


def test_an_artifact_that_is_no_attestation_reads_attests_null(db):
    assert attests_view(None) is None


# --- envelopes too large to parse (issue 22): refused, never stored unchecked --------------------------------

PAST_INSPECTED = INSPECTED_MAX_BYTES + 1


def padded(envelope_bytes):
    """A forged envelope padded past the inspected size: spaces inside the object, where JSON allows them."""
    return envelope_bytes[:1] + b" " * PAST_INSPECTED + envelope_bytes[1:]


def test_a_forged_envelope_padded_past_the_inspected_size_is_refused(acme, db):
    refused_envelope(padded(acme.sign()), "at most 1048576 bytes")


def test_a_padded_envelope_naming_its_fields_with_escapes_is_refused(acme, db):
    escaped = acme.sign().replace(b'"payloadType"', b'"p\\u0061yloadType"').replace(
        b'"signatures"', b'"\\u0073ignatures"')
    refused_envelope(padded(escaped), "at most 1048576 bytes")


def test_a_padded_envelope_in_utf_16_is_refused(acme, db):
    refused_envelope(padded(acme.sign()).decode().encode("utf-16"), "at most 1048576 bytes")


@pytest.mark.parametrize("data", [
    b'{"log": "' + b"x" * PAST_INSPECTED + b'"}',
    b'[' + b'{"payloadType": 1}, ' * (PAST_INSPECTED // 10) + b'{"payload": 2, "signature": 3}]',
    b'{"note": "a \\"payload\\": is named here", "pad": "' + b"x" * PAST_INSPECTED + b'"}',
    b"\x00\x00\x00\x18ftypmp42" + b"\x00" * PAST_INSPECTED,
])
def test_large_bytes_that_are_no_envelope_attest_nothing(db, data):
    assert inspect(data) is None
