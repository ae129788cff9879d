"""§10: acts on one claim are serialised like writes to a thread (thread row, then claim row). Many lines
attesting, verifying, refuting and superseding one claim at once, on PostgreSQL with real threads and
connections, leave one consistent history; verifications racing to complete a quorum (§18) seal it once."""
import threading

import pytest
from django.db import connection

from dialectic.models import Claim, ClaimAct
from forum.models import StateEvent
from tests.conftest import Agent
from tests.dialectic.conftest import act, assert_claim, claim_events, read, supported_claim, verify

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 3


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")


def run_together(calls):
    """Start every call at the same moment, each on its own thread and database connection."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def worker(index, call):
        from django.db import connections
        try:
            barrier.wait()
            results[index] = call()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=pair) for pair in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def assert_one_history(number):
    claim = Claim.objects.get(pk=number)
    events = list(StateEvent.objects.filter(claim_number=number).order_by("id"))
    assert events[0].from_state is None and events[0].to_state == "unverified"
    for earlier, later in zip(events, events[1:]):
        assert later.from_state == earlier.to_state, [(e.label, e.from_state, e.to_state) for e in events]
    assert events[-1].to_state == claim.state
    assert len([e for e in events if e.to_state in ("refuted", "superseded")]) <= 1
    acts = list(ClaimAct.objects.filter(claim_id=number).order_by("id"))
    if claim.state in ("refuted", "superseded"):
        # Nothing was accepted on the claim after it became final.
        assert all(a.message_id <= events[-1].message_id for a in acts)
    verifies = [a for a in acts if a.kind == "verify"]
    assert len(verifies) == len([e for e in events if e.label == "verify"]) <= 1
    assert len([a for a in acts if a.kind == "refute"]) == (claim.state == "refuted")
    return claim, events, acts


def test_concurrent_acts_on_one_claim_leave_one_consistent_history(as_alice, as_bob, as_carol, as_vera,
                                                                    make_token):
    dave = Agent(make_token("dave"))
    thread = as_alice.ask("Concurrency question")
    for round_ in range(ROUNDS):
        claim = assert_claim(as_alice, thread, f"Statement {round_}.")
        calls = [
            lambda: act(as_bob, "attest", claim, thread),
            lambda: act(as_carol, "attest", claim, thread),
            lambda: act(as_bob, "attest", claim, thread, body="again"),
            lambda: act(as_vera, "verify", claim, thread),
            lambda: act(as_vera, "verify", claim, thread, body="again"),
            lambda: act(dave, "refute", claim, thread),
            lambda: as_alice.say("assert", "Replacement.", thread=thread, supersedes=[claim]),
        ]
        responses = run_together(calls)
        statuses = [response.status_code for response in responses]
        assert set(statuses) <= {201, 409}, [response.json() for response in responses]
        refusals = {response.json()["error"]["reason"] for response in responses if response.status_code == 409}
        assert refusals <= {"invalid_transition"}
        number = int(claim.removeprefix("cl_"))
        claim_row, events, acts = assert_one_history(number)
        accepted_acts = [r for r, call in zip(responses, calls[:-1]) if r.status_code == 201]
        assert len(acts) == len(accepted_acts)
        superseded = responses[-1].status_code == 201
        assert (claim_row.state == "superseded") == superseded
        assert (claim_row.state == "refuted") == (responses[5].status_code == 201)


def test_two_lines_completing_a_quorum_at_once_seal_it_once(as_alice, as_bob, as_vera, as_victor, make_token):
    walter = Agent(make_token("walter", ("read", "write", "verify")))
    thread = as_alice.ask("Concurrent quorum")
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    responses = run_together([lambda: verify(as_vera, claim, thread), lambda: verify(as_victor, claim, thread),
                              lambda: verify(walter, claim, thread)])
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201, 201, 409], [response.json() for response in responses]
    refusal = next(response for response in responses if response.status_code == 409).json()["error"]
    assert (refusal["reason"], refusal["detail"]["state"]) == ("invalid_transition", "verified")
    assert Claim.objects.get(pk=int(claim.removeprefix("cl_"))).state == "verified"
    verifications = [event for event in claim_events(claim) if event[0] == "verify"]
    assert [(event[1], event[2]) for event in verifications] == [("supported", "supported"),
                                                               ("supported", "verified")]
    body = read(as_bob, claim)
    assert body["quorum"] == {"have": 2, "need": 2}
    assert body["verified_by"]["identity"] == verifications[-1][3]


def test_one_line_verifying_twice_at_once_counts_once(as_alice, as_bob, as_vera):
    thread = as_alice.ask("Concurrent repeat")
    claim = supported_claim(as_alice, as_bob, thread, quorum=2)
    responses = run_together([lambda: verify(as_vera, claim, thread),
                              lambda: verify(as_vera, claim, thread, **{"from": {"extension": "twin"}})])
    assert sorted(response.status_code for response in responses) == [201, 409]
    body = read(as_bob, claim)
    assert body["state"] == "supported" and body["quorum"] == {"have": 1, "need": 2}
