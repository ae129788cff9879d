"""§10 envelope fields: accepted only with the profile's kinds, required and forbidden per kind, and
proofs validated per kind. Every refusal is 400 invalid_body naming the field, and stores nothing."""
import pytest

from tests.dialectic.conftest import URL_PROOF, act, assert_claim
from tests.evidence.conftest import artifact_id, upload
from tests.forum.expect import nothing_stored, refused

REPORT = b"the failing report\n"

GOOD_PROOFS = [
    {"kind": "url", "ref": "https://example.org/paper.pdf"},
    {"kind": "url", "ref": "http://localhost:8000/log?run=3#tail"},
    {"kind": "hash", "ref": "sha256:" + "0f" * 32},
    {"kind": "hash", "ref": "sha512:" + "AB" * 64},
    {"kind": "hash", "ref": "sha1:" + "1" * 40},
    {"kind": "hash", "ref": "blake2b:" + "c" * 128},
    {"kind": "commit", "ref": "abc1234"},
    {"kind": "commit", "ref": "github.com/parley/parley@" + "e" * 40},
    {"kind": "commit", "ref": "f" * 64},
    # §18: an artifact proof names a stored artifact; the test uploads it first (tests/evidence has the rest).
    {"kind": "artifact", "ref": artifact_id(REPORT), "note": "the failing report"},
    {"kind": "log", "ref": "ci job 7, line 120"},
    {"kind": "reproducer", "ref": "python -c 'print(1/0)'"},
    {"kind": "note", "ref": "see the thread above"},
    {"kind": "other", "ref": "x" * 2048},
]

BAD_REFS = [
    {"kind": "url", "ref": "example.org/paper"},
    {"kind": "url", "ref": "ftp://example.org/paper"},
    {"kind": "url", "ref": "https://"},
    {"kind": "url", "ref": "https://exa mple.org/"},
    {"kind": "url", "ref": "javascript:alert(1)"},
    {"kind": "hash", "ref": "md5:" + "0" * 32},
    {"kind": "hash", "ref": "sha256:" + "0" * 63},
    {"kind": "hash", "ref": "sha256:" + "g" * 64},
    {"kind": "hash", "ref": "sha1:" + "0" * 64},
    {"kind": "hash", "ref": "blake2b:" + "0" * 64},
    {"kind": "hash", "ref": "0" * 64},
    {"kind": "commit", "ref": "abc123"},
    {"kind": "commit", "ref": "0" * 65},
    {"kind": "commit", "ref": "xyz1234"},
    {"kind": "commit", "ref": "@abc1234"},
    {"kind": "commit", "ref": "my repo@abc1234"},
]


@pytest.mark.parametrize("proof", GOOD_PROOFS, ids=lambda proof: f"{proof['kind']}:{proof['ref'][:30]}")
def test_it_accepts_a_well_formed_proof_of_each_kind(as_bob, thread, claim, proof):
    if proof["kind"] == "artifact":
        assert upload(as_bob, REPORT).status_code == 201
    response = act(as_bob, "attest", claim, thread, proof=[proof])
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["attestations"][0]["proof"] == [proof]


@pytest.mark.parametrize("proof", BAD_REFS, ids=lambda proof: f"{proof['kind']}:{proof['ref'][:30]}")
def test_it_refuses_a_proof_whose_ref_does_not_fit_its_kind(as_bob, thread, claim, proof):
    with nothing_stored():
        response = act(as_bob, "attest", claim, thread, proof=[URL_PROOF, proof])
        refused(response, 400, "invalid_body", field="proof[1].ref")


@pytest.mark.parametrize("proof, field", [
    ({"kind": "url"}, "proof[0].ref"),
    ({"ref": "https://example.org/"}, "proof[0].kind"),
    ({"kind": "opinion", "ref": "I think so"}, "proof[0].kind"),
    ({"kind": "note", "ref": ""}, "proof[0].ref"),
    ({"kind": "note", "ref": "x" * 2049}, "proof[0].ref"),
    ({"kind": "note", "ref": "ok", "note": "n" * 501}, "proof[0].note"),
    ({"kind": "note", "ref": "ok", "weight": 3}, "proof[0].weight"),
    ("https://example.org/", "proof[0]"),
])
def test_it_refuses_a_malformed_proof_naming_the_culprit(as_bob, thread, claim, proof, field):
    with nothing_stored():
        refused(act(as_bob, "attest", claim, thread, proof=[proof]), 400, "invalid_body", field=field)


def test_it_refuses_more_than_proofs_per_act_max_proofs(as_bob, thread, claim):
    with nothing_stored():
        response = act(as_bob, "attest", claim, thread, proof=[URL_PROOF] * 9)
        refused(response, 400, "invalid_body", field="proof")


def test_it_accepts_exactly_proofs_per_act_max_proofs(as_bob, thread, claim):
    response = act(as_bob, "attest", claim, thread, proof=[URL_PROOF] * 8)
    assert response.status_code == 201, response.json()


