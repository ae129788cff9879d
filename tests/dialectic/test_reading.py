"""§10, §11 and §12: read_claim, list_claims (filters, cursor pages), claims shown on the thread's
messages, claim events, the manifest section; each read within a fixed number of queries."""
import jsonschema
import pytest

from forum.dispatch import OPERATIONS
from tests.dialectic.conftest import HASH_PROOF, URL_PROOF, act, assert_claim


@pytest.fixture
def story(as_alice, as_bob, as_carol, as_vera, thread):
    """Four claims of alice and bob in every standing: supported+verified, refuted, superseded, open."""
    sealed = assert_claim(as_alice, thread, "Water boils at 100 C at sea level.", proof=[HASH_PROOF])
    assert act(as_bob, "attest", sealed, thread).status_code == 201
    assert act(as_carol, "attest", sealed, thread, proof=[HASH_PROOF]).status_code == 201
    assert act(as_vera, "verify", sealed, thread).status_code == 201
    wrong = assert_claim(as_bob, thread, "Water boils at 90 C at sea level.")
    assert act(as_carol, "refute", wrong, thread).status_code == 201
    old = assert_claim(as_alice, thread, "Ice melts at 0 C.")
    new = assert_claim(as_alice, thread, "Ice melts at 0 C at 1 atm.", supersedes=[old],
                       valid_until="2999-01-01T00:00:00Z")
    return {"sealed": sealed, "wrong": wrong, "old": old, "new": new}


def test_read_claim_shows_the_whole_claim_in_the_declared_schema(as_mallory, as_alice, as_bob, as_carol,
                                                                   as_vera, thread, story):
    response = as_mallory.get(f"/api/v1/claims/{story['sealed']}")
    assert response.status_code == 200, response.json()
    claim = response.json()["claim"]
    jsonschema.validate(response.json(), OPERATIONS["read_claim"].output)
    assert claim["statement"] == "Water boils at 100 C at sea level."
    assert claim["thread"] == thread
    assert claim["asserted_by"] == {"identity": as_alice.identity, "extension": None}
    assert claim["proofs"] == [HASH_PROOF]
    assert [(a["by"]["identity"], a["proof"]) for a in claim["attestations"]] == [
        (as_bob.identity, [URL_PROOF]), (as_carol.identity, [HASH_PROOF])]
    assert claim["verified_by"] == {"identity": as_vera.identity, "extension": None}
    assert (claim["state"], claim["certainty"], claim["expired"], claim["refutation"]) == (
        "verified", "verified", False, None)
    new = as_mallory.get(f"/api/v1/claims/{story['new']}").json()["claim"]
    assert new["supersedes"] == [story["old"]] and new["valid_until"] == "2999-01-01T00:00:00Z"


def test_read_claim_takes_the_bare_number(as_bob, story):
    number = story["wrong"].removeprefix("cl_")
    assert as_bob.get(f"/api/v1/claims/{number}").json()["claim"]["id"] == story["wrong"]


@pytest.mark.parametrize("ref", ["cl_999", "999", "cl_x", "th_1"])
def test_read_claim_answers_not_found_for_an_unknown_or_malformed_id(as_bob, story, ref):
    response = as_bob.get(f"/api/v1/claims/{ref}")
    assert response.status_code == 404
    assert response.json()["error"]["reason"] == "not_found"
    assert response.json()["error"]["detail"]["object"] == "claim"


def test_reading_claims_needs_a_token(agent, story):
    for path in (f"/api/v1/claims/{story['sealed']}", "/api/v1/claims"):
        response = agent(None).get(path)
        assert response.status_code == 401
        assert response.json()["error"]["reason"] == "token_invalid"


def test_reading_claims_needs_the_read_right(make_token, agent, story):
    blind = agent(make_token("blind", ("write",)))
    response = blind.get(f"/api/v1/claims/{story['sealed']}")
    assert response.status_code == 403
    assert response.json()["error"]["detail"]["right"] == "read"


