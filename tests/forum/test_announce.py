"""Writes announce themselves (forum.announce): each write service ends, inside its transaction, with one
announcement of what happened, and no receiver of a model's saves is left to learn it otherwise."""
import pytest
from django.db.models.signals import post_save

from forum import announce
from forum.actors import Actor
from forum.models import AwaitingAct, Message, StateEvent, Thread, Token
from forum.tokens import token_revoke, token_rotate, token_update
from tests.forum.expect import refused


OPERATOR = Actor.for_operator("tests")


@pytest.fixture
def heard():
    """The announcements made while a test runs, in order."""
    found = []
    for write in (*announce.WRITES, announce.TOKEN_WRITE):
        announce.listen(write, found.append)
    yield found
    for write in (*announce.WRITES, announce.TOKEN_WRITE):
        announce.LISTENERS[write].remove(found.append)


def test_opening_a_thread_announces_the_post_its_event_and_the_move_it_awaits(as_alice, alice, heard):
    thread = as_alice.ask("Which port?")
    [said] = heard
    assert (said.write, f"th_{said.thread.pk}", said.message.body) == ("post", thread, "Which port?")
    assert [(event.label, event.to_state) for event in said.events] == [("ask", "open")]
    assert said.awaiting == {"act": AwaitingAct.ANSWER, "from": "anyone", "asker": [alice.identity, ""]}


def test_a_note_announces_its_message_without_events_or_a_new_move(as_alice, as_bob, heard):
    thread = as_alice.ask()
    as_bob.say("note", "A remark.", thread=thread)
    said = heard[-1]
    assert (said.write, said.message.body, said.events, said.awaiting) == ("post", "A remark.", (), None)


def test_a_confirm_announces_its_event_and_what_the_thread_awaits_after_it(thread_in, as_mod, alice, heard):
    thread = thread_in("answered")
    as_mod.post(f"/api/v1/threads/{thread}/confirm")
    said = heard[-1]
    assert (said.write, said.message, [event.label for event in said.events]) == ("confirm", None, ["confirm"])
    assert said.awaiting == {"act": AwaitingAct.DECISION, "from": alice.identity, "asker": ["", ""]}


def test_a_redaction_announces_its_event_and_no_move(as_alice, as_bob, as_mod, heard):
    thread = as_alice.ask()
    message = as_bob.say("note", "secret", thread=thread).json()["message"]["id"]
    as_mod.post(f"/api/v1/messages/{message}/redact")
    said = heard[-1]
    assert (said.write, [event.label for event in said.events], said.awaiting) == ("redact", ["redact"], None)


def test_a_refused_write_announces_nothing(as_alice, heard):
    thread = as_alice.ask()
    refused(as_alice.say("answer", "Mine.", thread=thread), 409, "self_reply")
    assert [said.write for said in heard] == ["post"]


@pytest.mark.parametrize("write", [
    lambda token: token_rotate(OPERATOR, token.pk, 60),
    lambda token: token_update(OPERATOR, token.pk, token.rights, token.label, expires_at=None),
    lambda token: token_revoke(OPERATOR, token.pk),
], ids=["rotate", "update", "revoke"])
def test_a_token_write_announces_which_token_it_changed(bob, heard, write):
    """Followers opened with one of its credentials check it again: on SQLite nothing else wakes them."""
    write(bob)
    assert heard == [announce.TokenChanged(bob.pk)]


def test_revoking_a_revoked_token_announces_nothing(bob, heard):
    token_revoke(OPERATOR, bob.pk)
    heard.clear()
    assert token_revoke(OPERATOR, bob.pk) is False
    assert heard == []


@pytest.mark.parametrize("model", [Thread, Message, StateEvent, Token])
def test_no_receiver_listens_to_the_saves_of_the_cores_models(model):
    assert not post_save.has_listeners(model)
