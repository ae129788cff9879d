"""§8: proposals and confirmed marks, confirm and dismiss."""
import pytest

from tests.forum.expect import accepted, nothing_stored, refused
from tests.spec import SIDE_STATES


def confirm(agent, thread, operation="confirm"):
    return agent.post(f"/api/v1/threads/{thread}/{operation}")


def test_a_new_thread_is_open_and_confirmed_with_the_creators_origin(as_alice, read_thread):
    thread = read_thread(as_alice.ask())
    assert (thread["state"], thread["state_origin"], thread["state_confirmed_by"]) == ("open", "llm", as_alice.identity)
    assert thread["state_confirmed_at"] == thread["created_at"]


def test_a_thread_opened_by_the_human_has_the_user_origin(as_human, read_thread):
    thread = read_thread(as_human.ask())
    assert (thread["state_origin"], thread["state_confirmed_by"]) == ("user", "human:hannah")


def test_a_models_answer_is_a_proposal(thread_in, read_thread):
    thread = read_thread(thread_in("answered"))
    assert (thread["state"], thread["state_origin"], thread["state_confirmed_at"]) == ("answered", "llm", None)


def test_confirm_binds_the_proposal_and_stamps_its_event(thread_in, as_mod, events_of):
    thread = thread_in("decided")
    confirmed = accepted(confirm(as_mod, thread), 200)
    assert confirmed["message"] is None
    state = confirmed["thread"]
    assert (state["state"], state["state_origin"], state["state_confirmed_by"]) == ("decided", "llm", as_mod.identity)
    proposal, record = events_of(thread)[-2:]
    assert (proposal["label"], proposal["confirmed_by"]) == ("decide", as_mod.identity)
    assert proposal["confirmed_at"] == state["state_confirmed_at"]
    assert (record["label"], record["from_state"], record["to_state"]) == ("confirm", "decided", "decided")


def test_a_confirmed_close_locks_the_thread(thread_in, as_mod, as_carol):
    thread = thread_in("closed")
    accepted(confirm(as_mod, thread), 200)
    refused(as_carol.say("note", "late", thread=thread), 409, "thread_locked")


@pytest.mark.parametrize("state,restored", [("answered", "open"), ("decided", "open"), ("closed", "open"),
                                            *[(side, "open") for side in SIDE_STATES]])
def test_dismiss_returns_a_thread_to_its_last_confirmed_state(state, restored, thread_in, as_mod, events_of):
    thread = thread_in(state)
    dismissed = accepted(confirm(as_mod, thread, "dismiss"), 200)["thread"]
    assert (dismissed["state"], dismissed["state_origin"], dismissed["state_confirmed_by"]) == (
        restored, "llm", "ainotes:alice")
    last = events_of(thread)[-1]
    assert (last["label"], last["from_state"], last["to_state"], last["actor"]) == (
        "dismiss", state, restored, as_mod.identity)


def test_dismiss_returns_to_a_confirmed_answered_state_not_to_open(thread_in, as_alice, as_mod):
    thread = thread_in("answered", confirmed=True)
    accepted(as_alice.say("close", "done", thread=thread))
    dismissed = accepted(confirm(as_mod, thread, "dismiss"), 200)["thread"]
    assert (dismissed["state"], dismissed["state_origin"], dismissed["state_confirmed_by"]) == (
        "answered", "llm", as_mod.identity)


def test_dismiss_of_a_creators_reopen_returns_to_the_confirmed_close(thread_in, as_alice, as_mod, as_carol):
    thread = thread_in("closed", confirmed=True)
    accepted(as_alice.say("reopen", "one more thing", thread=thread))
    assert accepted(confirm(as_mod, thread, "dismiss"), 200)["thread"]["state"] == "closed"
    refused(as_carol.say("note", "late", thread=thread), 409, "thread_locked")


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
@pytest.mark.parametrize("state", ["open", "answered", "decided"])
def test_nothing_to_confirm_when_the_state_is_already_confirmed(operation, state, thread_in, as_mod):
    thread = thread_in(state, confirmed=True)
    with nothing_stored():
        refused(confirm(as_mod, thread, operation), 409, "nothing_to_confirm")


@pytest.mark.parametrize("operation", ["confirm", "dismiss"])
@pytest.mark.parametrize("state", ["closed", *SIDE_STATES])
def test_nothing_to_confirm_on_a_confirmed_terminal_thread_never_thread_locked(operation, state, thread_in, as_mod):
    thread = thread_in(state, confirmed=True)
    with nothing_stored():
        refused(confirm(as_mod, thread, operation), 409, "nothing_to_confirm")


def test_a_proposal_confirmed_once_cannot_be_confirmed_twice(thread_in, as_mod, as_human):
    thread = thread_in("decided")
    accepted(confirm(as_mod, thread), 200)
    with nothing_stored():
        refused(confirm(as_human, thread), 409, "nothing_to_confirm")


def test_confirm_of_an_unknown_thread_is_not_found(as_mod, db):
    with nothing_stored():
        error = refused(confirm(as_mod, "th_999999"), 404, "not_found")
    assert error["detail"]["object"] == "thread"
