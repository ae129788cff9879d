"""Notes: every committed write announces itself, and a note wakes exactly the waiters it may concern."""
import json
import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from forum.feed import concerns_events, concerns_inbox, wait_for
from forum.feed_hub import CHANNEL, EVERYTHING, HUB, raw_connection
from forum.models import StateEvent, Thread
from forum.tokens import token_revoke, token_update


def publish_later(note, seconds=0.3):
    timer = threading.Timer(seconds, HUB.publish, [note])
    timer.start()
    return timer


def test_a_note_that_concerns_a_waiter_wakes_it_at_once(db):
    answers = iter([[], ["new"]])
    publish_later({"kind": "event", "thread": 7})
    started = time.monotonic()
    assert wait_for(lambda: next(answers), 10, concerns_events(7)) == ["new"]
    assert time.monotonic() - started < 2


def test_a_note_about_another_thread_leaves_an_event_waiter_waiting(db):
    publish_later({"kind": "event", "thread": 8}, 0.1)
    started = time.monotonic()
    assert wait_for(lambda: [], 1, concerns_events(7)) == []
    assert time.monotonic() - started >= 1


def test_an_inbox_waiter_is_concerned_only_by_threads_now_awaiting_what_it_waits_for():
    concerns = concerns_inbox("ainotes:bob", "answer")
    assert concerns({"kind": "thread", "thread": 1, "act": "answer", "from": "anyone"})
    assert concerns({"kind": "thread", "thread": 1, "act": "answer", "from": "ainotes:bob"})
    assert not concerns({"kind": "thread", "thread": 1, "act": "answer", "from": "ainotes:carol"})
    assert not concerns({"kind": "thread", "thread": 1, "act": "decision", "from": "ainotes:bob"})
    assert not concerns({"kind": "event", "thread": 1})


@pytest.fixture
def listener(transactional_db):
    """A LISTEN connection of its own, as each server process keeps; notes reach it only once committed.
    Returns hear(): the notes that arrived since the last call."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no channel between connections")
    with raw_connection() as listening:
        listening.execute(f"LISTEN {CHANNEL}")
        yield lambda: [json.loads(note.payload) for note in listening.notifies(timeout=0.5)]


@pytest.mark.postgres
def test_a_committed_ask_announces_its_new_thread_and_its_event(as_alice, listener):
    thread = int(as_alice.ask("Who hears this?").removeprefix("th_"))
    assert listener() == [{"kind": "thread", "thread": thread, "act": "answer", "from": "anyone"},
                          {"kind": "event", "thread": thread}]


@pytest.mark.postgres
def test_an_answer_announces_the_thread_now_awaiting_its_asker(as_alice, as_bob, listener):
    thread = as_alice.ask("Who answers?")
    listener()
    assert as_bob.say("answer", "I do.", thread=thread).status_code == 201
    thread_note, event_note = listener()
    assert thread_note["thread"] == event_note["thread"] == int(thread.removeprefix("th_"))
    assert (thread_note["kind"], event_note["kind"]) == ("thread", "event")
    assert thread_note["act"] != "answer"  # it no longer awaits an answer from anyone


@pytest.mark.postgres
def test_a_note_that_moves_neither_state_nor_awaiting_announces_nothing(as_alice, as_bob, listener):
    thread = as_alice.ask("Anyone?")
    listener()
    assert as_bob.say("note", "Just a remark.", thread=thread).status_code == 201
    assert listener() == []


@pytest.mark.postgres
def test_a_rolled_back_write_announces_nothing(as_alice, listener):
    thread = Thread.objects.get(pk=int(as_alice.ask("Undone?").removeprefix("th_")))
    listener()
    with pytest.raises(RuntimeError), transaction.atomic():
        StateEvent.objects.create(thread=thread, to_state="closed", label="close", origin="llm",
                                  actor="ainotes:alice", at=timezone.now())
        raise RuntimeError("the write fails after its event row")
    assert listener() == []


@pytest.mark.postgres
def test_a_token_that_loses_access_wakes_every_waiter(bob, carol, mod, listener):
    """So that open streams check their callers at once rather than at their next heartbeat."""
    token_revoke(bob)
    token_update(carol, rights={"write"}, label="")  # no longer reads
    token_update(mod, rights={"read", "write"}, label="")  # no longer locks
    assert listener() == [EVERYTHING] * 3  # one per committed change


@pytest.mark.postgres
def test_a_token_that_keeps_its_access_wakes_nobody(carol, listener):
    token_update(carol, rights={"read", "write", "lock"}, label="Carol, now a moderator")
    assert listener() == []


def test_on_sqlite_a_committed_write_wakes_this_process_waiters(as_alice, django_capture_on_commit_callbacks):
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's notes come from the database (see the tests above)")
    woken = threading.Event()
    waiter = HUB.subscribe(lambda note: False, woken.set)  # concerned by no particular note
    try:
        with django_capture_on_commit_callbacks(execute=True):
            as_alice.ask("Who hears this?")
    finally:
        HUB.unsubscribe(waiter)
    assert woken.is_set()


def test_a_refused_write_announces_nothing(as_mallory, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        assert as_mallory.say("ask", "I may not write").status_code == 403
    assert callbacks == []
