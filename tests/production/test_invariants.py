"""The invariant checks themselves must catch what they name: a check that cannot fail would let a load run
pass whatever the server did. A violation is forged with the raw ORM, as a faulty server would store it."""
import pytest
from django.utils import timezone

from forum.models import Message
from tests.production.invariants import nothing_accepted_after_a_confirmed_close, thread_chains_consistent


def accepted(response):
    assert response.status_code in (200, 201), response.json()
    return response.json()


def closed_by_its_creator_then_confirmed(as_alice, as_bob, as_mod):
    thread = as_alice.ask()
    accepted(as_bob.say("answer", "forty-two", thread=thread))
    accepted(as_alice.say("close", "settled", thread=thread))
    accepted(as_mod.post(f"/api/v1/threads/{thread}/confirm"))
    return thread


def closed_by_a_lock_holder(as_alice, as_bob, as_mod):
    thread = as_alice.ask()
    accepted(as_bob.say("answer", "forty-two", thread=thread))
    accepted(as_mod.say("close", "settled", thread=thread))
    return thread


def slip_a_note_into(thread, author):
    return Message.objects.create(thread_id=int(thread[3:]), kind="note", body="slipped past the lock",
                                  author_identity=author.identity, author_kind="llm", created_at=timezone.now())


@pytest.mark.parametrize("close", [closed_by_its_creator_then_confirmed, closed_by_a_lock_holder])
def test_a_message_stored_after_a_confirmed_close_is_reported(close, as_alice, as_bob, as_mod, bob):
    thread = close(as_alice, as_bob, as_mod)
    assert nothing_accepted_after_a_confirmed_close() == []
    slipped = slip_a_note_into(thread, bob)
    assert nothing_accepted_after_a_confirmed_close() == [
        f"{thread}: msg_{slipped.pk} (note) accepted after a confirmed closed"]


def test_a_message_after_a_reopen_that_followed_the_confirmed_close_is_not_reported(as_alice, as_bob, as_mod):
    thread = closed_by_its_creator_then_confirmed(as_alice, as_bob, as_mod)
    accepted(as_alice.say("reopen", "one more thing", thread=thread))
    accepted(as_bob.say("note", "noted", thread=thread))
    assert nothing_accepted_after_a_confirmed_close() == []
    assert thread_chains_consistent() == []
