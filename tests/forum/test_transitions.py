"""§5's transition table and §9's state machine, cell by cell: replies by carol, marks by mod (who holds
every authority, so only the table decides)."""
import pytest

from tests.forum.expect import accepted, nothing_stored, refused
from tests.spec import ILLEGAL, POSTED, SIDE_ACT, SIDE_STATES, TRANSITIONS

# Through the API every column but open is a proposal; one side state stands for the three here, as the
# policy's own table test (test_policies) covers every cell.
COLUMNS = ["open", "answered", "decided", "closed", "deferred"]
CELLS = [(kind, state, outcome) for (kind, state), outcome in TRANSITIONS.items() if state in COLUMNS]
REPLIES = {"ask", "note", "answer"}


@pytest.mark.parametrize("kind,state,outcome", CELLS, ids=[f"{k}-on-{s}" for k, s, _ in CELLS])
def test_each_act_in_each_state_follows_the_transition_table(
        kind, state, outcome, thread_in, as_carol, as_mod, read_thread, events_of):
    thread = thread_in(state)
    speaker = as_carol if kind in REPLIES else as_mod
    events_before = events_of(thread)
    if outcome == ILLEGAL:
        with nothing_stored():
            refused(speaker.say(kind, "try", thread=thread), 409, "invalid_transition")
        return
    written = accepted(speaker.say(kind, "try", thread=thread))
    events_after = events_of(thread)
    if outcome == POSTED:
        assert written["thread"]["state"] == state
        assert events_after == events_before
    else:
        assert written["thread"]["state"] == outcome
        new_event = events_after[-1]
        assert len(events_after) == len(events_before) + 1
        assert (new_event["from_state"], new_event["to_state"], new_event["label"]) == (state, outcome, kind)
    assert read_thread(thread)["state"] == written["thread"]["state"]


@pytest.mark.parametrize("side", SIDE_STATES)
def test_it_refuses_a_side_state_mark_equal_to_the_pending_one(side, thread_in, as_alice):
    thread = thread_in(side)
    with nothing_stored():
        error = refused(as_alice.say(SIDE_ACT[side], "again", thread=thread), 409, "invalid_transition")
    assert "confirm" in error["message"]


def test_it_refuses_a_close_equal_to_the_pending_close_and_says_use_confirm(thread_in, as_alice):
    thread = thread_in("closed")
    with nothing_stored():
        error = refused(as_alice.say("close", "again", thread=thread), 409, "invalid_transition")
    assert "confirm" in error["message"]


def test_it_refuses_close_on_an_open_thread_as_three_steps_at_once(thread_in, as_alice):
    thread = thread_in("open")
    with nothing_stored():
        error = refused(as_alice.say("close", "done", thread=thread), 409, "invalid_transition")
    assert "obsolete" in error["message"]


def test_a_re_decide_records_a_new_event_from_decided_to_decided(thread_in, as_alice, events_of):
    thread = thread_in("decided", confirmed=True)
    accepted(as_alice.say("decide", "changed my mind", thread=thread))
    last = events_of(thread)[-1]
    assert (last["from_state"], last["to_state"], last["label"]) == ("decided", "decided", "decide")


def test_the_forward_path_open_answered_decided_closed_takes_one_step_each(
        thread_in, as_bob, as_alice, as_mod, events_of):
    thread = thread_in("open")
    accepted(as_bob.say("answer", "8000", thread=thread))
    accepted(as_alice.say("decide", "8000", thread=thread))
    accepted(as_alice.say("close", "done", thread=thread))
    chain = [(event["from_state"], event["to_state"]) for event in events_of(thread)]
    assert chain == [(None, "open"), ("open", "answered"), ("answered", "decided"), ("decided", "closed")]


def test_decide_on_an_open_thread_takes_two_steps_at_once(thread_in, as_alice):
    thread = thread_in("open")
    assert accepted(as_alice.say("decide", "settled", thread=thread))["thread"]["state"] == "decided"


def test_close_on_an_answered_thread_takes_two_steps_at_once(thread_in, as_alice):
    thread = thread_in("answered")
    assert accepted(as_alice.say("close", "settled", thread=thread))["thread"]["state"] == "closed"


def test_later_acts_start_from_a_proposed_state(thread_in, as_alice, read_thread):
    thread = thread_in("decided")
    assert read_thread(thread)["state_confirmed_at"] is None
    assert accepted(as_alice.say("close", "done", thread=thread))["thread"]["state"] == "closed"