@pytest.mark.parametrize("kind", ["attest", "refute"])
def test_it_refuses_an_attest_or_refute_without_proof(as_bob, thread, claim, kind):
    with nothing_stored():
        refused(act(as_bob, kind, claim, thread, proof=None), 400, "invalid_body", field="proof")
        refused(act(as_bob, kind, claim, thread, proof=[]), 400, "invalid_body", field="proof")


@pytest.mark.parametrize("kind", ["attest", "refute", "verify"])
def test_it_refuses_an_act_on_a_claim_without_naming_the_claim(as_bob, thread, claim, kind):
    with nothing_stored():
        response = as_bob.say(kind, "no target", thread=thread, proof=[URL_PROOF])
        refused(response, 400, "invalid_body", field="claim")


@pytest.mark.parametrize("kind, field, value", [
    ("assert", "claim", "cl_1"),
    ("attest", "supersedes", ["cl_1"]),
    ("refute", "valid_until", "2999-01-01T00:00:00Z"),
    ("verify", "supersedes", ["cl_1"]),
])
def test_it_refuses_a_profile_field_its_kind_does_not_take(as_vera, thread, claim, kind, field, value):
    with nothing_stored():
        envelope = {"claim": claim, "proof": [URL_PROOF]} if kind != "assert" else {}
        response = as_vera.say(kind, "text", thread=thread, **{**envelope, field: value})
        refused(response, 400, "invalid_body", field=field)


@pytest.mark.parametrize("field, value", [
    ("proof", [URL_PROOF]), ("claim", "cl_1"), ("supersedes", ["cl_1"]),
    ("valid_until", "2999-01-01T00:00:00Z"),
])
def test_it_refuses_profile_fields_on_core_kinds_as_unknown(as_bob, thread, claim, field, value):
    with nothing_stored():
        response = as_bob.say("note", "text", thread=thread, **{field: value})
        refused(response, 400, "invalid_body", field=field)


@pytest.mark.parametrize("value, field", [
    ("cl_x", "claim"), (0, "claim"), ("th_1", "claim"), (True, "claim"),
])
def test_it_refuses_a_malformed_claim_id(as_bob, thread, claim, value, field):
    with nothing_stored():
        response = as_bob.say("attest", "text", thread=thread, claim=value, proof=[URL_PROOF])
        refused(response, 400, "invalid_body", field=field)


def test_it_accepts_a_claim_as_bare_number_or_digit_string(as_bob, as_carol, thread, claim):
    number = int(claim.removeprefix("cl_"))
    assert act(as_bob, "attest", number, thread).status_code == 201
    assert act(as_carol, "attest", str(number), thread).status_code == 201


def test_it_refuses_a_valid_until_in_the_past(as_alice, thread):
    with nothing_stored():
        response = as_alice.say("assert", "stale", thread=thread, valid_until="2020-01-01T00:00:00Z")
        refused(response, 400, "invalid_body", field="valid_until")


def test_it_refuses_a_valid_until_without_offset(as_alice, thread):
    with nothing_stored():
        response = as_alice.say("assert", "naive", thread=thread, valid_until="2999-01-01T00:00:00")
        refused(response, 400, "invalid_body", field="valid_until")


def test_it_refuses_a_claim_listed_twice_in_supersedes(as_alice, thread, claim):
    with nothing_stored():
        response = as_alice.say("assert", "newer", thread=thread, supersedes=[claim, claim])
        refused(response, 400, "invalid_body", field="supersedes[1]")


def test_it_refuses_more_than_supersedes_max_claims(as_alice, thread):
    claims = [assert_claim(as_alice, thread, f"claim {n}") for n in range(9)]
    with nothing_stored():
        response = as_alice.say("assert", "newer", thread=thread, supersedes=claims)
        refused(response, 400, "invalid_body", field="supersedes")


def test_it_refuses_an_empty_supersedes_list(as_alice, thread):
    with nothing_stored():
        response = as_alice.say("assert", "newer", thread=thread, supersedes=[])
        refused(response, 400, "invalid_body", field="supersedes")


def test_it_refuses_an_assert_without_a_thread(as_alice):
    with nothing_stored():
        refused(as_alice.say("assert", "floating"), 400, "invalid_body", field="thread")


def test_it_reports_invalid_body_before_a_missing_right(as_mallory, thread, claim):
    with nothing_stored():
        response = act(as_mallory, "attest", claim, thread, proof=None)
        refused(response, 400, "invalid_body", field="proof")


def test_the_post_input_schema_describes_the_profile_fields_as_they_are_enforced():
    from forum.dispatch import OPERATIONS

    properties = OPERATIONS["post"].input().json_schema()["properties"]
    assert {"assert", "attest", "refute", "verify"} <= set(properties["kind"]["enum"])
    assert properties["proof"]["maxItems"] == 8
    proof = properties["proof"]["items"]
    assert proof["required"] == ["kind", "ref"] and proof["additionalProperties"] is False
    assert proof["properties"]["ref"]["maxLength"] == 2048
    assert proof["properties"]["note"]["maxLength"] == 500
    assert {rule["if"]["properties"]["kind"]["const"] for rule in proof["allOf"]} == {"url", "hash", "commit"}
    assert properties["supersedes"]["maxItems"] == 8
    assert properties["valid_until"]["format"] == "date-time"
