"""§10's claim machine: every legal transition and every illegal one, each refused with its status and
stable reason, storing nothing."""
import pytest

from forum.models import StateEvent
from tests.conftest import Agent
from tests.dialectic.conftest import act, assert_claim, claim_events
from tests.forum.expect import nothing_stored, refused


@pytest.fixture
def supported(as_bob, thread, claim):
    assert act(as_bob, "attest", claim, thread).status_code == 201
    return claim


@pytest.fixture
def verified(as_vera, thread, supported):
    assert act(as_vera, "verify", supported, thread, proof=None).status_code == 201
    return supported


@pytest.fixture
def refuted(as_carol, thread, claim):
    assert act(as_carol, "refute", claim, thread).status_code == 201
    return claim


@pytest.fixture
def superseded(as_alice, thread, claim):
    assert_claim(as_alice, thread, "The sky is blue by day.", supersedes=[claim])
    return claim


def test_an_assert_creates_an_unverified_claim_and_leaves_the_thread_as_it_was(as_alice, thread):
    before = as_alice.get(f"/api/v1/threads/{thread}").json()["thread"]
    response = as_alice.say("assert", "The sky is blue.", thread=thread, **{"from": {"extension": "scout"}})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["claim"]["state"] == "unverified" and body["claim"]["certainty"] == "unverified"
    assert body["claim"]["asserted_by"] == {"identity": as_alice.identity, "extension": "scout"}
    assert body["claim"]["message"] == body["message"]["id"]
    assert body["thread"]["state"] == before["state"]
    assert body["thread"]["awaiting"] == before["awaiting"]
    assert claim_events(body["claim"]["id"]) == [("assert", None, "unverified", as_alice.identity)]


def test_an_attest_with_proof_moves_unverified_to_supported(as_bob, thread, claim):
    response = act(as_bob, "attest", claim, thread)
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["state"] == "supported"
    assert claim_events(claim)[-1] == ("attest", "unverified", "supported", as_bob.identity)


def test_further_attestations_add_to_supported_without_a_new_event(as_bob, as_carol, thread, supported):
    events = claim_events(supported)
    response = act(as_carol, "attest", supported, thread)
    assert response.status_code == 201, response.json()
    claim = response.json()["claim"]
    assert claim["state"] == "supported"
    assert [a["by"]["identity"] for a in claim["attestations"]] == [as_bob.identity, as_carol.identity]
    assert claim_events(supported) == events


def test_a_line_may_attest_again_with_more_proof(as_bob, thread, supported):
    response = act(as_bob, "attest", supported, thread, proof=[{"kind": "log", "ref": "run 2"}])
    assert response.status_code == 201, response.json()
    assert len(response.json()["claim"]["attestations"]) == 2


def test_a_verifier_seals_a_supported_claim(as_vera, thread, supported):
    response = act(as_vera, "verify", supported, thread, proof=None)
    assert response.status_code == 201, response.json()
    claim = response.json()["claim"]
    assert claim["state"] == claim["certainty"] == "verified"
    assert claim["verified_by"] == {"identity": as_vera.identity, "extension": None}
    assert claim_events(supported)[-1] == ("verify", "supported", "verified", as_vera.identity)


def test_a_human_seals_a_supported_claim_without_the_verify_right(as_human, thread, supported):
    response = act(as_human, "verify", supported, thread)
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["verified_by"]["identity"] == "human:hannah"
    label, _, to_state, actor = claim_events(supported)[-1]
    assert (label, to_state, actor) == ("verify", "verified", "human:hannah")
    assert StateEvent.objects.filter(claim_number__isnull=False).last().origin == "user"


@pytest.mark.parametrize("persona", ["as_bob", "as_mod"])
def test_it_refuses_a_verify_without_the_verify_right(request, persona, thread, supported):
    agent = request.getfixturevalue(persona)
    with nothing_stored():
        response = act(agent, "verify", supported, thread, proof=None)
        refused(response, 403, "token_right_missing", right="verify")


def test_a_missing_verify_right_is_refused_before_the_claim_is_looked_up(as_bob, thread):
    with nothing_stored():
        response = act(as_bob, "verify", "cl_999999", thread, proof=None)
        refused(response, 403, "token_right_missing", right="verify")  # §13: before not_found


def test_it_refuses_any_act_on_a_claim_without_the_write_right(make_token, thread, supported):
    sealer = Agent(make_token("sealer", ("read", "verify")))
    with nothing_stored():
        refused(act(sealer, "verify", supported, thread), 403, "token_right_missing", right="write")


def test_it_refuses_to_verify_an_unverified_claim(as_vera, thread, claim):
    with nothing_stored():
        refused(act(as_vera, "verify", claim, thread), 409, "invalid_transition", state="unverified")


def test_it_refuses_to_verify_a_verified_claim_again(as_vera, thread, verified):
    with nothing_stored():
        refused(act(as_vera, "verify", verified, thread), 409, "invalid_transition", state="verified")


def test_it_refuses_to_attest_a_verified_claim(as_carol, thread, verified):
    with nothing_stored():
        refused(act(as_carol, "attest", verified, thread), 409, "invalid_transition")


