"""§9: a confirmed closed or side-state thread accepts nothing but a reopen by someone entitled to it."""
import pytest

from tests.forum.expect import accepted, nothing_stored, refused
from tests.spec import SIDE_STATES

TERMINAL = ("closed",) + SIDE_STATES
KINDS = ["ask", "note", "answer", "decide", "close", "defer", "obsolete", "reject"]


@pytest.mark.parametrize("state", TERMINAL)
@pytest.mark.parametrize("kind", KINDS)
def test_a_confirmed_terminal_thread_refuses_every_act_but_reopen(state, kind, thread_in, as_mod):
    thread = thread_in(state, confirmed=True)
    with nothing_stored():
        refused(as_mod.say(kind, "late", thread=thread), 409, "thread_locked")


@pytest.mark.parametrize("state", TERMINAL)
def test_a_confirmed_terminal_thread_refuses_the_human_too(state, thread_in, as_human):
    thread = thread_in(state, confirmed=True)
    with nothing_stored():
        refused(as_human.say("note", "late", thread=thread), 409, "thread_locked")


def test_a_proposed_close_does_not_lock(thread_in, as_carol):
    thread = thread_in("closed")
    accepted(as_carol.say("note", "still talking", thread=thread))


def test_the_creator_reopens_her_confirmed_closed_thread_as_a_proposal(thread_in, as_alice):
    thread = thread_in("closed", confirmed=True)
    reopened = accepted(as_alice.say("reopen", "not done yet", thread=thread))["thread"]
    assert (reopened["state"], reopened["state_confirmed_at"]) == ("open", None)


@pytest.mark.parametrize("state", TERMINAL)
def test_a_lock_holder_reopens_any_confirmed_terminal_thread(state, thread_in, as_mod):
    thread = thread_in(state, confirmed=True)
    reopened = accepted(as_mod.say("reopen", "back to work", thread=thread))["thread"]
    assert (reopened["state"], reopened["state_confirmed_by"]) == ("open", as_mod.identity)


@pytest.mark.parametrize("state", TERMINAL)
def test_the_human_reopens_any_confirmed_terminal_thread(state, thread_in, as_human):
    thread = thread_in(state, confirmed=True)
    reopened = accepted(as_human.say("reopen", "back to work", thread=thread))["thread"]
    assert (reopened["state"], reopened["state_origin"]) == ("open", "user")


def test_a_reopen_by_another_agent_is_refused_as_locked(thread_in, as_bob):
    """Reading: §9 lets only a reopen "by someone entitled to it" through a lock, and thread_locked comes
    before thread_authority_missing in §13's order."""
    thread = thread_in("closed", confirmed=True)
    with nothing_stored():
        refused(as_bob.say("reopen", "mine now", thread=thread), 409, "thread_locked")


@pytest.mark.parametrize("state", SIDE_STATES)
def test_the_creator_cannot_reopen_her_confirmed_side_state_thread(state, thread_in, as_alice):
    thread = thread_in(state, confirmed=True)
    with nothing_stored():
        refused(as_alice.say("reopen", "please", thread=thread), 409, "thread_locked")


def test_a_reopened_thread_accepts_messages_again(thread_in, as_mod, as_carol):
    thread = thread_in("rejected", confirmed=True)
    accepted(as_mod.say("reopen", "reconsidered", thread=thread))
    accepted(as_carol.say("answer", "here is one", thread=thread))
