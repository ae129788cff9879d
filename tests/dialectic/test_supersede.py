"""§10 supersedes: a newer assert replaces older claims, only with authority over them (the asserting
line, a lock holder, a human); refuted and superseded claims are final."""
import pytest

from forum.models import StateEvent
from tests.dialectic.conftest import act, assert_claim
from tests.forum.expect import nothing_stored, refused


def test_the_asserting_line_supersedes_its_claim_from_another_extension(as_alice, thread, claim):
    response = as_alice.say("assert", "The sky is blue by day.", thread=thread, supersedes=[claim],
                            **{"from": {"extension": "editor"}})
    assert response.status_code == 201, response.json()
    newer = response.json()["claim"]
    assert newer["supersedes"] == [claim] and newer["state"] == "unverified"
    older = as_alice.get(f"/api/v1/claims/{claim}").json()["claim"]
    assert older["state"] == older["certainty"] == "superseded"
    assert older["superseded_by"] == newer["id"]
    event = StateEvent.objects.filter(claim_number=int(claim.removeprefix("cl_"))).last()
    assert (event.label, event.from_state, event.to_state) == ("assert", "unverified", "superseded")
    assert f"msg_{event.message_id}" == response.json()["message"]["id"]


@pytest.mark.parametrize("persona", ["as_mod", "as_human"])
def test_a_lock_holder_or_a_human_supersedes_another_lines_claim(request, persona, thread, claim):
    newer = assert_claim(request.getfixturevalue(persona), thread, "Corrected statement.", supersedes=[claim])
    older = request.getfixturevalue(persona).get(f"/api/v1/claims/{claim}").json()["claim"]
    assert older["superseded_by"] == newer


def test_it_refuses_to_supersede_another_lines_claim_without_lock(as_bob, thread, claim):
    with nothing_stored():
        response = as_bob.say("assert", "My version instead.", thread=thread, supersedes=[claim])
        refused(response, 403, "thread_authority_missing", claim=claim)


def test_it_supersedes_several_claims_at_once_or_none_of_them(as_alice, as_bob, thread, claim):
    bobs = assert_claim(as_bob, thread, "Bob's statement.")
    with nothing_stored():
        response = as_alice.say("assert", "Both replaced.", thread=thread, supersedes=[claim, bobs])
        refused(response, 403, "thread_authority_missing", claim=bobs)
    assert as_alice.get(f"/api/v1/claims/{claim}").json()["claim"]["state"] == "unverified"


def test_a_supported_claim_can_be_superseded(as_alice, as_bob, thread, claim):
    assert act(as_bob, "attest", claim, thread).status_code == 201
    assert_claim(as_alice, thread, "Refined.", supersedes=[claim])
    assert as_alice.get(f"/api/v1/claims/{claim}").json()["claim"]["state"] == "superseded"


@pytest.mark.parametrize("final", ["refuted", "superseded"])
def test_it_refuses_to_supersede_a_final_claim(as_alice, as_bob, thread, claim, final):
    if final == "refuted":
        assert act(as_bob, "refute", claim, thread).status_code == 201
    else:
        assert_claim(as_alice, thread, "First replacement.", supersedes=[claim])
    with nothing_stored():
        response = as_alice.say("assert", "Second replacement.", thread=thread, supersedes=[claim])
        refused(response, 409, "invalid_transition", state=final)


def test_it_refuses_to_supersede_an_unknown_claim(as_alice, thread):
    with nothing_stored():
        response = as_alice.say("assert", "Replaces nothing.", thread=thread, supersedes=["cl_404"])
        refused(response, 404, "not_found", object="claim")


def test_it_refuses_to_supersede_a_claim_of_another_thread(as_alice, thread, claim):
    elsewhere = as_alice.ask("A follow-up discussion")
    own = assert_claim(as_alice, elsewhere, "A claim of this thread.")
    with nothing_stored():
        response = as_alice.say("assert", "The sky is blue, measured.", thread=elsewhere, supersedes=[own, claim])
        refused(response, 400, "invalid_body", field="supersedes[1]")
