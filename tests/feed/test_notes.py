"""Notes: every committed write announces itself, and a note wakes exactly the waiters it may concern."""
import asyncio
import json
import threading

import pytest
from django.db import connection, transaction
from django.utils import timezone

from asgiref.sync import async_to_sync

from feed.follow import Subscription
from feed.hub import CHANNEL, EVERYTHING, HUB, raw_connection
from feed.topics import concerns
from forum.actors import Actor
from forum.models import StateEvent, Thread
from forum.tokens import token_revoke, token_update

OPERATOR = Actor.for_operator("tests")


def publish_later(note, seconds=0.3):
    timer = threading.Timer(seconds, HUB.publish, [note])
    timer.start()
    return timer


def test_a_follower_whose_event_loop_closed_is_dropped_and_the_others_are_still_woken():
    loop, woken = asyncio.new_event_loop(), []
    loop.close()
    dead = HUB.subscribe(lambda note: True, lambda: loop.call_soon_threadsafe(print))
    alive = HUB.subscribe(lambda note: True, lambda: woken.append(True))
    try:
        for _ in range(2):
            HUB.publish(EVERYTHING)
        assert woken == [True, True]
        assert dead not in HUB._waiters
    finally:
        HUB.unsubscribe(dead)
        HUB.unsubscribe(alive)


def woken_by(note, topic):
    """Whether a follower of `topic`, on an event loop, is woken within a second of `note`."""
    async def follow():
        subscription = Subscription(asyncio.get_running_loop(), topic)
        try:
            await subscription.woken_within(1)  # the hub wakes everyone once as it starts to listen
            publish_later(note)
            return await subscription.woken_within(1)
        finally:
            subscription.cancel()
    return async_to_sync(follow)()


def test_a_note_that_concerns_a_follower_wakes_it_at_once(db):
    assert woken_by({"kind": "event", "thread": 7}, ("events", 7))


def test_a_note_about_another_thread_leaves_an_event_follower_waiting(db):
    assert not woken_by({"kind": "event", "thread": 8}, ("events", 7))


def test_an_inbox_follower_is_concerned_only_by_threads_now_awaiting_what_it_waits_for():
    concerned = concerns(("inbox", "ainotes:bob", "answer"))
    assert concerned({"kind": "thread", "thread": 1, "act": "answer", "from": "anyone"})
    assert concerned({"kind": "thread", "thread": 1, "act": "answer", "from": "ainotes:bob"})
    assert not concerned({"kind": "thread", "thread": 1, "act": "answer", "from": "ainotes:carol"})
    assert not concerned({"kind": "thread", "thread": 1, "act": "decision", "from": "ainotes:bob"})
    assert not concerned({"kind": "event", "thread": 1})


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
def test_a_committed_ask_announces_its_new_thread_its_message_and_its_event(as_alice, listener):
    thread = int(as_alice.ask("Who hears this?").removeprefix("th_"))
    assert listener() == [{"kind": "thread", "thread": thread, "act": "answer", "from": "anyone"},
                          {"kind": "message", "thread": thread}, {"kind": "event", "thread": thread}]


@pytest.mark.postgres
def test_an_answer_announces_the_thread_now_awaiting_its_asker(as_alice, as_bob, listener):
    thread = as_alice.ask("Who answers?")
    listener()
    assert as_bob.say("answer", "I do.", thread=thread).status_code == 201
    message_note, thread_note, event_note = listener()
    assert message_note == {"kind": "message", "thread": int(thread.removeprefix("th_"))}
    assert thread_note["thread"] == event_note["thread"] == int(thread.removeprefix("th_"))
    assert (thread_note["kind"], event_note["kind"]) == ("thread", "event")
    assert thread_note["act"] != "answer"  # it no longer awaits an answer from anyone


@pytest.mark.postgres
def test_a_note_that_moves_neither_state_nor_awaiting_announces_only_its_message(as_alice, as_bob, listener):
    """A list's followers ignore it (feed.topics); an MCP listener of the thread hears it (§2)."""
    thread = as_alice.ask("Anyone?")
    listener()
    assert as_bob.say("note", "Just a remark.", thread=thread).status_code == 201
    assert listener() == [{"kind": "message", "thread": int(thread.removeprefix("th_"))}]


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
    token_revoke(OPERATOR, bob.pk)
    token_update(OPERATOR, carol.pk, rights={"write"}, label="")  # no longer reads
    token_update(OPERATOR, mod.pk, rights={"read", "write"}, label="")  # no longer locks
    assert listener() == [EVERYTHING] * 3  # one per committed change


@pytest.mark.postgres
def test_a_token_that_keeps_its_access_wakes_nobody(carol, listener):
    token_update(OPERATOR, carol.pk, rights={"read", "write", "lock"}, label="Carol, now a moderator")
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
