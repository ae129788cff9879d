"""§6 and §14.1: `awaiting`, the one open move, after every act, confirm and dismiss; and each message
records the `awaiting` it left."""
import pytest

from tests.forum.expect import accepted
from tests.spec import SIDE_ACT, SIDE_STATES


def awaiting(written):
    return written["thread"]["awaiting"]


def left_by(written):
    """The awaiting a written message left: on the message and on the thread alike."""
    assert written["message"]["awaiting"] == written["thread"]["awaiting"]
    return written["message"]["awaiting"]


def test_an_opening_ask_awaits_an_answer_from_anyone(as_alice):
    written = accepted(as_alice.say("ask", "Which port?"))
    assert left_by(written) == {"act": "answer", "from": "anyone", "since": written["message"]["id"]}


def test_a_follow_up_ask_awaits_an_answer_from_the_parents_author(thread_in, as_bob, as_carol):
    thread = thread_in("open")
    answer = accepted(as_bob.say("answer", "8000", thread=thread))["message"]["id"]
    written = accepted(as_carol.say("ask", "Why 8000?", thread=thread, parent=answer))
    assert left_by(written) == {"act": "answer", "from": as_bob.identity, "since": written["message"]["id"]}


def test_an_answer_awaits_a_decision_from_the_creator(thread_in, as_bob, as_alice):
    thread = thread_in("open")
    written = accepted(as_bob.say("answer", "8000", thread=thread))
    assert left_by(written) == {"act": "decision", "from": as_alice.identity, "since": written["message"]["id"]}


def test_a_later_answer_also_awaits_a_decision_from_the_creator(thread_in, as_carol, as_alice):
    thread = thread_in("answered", confirmed=True)
    written = accepted(as_carol.say("answer", "or 8080", thread=thread))
    assert left_by(written) == {"act": "decision", "from": as_alice.identity, "since": written["message"]["id"]}


def test_a_note_changes_nothing(thread_in, as_bob, read_thread):
    thread = thread_in("open")
    before = read_thread(thread)["awaiting"]
    written = accepted(as_bob.say("note", "interesting", thread=thread))
    assert left_by(written) == before


@pytest.mark.parametrize("kind", ["decide", "close", *SIDE_ACT.values()])
def test_a_proposed_mark_awaits_confirmation_from_a_moderator(kind, thread_in, as_alice):
    thread = thread_in("answered")
    written = accepted(as_alice.say(kind, "marked", thread=thread))
    assert left_by(written) == {"act": "confirmation", "from": "moderator", "since": written["message"]["id"]}


def test_a_confirmed_decide_awaits_the_close_from_the_creator(thread_in, as_mod, as_alice):
    thread = thread_in("open")
    written = accepted(as_mod.say("decide", "settled", thread=thread))
    assert left_by(written) == {"act": "close", "from": as_alice.identity, "since": written["message"]["id"]}


@pytest.mark.parametrize("kind", ["close", *SIDE_ACT.values()])
def test_a_confirmed_terminal_mark_awaits_nothing(kind, thread_in, as_mod):
    thread = thread_in("answered")
    assert left_by(accepted(as_mod.say(kind, "done", thread=thread)))["act"] is None


@pytest.mark.parametrize("state", ["closed", *SIDE_STATES])
def test_a_reopen_awaits_an_answer_from_anyone(state, thread_in, as_mod):
    thread = thread_in(state)
    written = accepted(as_mod.say("reopen", "again", thread=thread))
    assert left_by(written) == {"act": "answer", "from": "anyone", "since": written["message"]["id"]}


@pytest.mark.parametrize("state,expected", [("answered", "decision"), ("decided", "close"), ("closed", None),
                                            *[(side, None) for side in SIDE_STATES]])
def test_confirm_sets_what_the_confirmed_state_implies(state, expected, thread_in, as_mod, as_alice):
    thread = thread_in(state)
    result = accepted(as_mod.post(f"/api/v1/threads/{thread}/confirm"), 200)
    assert awaiting(result)["act"] == expected
    assert awaiting(result)["from"] == (as_alice.identity if expected else None)


@pytest.mark.parametrize("state", ["answered", "decided", "closed", *SIDE_STATES])
def test_dismiss_back_to_open_awaits_an_answer_from_anyone(state, thread_in, as_mod):
    thread = thread_in(state)
    result = accepted(as_mod.post(f"/api/v1/threads/{thread}/dismiss"), 200)
    assert (awaiting(result)["act"], awaiting(result)["from"]) == ("answer", "anyone")


def test_dismiss_back_to_a_confirmed_answered_state_awaits_a_decision(thread_in, as_alice, as_mod):
    thread = thread_in("answered", confirmed=True)
    accepted(as_alice.say("close", "done", thread=thread))
    result = accepted(as_mod.post(f"/api/v1/threads/{thread}/dismiss"), 200)
    assert (awaiting(result)["act"], awaiting(result)["from"]) == ("decision", as_alice.identity)


@pytest.mark.parametrize("kind", ["answer", "ask", "note"])
def test_replies_leave_a_pending_confirmation_alone(kind, thread_in, as_carol, read_thread):
    thread = thread_in("decided")
    before = read_thread(thread)["awaiting"]
    assert before["act"] == "confirmation"
    assert left_by(accepted(as_carol.say(kind, "meanwhile", thread=thread))) == before


def test_every_message_keeps_the_awaiting_it_left(thread_in, as_bob, as_alice, as_mallory):
    thread = thread_in("open")
    answer = accepted(as_bob.say("answer", "8000", thread=thread))["message"]
    accepted(as_alice.say("decide", "8000", thread=thread))
    stored = as_mallory.get(f"/api/v1/messages/{answer['id']}").json()["message"]
    assert stored["awaiting"] == {"act": "decision", "from": as_alice.identity, "since": answer["id"]}