def ids(response):
    assert response.status_code == 200, response.json()
    jsonschema.validate(response.json(), OPERATIONS["list_claims"].output)
    return [claim["id"] for claim in response.json()["items"]]


def test_list_claims_lists_every_claim_oldest_first(as_bob, story):
    assert ids(as_bob.get("/api/v1/claims")) == [story[name] for name in ("sealed", "wrong", "old", "new")]


@pytest.mark.parametrize("filters, expected", [
    ({"state": "verified"}, ["sealed"]),
    ({"state": "refuted"}, ["wrong"]),
    ({"state": "superseded"}, ["old"]),
    ({"state": "unverified"}, ["new"]),
    ({"certainty": "verified"}, ["sealed"]),
    ({"certainty": "unverified"}, ["new"]),
    ({"certainty": "supported"}, []),
    ({"asserted_by": "ainotes:bob"}, ["wrong"]),
    ({"asserted_by": "ainotes:alice", "state": "superseded"}, ["old"]),
])
def test_list_claims_filters_by_state_certainty_and_asserting_identity(as_bob, story, filters, expected):
    assert ids(as_bob.get("/api/v1/claims", **filters)) == [story[name] for name in expected]


def test_list_claims_filters_by_thread(as_alice, as_bob, story):
    elsewhere = as_bob.ask("Another topic")
    there = assert_claim(as_bob, elsewhere, "A claim elsewhere.")
    assert ids(as_bob.get("/api/v1/claims", thread=elsewhere)) == [there]
    assert ids(as_bob.get("/api/v1/claims", thread=elsewhere.removeprefix("th_"))) == [there]


@pytest.mark.parametrize("filters, field", [
    ({"state": "plausible"}, "state"), ({"certainty": "high"}, "certainty"), ({"thread": "x"}, "thread"),
    ({"limit": "0"}, "limit"), ({"limit": "201"}, "limit"), ({"cursor": "garbage"}, "cursor"),
    ({"colour": "red"}, "colour"),
])
def test_list_claims_refuses_a_bad_query(as_bob, story, filters, field):
    response = as_bob.get("/api/v1/claims", **filters)
    assert response.status_code == 400
    assert response.json()["error"]["reason"] == "invalid_body"
    assert response.json()["error"]["detail"]["field"] == field


def test_list_claims_of_an_unknown_thread_is_not_found(as_bob, story):
    response = as_bob.get("/api/v1/claims", thread="th_404")
    assert response.status_code == 404
    assert response.json()["error"]["detail"]["object"] == "thread"


def test_list_claims_pages_by_cursor_and_keeps_the_cursor_on_an_empty_page(as_bob, story):
    first = as_bob.get("/api/v1/claims", limit=3).json()
    assert [c["id"] for c in first["items"]] == [story["sealed"], story["wrong"], story["old"]]
    second = as_bob.get("/api/v1/claims", limit=3, cursor=first["cursor"]).json()
    assert [c["id"] for c in second["items"]] == [story["new"]]
    empty = as_bob.get("/api/v1/claims", since=second["cursor"]).json()
    assert empty == {"items": [], "cursor": second["cursor"]}
    threads_cursor = as_bob.get("/api/v1/threads").json()["cursor"]
    assert as_bob.get("/api/v1/claims", cursor=threads_cursor).status_code == 400


def test_reading_a_thread_shows_each_claims_current_standing(as_bob, thread, story):
    replies = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"][0]["replies"]
    shown = [(m["kind"], m.get("claim", {}).get("id"), m.get("claim", {}).get("state")) for m in replies]
    sealed, wrong, old, new = (story[name] for name in ("sealed", "wrong", "old", "new"))
    assert shown == [
        ("assert", sealed, "verified"), ("attest", sealed, "verified"), ("attest", sealed, "verified"),
        ("verify", sealed, "verified"), ("assert", wrong, "refuted"), ("refute", wrong, "refuted"),
        ("assert", old, "superseded"), ("assert", new, "unverified"),
    ]
    assert replies[0]["claim"] == {"id": sealed, "state": "verified", "certainty": "verified", "expired": False}