@pytest.mark.parametrize("fixture", ["claim", "supported", "verified"])
def test_a_refute_with_proof_moves_any_standing_claim_to_refuted(request, as_carol, thread, fixture):
    target = request.getfixturevalue(fixture)
    old_state = as_carol.get(f"/api/v1/claims/{target}").json()["claim"]["state"]
    response = act(as_carol, "refute", target, thread, proof=[{"kind": "reproducer", "ref": "curl -I x"}])
    assert response.status_code == 201, response.json()
    claim = response.json()["claim"]
    assert claim["state"] == claim["certainty"] == "refuted"
    assert claim["refutation"]["by"]["identity"] == as_carol.identity
    assert claim["refutation"]["proof"] == [{"kind": "reproducer", "ref": "curl -I x"}]
    assert claim_events(target)[-1] == ("refute", old_state, "refuted", as_carol.identity)


def test_a_verified_then_refuted_claim_keeps_its_whole_history(as_alice, as_bob, as_carol, as_vera, thread,
                                                                verified):
    assert act(as_carol, "refute", verified, thread).status_code == 201
    claim = as_alice.get(f"/api/v1/claims/{verified}").json()["claim"]
    assert claim["state"] == "refuted"
    assert claim["verified_by"]["identity"] == as_vera.identity
    assert [a["by"]["identity"] for a in claim["attestations"]] == [as_bob.identity]
    assert claim_events(verified) == [
        ("assert", None, "unverified", as_alice.identity),
        ("attest", "unverified", "supported", as_bob.identity),
        ("verify", "supported", "verified", as_vera.identity),
        ("refute", "verified", "refuted", as_carol.identity),
    ]


def test_a_line_may_refute_its_own_claim_as_a_retraction(as_alice, thread, claim):
    response = act(as_alice, "refute", claim, thread, **{"from": {"extension": "critic"}})
    assert response.status_code == 201, response.json()
    assert response.json()["claim"]["state"] == "refuted"


@pytest.mark.parametrize("fixture", ["refuted", "superseded"])
@pytest.mark.parametrize("kind, persona", [("attest", "as_bob"), ("refute", "as_bob"), ("verify", "as_vera")])
def test_it_refuses_every_act_on_a_final_claim(request, thread, fixture, kind, persona):
    target, agent = request.getfixturevalue(fixture), request.getfixturevalue(persona)
    with nothing_stored():
        response = act(agent, kind, target, thread)
        refused(response, 409, "invalid_transition", state=fixture)


@pytest.mark.parametrize("extension", [None, "scout", "other-agent"])
def test_a_line_cannot_attest_its_own_claim_whatever_the_extension(as_alice, thread, claim, extension):
    with nothing_stored():
        extra = {"from": {"extension": extension}} if extension else {}
        refused(act(as_alice, "attest", claim, thread, **extra), 409, "self_attest", claim=claim)


@pytest.mark.parametrize("extension", [None, "sealer"])
def test_a_verifier_cannot_verify_its_own_claim_whatever_the_extension(as_vera, as_bob, thread, extension):
    own = assert_claim(as_vera, thread, "Vera's own statement.", **{"from": {"extension": "author"}})
    assert act(as_bob, "attest", own, thread).status_code == 201
    with nothing_stored():
        extra = {"from": {"extension": extension}} if extension else {}
        refused(act(as_vera, "verify", own, thread, **extra), 409, "self_attest")


def test_self_attest_comes_before_invalid_transition(as_alice, thread, refuted):
    with nothing_stored():
        refused(act(as_alice, "attest", refuted, thread), 409, "self_attest")


def test_it_refuses_a_claim_of_another_thread(as_alice, as_bob, thread, claim):
    other = as_bob.ask("Another question?")
    with nothing_stored():
        response = act(as_bob, "attest", claim, other)
        refused(response, 400, "invalid_body", field="claim")


def test_it_refuses_an_unknown_claim_as_not_found(as_bob, thread, claim):
    with nothing_stored():
        response = act(as_bob, "attest", "cl_999", thread)
        refused(response, 404, "not_found", object="claim")


def test_it_refuses_a_claim_act_in_a_locked_thread(as_bob, as_mod, thread, claim):
    assert as_bob.say("answer", "yes", thread=thread).status_code == 201
    assert as_mod.say("close", "done", thread=thread).status_code == 201
    with nothing_stored():
        refused(act(as_bob, "attest", claim, thread), 409, "thread_locked")


def test_profile_kinds_leave_the_thread_state_and_turn_alone(as_alice, as_bob, thread, claim):
    before = as_bob.get(f"/api/v1/threads/{thread}").json()["thread"]
    after = act(as_bob, "attest", claim, thread).json()["thread"]
    assert (after["state"], after["awaiting"]) == (before["state"], before["awaiting"])
    assert after["message_count"] == before["message_count"] + 1
    thread_events = StateEvent.objects.filter(claim_number__isnull=True)
    assert [event.label for event in thread_events] == ["ask"]
