"""The portable record (§21 with §18): GET /api/v1/reputation/{identity}/attestation and MCP
export_reputation answer a DSSE envelope of an in-toto Statement v1, predicateType urn:parley:record:v1,
whose subject digest is the SHA-256 of the RFC 8785 canonical JSON of the predicate's `counted`; signed with
this realm's key, checkable with the JWKS and `cryptography` alone; rights as read_reputation. Another realm
that holds the claims' attestations re-derives the outcomes from them: evidence travels, a score does not."""
import hashlib

import pytest
import rfc8785

from tests.conftest import Agent
from tests.dialectic.conftest import act, assert_claim
from tests.evidence.conftest import envelope_json, realm_key, statement_of  # noqa: F401 - realm_key: a fixture
from tests.evidence.test_export import check_with_jwks
from tests.forum.expect import refused
from tests.mcp_bridge.conftest import McpAgent


def record_attestation(agent, identity="me"):
    return agent.get(f"/api/v1/reputation/{identity}/attestation")


@pytest.fixture
def sealed(as_alice, as_bob, make_token):
    """Two claims of alice's that bob attested and vera verified: alice sealed twice, bob held twice."""
    as_vera = Agent(make_token("vera", ("read", "write", "verify")))
    thread = as_alice.ask("Is the sky blue?")
    claims = []
    for statement in ("The sky is blue.", "Water is wet."):
        claim = assert_claim(as_alice, thread, statement)
        assert act(as_bob, "attest", claim, thread).status_code == 201
        assert act(as_vera, "verify", claim, thread).json()["claim"]["state"] == "verified"
        claims.append(claim)
    return claims


def test_export_answers_an_in_toto_statement_of_the_counted_outcomes(as_alice, sealed, realm_key, settings):
    statement = statement_of(envelope_json(record_attestation(as_alice)))
    predicate = statement["predicate"]
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "urn:parley:record:v1"
    assert set(predicate) == {"realm", "record", "counted", "signed_at"}
    assert predicate["realm"] == settings.PARLEY_REALM and predicate["record"]["identity"] == as_alice.identity
    assert [(row["claim"], row["role"], row["outcome"]) for row in predicate["counted"]] == [
        (claim, "asserter", "sealed") for claim in sealed]
    assert [set(row) for row in predicate["counted"]] == [
        {"claim", "statement_sha256", "role", "outcome", "weight", "at"}] * 2
    assert [row["statement_sha256"] for row in predicate["counted"]] == [
        hashlib.sha256(text.encode()).hexdigest() for text in ("The sky is blue.", "Water is wet.")]


def test_the_subject_digest_is_the_sha256_of_the_canonical_json_of_counted(as_alice, sealed, realm_key, settings):
    statement = statement_of(envelope_json(record_attestation(as_alice)))
    [subject] = statement["subject"]
    assert subject["name"] == f"parley:{settings.PARLEY_REALM}/{as_alice.identity}"
    assert subject["digest"] == {"sha256": hashlib.sha256(rfc8785.dumps(statement["predicate"]["counted"])).hexdigest()}


def test_an_exported_record_verifies_with_the_jwks_and_cryptography_alone(as_alice, sealed, realm_key, client):
    envelope = envelope_json(record_attestation(as_alice))
    jwks = client.get("/.well-known/parley-keys.json").json()
    assert check_with_jwks(envelope, jwks)["kid"] == realm_key.kid


def test_export_reads_as_read_reputation_does(as_alice, as_bob, sealed, realm_key, mod):
    refused(record_attestation(as_bob, as_alice.identity), 403, "token_right_missing", right="lock")
    refused(record_attestation(Agent(mod), "ainotes:nobody"), 404, "not_found")
    assert record_attestation(Agent(mod), as_alice.identity).status_code == 200


def test_the_mcp_tool_answers_what_rest_answers(as_alice, sealed, realm_key, alice):
    result = McpAgent(alice).call("export_reputation", {"identity": as_alice.identity})
    rest = statement_of(envelope_json(record_attestation(as_alice)))
    tool = statement_of(result["structuredContent"])
    assert tool["subject"] == rest["subject"] and tool["predicate"]["counted"] == rest["predicate"]["counted"]
    assert {**tool["predicate"]["record"], "computed_at": None} == {**rest["predicate"]["record"], "computed_at": None}


def test_without_a_key_export_is_unavailable_and_names_the_fix(as_alice, sealed):
    error = refused(record_attestation(as_alice), 503, "unavailable")
    assert "parley_keys create" in error["detail"]["fix"]


def test_another_realm_rederives_the_outcomes_from_the_claim_attestations_it_holds(as_alice, as_bob, sealed,
                                                                                   realm_key, client):
    """What another realm does with nothing of ours: check each envelope with our JWKS, match every counted
    outcome to a claim attestation by its statement digest, and derive the outcome from the claim as signed
    there (§21's table: the asserter of a verified claim `sealed`, an attester of one `attest_held`)."""
    jwks = client.get("/.well-known/parley-keys.json").json()
    held = {}
    for claim in sealed:
        envelope = envelope_json(as_bob.get(f"/api/v1/claims/{claim}/attestation"))
        check_with_jwks(envelope, jwks)
        statement = statement_of(envelope)
        held[statement["subject"][0]["digest"]["sha256"]] = statement["predicate"]["claim"]
    for identity, agent in ((as_alice.identity, as_alice), (as_bob.identity, as_bob)):
        envelope = envelope_json(record_attestation(agent))
        check_with_jwks(envelope, jwks)
        counted = statement_of(envelope)["predicate"]["counted"]
        derived = [(row["claim"], *derive(held[row["statement_sha256"]], identity)) for row in counted]
        assert derived == [(row["claim"], row["role"], row["outcome"]) for row in counted]
        assert len(counted) == 2


def derive(claim, identity):
    """(role, outcome) of `identity` on a claim as its attestation shows it, for the outcomes of a verified
    claim."""
    assert claim["state"] == "verified"
    if claim["asserted_by"]["identity"] == identity:
        return "asserter", "sealed"
    assert identity in [attestation["by"]["identity"] for attestation in claim["attestations"]]
    return "attester", "attest_held"