def test_reading_a_message_shows_its_claim(as_bob, story):
    message = as_bob.get(f"/api/v1/claims/{story['wrong']}").json()["claim"]["message"]
    shown = as_bob.get(f"/api/v1/messages/{message}").json()["message"]
    assert shown["claim"]["id"] == story["wrong"] and shown["claim"]["certainty"] == "refuted"


def test_core_messages_carry_no_claim(as_alice, as_bob, thread):
    assert as_bob.say("note", "just a note", thread=thread).status_code == 201
    tree = as_bob.get(f"/api/v1/threads/{thread}").json()["messages"]
    assert "claim" not in tree[0] and "claim" not in tree[0]["replies"][0]


def test_claim_transitions_are_listed_as_events_with_their_claim(as_alice, as_bob, as_carol, thread, story):
    events = as_bob.get(f"/api/v1/threads/{thread}/events").json()["items"]
    claim_events = [(e["claim"], e["label"], e["from_state"], e["to_state"]) for e in events if e["claim"]]
    sealed, wrong, old, new = (story[name] for name in ("sealed", "wrong", "old", "new"))
    assert claim_events == [
        (sealed, "assert", None, "unverified"), (sealed, "attest", "unverified", "supported"),
        (sealed, "verify", "supported", "verified"), (wrong, "assert", None, "unverified"),
        (wrong, "refute", "unverified", "refuted"), (old, "assert", None, "unverified"),
        (new, "assert", None, "unverified"), (old, "assert", "unverified", "superseded"),
    ]
    assert all(e["confirmed_at"] == e["at"] and e["confirmed_by"] == e["actor"] for e in events if e["claim"])


def test_the_manifest_describes_the_profile(agent, db):  # the manifest reads the trusted realms (§18)
    manifest = agent(None).get("/api/v1/manifest").json()
    section = manifest["profiles"]["dialectic"]
    assert [kind["name"] for kind in section["kinds"]] == ["assert", "attest", "refute", "verify"]
    assert all(kind["description"] for kind in section["kinds"])
    assert section["claim_states"] == ["unverified", "supported", "verified", "refuted", "superseded"]
    assert section["final_states"] == ["refuted", "superseded"]
    assert section["certainty"] == ["refuted", "superseded", "unverified", "supported", "verified"]
    assert section["proof_kinds"] == ["url", "hash", "artifact", "commit", "log", "reproducer", "note", "other"]
    assert section["limits"] == {"proofs_per_act_max": 8, "proof_ref_max_chars": 2048,
                                 "proof_note_max_chars": 500, "supersedes_max": 8}
    assert {"name": "read_claim", "mcp_tool": "read_claim", "http": "GET /api/v1/claims/{id}"} in manifest[
        "operations"]
    assert {"name": "list_claims", "mcp_tool": "list_claims", "http": "GET /api/v1/claims"} in manifest[
        "operations"]
    assert "assert" not in [kind["name"] for kind in manifest["kinds"]]


def test_claim_reads_take_a_fixed_number_of_queries(as_bob, thread, story, django_assert_max_num_queries):
    for extra in range(3):
        assert_claim(as_bob, thread, f"Padding claim {extra}.")
    with django_assert_max_num_queries(4):
        as_bob.get(f"/api/v1/claims/{story['sealed']}")
    with django_assert_max_num_queries(5):
        as_bob.get("/api/v1/claims", thread=thread)
    with django_assert_max_num_queries(4):
        as_bob.get(f"/api/v1/threads/{thread}")


def test_claim_writes_take_a_fixed_number_of_queries(as_alice, as_bob, as_vera, thread, story,
                                                      django_assert_max_num_queries):
    # 17: with the reputation's refresh job (§21) queued in each claim write's transaction.
    with django_assert_max_num_queries(17):
        fresh = assert_claim(as_alice, thread, "Counted.", proof=[URL_PROOF])
    with django_assert_max_num_queries(17):
        act(as_bob, "attest", fresh, thread)
    with django_assert_max_num_queries(17):
        act(as_vera, "verify", fresh, thread)
